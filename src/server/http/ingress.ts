/**
 * The companion's one door: what every request passes before any route sees it, and what
 * every answer carries when it leaves. `createCheckoutApp` (app.ts) registers these first,
 * in this order — the answer's headers ({@link checkoutHeaders}, around everything, so a
 * 404, a 405, a 408, a 413 and a 503 carry them as a 200 does), the request's log line, the
 * whole body read within its limit and a deadline ({@link boundedBody}: a slow sender is
 * answered 408 and its connection closed; a client that leaves is logged as an abort),
 * then admission (admission.ts: a place is taken only once the body is in, so slow
 * senders hold none), then the routes with their identity and abuse checks. A merchant
 * app that mounts the companion puts the same two pieces first on its own app (the
 * example does), so its own answers and the bodies it reads pass the same door.
 */
import type {Context, MiddlewareHandler} from 'hono';
import {bodyLimit} from 'hono/body-limit';
import {secureHeaders} from 'hono/secure-headers';
import {CHECKOUT_ROUTES} from '../../protocol/checkout.js';
import type {CheckoutLogger} from '../telemetry/logger.js';
import {CheckoutError, CheckoutNotFoundError, CheckoutPayloadTooLargeError} from '../errors.js';
import {declaredLength} from './request-defences.js';
import {SECURITY_REPORT_ROUTE} from './security-report-route.js';

/** The hosted-payment route, relative to where the companion is mounted. */
export const HOSTED_ROUTE = '/hosted';

/** Each route of the companion (relative to where it is mounted) and its methods. */
const ROUTE_METHODS = new Map<string, readonly string[]>([
  [CHECKOUT_ROUTES.pay, ['POST']],
  [CHECKOUT_ROUTES.status, ['GET']],
  [CHECKOUT_ROUTES.return, ['GET', 'POST']],
  [CHECKOUT_ROUTES.webhook, ['POST']],
  [CHECKOUT_ROUTES.abandon, ['POST']],
  [CHECKOUT_ROUTES.order, ['POST']],
  [CHECKOUT_ROUTES.removeSavedCard, ['POST']],
  [HOSTED_ROUTE, ['POST']],
  [SECURITY_REPORT_ROUTE, ['POST']],
]);

/** 405: a route of the companion asked with a method it does not answer; `allow` names those. */
export class CheckoutMethodNotAllowedError extends CheckoutError {
  readonly allow: readonly string[];
  constructor(method: string, allow: readonly string[]) {
    super('invalid_request', 405, `this route answers ${allow.join(', ')}, not ${method}`);
    this.allow = allow;
  }
}

/**
 * The refusal of a request no route took: 405 naming the methods of a route of the
 * companion (`path` relative to where it is mounted; CORS preflights are the routes'), else
 * 404 `no such route`.
 */
export function unroutedError(method: string, path: string): CheckoutError {
  const allow = ROUTE_METHODS.get(path.replace(/\/+$/, '') || '/');
  if (allow && !allow.includes(method)) return new CheckoutMethodNotAllowedError(method, allow);
  return new CheckoutNotFoundError('no such route');
}

/** The default of `bodyTimeoutMs`: the whole body must arrive within 10 s. */
export const BODY_TIMEOUT_MS = 10_000;

/**
 * 408: the request's body did not arrive within the deadline (`bodyTimeoutMs`). The answer
 * says `Connection: close` and the connection is closed: a slow sender holds nothing.
 *
 * @example
 * ```ts
 * import {CheckoutRequestTimeoutError} from 'pg-checkout/server';
 *
 * new CheckoutRequestTimeoutError(10_000).status; // 408
 * ```
 */
export class CheckoutRequestTimeoutError extends CheckoutError {
  constructor(timeoutMs: number) {
    super(
      'invalid_request',
      408,
      `the request body did not arrive within the deadline of ${timeoutMs} ms`,
      {field: '(body)'},
    );
  }
}

/**
 * 499 (as nginx logs it): the client closed its connection before its body arrived.
 * Nobody reads this answer; the request is logged as `client aborted` at info, not as a
 * fault of the server.
 *
 * @example
 * ```ts
 * import {CheckoutClientAbortedError} from 'pg-checkout/server';
 *
 * new CheckoutClientAbortedError().status; // 499
 * ```
 */
export class CheckoutClientAbortedError extends CheckoutError {
  constructor(opts: {cause?: unknown} = {}) {
    super(
      'invalid_request',
      499,
      'the client closed the connection before its body arrived',
      opts.cause === undefined ? {field: '(body)'} : {field: '(body)', cause: opts.cause},
    );
  }
}

/** Whether `error`, from reading a request body, means the client went away. */
function isClientAbort(error: unknown, c: Context): boolean {
  const incoming = (c.env as {incoming?: {destroyed?: boolean; aborted?: boolean}} | undefined)
    ?.incoming;
  if (incoming?.destroyed === true || incoming?.aborted === true) return true;
  const e = error as {code?: unknown; name?: unknown; message?: unknown} | null;
  return (
    e?.code === 'ECONNRESET' ||
    e?.code === 'ECONNABORTED' ||
    e?.code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    e?.name === 'AbortError' ||
    e?.message === 'Client connection prematurely closed.'
  );
}

/** Options of {@link boundedBody}. */
export interface BoundedBodyOptions {
  /** Largest body, in bytes: a number, or one per request (by its path). */
  limitBytes: number | ((c: Context) => number);
  /** The longest the whole body may take to arrive, in ms (default {@link BODY_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/**
 * Reads a request's whole body, within its size limit and a deadline, before anything
 * after it runs; the bytes stay in Hono's request (`c.req.text()`, `c.req.json()`, … answer
 * from them at once). A declared `Content-Length` over the limit is refused before a byte
 * is read (413); a body without one is counted as it streams (`hono/body-limit`); a body
 * still arriving at the deadline is answered 408 (`CheckoutRequestTimeoutError`, with
 * `Connection: close` from the companion's answers); a client that leaves mid-body is
 * `CheckoutClientAbortedError` (499, logged as an abort). GET and HEAD pass at once.
 *
 * Hand-written around `hono/body-limit` rather than `hono/timeout`: the latter answers
 * the deadline but leaves the read running and the socket open, and a deadline is the
 * read's, not the route's (a payment may wait on the gateway far longer).
 *
 * @example
 * ```ts
 * import {Hono} from 'hono';
 * import {boundedBody} from 'pg-checkout/server';
 *
 * const app = new Hono();
 * // First on the app: no route reads a body that is not whole, within 16 kB and 10 s.
 * app.use('*', boundedBody({limitBytes: 16 * 1024, timeoutMs: 10_000}));
 * ```
 */
export function boundedBody(options: BoundedBodyOptions): MiddlewareHandler {
  const timeoutMs = options.timeoutMs ?? BODY_TIMEOUT_MS;
  const limitOf =
    typeof options.limitBytes === 'number'
      ? (
          (n: number) => () =>
            n
        )(options.limitBytes)
      : options.limitBytes;
  const streaming = new Map<number, MiddlewareHandler>();
  const streamingLimit = (limit: number): MiddlewareHandler => {
    let m = streaming.get(limit);
    if (!m) {
      m = bodyLimit({
        maxSize: limit,
        onError: () => {
          throw new CheckoutPayloadTooLargeError(limit);
        },
      });
      streaming.set(limit, m);
    }
    return m;
  };

  /** The body, whole, into `c.req`'s cache (or a 413). */
  const read = async (c: Context, limit: number): Promise<void> => {
    // The declared length is checked here, before `hono/body-limit` (whose rule it is),
    // because that one first asks the request for its `body`: the Node adapter then builds a
    // whole web `Request` with a `ReadableStream` and an `AbortSignal`, and the read goes
    // through the stream instead of straight from the socket. In a CPU profile of the
    // example's app under the pay-route benchmark, that (`newRequestFromIncoming`, the
    // stream's `pull`, `Readable.toWeb`) was 7 % of the app's busy time; with the declared
    // length checked here, under 1 %. Only a body without a length is counted as it streams.
    const length = declaredLength(c.req.raw);
    if (length !== undefined) {
      if (length > limit) throw new CheckoutPayloadTooLargeError(limit);
      await c.req.arrayBuffer();
      return;
    }
    await streamingLimit(limit)(c, async () => {
      await c.req.arrayBuffer();
    });
  };

  return async function boundedBody(c, next) {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    // Read already, through `c.req`, by a door in front of this one (the merchant's app).
    if (Object.keys(c.req.bodyCache).length > 0) return next();
    const limit = limitOf(c);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CheckoutRequestTimeoutError(timeoutMs)), timeoutMs);
    });
    const reading = read(c, limit);
    // The read that loses to the deadline fails later, when the connection is closed.
    reading.catch(() => undefined);
    try {
      await Promise.race([reading, late]);
    } catch (error) {
      if (error instanceof CheckoutError) throw error;
      if (isClientAbort(error, c)) throw new CheckoutClientAbortedError({cause: error});
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return next();
  };
}

/**
 * Puts the companion's security headers on every answer that leaves through it — 2xx,
 * 4xx, 404, 405, 408, 413, 503, whoever made it — where the answer has none of its own:
 * `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, a
 * `Content-Security-Policy` of `default-src 'none'; frame-ancestors 'none'`, and
 * `Cache-Control: no-store`. `hono/secure-headers` with `overwrite: false` and only these
 * headers turned on (its others — COOP, CORP, HSTS, … — are a page's, not a JSON API's
 * that other origins call with CORS).
 *
 * @example
 * ```ts
 * import {Hono} from 'hono';
 * import {checkoutHeaders} from 'pg-checkout/server';
 *
 * const app = new Hono();
 * app.use('/checkout/*', checkoutHeaders()); // first: the 404s under it carry them too
 * ```
 */
export function checkoutHeaders(): MiddlewareHandler {
  const secure = secureHeaders({
    overwrite: false,
    contentSecurityPolicy: {defaultSrc: ["'none'"], frameAncestors: ["'none'"]},
    xFrameOptions: 'DENY',
    xContentTypeOptions: true,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    strictTransportSecurity: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    removePoweredBy: false,
  });
  return async function checkoutHeaders(c, next) {
    await secure(c, next);
    const headers = c.res.headers;
    if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
    // A refused body (too large, too slow) is not read to its end: the connection closes.
    if (c.res.status === 408 || c.res.status === 413) headers.set('Connection', 'close');
  };
}

/**
 * One line per request: info when served, `client aborted` at info when the client left
 * before its body arrived, warn when refused (4xx: a bad request, a customer field the
 * gateway requires, a limit; with the code, the field and the rule, never a value — error
 * messages carry none), error on a 5xx but `busy`. `answeredWith` holds the error each
 * refused request was answered with (set by the app's `onError`).
 */
export function requestLog(
  logger: CheckoutLogger,
  answeredWith: WeakMap<Context, CheckoutError>,
): MiddlewareHandler {
  return async function requestLog(c, next) {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const line = {
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    const refused = answeredWith.get(c);
    if (refused instanceof CheckoutClientAbortedError) {
      logger.info(line, 'client aborted');
    } else if (status >= 500 && refused?.code !== 'busy') {
      logger.error(line, 'request failed');
    } else if (status >= 400) {
      const refusal = refused && {
        code: refused.code,
        ...(refused.field === undefined ? {} : {field: refused.field}),
        message: refused.message,
      };
      logger.warn({...line, ...refusal}, 'request refused');
    } else {
      logger.info(line, 'request');
    }
  };
}
