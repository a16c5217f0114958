/**
 * The example merchant app's own defences, over real HTTP on 127.0.0.1 with its SQLite
 * database in a temporary folder: every POST route refuses an oversized body with 413
 * before reading it (declared or streamed without a length) and the process's memory stays
 * flat; back-office sessions are random, server-side, revoked by sign-out, expired by the
 * server's clock, and their cookie cannot be forged; wrong tokens and new orders are
 * throttled per client address (other addresses are bound with `localAddress`), the
 * right token never is — not even behind a reverse proxy that gives every client its own
 * address — and the throttles outlive a restart on the same database.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {AddressInfo} from 'node:net';
import {Writable} from 'node:stream';
import {createAdaptorServer} from '@hono/node-server';
import type {Context} from 'hono';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {createCheckoutLogger, GatewayClient} from '../../../src/server/index.js';
import {directRequest} from '../sandbox/helpers.js';
import {
  CHECKOUT_BASE,
  createExampleApp,
  type ExampleApp,
  type ExampleLimits,
} from '../../../server-example/app.js';
import {BODY_LIMITS} from '../../../server-example/body-limits.js';
import {addressKey, clientAddresses} from '../../../server-example/client-address.js';
import {call, dataDirs, sandboxGateway, type Answer} from './helpers.js';

const ADMIN = 'admin-token-0123456789abcdef';
const MiB = 1024 * 1024;

let sandbox: Sandbox;

before(async () => {
  sandbox = await startSandbox({});
});

after(async () => {
  await sandbox?.close();
  dirs.removeAll();
});

const dirs = dataDirs('pg-hardening-');
const dataDir = () => dirs.make();

/** A clock the test moves. */
function testClock(start = Date.parse('2031-03-01T09:00:00Z')) {
  const clock = {ms: start, now: () => clock.ms, advance: (ms: number) => void (clock.ms += ms)};
  return clock;
}

const gatewayOptions = () => sandboxGateway(sandbox);

interface Served {
  base: string;
  example: ExampleApp;
  logLines: string[];
  close(): Promise<void>;
}

/** Starts the example app on 127.0.0.1 over its data folder. */
async function serve(
  dir: string,
  opts: {limits?: ExampleLimits; now?: () => number; trustProxy?: number} = {},
): Promise<Served> {
  const logLines: string[] = [];
  const logger = createCheckoutLogger(
    {level: 'debug'},
    new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  let handler: ((req: Request, env: unknown) => Response | Promise<Response>) | undefined =
    undefined;
  const server = createAdaptorServer({fetch: (req, env) => handler!(req, env)});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const example = createExampleApp({
    publicUrl: base,
    dataDir: dir,
    adminToken: ADMIN,
    logger,
    bundlePath: path.join(dir, 'no-bundle.js'),
    gateway: gatewayOptions(),
    ...(opts.limits ? {limits: opts.limits} : {}),
    ...(opts.now ? {now: opts.now} : {}),
    ...(opts.trustProxy ? {trustProxy: opts.trustProxy} : {}),
  });
  await example.start();
  handler = example.app.fetch;
  return {
    base,
    example,
    logLines,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as {closeAllConnections(): void}).closeAllConnections();
      });
      await example.close();
    },
  };
}

const FORM = {'Content-Type': 'application/x-www-form-urlencoded'};
const JSON_TYPE = {'Content-Type': 'application/json'};

/** The `pg_admin=...` pair the answer sets, if any. */
function sessionCookie(answer: Answer): string | undefined {
  for (const line of answer.headers['set-cookie'] ?? []) {
    const pair = line.split(';')[0]!;
    if (pair.startsWith('pg_admin=') && pair !== 'pg_admin=') return pair;
  }
  return undefined;
}

function signIn(base: string, token: string, from?: string): Promise<Answer> {
  return call(base, '/admin/login', {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams({token}).toString(),
    ...(from ? {from} : {}),
  });
}

/** The back office's JSON API with a cookie: 200 when the session is live. */
function adminApi(base: string, cookie: string, from?: string): Promise<Answer> {
  return call(base, '/admin/api/orders', {headers: {Cookie: cookie}, ...(from ? {from} : {})});
}

function newOrder(base: string, from: string, via: 'api' | 'form' = 'api'): Promise<Answer> {
  return via === 'api'
    ? call(base, '/api/orders', {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({productId: 'mug'}),
        from,
      })
    : call(base, '/orders', {
        method: 'POST',
        headers: FORM,
        body: new URLSearchParams({productId: 'mug'}).toString(),
        from,
      });
}

// ---- body limits -------------------------------------------------------------------------

interface StreamResult {
  status: number;
  text: string;
  /** Bytes handed to the socket when the answer arrived. */
  sentBeforeAnswer: number;
  /** Largest growth of the process's resident memory while the request ran. */
  peakRssGrowth: number;
}

/**
 * Posts a `size`-byte body in 64 KiB chunks, with or without a declared length, and stops
 * sending as soon as the answer arrives. Samples the process's RSS meanwhile (the server
 * runs in this process).
 */
function streamBody(
  url: string,
  size: number,
  headers: Record<string, string>,
  declareLength: boolean,
): Promise<StreamResult> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  return new Promise<StreamResult>((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: {...headers, ...(declareLength ? {'Content-Length': String(size)} : {})},
    });
    let sent = 0;
    let answered = false;
    let wake: () => void = () => undefined;
    const done = (error: Error | undefined, result?: StreamResult) => {
      clearInterval(sampler);
      req.destroy();
      if (error) reject(error);
      else resolve(result!);
    };
    req.on('error', (error) => {
      // Once answered, the server may close the connection under the rest of the body.
      if (!answered) done(error);
    });
    req.on('response', (res) => {
      answered = true;
      wake();
      const sentBeforeAnswer = sent;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', (error) => done(error));
      res.on('end', () => {
        peak = Math.max(peak, process.memoryUsage.rss());
        done(undefined, {
          status: res.statusCode ?? 0,
          text: Buffer.concat(parts).toString(),
          sentBeforeAnswer,
          peakRssGrowth: peak - baseline,
        });
      });
    });
    void (async () => {
      while (sent < size && !answered && !req.destroyed) {
        const n = Math.min(chunk.length, size - sent);
        const flowing = req.write(n === chunk.length ? chunk : chunk.subarray(0, n));
        sent += n;
        if (!flowing) {
          await new Promise<void>((resolve) => {
            const go = () => {
              req.off('drain', go);
              req.off('close', go);
              resolve();
            };
            wake = go;
            req.on('drain', go);
            req.on('close', go);
          });
        }
      }
      if (!answered && !req.destroyed) req.end();
    })();
  });
}

describe('body limits', () => {
  let app: Served;
  let orderRef: string;
  before(async () => {
    app = await serve(dataDir());
    const created = await newOrder(app.base, '127.0.0.1');
    orderRef = (JSON.parse(created.text) as {orderRef: string}).orderRef;
  });
  after(async () => {
    await app?.close();
  });

  const bearer = {Authorization: `Bearer ${ADMIN}`};
  const routes: {name: string; path: () => string; headers: Record<string, string>}[] = [
    {name: '/orders', path: () => '/orders', headers: FORM},
    {name: '/api/orders', path: () => '/api/orders', headers: JSON_TYPE},
    {name: '/admin/login', path: () => '/admin/login', headers: FORM},
    {name: '/admin/logout', path: () => '/admin/logout', headers: FORM},
    {
      name: '/admin/api/orders/:orderRef/actions',
      path: () => `/admin/api/orders/${orderRef}/actions`,
      headers: {...JSON_TYPE, ...bearer},
    },
    {
      name: '/admin/api/subscriptions/:id/cancel',
      path: () => '/admin/api/subscriptions/sub-1/cancel',
      headers: {...JSON_TYPE, ...bearer},
    },
    {
      name: '/admin/api/registers',
      path: () => '/admin/api/registers',
      headers: {...JSON_TYPE, ...bearer},
    },
    {
      name: '/admin/api/sandbox/advance',
      path: () => '/admin/api/sandbox/advance',
      headers: {...JSON_TYPE, ...bearer},
    },
    {name: `${CHECKOUT_BASE}/webhook`, path: () => `${CHECKOUT_BASE}/webhook`, headers: FORM},
    {
      name: `${CHECKOUT_BASE}/pay`,
      path: () => `${CHECKOUT_BASE}/pay`,
      headers: {...JSON_TYPE, 'X-PG-Checkout': '1'},
    },
    {name: `${CHECKOUT_BASE}/hosted`, path: () => `${CHECKOUT_BASE}/hosted`, headers: FORM},
  ];

  for (const {name, path: route, headers} of routes) {
    const limit = name.startsWith(`${CHECKOUT_BASE}/`) ? BODY_LIMITS.checkout : BODY_LIMITS.other;
    for (const declared of [true, false]) {
      test(`POST ${name}: a 64 MiB body ${declared ? 'with Content-Length' : 'streamed without a length'} is refused with 413 before it is read`, async () => {
        const result = await streamBody(`${app.base}${route()}`, 64 * MiB, headers, declared);
        assert.equal(result.status, 413, result.text.slice(0, 200));
        assert.deepEqual(JSON.parse(result.text), {
          error: {
            code: 'invalid_request',
            message: `the request body is larger than the limit of ${limit} bytes`,
            field: '(body)',
          },
        });
        assert.ok(
          result.sentBeforeAnswer < 16 * MiB,
          `answered after ${result.sentBeforeAnswer} bytes were sent`,
        );
        assert.ok(
          result.peakRssGrowth < 16 * MiB,
          `the process grew by ${result.peakRssGrowth} bytes`,
        );
      });
    }
  }

  /** A POST whose body is sent in two chunks, without a declared length. */
  const chunked = (pathname: string, headers: Record<string, string>, body: string) =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(`${app.base}${pathname}`, {method: 'POST', agent: false, headers});
      req.on('error', reject);
      req.on('response', (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(parts).toString(),
          }),
        );
      });
      req.write(body.slice(0, 5));
      req.end(body.slice(5));
    });

  const deliveries = async () =>
    (
      JSON.parse((await call(app.base, '/admin/api/webhooks', {headers: bearer})).text) as {
        deliveries: {signature: string}[];
      }
    ).deliveries;

  test('the webhook log reads the body through the limit: an oversized delivery is refused unlogged, a streamed one within it is logged', async () => {
    const before = (await deliveries()).length;
    const big = await call(app.base, `${CHECKOUT_BASE}/webhook`, {
      method: 'POST',
      headers: FORM,
      body: `data=${'a'.repeat(BODY_LIMITS.checkout)}&signature=x`,
    });
    assert.equal(big.status, 413);
    assert.equal((await deliveries()).length, before, 'the log middleware never ran');
    const small = await chunked(
      `${CHECKOUT_BASE}/webhook`,
      FORM,
      `data=${Buffer.from('{"order_id":"x"}').toString('base64')}&signature=forged`,
    );
    assert.equal(small.status, 403, 'the companion read the body and refused its signature');
    const after = await deliveries();
    assert.equal(after.length, before + 1, 'the log middleware read the limited body');
    assert.equal(after[0]?.signature, 'invalid');
  });

  // A guard for the limit itself (it buffers a streamed body and hands on a copy).
  test('order bodies within the limit still reach the routes when streamed without a length', async () => {
    const api = await chunked('/api/orders', JSON_TYPE, JSON.stringify({productId: 'mug'}));
    assert.equal(api.status, 201, api.text);
    const form = await chunked('/orders', FORM, 'productId=mug&page=cdn');
    assert.equal(form.status, 303);
    assert.match(String(form.headers.location), /^\/cdn\?order=ord-/);
  });
});

// ---- back-office sessions ----------------------------------------------------------------

describe('back-office sessions', () => {
  test('each sign-in gets its own random session; the cookie is signed, HttpOnly, SameSite=Strict, path /admin', async () => {
    const app = await serve(dataDir());
    try {
      const first = await signIn(app.base, ADMIN);
      const second = await signIn(app.base, ADMIN);
      assert.equal(first.status, 303);
      assert.equal(first.headers.location, '/admin');
      const a = sessionCookie(first);
      const b = sessionCookie(second);
      assert.ok(a && b, 'both sign-ins set the session cookie');
      assert.notEqual(a, b, 'two sign-ins, two sessions');
      // A 32-byte random id (43 base64url characters) and its signature.
      assert.match(decodeURIComponent(a.slice('pg_admin='.length)), /^[\w-]{43}\.[\w+/=-]+$/);
      const line = first.headers['set-cookie']!.find((l) => l.startsWith('pg_admin='))!;
      assert.match(line, /; HttpOnly/);
      assert.match(line, /; SameSite=Strict/);
      assert.match(line, /; Path=\/admin/);
      assert.match(line, /; Max-Age=28800/);
      assert.doesNotMatch(line, /; Secure/, 'not Secure over plain http');
      assert.equal((await adminApi(app.base, a)).status, 200);
      assert.equal((await adminApi(app.base, b)).status, 200);
    } finally {
      await app.close();
    }
    // Served over https, the cookie is Secure.
    const secure = createExampleApp({
      publicUrl: 'https://shop.example',
      dataDir: dataDir(),
      adminToken: ADMIN,
      logger: createCheckoutLogger({level: 'silent'}),
      gateway: gatewayOptions(),
    });
    try {
      const res = await secure.app.request('/admin/login', {
        method: 'POST',
        headers: FORM,
        body: new URLSearchParams({token: ADMIN}),
      });
      assert.equal(res.status, 303);
      assert.match(res.headers.get('set-cookie') ?? '', /^pg_admin=[^;]+;.*; Secure/);
    } finally {
      await secure.close();
    }
  });

  test('sign-out revokes the session on the server: the old cookie, replayed, is refused', async () => {
    const app = await serve(dataDir());
    try {
      const cookie = sessionCookie(await signIn(app.base, ADMIN))!;
      const other = sessionCookie(await signIn(app.base, ADMIN))!;
      assert.equal((await adminApi(app.base, cookie)).status, 200);
      const out = await call(app.base, '/admin/logout', {
        method: 'POST',
        headers: {...FORM, Cookie: cookie},
      });
      assert.equal(out.status, 303);
      assert.equal((await adminApi(app.base, cookie)).status, 403);
      const page = await call(app.base, '/admin', {headers: {Cookie: cookie}});
      assert.equal(page.status, 303);
      assert.equal(page.headers.location, '/admin/login');
      assert.equal((await adminApi(app.base, other)).status, 200, 'other sessions live on');
    } finally {
      await app.close();
    }
  });

  test('a session ends on the server after an hour unused and after 8 hours in all, whatever the browser keeps', async () => {
    const clock = testClock();
    const app = await serve(dataDir(), {now: clock.now});
    try {
      const idle = sessionCookie(await signIn(app.base, ADMIN))!;
      const busy = sessionCookie(await signIn(app.base, ADMIN))!;
      // Used every 50 minutes, `busy` stays open past the idle time, up to 8 hours.
      for (let i = 0; i < 9; i++) {
        clock.advance(50 * 60_000);
        assert.equal((await adminApi(app.base, busy)).status, 200, `use ${i + 1}`);
      }
      assert.equal((await adminApi(app.base, idle)).status, 403, 'idle for over an hour');
      clock.advance(30 * 60_000); // 8 h after the sign-in
      assert.equal((await adminApi(app.base, busy)).status, 403, 'older than 8 hours');
      // And a fresh sign-in works on the same clock.
      assert.equal(
        (await adminApi(app.base, sessionCookie(await signIn(app.base, ADMIN))!)).status,
        200,
      );
    } finally {
      await app.close();
    }
  });

  test('a cookie with a changed id or signature, or a bare id, is refused', async () => {
    const app = await serve(dataDir());
    try {
      const good = sessionCookie(await signIn(app.base, ADMIN))!;
      const other = sessionCookie(await signIn(app.base, ADMIN))!;
      const [id, signature] = decodeURIComponent(good.slice('pg_admin='.length)).split('.');
      const [otherId] = decodeURIComponent(other.slice('pg_admin='.length)).split('.');
      assert.ok(id && signature && otherId);
      const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
      const forged = [
        `${flip(id)}.${signature}`,
        `${id}.${flip(signature)}`,
        `${otherId}.${signature}`,
        id,
        `${id}.`,
      ];
      assert.equal((await adminApi(app.base, good)).status, 200);
      for (const value of forged) {
        const res = await adminApi(app.base, `pg_admin=${encodeURIComponent(value)}`);
        assert.equal(res.status, 403, value);
      }
    } finally {
      await app.close();
    }
  });
});

// ---- throttles -------------------------------------------------------------------------

describe('sign-in throttle', () => {
  const limits = {loginFailures: 5, loginWindowMs: 15 * 60_000};

  test('the 6th wrong token from one address gets 429 with Retry-After; the right one from it still signs in', async () => {
    const clock = testClock();
    const app = await serve(dataDir(), {limits, now: clock.now});
    try {
      for (let i = 1; i <= 5; i++) {
        const wrong = await signIn(app.base, `wrong-token-${i}-0123456789`, '127.0.0.2');
        assert.equal(wrong.status, 303, `wrong token ${i}`);
        assert.equal(wrong.headers.location, '/admin/login?error=1');
      }
      const sixth = await signIn(app.base, 'wrong-token-6-0123456789', '127.0.0.2');
      assert.equal(sixth.status, 429);
      assert.equal(sixth.headers['retry-after'], String(15 * 60));
      assert.match(sixth.text, /Too many wrong tokens from your address/);
      // The failures are someone's at this address; the owner's token still works.
      const right = await signIn(app.base, ADMIN, '127.0.0.2');
      assert.equal(right.status, 303, 'the right token signs in from a throttled address');
      assert.equal(right.headers.location, '/admin');
      assert.equal((await adminApi(app.base, sessionCookie(right)!, '127.0.0.2')).status, 200);
      // ...and by Bearer, which the same throttle counts.
      const api = await call(app.base, '/admin/api/orders', {
        headers: {Authorization: `Bearer ${ADMIN}`},
        from: '127.0.0.2',
      });
      assert.equal(api.status, 200);
      const guess = await call(app.base, '/admin/api/orders', {
        headers: {Authorization: 'Bearer wrong-token-7-0123456789'},
        from: '127.0.0.2',
      });
      assert.equal(guess.status, 429);
      assert.ok(Number(guess.headers['retry-after']) > 0);
      assert.equal((JSON.parse(guess.text) as {error: {code: string}}).error.code, 'rate_limited');
      // A right token does not clear the address's failures (they may not be the owner's).
      assert.equal((await signIn(app.base, 'wrong-token-8-0123456789', '127.0.0.2')).status, 429);
      // Another address is not throttled.
      const elsewhere = await signIn(app.base, 'wrong-token-9-0123456789', '127.0.0.3');
      assert.equal(elsewhere.headers.location, '/admin/login?error=1');
      // The refusals are logged at warn, without the tokens.
      const warnings = app.logLines.filter((l) => /"level":40/.test(l));
      assert.ok(warnings.some((l) => /too many wrong tokens/.test(l)));
      assert.ok(warnings.some((l) => /wrong token/.test(l) && /127\.0\.0\.2/.test(l)));
      for (const line of app.logLines) {
        assert.doesNotMatch(line, /wrong-token-|admin-token-/, 'no token in the log');
      }
      // After the window the address's wrong tokens are counted again.
      clock.advance(15 * 60_000);
      const later = await signIn(app.base, 'wrong-token-10-0123456789', '127.0.0.2');
      assert.equal(later.headers.location, '/admin/login?error=1');
    } finally {
      await app.close();
    }
  });

  test('wrong Bearer tokens count too, and an address holds no more rows than the limit', async () => {
    const dir = dataDir();
    const app = await serve(dir, {limits});
    try {
      for (let i = 1; i <= 5; i++) {
        const res = await call(app.base, '/admin/api/orders', {
          headers: {Authorization: `Bearer guess-${i}-0123456789abcdef`},
          from: '127.0.0.4',
        });
        assert.equal(res.status, 403, `guess ${i}`);
      }
      for (let i = 6; i <= 50; i++) {
        const res = await call(app.base, '/admin/orders/ord-000000000000', {
          headers: {Authorization: `Bearer guess-${i}-0123456789abcdef`},
          from: '127.0.0.4',
        });
        assert.equal(res.status, 429, `guess ${i}`);
      }
      assert.equal((await signIn(app.base, ADMIN, '127.0.0.4')).status, 303);
      const db = new Database(path.join(dir, 'payments.db'), {readonly: true});
      const {n} = db
        .prepare("SELECT COUNT(*) AS n FROM example_throttle_events WHERE bucket = 'admin-login'")
        .get() as {n: number};
      db.close();
      assert.equal(n, 5, '50 wrong tokens, 5 rows');
    } finally {
      await app.close();
    }
  });

  test('the throttle survives a restart on the same database', async () => {
    const dir = dataDir();
    const clock = testClock();
    const first = await serve(dir, {limits, now: clock.now});
    try {
      for (let i = 1; i <= 5; i++)
        await signIn(first.base, `wrong-token-${i}-0123456789`, '127.0.0.5');
    } finally {
      await first.close();
    }
    const second = await serve(dir, {limits, now: clock.now});
    try {
      assert.equal(
        (await signIn(second.base, 'wrong-token-6-0123456789', '127.0.0.5')).status,
        429,
      );
      assert.equal((await signIn(second.base, ADMIN, '127.0.0.5')).status, 303);
      const other = await signIn(second.base, 'wrong-token-7-0123456789', '127.0.0.6');
      assert.equal(other.headers.location, '/admin/login?error=1');
    } finally {
      await second.close();
    }
  });
});

/**
 * A reverse proxy in front of `base`, as nginx with `proxy_set_header X-Forwarded-For
 * $proxy_add_x_forwarded_for`: every request reaches the app from the proxy's socket,
 * with the address the proxy saw appended to `X-Forwarded-For`.
 */
async function reverseProxy(base: string): Promise<{url: string; close(): Promise<void>}> {
  const target = new URL(base);
  const server = http.createServer((req, res) => {
    const seen = req.socket.remoteAddress!.replace(/^::ffff:/, '');
    const prior = req.headers['x-forwarded-for'];
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        agent: false,
        localAddress: '127.0.0.1',
        headers: {...req.headers, 'x-forwarded-for': prior ? `${String(prior)}, ${seen}` : seen},
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('behind a reverse proxy', () => {
  const limits = {loginFailures: 5, loginWindowMs: 15 * 60_000, orders: 3};

  test('without TRUST_PROXY, one visitor cannot lock the team out: the right token signs in through the proxy', async () => {
    const app = await serve(dataDir(), {limits});
    const proxy = await reverseProxy(app.base);
    try {
      // A visitor (127.0.0.21) guesses through the proxy: the app sees the proxy's address.
      for (let i = 1; i <= 8; i++) {
        await signIn(proxy.url, `wrong-token-${i}-0123456789`, '127.0.0.21');
      }
      const guess = await signIn(proxy.url, 'wrong-token-9-0123456789', '127.0.0.22');
      assert.equal(guess.status, 429, 'everyone behind the proxy shares its wrong-token count');
      // The team, behind the same proxy, signs in and works.
      for (const member of ['127.0.0.22', '127.0.0.23']) {
        const signedIn = await signIn(proxy.url, ADMIN, member);
        assert.equal(signedIn.status, 303, `${member} signs in`);
        assert.equal(signedIn.headers.location, '/admin');
        assert.equal((await adminApi(proxy.url, sessionCookie(signedIn)!, member)).status, 200);
        const script = await call(proxy.url, '/admin/api/orders', {
          headers: {Authorization: `Bearer ${ADMIN}`},
          from: member,
        });
        assert.equal(script.status, 200, `${member}'s script`);
      }
      // The app says once what it sees: a forwarded header it does not believe.
      const warned = app.logLines.filter((l) =>
        /X-Forwarded-For but TRUST_PROXY is not set/.test(l),
      );
      assert.equal(warned.length, 1);
    } finally {
      await proxy.close();
      await app.close();
    }
  });

  test('with TRUST_PROXY=1, each client behind the proxy has wrong tokens and orders of its own', async () => {
    const app = await serve(dataDir(), {limits, trustProxy: 1});
    const proxy = await reverseProxy(app.base);
    try {
      for (let i = 1; i <= 6; i++) {
        await signIn(proxy.url, `wrong-token-${i}-0123456789`, '127.0.0.31');
      }
      assert.equal((await signIn(proxy.url, 'wrong-token-7-0123456789', '127.0.0.31')).status, 429);
      const other = await signIn(proxy.url, 'wrong-token-8-0123456789', '127.0.0.32');
      assert.equal(other.status, 303, 'another client is not throttled');
      assert.equal(other.headers.location, '/admin/login?error=1');
      // A client cannot pick its address: what it puts in the header is not the proxy's hop.
      const spoofed = await call(proxy.url, '/admin/login', {
        method: 'POST',
        headers: {...FORM, 'X-Forwarded-For': '127.0.0.99'},
        body: new URLSearchParams({token: 'wrong-token-9-0123456789'}).toString(),
        from: '127.0.0.31',
      });
      assert.equal(spoofed.status, 429);
      // New orders are counted per client too.
      for (let i = 0; i < 3; i++) {
        assert.equal((await newOrder(proxy.url, '127.0.0.33')).status, 201);
      }
      assert.equal((await newOrder(proxy.url, '127.0.0.33')).status, 429);
      assert.equal((await newOrder(proxy.url, '127.0.0.34')).status, 201);
      // The back office's sessions record the client's address, not the proxy's.
      const signedIn = await signIn(proxy.url, ADMIN, '127.0.0.35');
      assert.equal(signedIn.status, 303);
    } finally {
      await proxy.close();
      await app.close();
    }
  });
});

describe('order limit', () => {
  const limits = {orders: 3, orderWindowMs: 10 * 60_000};

  test('the 4th order in the window from one address gets 429 with Retry-After (form and API count together); another address is unaffected', async () => {
    const clock = testClock();
    const app = await serve(dataDir(), {limits, now: clock.now});
    try {
      assert.equal((await newOrder(app.base, '127.0.0.7', 'api')).status, 201);
      clock.advance(60_000);
      assert.equal((await newOrder(app.base, '127.0.0.7', 'form')).status, 303);
      assert.equal((await newOrder(app.base, '127.0.0.7', 'api')).status, 201);
      const api = await newOrder(app.base, '127.0.0.7', 'api');
      assert.equal(api.status, 429);
      assert.equal(api.headers['retry-after'], String(9 * 60));
      const body = JSON.parse(api.text) as {
        error: {code: string; message: string; retryAfter: number};
      };
      assert.equal(body.error.code, 'rate_limited');
      assert.match(
        body.error.message,
        /too many new orders from this address: try again in 9 minutes/,
      );
      assert.equal(body.error.retryAfter, 9 * 60);
      const form = await newOrder(app.base, '127.0.0.7', 'form');
      assert.equal(form.status, 429);
      assert.equal(form.headers['retry-after'], String(9 * 60));
      assert.match(form.text, /Too many new orders from your address/);
      // Refused orders are not created.
      const orders = JSON.parse(
        (await call(app.base, '/admin/api/orders', {headers: {Authorization: `Bearer ${ADMIN}`}}))
          .text,
      ) as {orders: unknown[]};
      assert.equal(orders.orders.length, 3);
      assert.equal((await newOrder(app.base, '127.0.0.8', 'api')).status, 201);
      // The first order leaves the window: one more place.
      clock.advance(9 * 60_000);
      assert.equal((await newOrder(app.base, '127.0.0.7', 'form')).status, 303);
      assert.equal((await newOrder(app.base, '127.0.0.7', 'api')).status, 429);
    } finally {
      await app.close();
    }
  });

  test('the order limit survives a restart on the same database', async () => {
    const dir = dataDir();
    const clock = testClock();
    const first = await serve(dir, {limits, now: clock.now});
    try {
      for (let i = 0; i < 3; i++)
        assert.equal((await newOrder(first.base, '127.0.0.9')).status, 201);
    } finally {
      await first.close();
    }
    const second = await serve(dir, {limits, now: clock.now});
    try {
      assert.equal((await newOrder(second.base, '127.0.0.9')).status, 429);
      assert.equal((await newOrder(second.base, '127.0.0.10')).status, 201);
    } finally {
      await second.close();
    }
  });

  test('unknown keys in the limits are refused at start-up, by name', async () => {
    assert.throws(
      () =>
        createExampleApp({
          publicUrl: 'http://127.0.0.1:1',
          dataDir: dataDir(),
          gateway: gatewayOptions(),
          limits: {orderz: 3} as unknown as ExampleLimits,
        }),
      /limits.*orderz/,
    );
  });
});

describe('client addresses', () => {
  const keyOf = (remoteAddress: string | undefined) =>
    clientAddresses(0).key({
      env: {incoming: {socket: {remoteAddress}}},
      req: {header: () => undefined},
    } as unknown as Context);

  test('an IPv6 client is counted by its /64; an IPv4-mapped one as IPv4; no socket is one key', () => {
    assert.equal(keyOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(keyOf('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(keyOf('2001:0db8:0001:0002:ffff::'), '2001:db8:1:2::/64');
    assert.notEqual(keyOf('2001:db8:1:3::1'), keyOf('2001:db8:1:2::1'));
    assert.equal(keyOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(keyOf('::1'), '0:0:0:0::/64');
    assert.equal(keyOf('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(keyOf('192.0.2.7'), '192.0.2.7');
    assert.equal(keyOf(undefined), 'unknown');
    assert.equal(addressKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  });
});

describe('card tokens in the back office', () => {
  test("no answer of the back office carries the gateway's cc_token: a period's transactions, a register, a subscription's", async () => {
    const app = await serve(dataDir());
    try {
      const created = await new GatewayClient(gatewayOptions()).createPayment(
        directRequest({
          customer_ip: '192.0.2.7',
          init_recurring: {interval_unit: 'month', interval_count: 1},
        }),
      );
      assert.equal(created.kind, 'direct');
      const paid = (
        created as {record: {order_id: string; cc_token?: string; recurring?: {id: string}}}
      ).record;
      const token = paid.cc_token;
      assert.ok(token, 'the sandbox tokenised the card');
      const cookie = sessionCookie(await signIn(app.base, ADMIN))!;
      const get = (p: string) => call(app.base, p, {headers: {Cookie: cookie}});
      const day = 24 * 3600 * 1000;
      const period = `start=${Date.now() - day}&end=${Date.now() + day}`;

      const transactions = await get(`/admin/api/transactions?${period}`);
      assert.equal(transactions.status, 200);
      assert.ok(transactions.text.includes(paid.order_id), 'the payment is listed');
      assert.ok(!transactions.text.includes(token), 'the token is not');
      assert.ok(!transactions.text.includes('cc_token"'), 'nor its field');

      const started = await call(app.base, '/admin/api/registers', {
        method: 'POST',
        headers: {...JSON_TYPE, Cookie: cookie},
        body: JSON.stringify({start: Date.now() - day, end: Date.now() + day}),
      });
      assert.equal(started.status, 200, started.text);
      const {reportId} = JSON.parse(started.text) as {reportId: string};
      let register: Answer | undefined;
      for (let i = 0; i < 50; i++) {
        register = await get(`/admin/api/registers/${reportId}`);
        if ((JSON.parse(register.text) as {ready: boolean}).ready) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(register!.text.includes(paid.order_id), register!.text);
      assert.ok(!register!.text.includes(token));
      const download = await get(`/admin/api/registers/${reportId}?download=1`);
      assert.ok(download.text.includes(paid.order_id));
      assert.ok(!download.text.includes(token));

      // The subscription's record, as cancelling it answers, carries the token (as rcr:…).
      const cancelled = await call(
        app.base,
        `/admin/api/subscriptions/${paid.recurring!.id}/cancel`,
        {method: 'POST', headers: {...JSON_TYPE, Cookie: cookie}, body: '{}'},
      );
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.match(cancelled.text, /"recurring_status":"canceled"/);
      assert.ok(!cancelled.text.includes(token), 'the subscription record leaves without it');
      assert.ok(!cancelled.text.includes('cc_token'));
    } finally {
      await app.close();
    }
  });
});
