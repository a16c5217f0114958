/**
 * The smaller holes of issue 29, each against a real part: a 413 over a real socket says
 * what it does with the connection; the status JSON cannot be sniffed or framed (the
 * headers a browser enforces); `/hosted` posts a script sends with the shop's own Origin
 * meet the payment limits per address; the back office answers 404, not 502, when the
 * sandbox (over HTTP) says an id does not exist.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type {AddressInfo} from 'node:net';
import {Hono} from 'hono';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {GatewayClient, MemoryPaymentStore} from '../../../src/server/index.js';
import {gatewayFailure} from '../../../server-example/admin/answers.js';
import {
  ORIGIN,
  StubGateway,
  captureLogger,
  catalogue,
  inProcessApp,
  postHosted,
} from './helpers.js';

/** Sends raw HTTP/1.1 and collects what comes back until the server closes or `waitMs`. */
function rawExchange(
  port: number,
  request: string,
  waitMs: number,
): Promise<{text: string; closedAfterMs: number | undefined}> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let firstByte = 0;
    let done = false;
    const finish = (closedAfterMs: number | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({text, closedAfterMs});
    };
    const timer = setTimeout(() => finish(undefined), waitMs);
    socket.on('data', (chunk) => {
      if (!firstByte) firstByte = Date.now();
      text += chunk.toString('latin1');
    });
    socket.on('end', () => finish(firstByte ? Date.now() - firstByte : 0));
    socket.on('close', () => finish(firstByte ? Date.now() - firstByte : 0));
    socket.on('error', reject);
    socket.write(request);
  });
}

describe('a refused body (413) over a real socket', () => {
  test('says Connection: close, and the connection closes; never keep-alive and then a close', async () => {
    const {app} = inProcessApp(new MemoryPaymentStore(), new StubGateway(), {
      bodyLimitBytes: 1024,
    });
    const server = createAdaptorServer({fetch: app.fetch});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const {port} = server.address() as AddressInfo;
    try {
      // A declared body over the limit, only part of it sent: the server answers first.
      const {text, closedAfterMs} = await rawExchange(
        port,
        'POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n' +
          'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n' +
          'data=',
        3_000,
      );
      const head = text.split('\r\n\r\n')[0]!.toLowerCase();
      assert.match(head, /^http\/1\.1 413/);
      const connection = /\r\nconnection: ([^\r]*)/.exec(head)?.[1];
      if (connection === 'keep-alive') {
        assert.equal(closedAfterMs, undefined, 'keep-alive promised: the connection stays open');
      } else {
        assert.equal(connection, 'close', 'the 413 says what happens to the connection');
        assert.notEqual(closedAfterMs, undefined, 'and the connection closes');
      }
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as {closeAllConnections(): void}).closeAllConnections();
      });
    }
  });
});

describe('the status JSON', () => {
  test('is never sniffed as another type and cannot be framed', async () => {
    const {app} = inProcessApp(new MemoryPaymentStore(), new StubGateway());
    const server = createAdaptorServer({fetch: app.fetch});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${base}/status?order=ord-frame`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      // An error answer of the route too.
      const bad = await fetch(`${base}/status?order=`);
      assert.equal(bad.status, 400);
      assert.equal(bad.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(bad.headers.get('x-frame-options'), 'DENY');
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as {closeAllConnections(): void}).closeAllConnections();
      });
    }
  });
});

describe('/hosted posted by a script with the shop’s own Origin', () => {
  test('each new hosted payment counts against the payment limit per address', async () => {
    const {app} = inProcessApp(new MemoryPaymentStore(), new StubGateway(), {
      rateLimit: {maxAttemptsPerIp: 3, maxAttemptsPerOrder: 100, maxAttemptsPerCard: 100},
      resolveOrder: catalogue({
        customer: {email: 'ada@example.com', phone: '+380501234567', firstName: 'Ada'},
      }).resolveOrder,
    });
    const send = (path: string, init: RequestInit) => app.request(path, init);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await postHosted(send, `hosted-${i}`, ORIGIN)).status);
    assert.deepEqual(statuses, [303, 303, 303, 429, 429], 'three a window from one address');
    // An order that has its hosted payment already, posted again (a double click), makes
    // no new one and is not counted: answered, not refused.
    const again = await postHosted(send, 'hosted-0', ORIGIN);
    assert.equal(again.status, 303);
  });
});

describe('the back office and a gateway id that does not exist', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });

  test('answers 404 (the gateway said N-404), not 502 "the gateway call failed"', async () => {
    const client = new GatewayClient({...sandbox.clientOptions(), retries: 0});
    const {logger} = captureLogger();
    const office = new Hono().get('/subscriptions/:id/transactions', async (c) => {
      try {
        return c.json(await client.getSubscriptionTransactions(c.req.param('id'), {}));
      } catch (error) {
        return gatewayFailure(c, error, logger);
      }
    });
    const res = await office.request('/subscriptions/no-such-subscription/transactions');
    const body = (await res.json()) as {error: {code: string; message: string}};
    assert.equal(res.status, 404, JSON.stringify(body));
    assert.equal(body.error.code, 'not_found');
  });
});
