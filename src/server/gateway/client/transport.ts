/**
 * The transport: one call to the gateway, from the request to a successful answer. It
 * builds the URL, signs the exact body text with the auth strategy (and always sends the
 * endpoints key as `X-API-Key`), sends it with a timeout, retries reads (GETs only:
 * network errors, timeouts, 5xx and 429 with a short `Retry-After`) with exponential
 * backoff and jitter on the client's clock, and hands every failure to
 * `toGatewayError`. Redirects are not followed: a hosted payment's 303 is an answer. The
 * exchange itself (node:http or fetch) is `exchange.ts`.
 */
import {endpointPath, GATEWAY_ENDPOINTS, type GatewayEndpoint} from '../auth.js';
import type {Answer} from './answers.js';
import {toGatewayError, type FailedCall} from './error-mapping.js';
import type {ClientSettings} from './options.js';
import {sensitiveValuesOf} from './redaction.js';
import {telemetry} from '../../telemetry/telemetry.js';

/** One call: the endpoint, its path parameters and query, and the body, if any. */
export interface Call extends FailedCall {
  endpoint: GatewayEndpoint;
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** The validated request; its JSON text is signed and sent. */
  body?: unknown;
  /** The JSON text of `body`, when it was made already. */
  bodyText?: string;
}

/** Exponential backoff with jitter: between half and all of `base * 2^attempt`, capped. */
export function backoff(attempt: number, base: number, max: number): number {
  const ceiling = Math.min(max, base * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** `Retry-After` as seconds: a number of seconds, or an HTTP date (seconds from now). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Thrown inside the transport when the client's own timeout fires. */
class TimeoutSignal extends Error {
  constructor() {
    super('gateway request timed out');
    this.name = 'TimeoutSignal';
  }
}

/** Sends calls for one client, with its settings. */
export class Transport {
  readonly #s: ClientSettings;

  constructor(settings: ClientSettings) {
    this.#s = settings;
  }

  /**
   * Sends one call (reads: with retries) and returns a successful answer, or throws the
   * typed error of the failure. `rawRequest` is what the caller passed (its card data is
   * scrubbed from errors); `accept` lets an endpoint take a non-2xx answer (a register's
   * `report_not_ready`).
   */
  async send(call: Call, rawRequest?: unknown, accept?: (a: Answer) => boolean): Promise<Answer> {
    const s = this.#s;
    const sensitive = sensitiveValuesOf(rawRequest ?? call.body, s.credentials);
    const {method} = GATEWAY_ENDPOINTS[call.endpoint];
    const path = endpointPath(call.endpoint, call.params);
    const search = call.query ? new URLSearchParams(call.query).toString() : '';
    const pathAndQuery = search ? `${path}?${search}` : path;
    const bodyText = call.bodyText ?? (call.body === undefined ? '' : JSON.stringify(call.body));
    // Only GETs are retried: a POST or PUT may have done its work before the failure.
    const attempts = method === 'GET' ? s.retries + 1 : 1;

    for (let attempt = 0; ; attempt++) {
      const last = attempt + 1 >= attempts;
      const pause = () => backoff(attempt, s.retryDelayMs, s.maxRetryDelayMs);
      let answer: Answer;
      try {
        answer = await telemetry.gatewayRequest(
          {
            operation: call.endpoint,
            method,
            urlTemplate: GATEWAY_ENDPOINTS[call.endpoint].path,
            url: s.baseUrl + path,
            resendCount: attempt,
          },
          () => this.#exchange(call.endpoint, method, pathAndQuery, bodyText),
        );
      } catch (error) {
        if (!last) {
          await s.clock.sleep(pause());
          continue;
        }
        const timedOut = error instanceof TimeoutSignal;
        throw toGatewayError(
          call,
          {kind: 'no-answer', timedOut, cause: error},
          {attempts: attempt + 1, timeoutMs: s.timeoutMs, sensitive},
        );
      }
      if ((answer.status >= 200 && answer.status < 400) || accept?.(answer)) return answer;
      const retryAfterSeconds =
        answer.status === 429
          ? parseRetryAfter(answer.headers.get('retry-after'), s.clock.now())
          : undefined;
      if ((answer.status === 429 || answer.status >= 500) && !last) {
        const wait = retryAfterSeconds === undefined ? pause() : retryAfterSeconds * 1000;
        if (wait <= s.maxRetryDelayMs) {
          await s.clock.sleep(wait);
          continue;
        }
      }
      throw toGatewayError(
        call,
        {kind: 'answer', answer, retryAfterSeconds},
        {attempts: attempt + 1, timeoutMs: s.timeoutMs, sensitive},
      );
    }
  }

  /** One HTTP exchange, headers and body within the timeout. */
  async #exchange(
    endpoint: GatewayEndpoint,
    method: string,
    pathAndQuery: string,
    body: string,
  ): Promise<Answer> {
    const s = this.#s;
    const headers: Record<string, string> = {
      Accept: 'application/json',
      ...s.auth.headers({endpoint, method, pathAndQuery, body}),
    };
    // Every public integration sends the endpoints key; a strategy that leaves it out
    // would get a 401 from the live gateway.
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'x-api-key'))
      headers['X-API-Key'] = s.credentials.endpointsKey;
    if (body !== '') headers['Content-Type'] = 'application/json';
    const controller = new AbortController();
    const timer = setTimeout(function gatewayTimeout() {
      controller.abort(new TimeoutSignal());
    }, s.timeoutMs);
    const url = s.baseUrl + pathAndQuery;
    try {
      const answer = await s.exchange({
        url,
        method,
        headers,
        body: body === '' ? undefined : body,
        signal: controller.signal,
      });
      return {...answer, url};
    } catch (error) {
      if (controller.signal.aborted) throw new TimeoutSignal();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** What the resource functions work with: the client's settings and its transport. */
export interface ClientContext {
  readonly settings: ClientSettings;
  readonly transport: Transport;
}
