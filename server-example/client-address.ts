/**
 * Who is asking, for the example's throttles and logs: the peer address of the request's
 * socket, from `getConnInfo` of `@hono/node-server`. No forwarding header is believed —
 * behind a reverse proxy every client has the proxy's address. The throttle key of an IPv6
 * address is its /64, since one customer line is usually given a whole /64 and a guesser
 * must not get 2^64 fresh keys.
 */
import {getConnInfo} from '@hono/node-server/conninfo';
import type {Context} from 'hono';
import {normaliseIp} from '../src/server/index.js';

/** The socket's peer address, normalised (`::ffff:1.2.3.4` → `1.2.3.4`), if there is one. */
export function socketAddress(c: Context): string | undefined {
  // An in-process request (`app.request`) has no Node bindings for getConnInfo to read.
  if (!(c.env as {incoming?: unknown} | undefined)?.incoming) return undefined;
  return normaliseIp(getConnInfo(c).remote.address);
}

/** The eight groups of an IPv6 address, as numbers. */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16));
}

/**
 * The key a throttle counts a client under: an IPv4 address as it is, an IPv6 address by
 * its /64 (`2001:db8:1:2::/64`), `unknown` without a socket (an in-process request).
 */
export function clientKey(c: Context): string {
  const ip = socketAddress(c);
  if (!ip) return 'unknown';
  if (!ip.includes(':')) return ip;
  const prefix = ipv6Groups(ip)
    .slice(0, 4)
    .map((g) => g.toString(16));
  return `${prefix.join(':')}::/64`;
}
