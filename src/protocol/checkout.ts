/**
 * The checkout protocol: the one definition of what the browser elements send to the
 * merchant's server and what they get back. The browser side (`<pg-card-form>`,
 * `<pg-3ds-redirect>`) and the merchant side (`pg-checkout/server`) both import these
 * types and constants; the server validates incoming bodies with the zod schemas in
 * `./schemas.ts`, which are checked at compile time against the types here.
 *
 * Plain types and constants only: nothing here pulls code into the browser bundle.
 */

/** Header every checkout request carries, so a cross-site HTML form post cannot imitate one. */
export const CHECKOUT_HEADER = 'X-PG-Checkout';
/** The value of {@link CHECKOUT_HEADER}: the protocol version. */
export const CHECKOUT_PROTOCOL_VERSION = '1';

/** Routes the merchant app serves, relative to where it is mounted. */
export const CHECKOUT_ROUTES = {
  /** POST: the card form's payment request. */
  pay: '/pay',
  /** GET `?order=<orderRef>`: the status the return page asks for. */
  status: '/status',
  /** GET or POST: where the gateway sends the customer back (`result_url`). */
  return: '/return',
  /** POST: the gateway's webhooks (`server_url`). */
  webhook: '/webhook',
  /**
   * POST {@link AbandonRequest}: the customer cancelled the 3-D Secure challenge; the order
   * may be paid again at once. Answers a {@link StatusResponse}.
   */
  abandon: '/abandon',
  /**
   * POST {@link OrderRequest}: what the form may know of its order — the total the server
   * charges and, with the saved-card offer on, the identified customer's saved cards.
   * Answers an {@link OrderResponse}.
   */
  order: '/order',
  /**
   * POST {@link RemoveSavedCardRequest}: the customer removes one of their saved cards.
   * Answers the order's {@link OrderResponse} without it.
   */
  removeSavedCard: '/saved-cards/remove',
} as const;

/** Storage key (sessionStorage) under which `<pg-3ds-redirect>` keeps the order reference. */
export const PENDING_ORDER_KEY = 'pg-checkout:pending-order';
/** Query parameter naming the order on the return page. */
export const ORDER_QUERY_PARAM = 'order';
/**
 * Query parameter (value `1`) the hosted route adds to the return page's address when the
 * order had been paid before that request: the return page says "already paid", not
 * "Payment successful". Only the wording depends on it; the status route still decides.
 */
export const ALREADY_PAID_QUERY_PARAM = 'already_paid';

/**
 * The part of the gateway's `browser_fingerprint` the browser can know. The merchant's
 * server adds `browserIpAddress` and sets `browserUserAgent` from the real HTTP request,
 * and `browserAcceptHeader` from the page's (below) or its documented default. All values
 * are strings, as the gateway requires.
 */
export interface ClientFingerprint {
  browserColorDepth: string;
  browserScreenHeight: string;
  browserScreenWidth: string;
  browserJavaEnabled: string;
  browserLanguage: string;
  browserTimeZone: string;
  browserTimeZoneOffset: string;
  browserUserAgent: string;
  /**
   * The `Accept` header the customer's browser sent for the checkout page, when the page's
   * server wrote it into the form (`accept-header`, `renderCardForm({acceptHeader})`): the
   * form's own requests carry another (`application/json`), which 3-D Secure must not get.
   */
  browserAcceptHeader?: string;
}

/** Card data as the customer typed it. Travels only in the body of a {@link PayRequest}. */
export interface CardInput {
  /** Digits only. */
  number: string;
  /** 1–12. */
  expMonth: number;
  /** Four-digit year. */
  expYear: number;
  /** Digits only, 3 or 4 of them. */
  cvv: string;
  /** Cardholder name, when the form asks for it. */
  holder?: string;
}

/** Customer data the form collects when the merchant does not know it already. */
export interface CustomerInput {
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string;
}

/** Body of `POST {CHECKOUT_ROUTES.pay}`: with `card` (typed in) or `savedCardId`, never both. */
export interface PayRequest {
  /** The merchant's order reference; the server looks up what is charged. */
  orderRef: string;
  /**
   * Identifies one attempt (one press of Pay, including retries of the same request).
   * Repeated submits with the same attempt id produce one gateway request.
   */
  attemptId: string;
  card?: CardInput;
  /** A saved card of the customer ({@link SavedCardView.id}): the server pays with its token. */
  savedCardId?: string;
  /**
   * The customer ticked "Save this card for next time" (only with `card`). The server keeps
   * the card's token only for a customer it identifies itself, never one the browser names.
   */
  saveCard?: boolean;
  customer?: CustomerInput;
  fingerprint: ClientFingerprint;
}

/** Body of `POST {CHECKOUT_ROUTES.order}`. */
export interface OrderRequest {
  orderRef: string;
  /** The form offers saved cards (its `offer-save-card` attribute): list the customer's. */
  savedCards?: boolean;
}

/**
 * A saved card as the browser sees it: an opaque id, never the gateway's token. Expiry is
 * the token's (the card's month): an expired card is shown but cannot pay. The brand is
 * the server's, told from the mask's first digits by the form's own brand rule; the form
 * shows it when it knows that brand, else tells the brand from the mask itself.
 */
export interface SavedCardView {
  id: string;
  /** Masked number, e.g. `424242******4242`. */
  mask: string;
  /**
   * The card's brand, card-validator's type (`visa`, `mastercard`, `american-express`, …),
   * when the server knows one. A name the form does not know is ignored.
   */
  brand?: string;
  expMonth: number;
  expYear: number;
  expired: boolean;
}

/** Body of the answer of `POST {CHECKOUT_ROUTES.order}` (and of saved-card removal). */
export interface OrderResponse {
  orderRef: string;
  /** What the server charges: exact decimal text (`"1250.00"`). */
  amount: string;
  /** ISO 4217. */
  currency: string;
  /**
   * With `savedCards` asked for: the identified customer's saved cards (maybe none). Absent
   * when the server identifies no customer for the order: then no card can be saved.
   */
  savedCards?: SavedCardView[];
}

/** Body of `POST {CHECKOUT_ROUTES.removeSavedCard}`. */
export interface RemoveSavedCardRequest {
  orderRef: string;
  savedCardId: string;
}

/** Body of `POST {CHECKOUT_ROUTES.abandon}`. */
export interface AbandonRequest {
  orderRef: string;
  /** The attempt whose challenge the customer cancelled. */
  attemptId: string;
}

/** Final and intermediate outcomes the browser can be told. */
export const PAY_OUTCOMES = ['success', 'failure', '3ds_required', 'processing'] as const;
/** One of {@link PAY_OUTCOMES}: the `outcome` of a {@link PayResponse}. */
export type PayOutcomeKind = (typeof PAY_OUTCOMES)[number];

/** The payment went through (`success`, status code `1000`, or `1002` for a hold). */
export interface PaySuccess {
  outcome: 'success';
  orderRef: string;
  code: string;
  message: string;
  /** Masked card number, e.g. `424242******4242`. */
  cardMask?: string;
  /**
   * The order had been paid before this request (an earlier visit, another tab): nothing
   * was charged now, and the form says "already paid", not "Payment successful".
   */
  alreadyPaid?: true;
  /**
   * `false` when the request asked to save the card (`saveCard`) and it was not saved:
   * with {@link alreadyPaid}, no payment was made with it, so there is no token to keep.
   */
  cardSaved?: false;
}

/**
 * Why a payment failed, as a stable code: the elements show the customer their own text for
 * it, in the customer's language; the server's `message` is for logs and is never shown.
 * The merchant's server maps the gateway's status codes to these in one table
 * (`server/payments/failure-reasons.ts`).
 */
export const PAY_FAILURE_REASONS = [
  /** Declined, and the gateway said no more. */
  'declined',
  'insufficient_funds',
  'wrong_cvv',
  'expired_card',
  /** The issuing bank refused: the customer should ask the bank or use another card. */
  'issuer_declined',
  'three_ds_failed',
  /** Cancelled at the gateway. */
  'cancelled',
  /** The customer cancelled the 3-D Secure challenge. */
  'abandoned',
  /** Not completed in time. */
  'expired',
  /** The gateway refused the request: nothing was charged. */
  'not_created',
  /** The outcome is not known: trying again (the same attempt) is safe, it cannot charge twice. */
  'not_confirmed',
  /** No saved card of this customer has that id (another customer's, or none at all). */
  'saved_card_unknown',
  /** The saved card was removed. */
  'saved_card_removed',
  /** The saved card's token has expired: the customer pays with a card typed in. */
  'saved_card_expired',
] as const;
export type PayFailureReason = (typeof PAY_FAILURE_REASONS)[number];

/** The gateway declined: a new attempt (a new card, say) is possible. */
export interface PayFailure {
  outcome: 'failure';
  orderRef: string;
  /** The gateway's status code, or the server's own (`not_created`, `abandoned`, …). */
  code: string;
  /** Why, as a stable code the elements render. */
  reason: PayFailureReason;
  /** For logs and the merchant: never shown to the customer. */
  message: string;
}

/** The customer must pass 3-D Secure at `userActionUrl`. */
export interface PayThreeDSRequired {
  outcome: '3ds_required';
  orderRef: string;
  userActionUrl: string;
}

/**
 * The outcome is not known yet (the gateway timed out or failed and the server is still
 * reconciling). The browser should ask the status route, not pay again.
 */
export interface PayProcessing {
  outcome: 'processing';
  orderRef: string;
  message: string;
}

/**
 * The pay route's answer (`POST /pay`, HTTP 200), told apart by `outcome`: paid, declined,
 * 3-D Secure required, or not known yet (ask the status route; do not pay again).
 */
export type PayResponse = PaySuccess | PayFailure | PayThreeDSRequired | PayProcessing;

/** Stable codes of errors the merchant's server answers with (HTTP 4xx/5xx). */
export const CHECKOUT_ERROR_CODES = [
  'invalid_request',
  'forbidden',
  'not_found',
  'order_not_payable',
  'already_paid',
  'rate_limited',
  'gateway_unavailable',
  'store_unavailable',
  /**
   * 503 with `Retry-After`: the instance is saturated (its work in flight at its limit), not
   * down; nothing was done, and the same request may be sent again after the wait.
   */
  'busy',
  'operation_refused',
  'internal',
] as const;
/** One of {@link CHECKOUT_ERROR_CODES}: the `error.code` of a {@link CheckoutErrorBody}. */
export type CheckoutErrorCode = (typeof CHECKOUT_ERROR_CODES)[number];

/** Body of every non-2xx answer of the checkout routes. */
export interface CheckoutErrorBody {
  error: {
    code: CheckoutErrorCode;
    message: string;
    /** Dotted path of the offending field, when one is to blame. */
    field?: string;
    /** Seconds to wait before trying again, with `rate_limited` and `busy` (also `Retry-After`). */
    retryAfter?: number;
  };
}

/** What the status route reports for an order. */
export const PAYMENT_STATES = ['none', 'processing', 'pending', 'success', 'failure'] as const;
/** One of {@link PAYMENT_STATES}: how the status route says an order stands. */
export type PaymentState = (typeof PAYMENT_STATES)[number];

/** Body of `GET {CHECKOUT_ROUTES.status}?order=<orderRef>`. */
export interface StatusResponse {
  orderRef: string;
  state: PaymentState;
  /** True once the state will not change any more (`success` or `failure`). */
  final: boolean;
  code?: string;
  /** With `failure`: why, as a stable code the elements render. */
  reason?: PayFailureReason;
  /** For logs and the merchant: never shown to the customer. */
  message?: string;
  /** With `pending`: where the customer still has to act. */
  userActionUrl?: string;
}
