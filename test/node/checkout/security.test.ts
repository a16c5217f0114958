/**
 * The companion's request defences as Hono's middleware gives them, where the library
 * decides what the old hand-written checks did: the hosted payment's form post through
 * `hono/csrf` (refused from another origin, cross-site, or with neither `Origin` nor
 * `Sec-Fetch-Site`; answered with the protocol's `forbidden` body), and bodies through
 * `hono/body-limit` (a streamed body without a length is counted and refused with the
 * protocol's 413 body) before they are read as strict UTF-8.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {Hono, type MiddlewareHandler} from 'hono';
import {cors} from 'hono/cors';
import {CHECKOUT_HEADER} from '../../../src/protocol/checkout.js';
import {checkoutCors} from '../../../src/server/http/request-defences.js';
import {SqlitePaymentStore} from '../../../src/server/index.js';
import {ORIGIN, StubGateway, inProcessApp} from './helpers.js';

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const FORM = {'Content-Type': 'application/x-www-form-urlencoded'};

describe('hosted form posts (hono/csrf)', () => {
  /** Posts the hosted form without an order: past the CSRF check it is a 400. */
  const post = (headers: Record<string, string>) => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    return app.request('/hosted', {method: 'POST', headers: {...FORM, ...headers}, body: ''});
  };

  test('a form post from another origin, cross-site, or with neither header is refused as forbidden', async () => {
    const refused: Record<string, string>[] = [
      {Origin: 'https://evil.example'},
      {Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site'},
      {'Sec-Fetch-Site': 'cross-site'},
      {Origin: 'null', 'Sec-Fetch-Site': 'cross-site'},
      {'Sec-Fetch-Site': 'same-site'},
      {},
    ];
    for (const headers of refused) {
      const res = await post(headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.deepEqual(await json(res), {
        error: {code: 'forbidden', message: 'cross-site form posts are not allowed'},
      });
    }
  });

  test('a form post from an allowed origin or the same origin reaches the route', async () => {
    const allowed: Record<string, string>[] = [
      {Origin: ORIGIN},
      {Origin: ORIGIN, 'Sec-Fetch-Site': 'same-site'},
      {'Sec-Fetch-Site': 'same-origin'},
      {Origin: 'null', 'Sec-Fetch-Site': 'same-origin'},
    ];
    for (const headers of allowed) {
      const res = await post(headers);
      assert.equal(res.status, 400, JSON.stringify(headers));
      const err = (await json(res))['error'] as {code: string; field: string};
      assert.equal(err.code, 'invalid_request');
      assert.equal(err.field, 'order');
    }
  });
});

describe('CORS (hono/cors for preflights)', () => {
  const ALLOWED = ['https://shop.example', 'https://pay.other.example'];
  /** An app whose routes answer 200, 400 (thrown, answered by onError) and a Vary of their own. */
  const appWith = (middleware: MiddlewareHandler) => {
    const app = new Hono();
    app.use('*', middleware);
    app.post('/ok', (c) => c.json({ok: true}, 200, {'Cache-Control': 'no-store'}));
    app.post('/vary', (c) => c.json({ok: true}, 200, {Vary: 'Accept'}));
    app.post('/fails', () => {
      throw new Error('refused');
    });
    app.onError((_e, c) => c.json({error: 'refused'}, 400));
    return app;
  };
  const library = appWith(
    cors({
      origin: ALLOWED,
      allowMethods: ['GET', 'POST'],
      allowHeaders: ['Content-Type', 'Accept', CHECKOUT_HEADER, 'traceparent', 'tracestate'],
      maxAge: 600,
    }),
  );
  const ours = appWith(checkoutCors(ALLOWED));
  const answer = async (app: Hono, path: string, headers: Record<string, string>) => {
    const res = await app.request(path, {method: 'POST', headers, body: '{}'});
    return {status: res.status, headers: [...res.headers], body: await res.text()};
  };

  test('requests get the same answer and headers as from hono/cors', async () => {
    const origins: Record<string, string>[] = [
      {Origin: 'https://pay.other.example'},
      {Origin: 'https://evil.example'},
      {},
    ];
    for (const path of ['/ok', '/vary', '/fails']) {
      for (const headers of origins) {
        assert.deepEqual(
          await answer(ours, path, headers),
          await answer(library, path, headers),
          `${path} ${JSON.stringify(headers)}`,
        );
      }
    }
    const allowed = await ours.request('/ok', {
      method: 'POST',
      headers: {Origin: 'https://pay.other.example'},
      body: '{}',
    });
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://pay.other.example');
    assert.equal(allowed.headers.get('vary'), 'Origin');
  });

  test("a preflight from an allowed origin is hono/cors's answer; from another, 403", async () => {
    const preflight = {
      method: 'OPTIONS',
      headers: {Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST'},
    };
    const a = await ours.request('/ok', preflight);
    const b = await library.request('/ok', preflight);
    assert.equal(a.status, 204);
    assert.deepEqual([...a.headers], [...b.headers]);
    const evil = await ours.request('/ok', {
      method: 'OPTIONS',
      headers: {Origin: 'https://evil.example'},
    });
    assert.equal(evil.status, 403);
  });
});

describe('request bodies (hono/body-limit)', () => {
  /** A body in two chunks with no declared length. */
  const streamed = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        controller.enqueue(bytes.subarray(0, 10));
        controller.enqueue(bytes.subarray(10));
        controller.close();
      },
    });

  test('a streamed body over the limit is refused with the protocol 413 before the route reads it', async () => {
    const {app, lines} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      bodyLimitBytes: 1024,
    });
    const res = await app.request('/webhook', {
      method: 'POST',
      headers: FORM,
      body: streamed(`data=${'a'.repeat(4096)}&signature=x`),
      duplex: 'half',
    } as RequestInit);
    assert.equal(res.status, 413);
    assert.deepEqual(await json(res), {
      error: {
        code: 'invalid_request',
        message: 'the request body is larger than the limit of 1024 bytes',
        field: '(body)',
      },
    });
    assert.ok(
      lines.some((l) => /"status":413/.test(l) && /request refused/.test(l)),
      'logged as refused',
    );
  });

  test("a streamed body that a merchant's middleware read first is still held to the limit", async () => {
    // As the example's webhook log does: it reads the body through Hono's request, which
    // keeps the bytes for the companion's route (no stream is left for the limit to count).
    const {app: checkout} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      bodyLimitBytes: 1024,
    });
    const seen: number[] = [];
    const app = new Hono();
    app.use('/webhook', async function readFirst(c, next) {
      seen.push((await c.req.arrayBuffer()).byteLength);
      await next();
    });
    app.route('/', checkout);
    const post = (text: string) =>
      app.request('/webhook', {
        method: 'POST',
        headers: FORM,
        body: streamed(text),
        duplex: 'half',
      } as RequestInit);
    const bigText = `data=${'a'.repeat(4096)}&signature=x`;
    const big = await post(bigText);
    assert.equal(big.status, 413);
    assert.equal(
      ((await json(big))['error'] as {message: string}).message,
      'the request body is larger than the limit of 1024 bytes',
    );
    // Within the limit, the route reads the same bytes: the forged signature is a 403.
    const smallText = `data=${Buffer.from('{}').toString('base64')}&signature=forged`;
    const small = await post(smallText);
    assert.equal(small.status, 403);
    assert.deepEqual(seen, [bigText.length, smallText.length]);
  });

  test('a streamed body within the limit reaches the route; malformed UTF-8 is a 400', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      bodyLimitBytes: 1024,
    });
    const within = await app.request('/hosted', {
      method: 'POST',
      headers: {...FORM, Origin: ORIGIN},
      body: streamed('order=&padding=0123456789'),
      duplex: 'half',
    } as RequestInit);
    assert.equal(within.status, 400);
    assert.equal(((await json(within))['error'] as {field: string}).field, 'order');
    const malformed = await app.request('/hosted', {
      method: 'POST',
      headers: {...FORM, Origin: ORIGIN},
      body: new Uint8Array([0x6f, 0x3d, 0xff, 0xfe]),
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(await json(malformed), {
      error: {
        code: 'invalid_request',
        message: 'the request body is not UTF-8 text',
        field: '(body)',
      },
    });
  });
});
