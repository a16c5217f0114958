/**
 * Small DOM helpers for the demo's page scripts: finding elements, the order in the query
 * string, and the order summary of the checkout and result pages. Text goes in through
 * `textContent` only — never HTML strings — so the pages work with Trusted Types enforced.
 */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return el as T;
}

/** The `order` query parameter, when it looks like one of the shop's order references. */
export function orderFromQuery(): string | undefined {
  const ref = new URLSearchParams(location.search).get('order') ?? '';
  return /^ord-[0-9a-f]{12}$/.test(ref) ? ref : undefined;
}

export interface OrderSummary {
  orderRef: string;
  description: string;
  amount: string;
  currency: string;
  kind: 'purchase' | 'auth' | 'subscription';
  paid: boolean;
  schedule?: string;
}

export async function fetchOrder(orderRef: string): Promise<OrderSummary | undefined> {
  const res = await fetch(`/api/orders/${encodeURIComponent(orderRef)}`, {
    headers: {Accept: 'application/json'},
  });
  return res.ok ? ((await res.json()) as OrderSummary) : undefined;
}

/** Fills `[data-field]` cells of a summary list. */
export function showSummary(list: HTMLElement, order: OrderSummary): void {
  const values: Record<string, string> = {
    orderRef: order.orderRef,
    description: order.description,
    total: `${order.amount} ${order.currency}`,
  };
  for (const cell of list.querySelectorAll<HTMLElement>('[data-field]')) {
    cell.textContent = values[cell.dataset['field'] ?? ''] ?? '';
  }
  list.hidden = false;
}
