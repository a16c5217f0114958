/**
 * Asks the merchant's status route for the final state of an order, with exponential
 * backoff and an overall deadline. Transient trouble (network errors, 5xx, 429, a slow
 * answer) is retried until the deadline; an answer that says the order is unknown or the
 * request is refused stops at once. The outcome comes only from the server's answer.
 */
import {
  CHECKOUT_HEADER,
  CHECKOUT_PROTOCOL_VERSION,
  ORDER_QUERY_PARAM,
  PAYMENT_STATES,
  type CheckoutErrorBody,
  type StatusResponse,
} from '../protocol/checkout.js';
import {traceparent} from '../internal/trace-context.js';
import {systemClock, timeoutSignal, type Clock} from '../internal/async-controller.js';
import type {PgErrorCode} from '../events/events.js';

export interface PollOptions {
  /** Status route URL; `?order=<ref>` is added. */
  endpoint: string;
  orderRef: string;
  /** Give up after this many milliseconds. */
  timeout: number;
  /** First wait between attempts; doubles each time up to `maxInterval`. */
  interval: number;
  maxInterval?: number;
  signal: AbortSignal;
  /** Called with every non-final answer (to show progress). */
  onProgress?: (status: StatusResponse) => void;
  /** Where the deadline and the waits are measured (default: the system's clock). */
  clock?: Clock;
}

/** Why polling stopped without a final state. */
export class StatusError extends Error {
  readonly code: PgErrorCode;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly last: StatusResponse | undefined;
  constructor(
    code: PgErrorCode,
    message: string,
    retryable: boolean,
    status?: number,
    last?: StatusResponse,
  ) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.retryable = retryable;
    this.status = status;
    this.last = last;
  }
}

/** True when `body` has the shape of a {@link StatusResponse}. */
export function isStatusResponse(body: unknown): body is StatusResponse {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return (
    typeof b.orderRef === 'string' &&
    typeof b.final === 'boolean' &&
    (PAYMENT_STATES as readonly unknown[]).includes(b.state)
  );
}

/** The error code of a {@link CheckoutErrorBody}, if `body` is one. */
export function errorBodyOf(body: unknown): CheckoutErrorBody['error'] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as {error?: unknown}).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as Record<string, unknown>;
  return typeof e.code === 'string' && typeof e.message === 'string'
    ? (error as CheckoutErrorBody['error'])
    : undefined;
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** Resolves with the final status, or rejects with a {@link StatusError} (or the abort reason). */
export async function pollStatus(options: PollOptions): Promise<StatusResponse> {
  const {signal, clock = systemClock} = options;
  const url = new URL(options.endpoint, document.baseURI);
  url.searchParams.set(ORDER_QUERY_PARAM, options.orderRef);
  const deadline = clock.now() + options.timeout;
  const maxInterval = options.maxInterval ?? 8000;
  let delay = options.interval;
  let last: StatusResponse | undefined;

  for (;;) {
    const remaining = deadline - clock.now();
    if (remaining <= 0) break;
    const request = timeoutSignal(signal, remaining, clock);
    try {
      const response = await fetch(url, {
        headers: {
          [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
          Accept: 'application/json',
          traceparent: traceparent(),
        },
        credentials: 'same-origin',
        cache: 'no-store',
        signal: request.signal,
      });
      const body = await readJson(response);
      if (response.ok && isStatusResponse(body)) {
        if (body.final && (body.state === 'success' || body.state === 'failure')) return body;
        last = body;
        options.onProgress?.(body);
      } else if (!response.ok && response.status !== 429 && response.status < 500) {
        const error = errorBodyOf(body);
        throw new StatusError(
          error?.code ?? 'invalid_request',
          error?.message ?? `HTTP ${response.status}`,
          false,
          response.status,
        );
      }
      // 5xx, 429 or a malformed answer: try again after the backoff.
    } catch (error) {
      if (signal.aborted || error instanceof StatusError) throw error;
      // Network failure or a request that outlived the deadline: retry while time is left.
    } finally {
      request.done();
    }
    const wait = Math.min(delay, deadline - clock.now());
    if (wait <= 0) break;
    await clock.sleep(wait, signal);
    delay = Math.min(delay * 2, maxInterval);
  }
  throw new StatusError('timeout', 'The payment status is not final yet.', true, undefined, last);
}
