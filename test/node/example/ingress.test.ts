/**
 * The example app's one door (issue 35), over real sockets on 127.0.0.1 with its SQLite
 * database in a temporary folder and the in-process sandbox: 64 slow senders (raw `net`
 * sockets declaring a body and sending one byte) on `/api/checkout/pay` hold nothing, so a
 * customer orders and pays and status and webhooks answer; a slow sender is answered 408
 * and its connection closed; every answer — 200, 404, 405, 408, 413, 503, the shop's, the
 * back office's and the companion's — carries nosniff, X-Frame-Options and CSP
 * frame-ancestors; a client that leaves mid-body is logged as an abort; `/readyz` answers
 * 503 while the database does not answer and once closing, while `/healthz` (liveness)
 * stays 200 while closing.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import type {AddressInfo} from 'node:net';
import type {Server} from 'node:http';
import path from 'node:path';
import {Writable} from 'node:stream';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {createCheckoutLogger} from '../../../src/server/index.js';
import {createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {PAY_HEADERS, eventually, payBody, rawAnswer, slowSender} from '../checkout/helpers.js';
import {call, dataDirs, sandboxGateway} from './helpers.js';

let sandbox: Sandbox;
before(async () => {
  sandbox = await startSandbox({});
});
after(async () => {
  await sandbox?.close();
  dirs.removeAll();
});
const dirs = dataDirs('pg-ingress-');

interface Served {
  base: string;
  port: number;
  example: ExampleApp;
  lines: string[];
  requests(n: number): Promise<void>;
  close(): Promise<void>;
}

async function serve(opts: {bodyTimeoutMs?: number; queueTimeoutMs?: number} = {}) {
  const lines: string[] = [];
  const logger = createCheckoutLogger(
    {level: 'debug'},
    new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const server = createAdaptorServer({fetch: (req, env) => handler(req, env)}) as Server;
  let handler: ExampleApp['app']['fetch'] = () => new Response('starting', {status: 503});
  let seen = 0;
  const waiting: {n: number; resolve: () => void}[] = [];
  server.on('request', () => {
    seen++;
    for (const w of waiting.filter((x) => seen >= x.n)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const dir = dirs.make();
  const example = createExampleApp({
    publicUrl: base,
    dataDir: dir,
    adminToken: 'admin-token-0123456789abcdef',
    logger,
    bundlePath: path.join(dir, 'no-bundle.js'),
    gateway: sandboxGateway(sandbox),
    limits: {orders: 1000},
    ...(opts.bodyTimeoutMs ? {bodyTimeoutMs: opts.bodyTimeoutMs} : {}),
    ...(opts.queueTimeoutMs ? {admission: {queueTimeoutMs: opts.queueTimeoutMs}} : {}),
  });
  example.start();
  handler = example.app.fetch;
  return {
    base,
    port,
    example,
    lines,
    requests: (n: number) =>
      seen >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({n, resolve})),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await example.close();
    },
  } satisfies Served;
}

function assertSecurityHeaders(get: (name: string) => unknown, what: string) {
  assert.equal(get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  assert.match(String(get('x-frame-options') ?? ''), /^(DENY|SAMEORIGIN)$/, `${what}: XFO`);
  assert.match(String(get('content-security-policy') ?? ''), /frame-ancestors /, `${what}: CSP`);
}

async function newOrder(base: string): Promise<string> {
  const created = await call(base, '/api/orders', {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'mug'}),
  });
  assert.equal(created.status, 201, created.text);
  return (JSON.parse(created.text) as {orderRef: string}).orderRef;
}

describe('the example: one door', () => {
  test('64 slow senders on the pay route: a customer orders and pays, status and webhooks answer', async () => {
    const s = await serve({queueTimeoutMs: 1_000});
    const slow = Array.from({length: 64}, () => slowSender(s.port, '/api/checkout/pay'));
    try {
      await s.requests(64);
      const orderRef = await newOrder(s.base);
      const paid = await fetch(`${s.base}/api/checkout/pay`, {
        method: 'POST',
        headers: {...PAY_HEADERS, Origin: s.base},
        body: JSON.stringify(payBody(orderRef, `${orderRef}-a`)),
      });
      const answer = (await paid.json()) as {outcome?: string};
      assert.equal(paid.status, 200, JSON.stringify(answer));
      assert.equal(answer.outcome, 'success');
      const status = await fetch(`${s.base}/api/checkout/status?order=${orderRef}`);
      assert.equal(status.status, 200);
      const webhook = await call(s.base, '/api/checkout/webhook', {
        method: 'POST',
        headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: 'data=e30&signature=0',
      });
      assert.notEqual(webhook.status, 503, webhook.text);
      assert.equal(s.example.checkout.load().refusedBusy, 0);
    } finally {
      for (const x of slow) x.socket.destroy();
      await s.close();
    }
  });

  test('a slow sender is answered 408 with the headers and cut, on the shop and the companion', async () => {
    const s = await serve({bodyTimeoutMs: 150});
    try {
      for (const route of ['/api/orders', '/api/checkout/pay', '/admin/login']) {
        const slow = slowSender(s.port, route, 100);
        await slow.closed;
        const r = rawAnswer(slow.received());
        assert.equal(r.status, 408, `${route}: ${slow.received()}`);
        assert.equal(r.headers.get('connection'), 'close', route);
        assertSecurityHeaders((n) => r.headers.get(n), `408 ${route}`);
      }
    } finally {
      await s.close();
    }
  });

  test('413, 404, 405 and 503 carry the headers: shop, back office, security report, companion', async () => {
    const s = await serve();
    try {
      const big = 'x'.repeat(70 * 1024);
      for (const route of [
        '/api/orders',
        '/admin/login',
        '/api/checkout/security-report',
        '/api/checkout/pay',
      ]) {
        const r = await call(s.base, route, {
          method: 'POST',
          headers: {'Content-Type': 'application/json'},
          body: big,
        });
        assert.equal(r.status, 413, route);
        assertSecurityHeaders((n) => r.headers[n], `413 ${route}`);
      }
      const unknown = await call(s.base, '/api/checkout/nope');
      assert.equal(unknown.status, 404);
      assert.equal((JSON.parse(unknown.text) as {error: {code: string}}).error.code, 'not_found');
      assertSecurityHeaders((n) => unknown.headers[n], '404 /api/checkout/nope');
      const wrong = await call(s.base, '/api/checkout/pay');
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.allow, 'POST');
      assertSecurityHeaders((n) => wrong.headers[n], '405 GET /api/checkout/pay');
      const page = await call(s.base, '/no-such-page');
      assert.equal(page.status, 404);
      assertSecurityHeaders((n) => page.headers[n], '404 page');
      await s.example.checkout.close();
      const busy = await call(s.base, '/api/checkout/pay', {
        method: 'POST',
        headers: {...PAY_HEADERS, Origin: s.base},
        body: JSON.stringify(payBody('x', 'x-a')),
      });
      assert.equal(busy.status, 503);
      assertSecurityHeaders((n) => busy.headers[n], '503 busy');
    } finally {
      await s.close();
    }
  });

  test('a client that leaves mid-body is logged as an abort, never as a 500', async () => {
    const s = await serve();
    try {
      const gone = slowSender(s.port, '/api/checkout/pay', 1000, 10);
      await s.requests(1);
      gone.socket.destroy();
      await gone.closed;
      await eventually(() => s.lines.some((l) => l.includes('client aborted')) || undefined);
      const line = JSON.parse(s.lines.find((l) => l.includes('client aborted'))!) as {
        level: number;
      };
      assert.ok(line.level <= 40, 'info or warn');
      assert.ok(!s.lines.some((l) => /unhandled error|request failed|"status":500/.test(l)));
    } finally {
      await s.close();
    }
  });
});

describe('the example: /readyz for the balancer, /healthz for liveness', () => {
  test('503 while the database does not answer and once closing; /healthz stays 200 while closing', async () => {
    const s = await serve();
    try {
      const ready = await call(s.base, '/readyz');
      assert.equal(ready.status, 200, ready.text);
      assertSecurityHeaders((n) => ready.headers[n], '200 /readyz');
      const store = s.example.store;
      const ping = store.ping.bind(store);
      store.ping = () => Promise.resolve(false);
      const down = await call(s.base, '/readyz');
      assert.equal(down.status, 503);
      assert.deepEqual((JSON.parse(down.text) as {reasons: string[]}).reasons, [
        'store_unavailable',
      ]);
      store.ping = ping;
      assert.equal((await call(s.base, '/readyz')).status, 200);
      await s.example.checkout.close();
      const closing = await call(s.base, '/readyz');
      assert.equal(closing.status, 503);
      assert.deepEqual((JSON.parse(closing.text) as {reasons: string[]}).reasons, ['closing']);
      assertSecurityHeaders((n) => closing.headers[n], '503 /readyz');
      assert.equal((await call(s.base, '/healthz')).status, 200, 'liveness');
    } finally {
      await s.close();
    }
  });
});
