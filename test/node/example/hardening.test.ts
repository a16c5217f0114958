/**
 * The example merchant app's own defences, over real HTTP on 127.0.0.1 with its SQLite
 * database in a temporary folder: every POST route refuses an oversized body with 413
 * before reading it (declared or streamed without a length) and the process's memory stays
 * flat.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {AddressInfo} from 'node:net';
import {Writable} from 'node:stream';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {createCheckoutLogger, type GatewayClientOptions} from '../../../src/server/index.js';
import {CHECKOUT_BASE, createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {BODY_LIMITS} from '../../../server-example/body-limits.js';

const ADMIN = 'admin-token-0123456789abcdef';
const MiB = 1024 * 1024;

let sandbox: Sandbox;
const dirs: string[] = [];

before(async () => {
  sandbox = await startSandbox({});
});

after(async () => {
  await sandbox?.close();
  for (const dir of dirs) rmSync(dir, {recursive: true, force: true});
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-hardening-'));
  dirs.push(dir);
  return dir;
}

function gatewayOptions(): GatewayClientOptions {
  return {
    baseUrl: sandbox.url,
    posId: sandbox.credentials.posId,
    credentials: {
      apiKey: sandbox.credentials.apiKey,
      apiSecret: sandbox.credentials.apiSecret,
      endpointsKey: sandbox.credentials.endpointsKey,
    },
  };
}

interface Served {
  base: string;
  example: ExampleApp;
  logLines: string[];
  close(): Promise<void>;
}

/** Starts the example app on 127.0.0.1 over its data folder. */
async function serve(dir: string): Promise<Served> {
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

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request over a fresh connection, from `from` (a local address such as 127.0.0.2). */
function call(
  base: string,
  pathname: string,
  opts: {method?: string; headers?: Record<string, string>; body?: string; from?: string} = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, {
      method: opts.method ?? 'GET',
      agent: false,
      headers: opts.headers ?? {},
      ...(opts.from ? {localAddress: opts.from} : {}),
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(parts).toString(),
        }),
      );
    });
    req.end(opts.body);
  });
}

const FORM = {'Content-Type': 'application/x-www-form-urlencoded'};
const JSON_TYPE = {'Content-Type': 'application/json'};

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
