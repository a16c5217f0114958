// session.ts — who is signed in: a stand-in for your shop's sessions. `signIn` opens a
// session (a random id in an HttpOnly cookie) once your sign-in has checked the customer's
// password; `customerOf` finds the customer of a request's session in your server's own
// records. A session id the server never issued names no one, and nothing else the browser
// sends (a field, a header, a cookie you did not sign) can name a customer.
import {randomUUID} from 'node:crypto';

const sessions = new Map<string, string>(); // session id → customer id (yours: a database)

/** Opens a session for `customerId`; returns the `Set-Cookie` header value. */
export function signIn(customerId: string): string {
  const id = randomUUID();
  sessions.set(id, customerId);
  return `session=${id}; HttpOnly; SameSite=Lax; Path=/`;
}

/** The signed-in customer of a request, if any: only from a session this server opened. */
export function customerOf(request: Request): string | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  const id = /(?:^|;\s*)session=([\w-]+)/.exec(cookie)?.[1];
  return id === undefined ? undefined : sessions.get(id);
}
