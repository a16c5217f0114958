/**
 * The order route's requests of `<pg-card-form>` (`order-details.ts`), loaded on demand:
 * asking for the order (total, saved cards), taking the answer (the first card that can
 * pay is chosen, one click from paying; the saved-card view is loaded when there are cards
 * to show or one can be saved), and removing a saved card. Imports nothing at run time:
 * the protocol's constants come with the controller (`kit`).
 */
import type {OrderResponse, RemoveSavedCardRequest} from '../../protocol/checkout.js';
import type {OrderDetails} from '../order-details.js';

/** POSTs `body` to the companion's `route` beside the pay route; its order answer, or undefined. */
async function post(
  c: OrderDetails,
  route: string,
  body: unknown,
): Promise<OrderResponse | undefined> {
  try {
    const res = await fetch(c.kit.siblingRoute(c.host.endpoint, route), {
      method: 'POST',
      headers: {'Content-Type': 'application/json', ...c.kit.headers()},
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
    // An error's body is let go rather than left unread: the connection is released, and
    // the page's network goes idle (pg-checkout-verify-page waits for that).
    if (!res.ok) await res.body?.cancel();
    const json = res.ok ? ((await res.json()) as OrderResponse) : undefined;
    return typeof json?.amount === 'string' ? json : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the server's answer for the form's order. */
async function show(c: OrderDetails, details: OrderResponse | undefined): Promise<void> {
  if (details?.orderRef !== c.host.orderRef) return;
  c.details = details;
  const cards = details.savedCards;
  if (!cards?.some((s) => s.id === c.selected && !s.expired)) {
    c.selected = cards?.find((s) => !s.expired)?.id ?? '';
  }
  if (cards && (cards.length > 0 || c.host.offerSaveCard)) {
    await c.loadView();
  }
  // The saved cards show their brands: the marks follow (the form's own lazy load).
  if (cards?.length) void c.kit.loadBrandMarks().then((ok) => ok && c.host.requestUpdate());
  c.host.requestUpdate();
}

/** Asks the order route about the form's order. */
export async function ask(c: OrderDetails): Promise<void> {
  const {orderRef, offerSaveCard} = c.host;
  await show(c, await post(c, c.kit.routes.order, {orderRef, savedCards: offerSaveCard}));
}

/** Removes a saved card of the order's customer; true when the server did. */
export async function remove(c: OrderDetails, savedCardId: string): Promise<boolean> {
  const body: RemoveSavedCardRequest = {orderRef: c.host.orderRef, savedCardId};
  const answer = await post(c, c.kit.routes.removeSavedCard, body);
  if (answer && c.selected === savedCardId) c.selected = '';
  await show(c, answer);
  return answer !== undefined;
}
