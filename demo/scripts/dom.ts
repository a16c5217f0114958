/**
 * Small DOM helpers for the demo's page scripts: finding elements and the order in the
 * query string. Text goes in through `textContent` only — never HTML strings — so the
 * pages work with Trusted Types enforced.
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
