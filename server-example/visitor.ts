/**
 * The demo's signed-in customer, one per visitor. A real shop takes `customer.id` from its
 * session (docs/guides/saved-cards.md); the demo has no accounts, so the first page a
 * browser asks for opens a session for it: a random id in an HttpOnly, SameSite=Lax
 * cookie (Secure when the shop is served over https), signed with HMAC-SHA256 under a
 * secret of the instance (`hono/cookie`'s signed cookies, verified in constant time by
 * WebCrypto), and the visitor's customer id is derived from it. A cookie whose signature
 * does not hold — made up, copied from another shop, or tampered with — names no one: the
 * request is a guest's, and the next page opens a fresh session. So a customer id is never
 * something the browser can choose (issue 35: 200 made-up cookies were 200 named customers,
 * whom the card-testing breaker let pass). Every visitor is "Olena Shevchenko" on the pages,
 * but their own customer to the companion, so two visitors never see each other's saved
 * cards. The customer id is a hash of the session id, so the back office, which lists
 * customer ids, shows nothing a cookie could be made from.
 */
import {createHash, randomBytes} from 'node:crypto';
import type {MiddlewareHandler} from 'hono';
import {getSignedCookie, setSignedCookie} from 'hono/cookie';
import {parseSigned} from 'hono/utils/cookie';
import type {OrderCustomer} from '../src/server/index.js';
import {DEMO_CUSTOMER} from './catalog.js';

/** The cookie that holds the visitor's session id, signed (`<id>.<signature>`). */
export const VISITOR_COOKIE = 'pg_demo_visitor';
/** Session ids: 128 random bits, hex. */
const SESSION_ID = /^[0-9a-f]{32}$/;
/** A visitor stays the same customer for a year of visits. */
const MAX_AGE_S = 365 * 24 * 3600;

/**
 * The customer id of the visitor whose session is `session`: its id, or the whole cookie
 * value (the signature is left aside; the id alone names the customer).
 */
export function visitorCustomerId(session: string): string {
  const id = decodeURIComponent(session).split('.')[0]!;
  return `visitor-${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

/** The visitors' sessions of one instance (`secret` signs their cookies). */
export interface Visitors {
  /** Opens a session for a browser that has none, or one whose cookie is not ours. */
  sessions: MiddlewareHandler;
  /**
   * The customer signed in on `request`: the demo's customer details with the visitor's
   * own id; or, without a session whose signature holds (no cookie, a made-up or tampered
   * one), the details without an id — a guest, to whom no card is offered and for whom none
   * is saved, and whom the card-testing breaker counts with the other guests.
   */
  customerOf(request: Request | undefined): Promise<OrderCustomer>;
}

/**
 * The visitors' sessions, their cookies signed with `secret` (the example's
 * `visitorSecret`, `VISITOR_SECRET`): never logged, and the same on every instance of one
 * shop, or a visitor is a guest on the others.
 */
export function visitorSessions(opts: {secret: string; secure: boolean}): Visitors {
  const {secret} = opts;
  return {
    sessions: async function visitorSession(c, next) {
      const id = await getSignedCookie(c, secret, VISITOR_COOKIE);
      if (typeof id !== 'string' || !SESSION_ID.test(id)) {
        await setSignedCookie(c, VISITOR_COOKIE, randomBytes(16).toString('hex'), secret, {
          path: '/',
          httpOnly: true,
          sameSite: 'Lax',
          secure: opts.secure,
          maxAge: MAX_AGE_S,
        });
      }
      await next();
    },
    async customerOf(request) {
      const cookie = request?.headers.get('cookie');
      const id = cookie
        ? (await parseSigned(cookie, secret, VISITOR_COOKIE))[VISITOR_COOKIE]
        : undefined;
      return typeof id === 'string' && SESSION_ID.test(id)
        ? {...DEMO_CUSTOMER, id: visitorCustomerId(id)}
        : {...DEMO_CUSTOMER};
    },
  };
}
