/**
 * Who may use the back office: the `ADMIN_TOKEN` (from the sign-in form, or as
 * `Authorization: Bearer` for scripts), checked in constant time; and the server-side
 * session a sign-in opens, whose random id the browser keeps in a signed, HttpOnly,
 * SameSite=Strict cookie (`hono/cookie`). Gives the API's guard middleware and the
 * same-origin check of the sign-in and sign-out forms (`hono/csrf`).
 *
 * Wrong tokens are throttled per client address, the right one never is: the token is
 * long and random (16 characters or more; the demo makes up 32), so guessing it is hopeless
 * whatever the rate, and refusing it would let anyone who shares the merchant's address —
 * everyone behind a reverse proxy without `TRUST_PROXY`, a café's network — lock the
 * merchant out with a few wrong guesses. Past `loginFailures` wrong tokens from an address
 * in the window, its wrong tokens are answered 429 and no longer counted (the address holds
 * at most that many rows), and a right token from it still signs in.
 */
import {createHmac, timingSafeEqual} from 'node:crypto';
import type {Context, MiddlewareHandler} from 'hono';
import {deleteCookie, getSignedCookie, setSignedCookie} from 'hono/cookie';
import {csrf} from 'hono/csrf';
import type {CheckoutLogger} from '../../src/server/index.js';
import type {ClientAddresses} from '../client-address.js';
import {waitText, type Throttle} from '../throttle.js';
import type {AdminSessions} from './sessions.js';

const COOKIE = 'pg_admin';
/** The cookie lives under the back office only. */
const COOKIE_PATH = '/admin';

/** Whether a request may use the back office; `retryAfter` (s) for a wrong token from a throttled address. */
export interface Access {
  ok: boolean;
  retryAfter?: number;
}

export interface AuthDeps {
  token: string | undefined;
  secureCookies: boolean;
  sessions: AdminSessions;
  /** Counts wrong tokens (sign-in form and `Authorization: Bearer`) per client address. */
  loginThrottle: Throttle;
  /** Who a request comes from (the throttle's key; the address a session records). */
  clients: ClientAddresses;
  logger: CheckoutLogger;
}

/** The key that signs the session cookie, derived from the token (which stays on the server). */
function cookieSecret(token: string): string {
  return createHmac('sha256', token)
    .update('pg-checkout demo back office session cookie')
    .digest('base64url');
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHmac('sha256', 'compare').update(given).digest();
  const b = createHmac('sha256', 'compare').update(expected).digest();
  return timingSafeEqual(a, b);
}

export type AdminAuth = ReturnType<typeof adminAuth>;

export function adminAuth(deps: AuthDeps) {
  const {sessions, loginThrottle, clients, logger} = deps;
  const secret = deps.token ? cookieSecret(deps.token) : undefined;

  /**
   * Checks a token from the sign-in form or a Bearer header. The right one always passes;
   * a wrong one is counted against the address, or answered with the wait when the
   * address is at its limit (then not counted: its rows stay bounded).
   */
  const checkToken = async (c: Context, given: string, via: 'form' | 'bearer'): Promise<Access> => {
    if (!deps.token) return {ok: false};
    if (sameSecret(given, deps.token)) return {ok: true};
    const from = clients.key(c);
    const retryAfter = await loginThrottle.take(from);
    if (retryAfter !== undefined) {
      logger.warn({client: from, via, retryAfter}, 'back office refused: too many wrong tokens');
      return {ok: false, retryAfter};
    }
    logger.warn({client: from, via}, 'back office refused: wrong token');
    return {ok: false};
  };

  /** The session id in the request's cookie, when its signature holds. */
  const cookieSession = async (c: Context): Promise<string | undefined> => {
    if (!secret) return undefined;
    const id = await getSignedCookie(c, secret, COOKIE);
    return typeof id === 'string' && id !== '' ? id : undefined;
  };

  /** Whether the request carries a live session or the right Bearer token. */
  const access = async (c: Context): Promise<Access> => {
    if (!deps.token) return {ok: false};
    const header = c.req.header('authorization');
    if (header?.startsWith('Bearer ')) return checkToken(c, header.slice(7), 'bearer');
    const id = await cookieSession(c);
    return {ok: id !== undefined && (await sessions.use(id))};
  };

  /** The JSON answer to a request without access. */
  const refused = (c: Context, a: Access, message: string) =>
    a.retryAfter === undefined
      ? c.json({error: {code: 'forbidden', message}}, 403)
      : c.json(
          {
            error: {
              code: 'rate_limited',
              message: `too many wrong tokens from this address: try again in ${waitText(a.retryAfter)}`,
              retryAfter: a.retryAfter,
            },
          },
          429,
          {'Retry-After': String(a.retryAfter)},
        );

  /**
   * The JSON API's guard: access first, then a write must be a JSON body. A browser on
   * another site cannot send one without a CORS preflight, which the back office never
   * grants (it answers none), and the session cookie is SameSite=Strict; so JSON needs no
   * origin check of its own, and no form can write.
   */
  const guard: MiddlewareHandler = async function adminGuard(c, next) {
    const a = await access(c);
    if (!a.ok) return refused(c, a, 'sign in to the back office first');
    if (c.req.method !== 'GET') {
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim();
      if (type !== 'application/json') {
        return c.json({error: {code: 'forbidden', message: 'same-origin JSON requests only'}}, 403);
      }
    }
    await next();
    c.res.headers.set('Cache-Control', 'no-store');
  };

  const library = csrf();
  /**
   * The sign-in and sign-out forms are same-origin only (`hono/csrf`). Hand-written: a
   * request with neither `Origin` nor `Sec-Fetch-Site` passes — hono/csrf refuses it, but
   * every browser sends one of them on a form post, and scripts and the tests sign in
   * without (test/node/example/hardening.test.ts, `signIn`).
   */
  const sameOriginForm: MiddlewareHandler = async function sameOriginForm(c, next) {
    if (c.req.header('origin') === undefined && c.req.header('sec-fetch-site') === undefined) {
      return next();
    }
    return library(c, next);
  };

  /**
   * Opens a session for a right token and sets its cookie. The address's wrong tokens are
   * left counted: they may be someone else's (a shared address), not a typo of the owner.
   */
  const startSession = async (c: Context): Promise<void> => {
    const id = await sessions.create(clients.address(c) ?? 'unknown');
    await setSignedCookie(c, COOKIE, id, secret!, {
      path: COOKIE_PATH,
      httpOnly: true,
      sameSite: 'Strict',
      secure: deps.secureCookies,
      maxAge: Math.floor(sessions.maxAgeMs / 1000),
    });
  };

  /** Ends the request's session, if any, and clears its cookie. */
  const endSession = async (c: Context): Promise<void> => {
    const id = await cookieSession(c);
    if (id !== undefined) await sessions.revoke(id);
    deleteCookie(c, COOKIE, {path: COOKIE_PATH, secure: deps.secureCookies});
  };

  return {
    /** Whether the back office is on (a token is configured). */
    enabled: secret !== undefined,
    checkToken,
    access,
    refused,
    guard,
    sameOriginForm,
    startSession,
    endSession,
  };
}
