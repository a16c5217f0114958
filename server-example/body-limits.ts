/**
 * The body limits of the example app, with Hono's `bodyLimit`: one middleware, registered
 * before every route and every other middleware, picks the limit of the request's route
 * group — the companion's routes (the webhook carries the gateway's signed form) or
 * everything else (the shop's forms and order API, the back office's sign-in and JSON
 * API). A declared `Content-Length` over the limit is refused before any byte is read; a
 * body without one is counted as it streams and refused as soon as it passes the limit.
 * The refusal is the companion's own 413 body. What the client still sends is discarded
 * by the Node adapter, which then closes the connection (after 64 MiB or 500 ms): closing
 * at once could reset the connection before the client has read the 413. The 413 says
 * `Connection: close`, so no client sends its next request on a connection about to close.
 */
import type {Context, MiddlewareHandler} from 'hono';
import {bodyLimit} from 'hono/body-limit';
import {CheckoutPayloadTooLargeError} from '../src/server/index.js';

/** Largest request bodies, in bytes, per route group. */
export const BODY_LIMITS = {
  /** `/api/checkout/*`: the companion's routes (which apply its `bodyLimitBytes` too). */
  checkout: 64 * 1024,
  /** Every other route: small forms and JSON. */
  other: 16 * 1024,
} as const;

function limitTo(maxSize: number): MiddlewareHandler {
  // `Connection: close`: the adapter closes the connection after a refused body anyway
  // (once it has discarded what the client still sends); the answer says so.
  const tooLarge = (c: Context) =>
    c.json(new CheckoutPayloadTooLargeError(maxSize).toBody(), 413, {Connection: 'close'});
  const streaming = bodyLimit({maxSize, onError: tooLarge});
  // A declared length is checked without asking for the body: `hono/body-limit` asks for
  // it first, and the Node adapter then reads it through a web stream rather than
  // straight from the socket (see the companion's `limitBody`).
  return function limitTo(c, next) {
    const {method, headers} = c.req.raw;
    if (method === 'GET' || method === 'HEAD') return next();
    const length = headers.get('content-length');
    if (length === null || headers.has('transfer-encoding')) return streaming(c, next);
    return (parseInt(length, 10) || 0) > maxSize ? Promise.resolve(tooLarge(c)) : next();
  };
}

/** The app-wide body limit; `checkoutBase` is where the companion is mounted. */
export function limitBodies(checkoutBase: string): MiddlewareHandler {
  const checkout = limitTo(BODY_LIMITS.checkout);
  const other = limitTo(BODY_LIMITS.other);
  return function limitBody(c, next) {
    return (c.req.path.startsWith(`${checkoutBase}/`) ? checkout : other)(c, next);
  };
}
