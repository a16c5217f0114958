/**
 * The load generator's HTTP client: `node:http` with a keep-alive agent and no cap on
 * sockets, so an open loop is never held back by a connection pool (a stalled server gets
 * a new connection per request, as it would from many browsers). `closeConnections()`
 * between steps starts the next one on fresh connections: a socket left idle longer than
 * the server's keep-alive timeout (5 s in Node) may be closed by the server just as it is
 * reused, which the client would see as a reset.
 */
import http from 'node:http';

export interface PostTarget {
  /** e.g. `http://127.0.0.1:8080/api/checkout/pay`. */
  url: string;
  headers: Record<string, string>;
  /** Status the server must answer with. */
  status: number;
  /** Text the answer's body must contain, when given (e.g. `"outcome":"success"`). */
  bodyIncludes?: string;
  /** Per-request limit; the request fails after it. */
  timeoutMs?: number;
}

const newAgent = () => new http.Agent({keepAlive: true, maxSockets: Infinity});
let agent = newAgent();
const UNEXPECTED_BODY = 'unexpected body';

/**
 * Posts `body` (with `headers` added to the target's: what differs per request); resolves
 * `true` when the answer is the expected one, else what was wrong with it (`status 503`,
 * `unexpected body`, `timeout`, `ECONNRESET`).
 */
export function post(
  target: PostTarget,
  body: Buffer,
  headers?: Record<string, string>,
): Promise<true | string> {
  const url = new URL(target.url);
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers: {...target.headers, ...headers, 'Content-Length': String(body.length)},
        timeout: target.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== target.status) return resolve(`status ${res.statusCode}`);
          const text = Buffer.concat(chunks).toString('utf8');
          if (target.bodyIncludes !== undefined && !text.includes(target.bodyIncludes)) {
            return resolve(UNEXPECTED_BODY);
          }
          resolve(true);
        });
        res.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end(body);
  });
}

/**
 * The status a {@link post} outcome was answered with — `expected` (the target's) for
 * `true` and for an unexpected body, the status for `status 503` — or `undefined` when no
 * answer came: a timeout, a connection error, or still open when the step ended
 * (`unanswered`, from the open loop). A request without an answer may still have been
 * handled by the server.
 */
export function answeredStatus(outcome: true | string, expected: number): number | undefined {
  if (outcome === true || outcome === UNEXPECTED_BODY) return expected;
  const status = /^status (\d{3})$/.exec(outcome);
  return status ? Number(status[1]) : undefined;
}

/** Closes every connection (a request still open fails); later posts open new ones. */
export function closeConnections(): void {
  agent.destroy();
  agent = newAgent();
}
