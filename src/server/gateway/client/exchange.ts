/**
 * One HTTP exchange with the gateway, as the transport needs it: a request with a text
 * body in, the status, headers and whole body text out, redirects never followed, and
 * the exchange abandoned when its signal aborts. Two implementations:
 *
 * - `fetchExchange`: an injected `fetch` (tests, runtimes other than Node), or
 *   `globalThis.fetch` where `node:http` is not there;
 * - `nodeExchange`: `node:http` / `node:https` with a keep-alive agent per client, the
 *   default on Node. Node's `fetch` (undici) makes a `Request`, a `Response`, `Headers`
 *   and web streams for every call; on the pay route that cost the example app as much
 *   CPU per payment as the rest of the gateway client, and the companion bench measured
 *   the difference (docs/contributing/benchmarks.md).
 *
 * Both give the same answer for the same exchange: the status, the headers (as `Headers`,
 * names lower-case), the body as UTF-8 text with a leading BOM dropped, a compressed body
 * (`Content-Encoding` gzip, deflate, br) decompressed, a 3xx answered as is. A failure
 * before the answer's end rejects with the network error (its `code`, e.g.
 * `ECONNREFUSED`, on the error or its `cause`), or the abort error once the signal has
 * aborted.
 */
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as Zlib from 'node:zlib';
import type {FetchLike} from './options.js';

/** One exchange: everything the transport sends. */
export interface ExchangeRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** The body text; `undefined` sends none. */
  body: string | undefined;
  signal: AbortSignal;
}

/** The whole answer. */
export interface ExchangeAnswer {
  status: number;
  headers: Headers;
  body: string;
}

export type Exchange = (request: ExchangeRequest) => Promise<ExchangeAnswer>;

/** The exchange over a `fetch` function (`redirect: 'manual'`). */
export function fetchExchange(fetch: FetchLike): Exchange {
  return async function fetchExchange(r) {
    const response = await fetch(r.url, {
      method: r.method,
      headers: r.headers,
      body: r.body,
      redirect: 'manual',
      signal: r.signal,
    });
    const body = await response.text();
    return {status: response.status, headers: response.headers, body};
  };
}

/** Free keep-alive connections are closed after this long idle (as undici does, 4 s). */
const IDLE_MS = 4000;

interface NodeModules {
  http: typeof Http;
  https: typeof Https;
  zlib: typeof Zlib;
}

/** Node's built-in modules, without a static import (the client also runs elsewhere). */
function nodeModules(): NodeModules | undefined {
  const g = globalThis as {
    process?: {getBuiltinModule?: (id: string) => unknown};
    navigator?: {userAgent?: string};
  };
  // Runtimes that offer `node:http` on top of their own fetch (Deno, Bun, workers with
  // Node compatibility) keep their fetch: only Node itself gets the node:http exchange.
  const ua = g.navigator?.userAgent;
  if (ua !== undefined && !ua.startsWith('Node.js/')) return undefined;
  const load = g.process?.getBuiltinModule;
  if (typeof load !== 'function') return undefined;
  const http = load('node:http') as typeof Http | undefined;
  const https = load('node:https') as typeof Https | undefined;
  const zlib = load('node:zlib') as typeof Zlib | undefined;
  return http && https && zlib ? {http, https, zlib} : undefined;
}

/** The body as text, decompressed as its `Content-Encoding` says, without a leading BOM. */
function bodyText(zlib: typeof Zlib, raw: Buffer, encoding: string | undefined): string {
  let bytes = raw;
  // Applied in the reverse order of the list, as fetch does; identity is no coding.
  const codings = (encoding ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  for (const coding of codings) {
    if (coding === 'gzip' || coding === 'x-gzip') {
      bytes = zlib.gunzipSync(bytes, {
        flush: zlib.constants.Z_SYNC_FLUSH,
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
      });
    } else if (coding === 'deflate') {
      // Zlib-wrapped or raw, as servers send both.
      bytes = (bytes[0]! & 0x0f) === 0x08 ? zlib.inflateSync(bytes) : zlib.inflateRawSync(bytes);
    } else if (coding === 'br') {
      bytes = zlib.brotliDecompressSync(bytes);
    } else {
      // A coding fetch does not decode either: the bytes as they came.
      break;
    }
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The answer's headers as `Headers` (repeated names joined, as fetch does). */
function headersOf(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * The `node:http` exchange with keep-alive agents of its own, or `undefined` when this is
 * not Node (or a Node without `process.getBuiltinModule`, before 20.16).
 */
export function nodeExchange(): Exchange | undefined {
  const mods = nodeModules();
  if (!mods) return undefined;
  const {http, https, zlib} = mods;
  const agents = {
    'http:': new http.Agent({keepAlive: true, timeout: IDLE_MS}),
    'https:': new https.Agent({keepAlive: true, timeout: IDLE_MS}),
  };
  return function nodeExchange(r) {
    return new Promise<ExchangeAnswer>((resolve, reject) => {
      const url = new URL(r.url);
      const secure = url.protocol === 'https:';
      const headers: Record<string, string | number> = {...r.headers};
      if (r.body !== undefined) headers['Content-Length'] = Buffer.byteLength(r.body);
      const request = (secure ? https : http).request(
        url,
        {method: r.method, headers, agent: agents[secure ? 'https:' : 'http:'], signal: r.signal},
        function gatewayAnswer(res) {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          // A connection closed mid-answer (after 'end' this changes nothing).
          res.on('close', () => {
            if (!res.complete) {
              reject(Object.assign(new Error('the answer was cut short'), {code: 'ECONNRESET'}));
            }
          });
          res.on('end', () => {
            try {
              resolve({
                status: res.statusCode!,
                headers: headersOf(res.rawHeaders),
                body: bodyText(zlib, Buffer.concat(chunks), res.headers['content-encoding']),
              });
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      request.on('error', reject);
      request.end(r.body);
    });
  };
}
