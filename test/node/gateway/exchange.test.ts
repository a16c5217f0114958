/**
 * The gateway client's two exchanges give the same answer for the same exchange: the
 * `node:http` one (the default on Node) and the `fetch` one (an injected fetch, other
 * runtimes). Both against one local server: a 303 answered as is, a gzip body, a BOM,
 * repeated headers, a body cut short, an abort, and a refused connection's code.
 */
import {describe, test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {gzipSync} from 'node:zlib';
import {
  fetchExchange,
  nodeExchange,
  type Exchange,
} from '../../../src/server/gateway/client/exchange.js';

let server: Server;
let base = '';
const seen: {method: string; body: string; length: string | undefined}[] = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({method: req.method!, body, length: req.headers['content-length']});
      switch (req.url) {
        case '/redirect':
          res.writeHead(303, {Location: '/pay/here'}).end();
          return;
        case '/gzip':
          res
            .writeHead(200, {'Content-Type': 'application/json', 'Content-Encoding': 'gzip'})
            .end(gzipSync('{"status":"success","note":"é"}'));
          return;
        case '/bom':
          res.writeHead(200, [
            ['Set-Cookie', 'a=1'],
            ['X-Twice', 'one'],
            ['X-Twice', 'two'],
          ]);
          res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"ok":true}')]));
          return;
        case '/short':
          res.writeHead(200, {'Content-Length': '100'});
          res.write('{"part');
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        case '/slow':
          setTimeout(() => res.writeHead(200).end('late'), 2000);
          return;
        default:
          res.writeHead(200, {'Content-Type': 'application/json'}).end(`{"echo":${body || '0'}}`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const exchanges: [string, Exchange][] = [
  ['node:http', nodeExchange()!],
  ['fetch', fetchExchange(fetch)],
];

const call = (x: Exchange, p: string, init: {method?: string; body?: string} = {}) =>
  x({
    url: base + p,
    method: init.method ?? 'GET',
    headers: {Accept: 'application/json'},
    body: init.body,
    signal: new AbortController().signal,
  });

describe('the node:http and fetch exchanges', () => {
  test('node:http is the default on Node', () => {
    assert.equal(typeof nodeExchange(), 'function');
  });

  for (const [name, x] of exchanges) {
    test(`${name}: a POST's body is sent with its length; the answer's text comes back`, async () => {
      seen.length = 0;
      const a = await call(x, '/echo', {method: 'POST', body: '{"n":"ї"}'});
      assert.equal(a.status, 200);
      assert.equal(a.body, '{"echo":{"n":"ї"}}');
      assert.equal(a.headers.get('content-type'), 'application/json');
      assert.deepEqual(seen, [
        {method: 'POST', body: '{"n":"ї"}', length: String(Buffer.byteLength('{"n":"ї"}'))},
      ]);
    });

    test(`${name}: a 303 is the answer, not followed`, async () => {
      const a = await call(x, '/redirect', {method: 'POST', body: '{}'});
      assert.equal(a.status, 303);
      assert.equal(a.headers.get('location'), '/pay/here');
    });

    test(`${name}: a gzip body is decompressed, a BOM dropped, repeated headers joined`, async () => {
      assert.equal((await call(x, '/gzip')).body, '{"status":"success","note":"é"}');
      const bom = await call(x, '/bom');
      assert.equal(bom.body, '{"ok":true}');
      assert.equal(bom.headers.get('x-twice'), 'one, two');
    });

    test(`${name}: an answer cut short, an abort and a refused connection reject`, async () => {
      await assert.rejects(call(x, '/short'));
      const controller = new AbortController();
      const pending = x({
        url: `${base}/slow`,
        method: 'GET',
        headers: {},
        body: undefined,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(new Error('timed out')), 20);
      await assert.rejects(pending);
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((r) => closed.close(r));
      await assert.rejects(
        x({
          url: `http://127.0.0.1:${port}/`,
          method: 'POST',
          headers: {},
          body: '{}',
          signal: new AbortController().signal,
        }),
        (e: Error & {code?: string; cause?: {code?: string}}) =>
          (e.code ?? e.cause?.code) === 'ECONNREFUSED',
      );
    });
  }
});
