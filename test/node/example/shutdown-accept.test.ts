/**
 * A SIGTERM answers every connection the kernel accepted, proven from outside on the real
 * `server-example/main.ts` (SQLite, a sandbox process for its gateway): 150 payments in
 * flight on open connections, and 150 more connections just connecting, each with a payment,
 * as the signal is handled. A listening socket closed while the kernel still holds
 * connections in its accept queue resets them — connections whose clients saw them open
 * (the issue saw 3 of 150 reset). Every one must be answered: the payment's real answer,
 * or `503` with `Retry-After` and `Connection: close` (and the app's headers); none reset
 * (ECONNRESET, "socket hang up"). A connection the kernel refused (ECONNREFUSED: nothing
 * reached the server) is counted apart: a balancer sends it elsewhere.
 *
 * The server's event loop is lined up as a busy instance's is, with no clock deciding
 * anything: it is stopped (SIGSTOP) while the 150 payments are written on its open
 * connections and SIGTERM is sent, then continued (SIGCONT) as the 150 new connections are
 * opened, so that it handles the payments and the signal in one turn of its loop while the
 * new connections land in the kernel's accept queue. The counts are printed (the "resets
 * at SIGTERM under 150 payments" figure).
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import http from 'node:http';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PAY_HEADERS, payBody} from '../checkout/helpers.js';
import {startExample, startSandboxProcess, stop, type Running} from './processes.js';

const PAYING = 150;
const CONNECTING = 150;

let sandbox: Running;
let app: Running;
const dir = mkdtempSync(path.join(tmpdir(), 'pg-example-shutdown-accept-'));

before(async () => {
  sandbox = await startSandboxProcess();
  app = await startExample(sandbox.url, {
    DATA_DIR: dir,
    SHUTDOWN_TIMEOUT_MS: '30000',
    ORDER_LIMIT: '1000000',
    PAY_ATTEMPTS_PER_IP: '1000000',
    PAY_ATTEMPTS_PER_ORDER: '1000',
    PAY_ATTEMPTS_PER_CARD: '1000000',
    ORDER_LOOKUPS_PER_IP: '1000000',
  });
});

after(async () => {
  await Promise.all([app, sandbox].filter(Boolean).map((r) => stop(r)));
  rmSync(dir, {recursive: true, force: true});
});

/** What became of one connection: its answer, or the error that ended it. */
interface Outcome {
  /** The client's connection was established (the kernel accepted it). */
  connected: boolean;
  status?: number;
  retryAfter?: string | undefined;
  connection?: string | undefined;
  /** `X-Content-Type-Options`, one of the headers every answer of the app carries. */
  nosniff?: string | undefined;
  error?: string;
}

/** `POST /api/checkout/pay` on `agent`'s connection (or a new one), and what became of it. */
function pay(
  orderRef: string,
  attemptId: string,
  agent: http.Agent | false,
): {written: Promise<void>; outcome: Promise<Outcome>} {
  const url = new URL(app.url);
  let connected = false;
  let written!: () => void;
  const wrote = new Promise<void>((resolve) => (written = resolve));
  const outcome = new Promise<Outcome>((resolve) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/checkout/pay',
        headers: {...PAY_HEADERS, Origin: app.url},
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            connected: true,
            status: res.statusCode!,
            retryAfter: res.headers['retry-after'],
            connection: res.headers.connection,
            nosniff: String(res.headers['x-content-type-options']),
          }),
        );
        res.on('error', (error) => resolve({connected, error: String(error)}));
      },
    );
    req.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    req.on('finish', () => written());
    req.on('error', (error: NodeJS.ErrnoException) => {
      written();
      resolve({connected, error: error.code ?? error.message});
    });
    req.end(JSON.stringify(payBody(orderRef, attemptId)));
  });
  return {written: wrote, outcome};
}

test('SIGTERM with 150 payments in flight and 150 connections just opened: every connection is answered, none reset', async (t) => {
  const orderRefs: string[] = [];
  for (let i = 0; i < PAYING + CONNECTING; i++) {
    const res = await fetch(`${app.url}/api/orders`, {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({productId: 'mug'}),
    });
    assert.equal(res.status, 201, await res.clone().text());
    orderRefs.push(((await res.json()) as {orderRef: string}).orderRef);
  }
  // 150 keep-alive connections, each accepted and answered once.
  const agents = Array.from(
    {length: PAYING},
    () => new http.Agent({keepAlive: true, maxSockets: 1}),
  );
  await Promise.all(
    agents.map(
      (agent) =>
        new Promise<void>((resolve, reject) => {
          http
            .get(`${app.url}/healthz`, {agent}, (res) => {
              res.resume().on('end', resolve);
            })
            .on('error', reject);
        }),
    ),
  );

  const pid = app.child.pid!;
  process.kill(pid, 'SIGSTOP');
  const paying = agents.map((agent, i) => pay(orderRefs[i]!, `paying-${i}`, agent));
  await Promise.all(paying.map((p) => p.written));
  process.kill(pid, 'SIGTERM');
  process.kill(pid, 'SIGCONT');
  const connecting = Array.from({length: CONNECTING}, (_, i) =>
    pay(orderRefs[PAYING + i]!, `connecting-${i}`, false),
  );
  const outcomes = {
    paying: await Promise.all(paying.map((p) => p.outcome)),
    connecting: await Promise.all(connecting.map((p) => p.outcome)),
  };
  const code = await app.exited;
  for (const agent of agents) agent.destroy();

  const all = [...outcomes.paying, ...outcomes.connecting];
  const isReset = (o: Outcome) =>
    o.error !== undefined && /ECONNRESET|EPIPE|socket hang up/i.test(o.error);
  const summary = (list: Outcome[]) => {
    const counts: Record<string, number> = {};
    for (const o of list) {
      const key = o.error ?? String(o.status);
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return JSON.stringify(counts);
  };
  const resets = all.filter(isReset).length;
  t.diagnostic(
    `resets at SIGTERM: ${resets} of ${all.length} connections; ` +
      `in flight: ${summary(outcomes.paying)}; just connecting: ${summary(outcomes.connecting)}`,
  );

  assert.equal(resets, 0, `no connection reset\n${app.output().slice(-3000)}`);
  const accepted = all.filter((o) => o.connected);
  const unanswered = accepted.filter((o) => o.status === undefined);
  assert.deepEqual(unanswered, [], 'every connection the kernel accepted is answered');
  const refusalsWithoutRetry = accepted.filter(
    (o) => o.status === 503 && (o.retryAfter === undefined || !/close/i.test(o.connection ?? '')),
  );
  assert.deepEqual(refusalsWithoutRetry, [], 'every 503 says Retry-After and Connection: close');
  const bare = accepted.filter((o) => o.nosniff !== 'nosniff');
  assert.deepEqual(bare, [], "every answer carries the app's headers (nosniff)");
  const failures = accepted.filter((o) => o.status! >= 500 && o.status !== 503);
  assert.deepEqual(failures, [], 'no 5xx but a 503');
  // The case under test happened: new connections reached the kernel, not a closed port.
  assert.ok(
    outcomes.connecting.filter((o) => o.connected).length > CONNECTING / 2,
    'most new connections were accepted by the kernel',
  );
  assert.equal(code, 0, `the example exits 0\n${app.output().slice(-3000)}`);
});
