/**
 * Small DOM helpers for the demo's page scripts. Nodes are built with `textContent` and
 * attributes only — never HTML strings — so the pages work with Trusted Types enforced.
 */

type Attrs = Record<string, string | number | boolean | undefined | EventListener>;
export type Child = Node | string | number | null | undefined | false;

/** Creates an element: `h('td', {class: 'mono'}, 'text', h('span', null, '…'))`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

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
