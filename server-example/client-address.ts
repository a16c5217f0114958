/**
 * Who is asking, for the example's throttles and logs: the same address the companion
 * counts card-testing attempts under. Without `trustProxy` (`TRUST_PROXY`), the peer
 * address of the request's socket (from `getConnInfo` of `@hono/node-server`) and no
 * forwarding header is believed: behind a reverse proxy every client then has the proxy's
 * address (the first request that shows an `X-Forwarded-For` logs a warning saying so).
 * With `trustProxy` = n, the address n hops back in `X-Forwarded-For`, read by the
 * companion's own rule. The throttle key of an IPv6 address is its /64, since one
 * customer line is usually given a whole /64 and a guesser must not get 2^64 fresh keys.
 */
import {getConnInfo} from '@hono/node-server/conninfo';
import type {Context} from 'hono';
import {normaliseIp} from '../src/server/index.js';
// The companion's reading of `X-Forwarded-For` (`trustProxy`) and its grouping of an
// address, so that the shop and the companion never disagree on who a client is.
import {addressGroup, resolveClientIp} from '../src/server/defences/client-address.js';

/** The socket's peer address, normalised (`::ffff:1.2.3.4` → `1.2.3.4`), if there is one. */
export function socketAddress(c: Context): string | undefined {
  // An in-process request (`app.request`) has no Node bindings for getConnInfo to read.
  if (!(c.env as {incoming?: unknown} | undefined)?.incoming) return undefined;
  return normaliseIp(getConnInfo(c).remote.address);
}

/**
 * The key a throttle counts an address under: the companion's group of it (IPv4 as it is,
 * IPv6 by its /64: `2001:db8:1:2::/64`), `unknown` without one (an in-process request).
 */
export function addressKey(ip: string | undefined): string {
  return ip ? addressGroup(ip) : 'unknown';
}

/** How the app reads a request's client address. */
export interface ClientAddresses {
  /** The client's address, if there is one. */
  address(c: Context): string | undefined;
  /** The key the throttles count the client under (`addressKey` of its address). */
  key(c: Context): string;
}

/**
 * The client address of the app's requests: `trustProxy` as the companion's option (0:
 * the socket's peer; n: n hops back in `X-Forwarded-For`). `untrustedForward` is called
 * once, for the first request that carries `X-Forwarded-For` while `trustProxy` is 0.
 */
export function clientAddresses(
  trustProxy: number,
  untrustedForward?: (socket: string | undefined) => void,
): ClientAddresses {
  let warned = false;
  const address = (c: Context) => {
    const socket = socketAddress(c);
    const forwarded = c.req.header('x-forwarded-for') ?? null;
    if (trustProxy === 0 && forwarded !== null && !warned) {
      warned = true;
      untrustedForward?.(socket);
    }
    return resolveClientIp(socket, forwarded, trustProxy);
  };
  return {address, key: (c) => addressKey(address(c))};
}
