/**
 * The request-level defences of the checkout routes: the same-origin check of the pay
 * route (JSON content type, the protocol header, `Origin` / `Sec-Fetch-Site`), the client
 * address (with an explicit number of trusted proxies) and a bounded body reader. The
 * card-testing limits live in `velocity.ts`, counted in the payment store.
 */
import {isIP} from 'node:net';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../../protocol/checkout.js';
import {ForbiddenError, InvalidRequestError, PayloadTooLargeError} from './errors.js';

/**
 * Refuses a pay request that a browser on another site could have sent: the body must be
 * JSON, the checkout header must carry the protocol version, and the request must come
 * from an allowed origin. When the browser sent `Origin`, it decides; without it,
 * `Sec-Fetch-Site: cross-site` is refused. (Non-browser clients send neither and pass:
 * they cannot carry a customer's credentials, and the header already defeats HTML forms.)
 */
export function checkSameOrigin(headers: Headers, allowedOrigins: readonly string[]): void {
  const type = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ForbiddenError('the pay route accepts only application/json bodies');
  }
  if (headers.get(CHECKOUT_HEADER) !== CHECKOUT_PROTOCOL_VERSION) {
    throw new ForbiddenError(
      `the pay route needs the ${CHECKOUT_HEADER}: ${CHECKOUT_PROTOCOL_VERSION} header`,
    );
  }
  const origin = headers.get('origin');
  if (origin !== null) {
    if (!allowedOrigins.includes(origin)) {
      throw new ForbiddenError('requests from this origin are not allowed');
    }
    return;
  }
  if ((headers.get('sec-fetch-site') ?? '').toLowerCase() === 'cross-site') {
    throw new ForbiddenError('cross-site requests are not allowed');
  }
}

/** Normalises an address: strips the IPv4-mapped IPv6 prefix and zone ids. */
export function normalizeIp(address: string | undefined | null): string | undefined {
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
 * entries further left are whatever the client claimed and are never trusted).
 */
export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | null,
  trustProxy: boolean | number,
): string | undefined {
  const peer = normalizeIp(socketAddress);
  const hops = trustProxy === true ? 1 : trustProxy === false ? 0 : trustProxy;
  if (hops <= 0 || !forwardedFor) return peer;
  const chain = forwardedFor
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const index = chain.length - hops;
  return normalizeIp(chain[Math.max(0, index)]) ?? peer;
}

/** Strict UTF-8 (a malformed body is refused, not repaired); reusable, as nothing streams. */
const UTF8 = new TextDecoder('utf-8', {fatal: true});

function utf8Text(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new InvalidRequestError('the request body is not UTF-8 text', {field: '(body)'});
  }
}

/**
 * Reads a request body as text, refusing (413) one larger than `limit` bytes — by its
 * `Content-Length` before reading, or while streaming when the length is not declared.
 * With a declared length within the limit the body is read in one go (`arrayBuffer()`:
 * the Node adapter then reads the socket directly, without building a web stream), since
 * the HTTP framing bounds it to that length; its size is checked again all the same.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    const length = Number(declared);
    if (length > limit) throw new PayloadTooLargeError(limit);
    if (Number.isSafeInteger(length) && length >= 0) {
      const bytes = new Uint8Array(await request.arrayBuffer());
      if (bytes.byteLength > limit) throw new PayloadTooLargeError(limit);
      return utf8Text(bytes);
    }
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new PayloadTooLargeError(limit);
    }
    chunks.push(value);
  }
  return utf8Text(Buffer.concat(chunks));
}
