/**
 * Typed errors of the gateway client and of webhook verification. Each class has a
 * stable `code` string a caller can switch on; messages name the field or the usual
 * mistake and never contain card data or secrets (values are never echoed).
 */
import type {FieldIssue} from './schemas.js';

/**
 * Every `code` a {@link GatewayError} can have: switch on it rather than on the class or the
 * message.
 */
export const GATEWAY_ERROR_CODES = [
  'invalid_request',
  'gateway_validation',
  'authentication',
  'not_found',
  'method_not_allowed',
  'not_acceptable',
  'conflict',
  'rate_limited',
  'outcome_unknown',
  'gateway_unavailable',
  'protocol',
  'webhook_signature',
  'webhook_decode',
] as const;
/** One of {@link GATEWAY_ERROR_CODES}: a {@link GatewayError}'s `code`. */
export type GatewayErrorCode = (typeof GATEWAY_ERROR_CODES)[number];

/** Options every {@link GatewayError} takes. */
export interface GatewayErrorOptions {
  status?: number;
  args?: Record<string, unknown>;
  /** The gateway's own code, when it came elsewhere than `args.code` (a top-level `code`). */
  gatewayCode?: string;
  /** What the gateway said was wrong, field by field. */
  violations?: readonly FieldIssue[];
  cause?: unknown;
}

/** Base class: every error the gateway layer throws is one of these. */
export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  /** HTTP status the gateway answered with, when there was an answer. */
  readonly status: number | undefined;
  /** The gateway's `args` (e.g. `{code: 'P-409'}`), when its body had them as an object. */
  readonly args: Readonly<Record<string, unknown>> | undefined;
  /**
   * What the gateway said was wrong, field by field (`args` as a list of
   * `{field_name, violation}`, or such items in `msg`); empty when it named no field.
   */
  readonly violations: readonly FieldIssue[];
  readonly #gatewayCode: string | undefined;

  constructor(code: GatewayErrorCode, message: string, opts: GatewayErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : {cause: opts.cause});
    this.name = new.target.name;
    this.code = code;
    this.status = opts.status;
    this.args = opts.args;
    this.violations = opts.violations ?? [];
    const fromArgs = opts.args?.['code'];
    this.#gatewayCode =
      (opts.gatewayCode ?? (typeof fromArgs === 'string' ? fromArgs : '')).trim() || undefined;
  }

  /** The gateway's own error code (`args.code`, trimmed), e.g. `S-404` or `P-409`. */
  get gatewayCode(): string | undefined {
    return this.#gatewayCode;
  }
}

/** A request failed local validation before it was sent. Lists every field and rule. */
export class GatewayRequestValidationError extends GatewayError {
  readonly issues: readonly FieldIssue[];
  constructor(what: string, issues: readonly FieldIssue[]) {
    super(
      'invalid_request',
      `${what} is invalid: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
    );
    this.issues = issues;
  }
}

/** 400: the gateway refused the parameters. */
export class GatewayValidationError extends GatewayError {}
/** 401: invalid pos_id, API key, secret or endpoints key. */
export class GatewayAuthenticationError extends GatewayError {}
/** 404: endpoint, order, operation, subscription or report not found. */
export class GatewayNotFoundError extends GatewayError {}
/** 405 / 406: wrong HTTP method, or a POST body that is not JSON. */
export class GatewayMethodError extends GatewayError {}
/** A reused `order_id` (`P-409`, whatever the HTTP status), or an HTTP 409. */
export class GatewayConflictError extends GatewayError {}

/** 429: too many requests. Retryable after `retryAfterSeconds` when the gateway said. */
export class GatewayRateLimitError extends GatewayError {
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, opts: GatewayErrorOptions & {retryAfterSeconds?: number}) {
    super('rate_limited', message, opts);
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/**
 * The outcome of a payment creation is unknown (500/503, a timeout or a dropped
 * connection). The payment may or may not exist: reconcile by `order_id` before anything
 * else, and never send the same request blindly again.
 */
export class GatewayOutcomeUnknownError extends GatewayError {
  readonly orderId: string | undefined;
  constructor(message: string, opts: GatewayErrorOptions & {orderId?: string}) {
    super('outcome_unknown', message, opts);
    this.orderId = opts.orderId;
  }
}

/** A read failed with a 5xx, a timeout or a network error (after any retries). */
export class GatewayUnavailableError extends GatewayError {}

/** The gateway answered with something that is not what the spec says (not JSON, wrong shape). */
export class GatewayProtocolError extends GatewayError {
  readonly issues: readonly FieldIssue[] | undefined;
  constructor(
    message: string,
    opts: {status?: number; issues?: readonly FieldIssue[]; cause?: unknown} = {},
  ) {
    super('protocol', message, opts);
    this.issues = opts.issues;
  }
}

/** A webhook's signature does not match its `data`. */
export class WebhookSignatureError extends GatewayError {
  constructor(message: string) {
    super('webhook_signature', message);
  }
}

/** A webhook's `data` is signed correctly but is not Base64Url JSON of a known payload. */
export class WebhookDecodeError extends GatewayError {
  readonly issues: readonly FieldIssue[] | undefined;
  constructor(message: string, issues?: readonly FieldIssue[]) {
    super('webhook_decode', message);
    this.issues = issues;
  }
}

/**
 * True when a request was refused before anything happened: invalid (by our own check or
 * the gateway's), unauthenticated, the wrong method, or rate-limited. Any other failure —
 * a 5xx, a timeout, a dropped connection, an unreadable answer — leaves the outcome
 * unknown: the operation may have happened.
 *
 * @example
 * ```ts
 * import {GatewayClient, isRefusal} from 'pg-checkout/server';
 *
 * declare const gateway: GatewayClient;
 * try {
 *   await gateway.cancelOrder('ORDER-1001-1');
 * } catch (error) {
 *   // Refused: nothing happened. Anything else: it may have happened, so look it up.
 *   console.log(isRefusal(error) ? 'refused' : 'outcome unknown');
 * }
 * ```
 */
export function isRefusal(error: unknown): boolean {
  return (
    error instanceof GatewayValidationError ||
    error instanceof GatewayAuthenticationError ||
    error instanceof GatewayMethodError ||
    error instanceof GatewayRateLimitError ||
    error instanceof GatewayRequestValidationError
  );
}
