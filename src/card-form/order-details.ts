/**
 * What `<pg-card-form>` learns from the companion about its order (`POST /order`, with
 * `order-details` or `offer-save-card`): the total the server charges — shown on the Pay
 * button over the `amount` and `currency` attributes, which stay the fallback until the
 * answer arrives or when none comes — and, with the saved-card offer on, the customer's
 * saved cards (opaque ids: the token never reaches the browser). This controller holds the
 * answer and the customer's choice (a saved card or a new one, and the consent to save);
 * the work is in two modules loaded on demand, each importing nothing at run time (they
 * get Lit, the card rules, the brand marks and the protocol's constants from `KIT`): the
 * order request (`saved-cards/order-request.ts`), and the saved-card choice's markup and
 * removal (`saved-cards/saved-cards-view.ts`), loaded only when there are saved cards to
 * show or a card can be saved. From npm both are chunks of the merchant's bundle. In the
 * CDN file `pg-checkout.js` the request is built in and the view, which few pages show, is
 * a file beside it that the bundle pins (`src/internal/pinned-module.ts`, 1.2 kB gzip
 * less in the file every page downloads); `pg-checkout-hydrate.js` builds both in, its
 * after-paint loader having created the one Trusted Types policy `pg-checkout` already.
 * A view that cannot be had leaves the form taking a new card, and says so (`pg-error`,
 * `misconfigured`).
 */
import {html, nothing, type ReactiveController, type ReactiveControllerHost} from 'lit';
import {PgErrorEvent} from '../events/events.js';
import {loadPinnedModule, type ModulePin} from '../internal/pinned-module.js';
import {
  CHECKOUT_HEADER,
  CHECKOUT_PROTOCOL_VERSION,
  CHECKOUT_ROUTES,
  type OrderResponse,
} from '../protocol/checkout.js';
import type {CheckoutMessages} from '../i18n/messages.js';
import {brandOfName} from '../validation/brand.js';
import {normaliseNumber} from '../validation/card.js';
import {brandMark, loadBrandMarks} from './lazy-brand-marks.js';
import {siblingRoute} from './three-ds-handoff.js';
import {traceparent} from '../internal/trace-context.js';

/** The form as this controller sees it. */
export interface OrderDetailsHost extends ReactiveControllerHost, HTMLElement {
  endpoint: string;
  orderRef: string;
  orderDetails: boolean;
  offerSaveCard: boolean;
  disabled: boolean;
}

type View = typeof import('./saved-cards/saved-cards-view.js');

declare global {
  /**
   * Replaced by the build of `pg-checkout.js` (scripts/vite/pinned-modules.ts) with the file
   * and hash of the saved-card view; by the other builds with `undefined`. Never set on a page.
   */
  var __PG_SAVED_CARDS_PIN__: ModulePin | undefined;
}

/** What the modules loaded on demand are given. */
export const KIT = {
  html,
  nothing,
  brandMark,
  loadBrandMarks,
  normaliseNumber,
  brandOfName,
  siblingRoute,
  routes: CHECKOUT_ROUTES,
  /** The checkout header and a new `traceparent`, for each request. */
  headers: () => ({[CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION, traceparent: traceparent()}),
  view: globalThis.__PG_SAVED_CARDS_PIN__
    ? () => loadPinnedModule<View>(globalThis.__PG_SAVED_CARDS_PIN__!)
    : () => import('./saved-cards/saved-cards-view.js'),
};

export class OrderDetails implements ReactiveController {
  readonly host: OrderDetailsHost;
  readonly kit = KIT;
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
  requests: typeof import('./saved-cards/order-request.js') | undefined;
  view: View | undefined;
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
    void import('./saved-cards/order-request.js').then((m) => (this.requests = m).ask(this));
  }

  /**
   * Loads the saved-card view, once. When it cannot be had the form pays with a new card
   * (no saved card stays chosen unseen) and tells the page, once per failed load.
   */
  async loadView(): Promise<void> {
    try {
      this.view ??= await KIT.view();
    } catch (error) {
      this.selected = '';
      const {orderRef} = this.host;
      this.host.dispatchEvent(
        new PgErrorEvent({
          ...(orderRef ? {orderRef} : {}),
          code: 'misconfigured',
          message: `${(error as Error).message}: the form takes a new card only`,
          retryable: false,
        }),
      );
    }
  }

  /** The saved-card choice (`choice`, above the card fields) or the consent box (`offer`). */
  render(t: CheckoutMessages, part: 'choice' | 'offer') {
    return this.view ? this.view[part](this, t) : nothing;
  }
}
