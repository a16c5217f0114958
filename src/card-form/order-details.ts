/**
 * What `<pg-card-form>` learns from the companion about its order (`POST /order`, with
 * `order-details` or `offer-save-card`): the total the server charges — shown on the Pay
 * button over the `amount` and `currency` attributes, which stay the fallback until the
 * answer arrives or when none comes — and, with the saved-card offer on, the customer's
 * saved cards (opaque ids: the token never reaches the browser). It holds the customer's
 * choice (a saved card or a new one, and the consent to save). The choice's markup and
 * removal are a module of their own (`saved-cards/saved-cards-view.ts`), loaded only when
 * there are saved cards to show or a card can be saved. That module imports nothing: this
 * controller hands it Lit's `html`, the card rules and the brand marks, so it loads like a
 * locale table.
 */
import {html, nothing, type ReactiveController, type ReactiveControllerHost} from 'lit';
import {
  CHECKOUT_HEADER,
  CHECKOUT_PROTOCOL_VERSION,
  CHECKOUT_ROUTES,
  type OrderResponse,
} from '../protocol/checkout.js';
import type {CheckoutMessages} from '../i18n/messages.js';
import {brandMark} from './brand-marks.js';
import {normaliseNumber} from '../validation/card.js';
import {siblingRoute} from './three-ds-handoff.js';

/** The form as this controller sees it. */
export interface OrderDetailsHost extends ReactiveControllerHost, HTMLElement {
  endpoint: string;
  orderRef: string;
  orderDetails: boolean;
  offerSaveCard: boolean;
  disabled: boolean;
}

/** What the lazy view module is given to render with. */
export const VIEW_KIT = {html, nothing, brandMark, normaliseNumber, post: postCheckout};

/** POSTs `body` to the companion's `route` beside the pay route; its order answer, or undefined. */
async function postCheckout(
  endpoint: string,
  route: string,
  body: unknown,
): Promise<OrderResponse | undefined> {
  try {
    const res = await fetch(siblingRoute(endpoint, route), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
      },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
    const json = res.ok ? ((await res.json()) as OrderResponse) : undefined;
    return typeof json?.amount === 'string' ? json : undefined;
  } catch {
    return undefined;
  }
}

export class OrderDetails implements ReactiveController {
  readonly host: OrderDetailsHost;
  /** The server's answer for the current order. */
  details: OrderResponse | undefined;
  /** The saved card to pay with; `''`: a new card. */
  selected = '';
  /** The customer ticked "Save this card for next time". */
  consent = false;
  /** The saved card whose removal awaits confirmation. */
  removing = '';
  /** A short notice of the choice (a card removed), read out politely. */
  notice = '';
  view: typeof import('./saved-cards/saved-cards-view.js') | undefined;
  #asked = '';

  constructor(host: OrderDetailsHost) {
    this.host = host;
    host.addController(this);
  }

  hostUpdated(): void {
    const {endpoint, orderRef, orderDetails, offerSaveCard} = this.host;
    const key = `${endpoint} ${orderRef} ${offerSaveCard}`;
    if (!(orderDetails || offerSaveCard) || !endpoint || !orderRef || key === this.#asked) return;
    this.#asked = key;
    void this.show(
      postCheckout(endpoint, CHECKOUT_ROUTES.order, {orderRef, savedCards: offerSaveCard}),
    );
  }

  /** Takes the server's answer: the first card that can pay is chosen, one click from paying. */
  async show(answer: Promise<OrderResponse | undefined>): Promise<void> {
    const details = await answer;
    if (details?.orderRef !== this.host.orderRef) return;
    this.details = details;
    const cards = details.savedCards;
    if (!cards?.some((c) => c.id === this.selected && !c.expired)) {
      this.selected = cards?.find((c) => !c.expired)?.id ?? '';
    }
    if (cards && (cards.length > 0 || this.host.offerSaveCard)) {
      this.view ??= await import('./saved-cards/saved-cards-view.js');
    }
    this.host.requestUpdate();
  }

  /** The saved-card choice (`choice`, above the card fields) or the consent box (`offer`). */
  render(t: CheckoutMessages, part: 'choice' | 'offer') {
    return this.view ? this.view[part](this, t, VIEW_KIT) : nothing;
  }
}
