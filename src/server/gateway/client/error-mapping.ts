/**
 * Error mapping, in one function as stripe-node does it: every way a call can fail — an
 * HTTP answer that is not a success, or no answer at all (a timeout, a dropped or refused
 * connection) — becomes one typed `GatewayError` here, and nowhere else. The gateway's
 * error body is read in every shape it takes (`ErrorBody`), and what it says is scrubbed
 * of card data and secrets before it is kept.
 */
import {
  GatewayAuthenticationError,
  GatewayConflictError,
  GatewayError,
  GatewayMethodError,
  GatewayNotFoundError,
  GatewayOutcomeUnknownError,
  GatewayProtocolError,
  GatewayRateLimitError,
  GatewayUnavailableError,
  GatewayValidationError,
} from '../errors.js';
import {ErrorBody} from '../schemas.js';
import {parseJson, type Answer} from './answers.js';
import {redactDeep, redactText} from './redaction.js';

/** What the mapping needs to know about the call that failed. */
export interface FailedCall {
  /** A short name of the operation for messages, e.g. "payment creation". */
  what: string;
  /** Reads fail as unavailable; writes (the money may have moved) as outcome unknown. */
  failure: 'read' | 'write';
  /** The order a write is about, named in an outcome-unknown error. */
  orderId?: string;
}

/** How a call failed: with an answer, or without one. */
export type Failure =
  | {kind: 'answer'; answer: Answer; retryAfterSeconds: number | undefined}
  | {kind: 'no-answer'; timedOut: boolean; cause: unknown};

/** The call's context: attempts made, the timeout, and the values to scrub. */
export interface FailureContext {
  attempts: number;
  timeoutMs: number;
  sensitive: readonly string[];
}

/** The gateway code of a reused `order_id` (any HTTP status; gateway-facts.md). */
const REUSED_ORDER_ID = 'P-409';

/**
 * A gateway code as compared: trimmed and upper-case, so `' P-409'` and `'p-409 '` are
 * `P-409`. Every comparison of gateway codes goes through it.
 */
function sameGatewayCode(code: string | undefined, expected: string): boolean {
  return code?.trim().toUpperCase() === expected;
}

/** The longest text kept from the gateway's message (its documented limit). */
const MESSAGE_LIMIT = 512;

/** Maps a failed call to its typed error. The only place that does. */
export function toGatewayError(
  call: FailedCall,
  failure: Failure,
  ctx: FailureContext,
): GatewayError {
  const tries = `${ctx.attempts} attempt${ctx.attempts === 1 ? '' : 's'}`;
  if (failure.kind === 'no-answer') {
    const why = failure.timedOut
      ? `no answer within ${ctx.timeoutMs} ms`
      : 'the connection failed or was dropped before an answer';
    const cause = failure.timedOut ? undefined : safeCause(failure.cause);
    // A connection that was never made carried no request: nothing can have been charged,
    // so even a write is "unavailable", not "outcome unknown".
    const notSent = !failure.timedOut && neverConnected(failure.cause);
    return call.failure === 'write' && !notSent
      ? new GatewayOutcomeUnknownError(
          `${call.what}: ${why}; its outcome is unknown${orderHint(call.orderId)}`,
          {orderId: call.orderId, cause},
        )
      : new GatewayUnavailableError('gateway_unavailable', `${call.what}: ${why} (${tries})`, {
          cause,
        });
  }

  const {answer} = failure;
  const {status} = answer;
  const said = whatTheGatewaySaid(answer, ctx.sensitive);
  const code = said.code;
  const violations = said.violations.map((v) => `${v.field}: ${v.message || 'is invalid'}`);
  const text = [said.message, ...violations].filter(Boolean).join('; ').slice(0, MESSAGE_LIMIT);
  const detail = `${call.what}: the gateway answered ${status}${code ? ` ${code}` : ''}${text ? `: ${text}` : ''}`;
  const opts = {
    status,
    args: said.args,
    ...(code === undefined ? {} : {gatewayCode: code}),
    violations: said.violations,
  };

  // A reused order_id is a refusal whatever the HTTP status: nothing was charged for it.
  if (sameGatewayCode(code, REUSED_ORDER_ID) || status === 409) {
    return new GatewayConflictError(
      'conflict',
      `${detail}; an order_id is used once, even after a failed attempt: send a new order_id`,
      opts,
    );
  }
  if (status >= 500) {
    return call.failure === 'write'
      ? new GatewayOutcomeUnknownError(
          `${detail}; its outcome is unknown${orderHint(call.orderId)}`,
          {...opts, orderId: call.orderId},
        )
      : new GatewayUnavailableError('gateway_unavailable', `${detail} (${tries})`, opts);
  }
  switch (status) {
    case 429:
      return new GatewayRateLimitError(
        `${detail}; too many requests${failure.retryAfterSeconds === undefined ? '' : `, retry after ${failure.retryAfterSeconds} s`}`,
        {...opts, retryAfterSeconds: failure.retryAfterSeconds},
      );
    case 400:
    case 422:
      return new GatewayValidationError('gateway_validation', detail, opts);
    case 401:
    case 403:
      return new GatewayAuthenticationError(
        'authentication',
        `${detail}; check pos_id, the API key and secret, and the endpoints key`,
        opts,
      );
    case 404:
      return new GatewayNotFoundError('not_found', detail, opts);
    case 405:
      return new GatewayMethodError('method_not_allowed', detail, opts);
    case 406:
      return new GatewayMethodError(
        'not_acceptable',
        `${detail}; the body must be application/json`,
        opts,
      );
    default:
      return new GatewayProtocolError(`${detail}, a status the gateway does not document`, {
        status,
      });
  }
}

/**
 * The error body in its one form, scrubbed: from JSON in any known shape, from a short
 * plain-text body, or nothing (an empty body, an HTML page, JSON of no known shape).
 */
function whatTheGatewaySaid(answer: Answer, sensitive: readonly string[]): ErrorBody {
  const json = parseJson(answer.body);
  if (json.ok) {
    const body = ErrorBody.safeParse(json.value);
    return body.success ? redactDeep(body.data, sensitive) : {message: '', violations: []};
  }
  const plain = answer.body.replace(/\s+/g, ' ').trim();
  const looksLikeText = plain !== '' && !plain.startsWith('<') && plain.length <= MESSAGE_LIMIT;
  return {message: looksLikeText ? redactText(plain, sensitive) : '', violations: []};
}

function orderHint(orderId: string | undefined): string {
  return orderId === undefined
    ? ': check the state before doing anything else'
    : `: look order_id ${orderId} up before doing anything else, and use a new order_id for a new attempt`;
}

/**
 * Errors of the connect phase (refused, no route, no such host): the request never left
 * this machine. A reset or a close after connecting is not among them: the gateway may
 * have read the request by then.
 */
const CONNECT_ERRORS = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** True when a network failure happened before a connection to the gateway existed. */
function neverConnected(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as {code?: unknown}).code;
    if (typeof code === 'string' && CONNECT_ERRORS.has(code)) return true;
    // undici reports a failed connect to several addresses as one AggregateError.
    if (e instanceof AggregateError && e.errors.length > 0 && e.errors.every(neverConnected)) {
      return true;
    }
  }
  return false;
}

/** A network failure's cause, reduced to its name, code and message (no request data). */
function safeCause(error: unknown): Error | undefined {
  if (!(error instanceof Error)) return undefined;
  const inner = error.cause instanceof Error ? error.cause : undefined;
  const code = (inner as {code?: unknown} | undefined)?.code ?? (error as {code?: unknown}).code;
  const summary = new Error(
    [error.message, inner?.message, typeof code === 'string' ? code : undefined]
      .filter(Boolean)
      .join(': '),
  );
  summary.name = error.name;
  return summary;
}
