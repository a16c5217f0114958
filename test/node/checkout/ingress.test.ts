/**
 * The companion's one door (issue 35), from outside over real sockets on 127.0.0.1: slow
 * senders (raw `net` sockets that declare a body and send one byte of it) hold no admission
 * place, so a customer pays and status and webhooks answer while 64 of them wait; a slow
 * sender is answered 408 and its connection closed at the body deadline; every answer that
 * leaves — 200, 404, 405, 408, 413, 503 — carries the same security headers; a client that
 * leaves mid-body is logged as an abort, not as a 500; and `ready()` says not ready while
 * admission is full past its time, while the store does not answer, and while closing.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import type {AddressInfo} from 'node:net';
import type {Server} from 'node:http';
import {createAdaptorServer} from '@hono/node-server';
import {CheckoutConfigError, SqlitePaymentStore} from '../../../src/server/index.js';
import type {CheckoutApp} from '../../../src/server/index.js';
import {
  PAY_HEADERS,
  StubGateway,
  eventually,
  inProcessApp,
  payBody,
  primaryWebhook,
  rawAnswer,
  record,
  signedWebhook,
  slowSender,
  type Overrides,
} from './helpers.js';

interface Served {
  app: CheckoutApp;
  url: string;
  port: number;
  lines: string[];
  gw: StubGateway;
  /** Resolves once the server has seen `n` requests' heads. */
  requests(n: number): Promise<void>;
  close(): Promise<void>;
}

/** The companion (stub gateway, SQLite in memory) served over HTTP on loopback. */
async function serve(overrides: Overrides = {}, gw = new StubGateway()): Promise<Served> {
  const store = new SqlitePaymentStore(':memory:');
  const {app, lines} = inProcessApp(store, gw, overrides);
  const server: Server = createAdaptorServer({fetch: app.fetch}) as Server;
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
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    port,
    lines,
    gw,
    requests: (n) =>
      seen >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({n, resolve})),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close({closeStore: true});
    },
  };
}

/** The three headers every answer carries. */
function assertSecurityHeaders(get: (name: string) => string | null | undefined, what: string) {
  assert.equal(get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  assert.equal(get('x-frame-options'), 'DENY', `${what}: X-Frame-Options`);
  assert.match(get('content-security-policy') ?? '', /frame-ancestors 'none'/, `${what}: CSP`);
}

const payInit = (orderRef: string) => ({
  method: 'POST',
  headers: PAY_HEADERS,
  body: JSON.stringify(payBody(orderRef, `${orderRef}-a`)),
});

describe('one door: the body before admission', () => {
  test('64 slow senders hold no admission place: a customer pays, status and webhooks answer', async () => {
    const s = await serve({admission: {queueTimeoutMs: 2_000}});
    const slow = Array.from({length: 64}, () => slowSender(s.port, '/pay'));
    try {
      await s.requests(64);
      const paid = await fetch(`${s.url}/pay`, payInit('slow-64-1'));
      assert.equal(paid.status, 200, await paid.clone().text());
      assert.equal(((await paid.json()) as {outcome: string}).outcome, 'success');
      const status = await fetch(`${s.url}/status?order=slow-64-1`);
      assert.equal(status.status, 200);
      const webhook = await fetch(`${s.url}/webhook`, {
        method: 'POST',
        headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: signedWebhook(primaryWebhook('slow-64-1', 'success')),
      });
      assert.notEqual(webhook.status, 503, 'the webhook is not answered busy');
      assert.equal(s.app.load().refusedBusy, 0);
      assert.equal(s.app.load().inFlight, 0, 'the slow senders hold no place');
    } finally {
      for (const x of slow) x.socket.destroy();
      await s.close();
    }
  });

  test('a slow sender is answered 408 with the headers, and its connection is closed', async () => {
    const s = await serve({bodyTimeoutMs: 150});
    try {
      const slow = slowSender(s.port, '/pay', 100);
      await slow.closed;
      const {status, headers} = rawAnswer(slow.received());
      assert.equal(status, 408);
      assert.equal(headers.get('connection'), 'close');
      assertSecurityHeaders((n) => headers.get(n), '408');
      assert.ok(s.lines.some((l) => l.includes('"status":408') && l.includes('request refused')));
    } finally {
      await s.close();
    }
  });

  test('bodyTimeoutMs is an option, validated', () => {
    const store = new SqlitePaymentStore(':memory:');
    assert.doesNotThrow(() => inProcessApp(store, new StubGateway(), {bodyTimeoutMs: 5_000}));
    for (const bad of [0, -1, 1.5, 300_001]) {
      assert.throws(
        () => inProcessApp(store, new StubGateway(), {bodyTimeoutMs: bad}),
        (e: unknown) =>
          e instanceof CheckoutConfigError && e.issues.some((i) => i.field === 'bodyTimeoutMs'),
      );
    }
  });

  test('a client that leaves mid-body is logged as an abort, never as a 500', async () => {
    const s = await serve();
    try {
      const gone = slowSender(s.port, '/pay', 1000, 10);
      await s.requests(1);
      gone.socket.destroy();
      await gone.closed;
      await eventually(() => s.lines.some((l) => l.includes('client aborted')) || undefined);
      const line = JSON.parse(s.lines.find((l) => l.includes('client aborted'))!) as {
        level: number;
        status: number;
      };
      assert.ok(line.level <= 40, 'info or warn');
      assert.equal(line.status, 499);
      assert.ok(!s.lines.some((l) => /unhandled error|request failed|"status":500/.test(l)));
    } finally {
      await s.close();
    }
  });
});

describe('one door: every answer carries the security headers', () => {
  test('200, 404, 405, 413 (pay and security report) and 503 busy', async () => {
    const gw = new StubGateway();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let reached!: () => void;
    const atGateway = new Promise<void>((resolve) => (reached = resolve));
    gw.onCreate = async (req) => {
      reached();
      await gate;
      return record(req, 'success');
    };
    const s = await serve({admission: {maxInFlight: 1, queue: 0}}, gw);
    try {
      const ok = await fetch(`${s.url}/status?order=hdr-none`);
      assert.equal(ok.status, 200);
      assertSecurityHeaders((n) => ok.headers.get(n), '200');
      const unknown = await fetch(`${s.url}/nope`);
      assert.equal(unknown.status, 404);
      assertSecurityHeaders((n) => unknown.headers.get(n), '404');
      const wrong = await fetch(`${s.url}/pay`);
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get('allow'), 'POST');
      assertSecurityHeaders((n) => wrong.headers.get(n), '405');
      const big = await fetch(`${s.url}/pay`, {...payInit('hdr-big'), body: 'x'.repeat(40_000)});
      assert.equal(big.status, 413);
      assertSecurityHeaders((n) => big.headers.get(n), '413 pay');
      const report = await fetch(`${s.url}/security-report`, {
        method: 'POST',
        headers: {'Content-Type': 'application/csp-report'},
        body: 'x'.repeat(70_000),
      });
      assert.equal(report.status, 413);
      assertSecurityHeaders((n) => report.headers.get(n), '413 security report');
      // One payment holds the only place; the next is answered busy at once.
      // At the gateway, it holds its place (taken before the create).
      const held = fetch(`${s.url}/pay`, payInit('hdr-held'));
      await atGateway;
      assert.equal(s.app.load().inFlight, 1);
      const busy = await fetch(`${s.url}/pay`, payInit('hdr-busy'));
      assert.equal(busy.status, 503);
      assertSecurityHeaders((n) => busy.headers.get(n), '503');
      open();
      assert.equal((await held).status, 200);
    } finally {
      open();
      await s.close();
    }
  });
});

describe('readiness: app.ready()', () => {
  test('not ready once admission has been full past notReadyAfterMs; ready again when a place is given back', async () => {
    const gw = new StubGateway();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let reached!: () => void;
    const atGateway = new Promise<void>((resolve) => (reached = resolve));
    gw.onCreate = async (req) => {
      reached();
      await gate;
      return record(req, 'success');
    };
    const clock = {ms: Date.parse('2031-01-01T00:00:00Z')};
    const store = new SqlitePaymentStore(':memory:');
    const {app} = inProcessApp(store, gw, {
      clock: () => clock.ms,
      admission: {maxInFlight: 1, notReadyAfterMs: 3_000},
    });
    assert.deepEqual((await app.ready()).reasons, []);
    const held = app.request('/pay', payInit('ready-held'));
    await atGateway;
    clock.ms += 2_999;
    assert.equal((await app.ready()).ready, true, 'full, but not for long');
    clock.ms += 1;
    const saturated = await app.ready();
    assert.equal(saturated.ready, false);
    assert.deepEqual(saturated.reasons, ['saturated']);
    assert.equal(saturated.fullForMs, 3_000);
    open();
    assert.equal((await held).status, 200);
    assert.deepEqual(await app.ready(), {
      ready: true,
      reasons: [],
      state: 'ready',
      store: true,
      fullForMs: 0,
    });
    await app.close({closeStore: true});
  });

  test('not ready while the store does not answer, and once closing', async () => {
    const store = new SqlitePaymentStore(':memory:');
    const {app} = inProcessApp(store, new StubGateway());
    const ping = store.ping.bind(store);
    store.ping = () => Promise.reject(new Error('connection refused'));
    assert.deepEqual((await app.ready()).reasons, ['store_unavailable']);
    store.ping = ping;
    assert.equal((await app.ready()).ready, true);
    const closing = app.close();
    assert.deepEqual((await app.ready()).reasons, ['closing']);
    await closing;
    await store.close();
  });
});
