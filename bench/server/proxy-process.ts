/**
 * A bare HTTP hop in a process of its own, for the server benchmarks:
 *
 * - `proxy-process.ts <url>`: a pass-through proxy — method, path, headers and body
 *   streamed to `<url>` and the answer streamed back, over keep-alive connections — the
 *   baseline that costs one hop and nothing else;
 * - `proxy-process.ts <url> <url> ...`: the same, round-robin over the targets (the load
 *   balancer in front of several app instances);
 * - `proxy-process.ts` with no target: a bare endpoint that reads each body and answers 200.
 *
 * Requests to `/__sink` are always answered 200 here, after reading the body: the baseline
 * gives it to the sandbox as `server_url`, so the sandbox's webhooks go somewhere that
 * costs nothing. Listens on 127.0.0.1 (`PORT`, default any free port) and prints
 * `listening <url>`; stops on SIGTERM.
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';

const targets = process.argv.slice(2).map((t) => new URL(t));
// Idle upstream connections are dropped after 4 s, before the upstream's own keep-alive
// timeout (5 s in Node) could close one just as it is reused (a reset, answered 502).
const agent = new http.Agent({keepAlive: true, maxSockets: Infinity, timeout: 4000});
let next = 0;
/** Upstream errors by code, printed at SIGTERM (why a 502 was answered). */
const upstreamErrors = new Map<string, number>();

function answer200(req: http.IncomingMessage, res: http.ServerResponse) {
  req.resume();
  req.on('end', () => res.writeHead(200, {'Content-Length': '0'}).end());
}

const server = http.createServer((req, res) => {
  if (targets.length === 0 || req.url?.startsWith('/__sink')) return answer200(req, res);
  const target = targets[next++ % targets.length]!;
  const upstream = http.request(
    {
      agent,
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: {...req.headers, host: target.host},
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', (e: NodeJS.ErrnoException) => {
    const key = `${e.code ?? e.message} ${req.method} ${req.url?.split('?')[0]} reused=${upstream.reusedSocket} answered=${res.headersSent}`;
    upstreamErrors.set(key, (upstreamErrors.get(key) ?? 0) + 1);
    if (!res.headersSent) res.writeHead(502, {'Content-Length': '0'});
    res.end();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
// A load balancer's long accept queue (Node's 511 overflowed in the rush benchmark: the
// kernel dropped the customers' connections, which timed out).
server.listen({port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1', backlog: 4096}, () => {
  const {port} = server.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => {
  if (upstreamErrors.size) {
    process.stdout.write(`upstream errors ${JSON.stringify(Object.fromEntries(upstreamErrors))}\n`);
  }
  process.exit(0);
});
