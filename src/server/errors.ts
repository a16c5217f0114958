/**
 * Typed errors of the checkout companion. Each carries a stable `code` from the checkout
 * protocol (`CheckoutErrorCode`) and the HTTP status it is answered with; the app's one
 * `onError` turns them into a `CheckoutErrorBody`. Messages name the field or the rule and
 * never contain the value that broke it, so card data can never leak through an error.
 */
import type {CheckoutErrorBody, CheckoutErrorCode} from '../protocol/checkout.js';

/** Base class of every error the checkout routes answer with. */
export class CheckoutError extends Error {
  readonly code: CheckoutErrorCode;
  readonly status: number;
  /** Dotted path of the protocol field to blame (`card.number`), when there is one. */
  readonly field: string | undefined;
  /** Seconds to wait before trying again (sent as `Retry-After` too). */
  readonly retryAfter: number | undefined;
  /**
   * For the developer: the cause and the fix (the origin refused and the option that
   * allows it). Part of `message`, so of the request's log line; in the answer's message
   * only in development (`shownHint`), never for the customer.
   */
  readonly hint: string | undefined;
  /** The answer's message: without the hint unless it is shown (development). */
  readonly #answerMessage: string;

  constructor(
    code: CheckoutErrorCode,
    status: number,
    message: string,
    opts: {
      field?: string;
      retryAfter?: number;
      cause?: unknown;
      hint?: string | undefined;
      shownHint?: boolean;
    } = {},
  ) {
    const full = opts.hint ? `${message}: ${opts.hint}` : message;
    super(full, opts.cause === undefined ? undefined : {cause: opts.cause});
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.field = opts.field;
    this.retryAfter = opts.retryAfter;
    this.hint = opts.hint;
    this.#answerMessage = opts.shownHint ? full : message;
  }

  /** The protocol's error body for this error. */
  toBody(): CheckoutErrorBody {
    const error: CheckoutErrorBody['error'] = {code: this.code, message: this.#answerMessage};
    if (this.field !== undefined) error.field = this.field;
    if (this.retryAfter !== undefined) error.retryAfter = this.retryAfter;
    return {error};
  }
}

/** 400: the body or a parameter is invalid. `field` names it. */
export class CheckoutInvalidRequestError extends CheckoutError {
  constructor(message: string, opts: {field?: string; cause?: unknown} = {}) {
    super('invalid_request', 400, message, opts);
  }
}

/** 413: the body is larger than `bodyLimitBytes`. */
export class CheckoutPayloadTooLargeError extends CheckoutError {
  constructor(limit: number) {
    super('invalid_request', 413, `the request body is larger than the limit of ${limit} bytes`, {
      field: '(body)',
    });
  }
}

/** 403: refused by the same-origin checks, the webhook allow-list or a bad webhook signature. */
export class CheckoutForbiddenError extends CheckoutError {
  /** `hint`: the cause and the fix, for the log (and the answer with `shownHint`). */
  constructor(message: string, opts: {hint?: string; shownHint?: boolean} = {}) {
    super('forbidden', 403, message, opts);
  }
}

/** 404: unknown order or route. */
export class CheckoutNotFoundError extends CheckoutError {
  constructor(message: string) {
    super('not_found', 404, message);
  }
}

/** 409: the order exists but cannot be paid (`resolveOrder` may throw this). */
export class CheckoutOrderNotPayableError extends CheckoutError {
  constructor(message = 'this order cannot be paid') {
    super('order_not_payable', 409, message);
  }
}

/** 429: too many failed attempts from this address or for this order. */
export class CheckoutRateLimitedError extends CheckoutError {
  constructor(retryAfter: number) {
    super('rate_limited', 429, 'too many failed payment attempts: try again later', {
      retryAfter,
    });
  }
}

/**
 * 409: a capture, void or refund the order does not allow (nothing held, nothing left to
 * refund, more than is left). `reason` is a stable code: `not_paid`, `not_capturable`,
 * `not_voidable`, `nothing_to_refund`, `over_capture`, `over_refund`, `not_supported`.
 */
export class CheckoutOperationRefusedError extends CheckoutError {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super('operation_refused', 409, message);
    this.reason = reason;
  }

  override toBody(): CheckoutErrorBody {
    const body = super.toBody();
    return {error: {...body.error, reason: this.reason} as CheckoutErrorBody['error']};
  }
}

/** 503: the gateway could not be reached and nothing was charged. */
export class CheckoutGatewayUnavailableError extends CheckoutError {
  constructor(message: string, opts: {cause?: unknown; retryAfter?: number} = {}) {
    super('gateway_unavailable', 503, message, opts);
  }
}

/**
 * 503: the payment database cannot be reached. Nothing was sent to the gateway for this
 * request; the same attempt may be sent again (`Retry-After`).
 */
export class CheckoutStoreUnavailableError extends CheckoutError {
  constructor(opts: {cause?: unknown; retryAfter?: number} = {}) {
    super(
      'store_unavailable',
      503,
      'the payment database cannot be reached: nothing was sent to the gateway; try again shortly',
      {retryAfter: opts.retryAfter ?? 5, ...(opts.cause === undefined ? {} : {cause: opts.cause})},
    );
  }
}

/**
 * 503: this instance is at its limit of work in flight (its queue is full, or a request
 * waited in it, or for a database connection, past the deadline), or it is shutting down.
 * Not an outage: the database is up. Nothing was sent to the gateway for this request by
 * this answer; the same request may be sent again after `Retry-After` seconds.
 */
export class CheckoutBusyError extends CheckoutError {
  constructor(message: string, opts: {cause?: unknown; retryAfter?: number} = {}) {
    super('busy', 503, message, {
      retryAfter: opts.retryAfter ?? 2,
      ...(opts.cause === undefined ? {} : {cause: opts.cause}),
    });
  }
}

/** 500: a fault of this server (or of the merchant's hooks). Details go to the log only. */
export class CheckoutInternalError extends CheckoutError {
  constructor(message = 'internal error', opts: {cause?: unknown} = {}) {
    super('internal', 500, message, opts);
  }
}

/** Thrown by `createCheckoutApp` when its options are invalid. Names every bad key. */
export class CheckoutConfigError extends Error {
  readonly code = 'invalid_options';
  readonly issues: readonly {field: string; message: string}[];
  constructor(issues: readonly {field: string; message: string}[]) {
    super(
      `createCheckoutApp: invalid options: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
    );
    this.name = 'CheckoutConfigError';
    this.issues = issues;
  }
}
