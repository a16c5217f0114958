/**
 * The body limits of the example app: one middleware, registered before every route and
 * every middleware but the answers' headers, reads each request's whole body within the
 * limit of its route group — the companion's routes (the webhook carries the gateway's
 * signed form) or everything else (the shop's forms and order API, the back office's
 * sign-in and JSON API) — and a deadline, with the companion's `boundedBody` (Hono's
 * `bodyLimit` inside). A declared `Content-Length` over the limit is refused before any
 * byte is read; a body without one is counted as it streams and refused as soon as it
 * passes the limit (413); a body still arriving at the deadline is answered 408; both say
 * `Connection: close`, and the connection closes. A client that leaves mid-body is an
 * abort (`CheckoutClientAbortedError`), logged as such. Nothing after this middleware
 * waits on a client's bytes: a slow sender holds no admission place of the companion's
 * and no database connection. The refusals are the companion's own error bodies, answered
 * by the app's `onError`.
 */
import type {MiddlewareHandler} from 'hono';
import {boundedBody} from '../src/server/index.js';

/** Largest request bodies, in bytes, per route group. */
export const BODY_LIMITS = {
  /** `/api/checkout/*`: the companion's routes (which apply its `bodyLimitBytes` too). */
  checkout: 64 * 1024,
  /** Every other route: small forms and JSON. */
  other: 16 * 1024,
} as const;

/**
 * The app-wide body read; `checkoutBase` is where the companion is mounted, `timeoutMs`
 * the deadline of a whole body (default 10 s).
 */
export function limitBodies(checkoutBase: string, timeoutMs?: number): MiddlewareHandler {
  return boundedBody({
    limitBytes: (c) =>
      c.req.path.startsWith(`${checkoutBase}/`) ? BODY_LIMITS.checkout : BODY_LIMITS.other,
    ...(timeoutMs === undefined ? {} : {timeoutMs}),
  });
}
