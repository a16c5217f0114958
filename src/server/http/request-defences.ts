/**
 * The request-level defences of the checkout routes, on Hono's own middleware where it
 * fits: `hono/cors` for the browser routes, `hono/csrf` for the hosted payment's HTML form
 * (every body's limit and deadline are the door's, `ingress.ts`). Written here are only what those cannot do, each with
 * its reason: the pay protocol's same-origin rule for JSON bodies, the refusal of a
 * preflight from an origin not allowed, and the strict UTF-8 reading of a body (the client
 * address and its group are the defences', `defences/client-address.ts`).
 * The card-testing limits live in
 * `velocity.ts`, counted in the payment store.
 */
import type {MiddlewareHandler} from 'hono';
import {cors} from 'hono/cors';
import {csrf} from 'hono/csrf';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../../protocol/checkout.js';
import {
  CheckoutForbiddenError,
  CheckoutInvalidRequestError,
  CheckoutPayloadTooLargeError,
} from '../errors.js';

/**
 * CORS for the routes the card form calls (`hono/cors`): allowed origins get
 * `Access-Control-Allow-Origin` and a preflight answer naming the protocol header.
 *
 * Preflights are `hono/cors`'s. On the other requests the same two headers it would add —
 * `Access-Control-Allow-Origin` for an allowed origin, `Vary: Origin` always — are put on
 * the route's answer once it is made (a test compares both with `hono/cors`). Measured
 * reason: `hono/cors` sets the first on `c.res` before the route runs and appends the
 * second with `c.header` after it, and either one makes Hono copy the route's answer into
 * a new `Response` whose body is a web stream (`c.res` setter, `c.header` on a finalised
 * context); the Node adapter then writes it out through that stream instead of in one
 * write. On the pay route that was 2–3 % of the example app's CPU per payment in the
 * companion bench.
 */
export function checkoutCors(allowedOrigins: readonly string[]): MiddlewareHandler {
  const preflight = cors({
    origin: [...allowedOrigins],
    allowMethods: ['GET', 'POST'],
    // The W3C trace context a card form's page may send (telemetry/: one trace per Pay).
    allowHeaders: ['Content-Type', 'Accept', CHECKOUT_HEADER, 'traceparent', 'tracestate'],
    maxAge: 600,
  });
  return async function checkoutCors(c, next) {
    const origin = c.req.header('origin');
    const allowed = origin !== undefined && allowedOrigins.includes(origin);
    if (c.req.method === 'OPTIONS') {
      // Hand-written: hono/cors answers a preflight from any origin with 204 (leaving out
      // only the allow-origin header); the companion refuses one from an origin it does
      // not allow with 403, so the refusal shows in its log (test: "an extra allowed
      // origin gets CORS headers and a preflight answer").
      if (!allowed) return c.body(null, 403);
      return preflight(c, next);
    }
    await next();
    const headers = c.res.headers;
    if (allowed) headers.set('Access-Control-Allow-Origin', origin);
    headers.append('Vary', 'Origin');
  };
}

/**
 * Refuses a pay (or abandon) request that a browser on another site could have sent: the
 * body must be JSON, the checkout header must carry the protocol version, and the request
 * must come from an allowed origin. When the browser sent `Origin`, it decides; without it,
 * `Sec-Fetch-Site: cross-site` is refused. (Non-browser clients send neither and pass:
 * they cannot carry a customer's credentials, and the header already defeats HTML forms.)
 *
 * Hand-written: `hono/csrf` checks only the content types an HTML form can send
 * (form-urlencoded, multipart, text/plain) and passes every JSON request, while the
 * protocol refuses a JSON request from another origin with its own `forbidden` body (tests:
 * "pay route security", "abandon is refused ... from another origin").
 */
export function checkSameOrigin(
  headers: Headers,
  allowedOrigins: readonly string[],
  development = false,
): void {
  const type = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new CheckoutForbiddenError('the pay route accepts only application/json bodies');
  }
  if (headers.get(CHECKOUT_HEADER) !== CHECKOUT_PROTOCOL_VERSION) {
    throw new CheckoutForbiddenError(
      `the pay route needs the ${CHECKOUT_HEADER}: ${CHECKOUT_PROTOCOL_VERSION} header`,
    );
  }
  const origin = headers.get('origin');
  if (origin !== null) {
    if (!allowedOrigins.includes(origin)) {
      throw new CheckoutForbiddenError('requests from this origin are not allowed', {
        hint: refusedOriginHint(origin, allowedOrigins),
        shownHint: development,
      });
    }
    return;
  }
  if ((headers.get('sec-fetch-site') ?? '').toLowerCase() === 'cross-site') {
    throw new CheckoutForbiddenError('cross-site requests are not allowed');
  }
}

/**
 * What the developer needs of a refused origin: which one, and the option that allows it
 * (a page on a Vite dev server at another port than `publicUrl`'s is the usual case).
 */
export function refusedOriginHint(origin: string, allowedOrigins: readonly string[]): string {
  const shown = origin.length > 200 ? `${origin.slice(0, 200)}…` : origin;
  return (
    `the Origin ${JSON.stringify(shown)} is not in allowedOrigins ` +
    `(${allowedOrigins.map((o) => JSON.stringify(o)).join(', ') || 'none'}); ` +
    `if your page is served from there, add it to createCheckoutApp's allowedOrigins`
  );
}

/**
 * `checkSameOrigin` as route middleware. `development`: a refused origin's hint (the
 * origin and `allowedOrigins`) is in the answer too, not only in the log.
 */
export function sameOriginJson(
  allowedOrigins: readonly string[],
  development = false,
): MiddlewareHandler {
  return async function sameOriginJson(c, next) {
    checkSameOrigin(c.req.raw.headers, allowedOrigins, development);
    await next();
  };
}

/**
 * The hosted payment's HTML form (`hono/csrf`): a form post is served when its `Origin` is
 * allowed or the browser says `Sec-Fetch-Site: same-origin`; anything else (another
 * origin, a cross-site post, a post with neither header) is refused with 403, which the
 * app's `onError` answers as `forbidden`.
 */
export function sameOriginForms(allowedOrigins: readonly string[]): MiddlewareHandler {
  return csrf({origin: [...allowedOrigins]});
}

/**
 * The body length a request declares, when the HTTP framing holds the body to it (a
 * `Content-Length` without `Transfer-Encoding`); `undefined` otherwise.
 */
export function declaredLength(request: Request): number | undefined {
  const headers = request.headers;
  const length = headers.get('content-length');
  if (length === null || headers.has('transfer-encoding')) return undefined;
  return parseInt(length, 10) || 0;
}

/** Strict UTF-8 (a malformed body is refused, not repaired); reusable, as nothing streams. */
const UTF8 = new TextDecoder('utf-8', {fatal: true});

/**
 * Reads a request body that the door (`boundedBody`) let through as text. Its size is checked again all
 * the same (the limit trusts a declared length that the HTTP framing enforces, which an
 * in-process `Request` does not have), and malformed UTF-8 is a 400. The routes pass Hono's
 * request (`c.req`), which keeps the bytes it read: a middleware of the merchant's that
 * reads the body first (the example's webhook log) shares them, without cloning the request.
 */
export async function readBodyText(
  request: Pick<Request, 'arrayBuffer'>,
  limit: number,
): Promise<string> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > limit) throw new CheckoutPayloadTooLargeError(limit);
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new CheckoutInvalidRequestError('the request body is not UTF-8 text', {field: '(body)'});
  }
}
