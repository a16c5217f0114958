/**
 * The client address every per-address defence counts: the socket's peer or the address a
 * known number of trusted proxies saw ({@link resolveClientIp}), normalised
 * ({@link normaliseIp}), and the group a limit counts it in ({@link addressGroup}: an IPv6
 * customer line's /64). Shared by the card-testing limits, the report route and the
 * example's throttles, so that all of them count one client alike.
 */
import {isIP, isIPv6} from 'node:net';

/**
 * Normalises an address: strips the IPv4-mapped IPv6 prefix and zone ids.
 *
 * @example
 * ```ts
 * import {normaliseIp} from 'pg-checkout/server';
 *
 * normaliseIp('::ffff:203.0.113.9'); // '203.0.113.9'
 * normaliseIp('fe80::1%eth0'); // 'fe80::1'
 * ```
 */
export function normaliseIp(address: string | undefined | null): string | undefined {
  if (!address) return undefined;
  let ip = address.trim();
  if (ip.startsWith('[') && ip.includes(']')) ip = ip.slice(1, ip.indexOf(']'));
  const zone = ip.indexOf('%');
  if (zone > 0) ip = ip.slice(0, zone);
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip)) ip = ip.slice(7);
  return isIP(ip) ? ip : undefined;
}

/**
 * The client address: the socket's peer, or, with `trustProxy` = n (true = 1), the
 * address n hops back in `X-Forwarded-For` (each trusted proxy appends the address it saw;
 * entries further left are whatever the client claimed and are never trusted), without a
 * port some proxies add. Hono has no helper that counts trusted proxies, so this one is
 * written here. The limits count the address in its group (`addressGroup`).
 */
export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | null,
  trustProxy: boolean | number,
): string | undefined {
  const peer = normaliseIp(socketAddress);
  const hops = trustProxy === true ? 1 : trustProxy === false ? 0 : trustProxy;
  if (hops <= 0 || !forwardedFor) return peer;
  const chain = forwardedFor
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const entry = chain[Math.max(0, chain.length - hops)];
  if (entry === undefined) return peer;
  // Some proxies (Azure's, IIS's) write an IPv4 address with its port; an IPv6 one with a
  // port comes in brackets, which `normaliseIp` takes off.
  return normaliseIp(/^\d+\.\d+\.\d+\.\d+:\d+$/.test(entry) ? entry.split(':')[0] : entry) ?? peer;
}

/**
 * The group a client address is counted in by every per-address limit (card testing, order
 * look-ups, CSP reports, the example's throttles): an IPv4 address itself, an IPv6 address
 * its /64 (`2001:db8:1:2::/64`), since one customer line is usually given a whole /64 and
 * a guesser must not get 2^64 fresh budgets.
 */
export function addressGroup(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::') as [string, string?];
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' || !ip.includes('::') ? [] : tail.split(':');
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
