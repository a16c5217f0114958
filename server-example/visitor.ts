/**
 * The demo's signed-in customer, one per visitor. A real shop takes `customer.id` from its
 * session (docs/guides/saved-cards.md); the demo has no accounts, so the first page a
 * browser asks for opens a session for it: a random id in an HttpOnly, SameSite=Lax
 * cookie (Secure when the shop is served over https; `hono/cookie`), and the visitor's
 * customer id is derived from it. Every visitor is "Olena Shevchenko" on the pages, but
 * their own customer to the companion, so two visitors never see each other's saved cards.
 * The customer id is a hash of the session id, so the back office, which lists customer
 * ids, shows nothing a cookie could be made from.
 */
import {createHash, randomBytes} from 'node:crypto';
import type {MiddlewareHandler} from 'hono';
import {getCookie, setCookie} from 'hono/cookie';
import {parse} from 'hono/utils/cookie';
import type {OrderCustomer} from '../src/server/index.js';
import {DEMO_CUSTOMER} from './catalog.js';

/** The cookie that holds the visitor's session id. */
export const VISITOR_COOKIE = 'pg_demo_visitor';
/** Session ids: 128 random bits, hex. */
const SESSION_ID = /^[0-9a-f]{32}$/;
/** A visitor stays the same customer for a year of visits. */
const MAX_AGE_S = 365 * 24 * 3600;

/** The customer id of the visitor whose session id is `sessionId`. */
export function visitorCustomerId(sessionId: string): string {
  return `visitor-${createHash('sha256').update(sessionId).digest('hex').slice(0, 24)}`;
}

/** Opens a session for a browser that has none (or a malformed one). */
export function visitorSessions(opts: {secure: boolean}): MiddlewareHandler {
  return async function visitorSession(c, next) {
    if (!SESSION_ID.test(getCookie(c, VISITOR_COOKIE) ?? '')) {
      setCookie(c, VISITOR_COOKIE, randomBytes(16).toString('hex'), {
        path: '/',
        httpOnly: true,
        sameSite: 'Lax',
        secure: opts.secure,
        maxAge: MAX_AGE_S,
      });
    }
    await next();
  };
}

/**
 * The customer signed in on `request`: the demo's customer details with the visitor's own
 * id, or, without a session (a request that carries no cookie), the details without an id
 * — a guest, to whom no card is offered and for whom none is saved.
 */
export function customerOf(request: Request | undefined): OrderCustomer {
  const sessionId = parse(request?.headers.get('cookie') ?? '', VISITOR_COOKIE)[VISITOR_COOKIE];
  return sessionId !== undefined && SESSION_ID.test(sessionId)
    ? {...DEMO_CUSTOMER, id: visitorCustomerId(sessionId)}
    : {...DEMO_CUSTOMER};
}
