/**
 * The events the checkout elements dispatch: one typed `Event` subclass per name, each
 * `pg-` prefixed, bubbling and composed (so a listener on `document` hears them from
 * inside shadow roots), with a frozen, readonly `detail`. No event ever carries a card
 * number, an expiry or a CVV. Every name is registered in `GlobalEventHandlersEventMap`, so
 * `el.addEventListener('pg-success', (e) => e.detail.orderRef)` is typed.
 */
import type {CheckoutErrorCode} from '../protocol/checkout.js';

const init = (cancelable = false): EventInit => ({bubbles: true, composed: true, cancelable});

/** Names of the card fields, as used in validity details (never their values). */
export const CARD_FIELDS = [
  'number',
  'expiry',
  'cvv',
  'holder',
  'firstName',
  'lastName',
  'email',
  'phone',
] as const;
/** One of {@link CARD_FIELDS}: a field of the card form, named in validity details. */
export type CardField = (typeof CARD_FIELDS)[number];

/**
 * The `detail` of `pg-validity-change` ({@link PgValidityChangeEvent}): which fields are not valid
 * yet.
 */
export interface PgValidityChangeDetail {
  /** True when every shown field holds a valid value. */
  readonly valid: boolean;
  /** The fields that are not valid yet (names only). */
  readonly invalidFields: readonly CardField[];
}

/** `pg-validity-change`: the card form's overall validity changed through user input. */
export class PgValidityChangeEvent extends Event {
  readonly detail: PgValidityChangeDetail;
  constructor(detail: PgValidityChangeDetail) {
    super('pg-validity-change', init());
    this.detail = Object.freeze({
      ...detail,
      invalidFields: Object.freeze([...detail.invalidFields]),
    });
  }
}

/**
 * The `detail` of `pg-brand-change` ({@link PgBrandChangeEvent}): the brand the typed digits tell.
 */
export interface PgBrandChangeDetail {
  /** card-validator's brand type (`visa`, `american-express`, …) or null when unknown. */
  readonly brand: string | null;
  /** Display name (`Visa`, `American Express`, …) or null. */
  readonly brandName: string | null;
}

/** `pg-brand-change`: the detected card brand changed while the customer typed. */
export class PgBrandChangeEvent extends Event {
  readonly detail: PgBrandChangeDetail;
  constructor(detail: PgBrandChangeDetail) {
    super('pg-brand-change', init());
    this.detail = Object.freeze({...detail});
  }
}

/**
 * The `detail` of `pg-submit` ({@link PgSubmitEvent}): the order being paid and the id of
 * this attempt (the same id is sent again when the customer retries it).
 */
export interface PgSubmitDetail {
  readonly orderRef: string;
  readonly attemptId: string;
}

/** `pg-submit`: a valid card is about to be sent. Cancelable: `preventDefault()` stops it. */
export class PgSubmitEvent extends Event {
  readonly detail: PgSubmitDetail;
  constructor(detail: PgSubmitDetail) {
    super('pg-submit', init(true));
    this.detail = Object.freeze({...detail});
  }
}

/**
 * The `detail` of `pg-success` ({@link PgSuccessEvent}): the paid order, the gateway's
 * status code and message, and the masked card number.
 *
 * @example
 * ```ts
 * import 'pg-checkout';
 *
 * document.querySelector('pg-card-form')?.addEventListener('pg-success', (event) => {
 *   location.assign(`/order/result?order=${encodeURIComponent(event.detail.orderRef)}`);
 * });
 * ```
 */
export interface PgSuccessDetail {
  readonly orderRef: string;
  readonly code: string;
  readonly message: string;
  /** Masked card number as the server reports it, e.g. `424242******4242`. */
  readonly cardMask?: string;
  /**
   * The order had been paid before (an earlier visit, another tab): nothing was charged
   * now, and the form says "already paid". A page that goes on to a result page says so
   * there too (`already_paid=1` in its address, which `<pg-3ds-redirect>` reads).
   */
  readonly alreadyPaid?: true;
}

/** `pg-success`: the payment went through. */
export class PgSuccessEvent extends Event {
  readonly detail: PgSuccessDetail;
  constructor(detail: PgSuccessDetail) {
    super('pg-success', init());
    this.detail = Object.freeze({...detail});
  }
}

/**
 * The `detail` of `pg-failure` ({@link PgFailureEvent}): the declined order, the gateway's
 * status code and the message the form shows the customer.
 */
export interface PgFailureDetail {
  readonly orderRef: string;
  /** The gateway's status code. */
  readonly code: string;
  readonly message: string;
}

/** `pg-failure`: the gateway declined the payment; a new attempt is possible. */
export class PgFailureEvent extends Event {
  readonly detail: PgFailureDetail;
  constructor(detail: PgFailureDetail) {
    super('pg-failure', init());
    this.detail = Object.freeze({...detail});
  }
}

/**
 * The `detail` of `pg-3ds-required` ({@link PgThreeDSRequiredEvent}): the bank's page the
 * customer must pass (`userActionUrl`) for the order.
 */
export interface PgThreeDSRequiredDetail {
  readonly orderRef: string;
  readonly userActionUrl: string;
}

/**
 * `pg-3ds-required`: the customer must pass 3-D Secure. Cancelable: `preventDefault()`
 * keeps the card form from handing the URL to `<pg-3ds-redirect>` itself.
 */
export class PgThreeDSRequiredEvent extends Event {
  readonly detail: PgThreeDSRequiredDetail;
  constructor(detail: PgThreeDSRequiredDetail) {
    super('pg-3ds-required', init(true));
    this.detail = Object.freeze({...detail});
  }
}

/**
 * The `detail` of `pg-3ds-cancel` ({@link PgThreeDSCancelEvent}): the order whose challenge was
 * cancelled.
 */
export interface PgThreeDSCancelDetail {
  readonly orderRef: string;
}

/**
 * `pg-3ds-cancel`: the customer cancelled the 3-D Secure challenge (the modal's Cancel
 * button or Escape). `<pg-3ds-redirect>` then asks the status route how the order stands;
 * a listener that must act first (the card form tells the server the attempt was
 * abandoned) passes its promise to `waitUntil`.
 */
export class PgThreeDSCancelEvent extends Event {
  readonly detail: PgThreeDSCancelDetail;
  readonly #pending: Promise<unknown>[] = [];
  constructor(detail: PgThreeDSCancelDetail) {
    super('pg-3ds-cancel', init());
    this.detail = Object.freeze({...detail});
  }

  /** Delays the status check until `promise` settles (its outcome does not matter). */
  waitUntil(promise: Promise<unknown>): void {
    this.#pending.push(promise);
  }

  /** Settles once every `waitUntil` promise has. */
  settled(): Promise<unknown> {
    return Promise.allSettled(this.#pending);
  }
}

/** Codes of `pg-error`: the server's codes plus what can go wrong in the browser. */
export type PgErrorCode =
  CheckoutErrorCode | 'network' | 'bad_response' | 'timeout' | 'missing_order' | 'misconfigured';

/**
 * The `detail` of `pg-error` ({@link PgErrorEvent}): what went wrong (a {@link PgErrorCode}),
 * the message for the customer, the HTTP status when the server answered, and whether the
 * same action may work if tried again.
 */
export interface PgErrorDetail {
  readonly orderRef?: string;
  readonly code: PgErrorCode;
  readonly message: string;
  /** HTTP status, when the server answered. */
  readonly status?: number;
  /** True when trying the same thing again may work. */
  readonly retryable: boolean;
}

/** `pg-error`: the request could not be completed (network, server, timeout). */
export class PgErrorEvent extends Event {
  readonly detail: PgErrorDetail;
  constructor(detail: PgErrorDetail) {
    super('pg-error', init());
    this.detail = Object.freeze({...detail});
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'pg-validity-change': PgValidityChangeEvent;
    'pg-brand-change': PgBrandChangeEvent;
    'pg-submit': PgSubmitEvent;
    'pg-success': PgSuccessEvent;
    'pg-failure': PgFailureEvent;
    'pg-3ds-required': PgThreeDSRequiredEvent;
    'pg-3ds-cancel': PgThreeDSCancelEvent;
    'pg-error': PgErrorEvent;
  }
}
