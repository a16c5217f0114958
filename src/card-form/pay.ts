/**
 * Builds the {@link PayRequest} of the form's fields, sends it to the merchant's pay route
 * and turns whatever comes back (a {@link PayResponse}, a {@link CheckoutErrorBody}, a
 * network failure, nonsense) into one typed result. It never throws, except with the abort
 * reason when `signal` aborts. Also the abandon call of a cancelled 3-D Secure challenge.
 */
import {
  CHECKOUT_HEADER,
  CHECKOUT_PROTOCOL_VERSION,
  PAY_OUTCOMES,
  type CardInput,
  type CustomerInput,
  type PayRequest,
  type PayResponse,
} from '../protocol/checkout.js';
import {timeoutSignal} from '../internal/async-controller.js';
import {traceparent} from '../internal/trace-context.js';
import type {CardField, PgErrorCode} from '../events/events.js';
import {collectBrowserFingerprint} from '../fingerprint/collect.js';
import {errorBodyOf} from '../three-ds-redirect/poll-status.js';
import {validateExpiry} from '../validation/card.js';
import {fieldValue} from './field-check.js';

/** Error codes after which the very same attempt may be sent again. */
const RETRY_SAME_ATTEMPT: readonly PgErrorCode[] = [
  'network',
  'timeout',
  'bad_response',
  'rate_limited',
  'gateway_unavailable',
  'store_unavailable',
  'busy',
  'internal',
];

export interface PayError {
  outcome: 'error';
  code: PgErrorCode;
  /** The server's message, when it sent one. */
  message: string;
  status?: number;
  /** Dotted path of the field the server blames (`card.number`). */
  field?: string;
  /** True when resending the same attempt (same attempt id) may succeed. */
  retrySameAttempt: boolean;
  /** Seconds to wait before trying again, with `rate_limited` and `busy`. */
  retryAfter?: number;
}

export type PayResult = PayResponse | PayError;

/**
 * The request for the form's `fields` (the card's, and the optional ones shown), each value
 * as the field rules normalise it: what the server and the gateway check. With a saved
 * card chosen, its id instead of the card. `acceptHeader`: the page's `Accept` header, when
 * the page's server gave it (`accept-header`), for the fingerprint.
 */
export function payRequest(
  orderRef: string,
  attemptId: string,
  fields: readonly CardField[],
  value: (name: CardField) => string,
  choice: {savedCardId?: string | undefined; consent?: boolean} = {},
  acceptHeader = '',
): PayRequest {
  const expiry = validateExpiry(value('expiry'));
  const card: CardInput = {
    number: fieldValue('number', value('number')),
    expMonth: expiry.month ?? 0,
    expYear: expiry.year ?? 0,
    cvv: fieldValue('cvv', value('cvv')),
  };
  const customer: CustomerInput = {};
  for (const name of fields) {
    if (name === 'holder') card.holder = fieldValue(name, value(name));
    else if (name !== 'number' && name !== 'expiry' && name !== 'cvv')
      customer[name] = fieldValue(name, value(name));
  }
  return {
    orderRef,
    attemptId,
    // A saved card pays by its id (the server holds its token); consent only for a new card.
    ...(choice.savedCardId
      ? {savedCardId: choice.savedCardId}
      : {card, ...(choice.consent ? {saveCard: true} : {})}),
    ...(Object.keys(customer).length > 0 ? {customer} : {}),
    fingerprint: collectBrowserFingerprint({acceptHeader}),
  };
}

/** How long one pay request may take before it counts as a network failure. */
export const PAY_TIMEOUT_MS = 90_000;

function isPayResponse(body: unknown): body is PayResponse {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  if (!(PAY_OUTCOMES as readonly unknown[]).includes(b.outcome) || typeof b.orderRef !== 'string') {
    return false;
  }
  return b.outcome !== '3ds_required' || typeof b.userActionUrl === 'string';
}

function error(code: PgErrorCode, message: string, extra: Partial<PayError> = {}): PayError {
  return {
    outcome: 'error',
    code,
    message,
    retrySameAttempt: RETRY_SAME_ATTEMPT.includes(code),
    ...extra,
  };
}

/**
 * True when trying again resends this very attempt: a network or server error, after which
 * the companion may or may not have the attempt (if it has, the same id gets its answer).
 */
export function retriesSameAttempt(result: PayResult): boolean {
  return result.outcome === 'error' && result.retrySameAttempt;
}

/**
 * True when the card data, the code included, stays in the inputs for "Try again": after
 * a retry of the same attempt, and after an outcome the companion could not confirm (then
 * a new attempt, for which the companion re-sends the create with the same gateway
 * `order_id`, so it cannot charge twice; the same attempt id would only be answered with
 * the state it already has).
 */
export function keepsCardData(result: PayResult): boolean {
  return (
    retriesSameAttempt(result) ||
    (result.outcome === 'failure' && result.reason === 'not_confirmed')
  );
}

/**
 * POSTs `body` as JSON with the checkout header (the pay and abandon routes), given up
 * after `ms` or when `signal` aborts.
 */
async function postJson(
  endpoint: string,
  body: unknown,
  signal: AbortSignal,
  ms: number,
): Promise<Response> {
  const limit = timeoutSignal(signal, ms);
  try {
    return await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
        traceparent: traceparent(),
      },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
      signal: limit.signal,
    });
  } finally {
    limit.done();
  }
}

/** POSTs `request` as JSON with the checkout header and classifies the answer. */
export async function sendPay(
  endpoint: string,
  request: PayRequest,
  signal: AbortSignal,
): Promise<PayResult> {
  let response: Response;
  try {
    response = await postJson(endpoint, request, signal, PAY_TIMEOUT_MS);
  } catch {
    if (signal.aborted) throw signal.reason;
    return error('network', '');
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (response.ok) {
    return isPayResponse(body) ? body : error('bad_response', '', {status: response.status});
  }
  const info = errorBodyOf(body);
  const code: PgErrorCode = info?.code ?? (response.status >= 500 ? 'internal' : 'invalid_request');
  // The body's wait, else `Retry-After` in seconds (as the companion writes it; a date or
  // anything else reads as none).
  const retryAfter = info?.retryAfter ?? (Number(response.headers.get('Retry-After')) || undefined);
  return error(code, info?.message ?? '', {
    status: response.status,
    ...(info?.field ? {field: info.field} : {}),
    ...(retryAfter ? {retryAfter} : {}),
    retrySameAttempt: RETRY_SAME_ATTEMPT.includes(code) || response.status >= 500,
  });
}

/**
 * Tells the merchant's abandon route that the customer cancelled the 3-D Secure challenge
 * of `attemptId`, so the order may be paid again at once. Best effort: resolves `false`
 * when the server could not be told (the challenge then simply blocks the order until it
 * is settled or expires on the server); never throws.
 */
export async function sendAbandon(
  endpoint: string,
  body: {orderRef: string; attemptId: string},
): Promise<boolean> {
  try {
    return (await postJson(endpoint, body, new AbortController().signal, 15_000)).ok;
  } catch {
    return false;
  }
}
