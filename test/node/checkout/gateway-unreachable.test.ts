/**
 * A gateway that refuses the connection: the pay request never left the companion, so the
 * customer is told at once that nothing was charged (503 `gateway_unavailable`), the
 * attempt is closed as not created rather than left "unknown" for reconciliation, and a
 * new attempt may follow as soon as the gateway is back.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {GatewayClient, SqlitePaymentStore} from '../../../src/server/index.js';
import {POS_ID, inProcessApp, pay, payBody} from './helpers.js';

/** A loopback address nothing listens on: a port that was free a moment ago. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('a gateway that refuses the connection', () => {
  test('pay answers 503 gateway_unavailable: nothing charged, nothing left unknown', async () => {
    const store = new SqlitePaymentStore(':memory:');
    const gateway = new GatewayClient({
      baseUrl: await closedPort(),
      posId: POS_ID,
      credentials: {apiKey: 'k', apiSecret: 's', endpointsKey: 'e'},
    });
    const {app} = inProcessApp(store, gateway);
    const res = await pay(app, payBody('order-refused', 'attempt-refused-1'));
    assert.equal(res.status, 503);
    const body = (await res.json()) as {error: {code: string; message: string}};
    assert.equal(body.error.code, 'gateway_unavailable');
    assert.match(body.error.message, /No money was taken/);
    const attempts = await store.listAttempts('order-refused');
    assert.equal(attempts.length, 1);
    assert.notEqual(
      attempts[0]!.state,
      'unknown',
      'a request never sent is not an unknown outcome',
    );
    assert.equal(attempts[0]!.state, 'failure');
    const next = await pay(app, payBody('order-refused', 'attempt-refused-2'));
    assert.equal(next.status, 503, 'a new attempt is allowed (and refused the same way)');
  });
});
