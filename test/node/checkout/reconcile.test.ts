/**
 * `checkout.reconcile(orderRef)`, the public way to bring an order in line with the
 * gateway: it looks up the order's open payments at once (no rate limit, no backoff),
 * stores what the gateway says, and answers the order's state as the status route does.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {GatewayOutcomeUnknownError, SqlitePaymentStore} from '../../../src/server/index.js';
import {StubGateway, inProcessApp, pay, payBody, record} from './helpers.js';

/** A companion whose status checks would not look anything up for an hour. */
function slowToCheck(gw: StubGateway) {
  const now = 1_000_000;
  return inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
    clock: () => now,
    statusCheck: {afterMs: 3600_000, minIntervalMs: 3600_000},
  });
}

describe('checkout.reconcile(orderRef)', () => {
  test('an unknown outcome is looked up now, stored and reported, despite the rate limit', async () => {
    const gw = new StubGateway();
    gw.onCreate = async (req) => {
      throw new GatewayOutcomeUnknownError('timeout', {orderId: req.order_id});
    };
    const {app, updates} = slowToCheck(gw);
    await pay(app, payBody('rc-1', 'att-rc1'));
    const orderId = gw.created[0]!.order_id;
    // The create landed after all; the status route may not ask yet (minIntervalMs).
    gw.known.set(orderId, record({order_id: orderId}, 'success'));
    const lookups = gw.lookups.length;
    assert.equal(
      ((await (await app.request('/status?order=rc-1')).json()) as {state: string}).state,
      'processing',
    );
    assert.equal(gw.lookups.length, lookups, 'the status route respects the rate limit');
    const state = await app.reconcile('rc-1');
    assert.deepEqual(state, {
      orderRef: 'rc-1',
      state: 'success',
      final: true,
      code: '1000',
      message: 'Transaction successful',
    });
    assert.equal(gw.lookups.length, lookups + 1);
    assert.equal((await app.store.getAttempt('att-rc1'))!.state, 'success');
    await app.flushOutbox();
    assert.deepEqual(
      updates.map((u) => u.state),
      ['success'],
    );
  });

  test('a 3-D Secure payment is looked up before afterMs has passed', async () => {
    const gw = new StubGateway();
    gw.onCreate = async (req) => record(req, 'pending');
    const {app} = slowToCheck(gw);
    await pay(app, payBody('rc-2', 'att-rc2'));
    const orderId = gw.created[0]!.order_id;
    gw.known.set(orderId, record({order_id: orderId}, 'failure'));
    const state = await app.reconcile('rc-2');
    assert.equal(state.state, 'failure');
    assert.equal(state.final, true);
    assert.equal(gw.lookups.length, 1);
  });

  test('a final order is not looked up; an order without payments is none', async () => {
    const gw = new StubGateway();
    const {app} = slowToCheck(gw);
    await pay(app, payBody('rc-3', 'att-rc3'));
    assert.equal((await app.reconcile('rc-3')).state, 'success');
    assert.deepEqual(await app.reconcile('rc-none'), {
      orderRef: 'rc-none',
      state: 'none',
      final: false,
    });
    assert.equal(gw.lookups.length, 0);
  });

  test('a gateway that does not know the order yet leaves it processing, never failed', async () => {
    const gw = new StubGateway();
    gw.onCreate = async (req) => {
      throw new GatewayOutcomeUnknownError('timeout', {orderId: req.order_id});
    };
    const {app} = slowToCheck(gw);
    await pay(app, payBody('rc-4', 'att-rc4'));
    const state = await app.reconcile('rc-4');
    assert.equal(state.state, 'processing');
    assert.equal(state.final, false);
    assert.equal((await app.store.getAttempt('att-rc4'))!.state, 'unknown');
  });

  test('concurrent calls for one order make one lookup', async () => {
    const gw = new StubGateway();
    gw.onCreate = async (req) => record(req, 'pending');
    const {app} = slowToCheck(gw);
    await pay(app, payBody('rc-5', 'att-rc5'));
    const orderId = gw.created[0]!.order_id;
    gw.known.set(orderId, record({order_id: orderId}, 'success'));
    const lookup = gw.getOperation.bind(gw);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    gw.getOperation = async (id: string) => {
      await held;
      return lookup(id);
    };
    const both = Promise.all([app.reconcile('rc-5'), app.reconcile('rc-5')]);
    // Both calls reach the held lookup before it answers.
    await new Promise((r) => setImmediate(r));
    release();
    const [a, b] = await both;
    assert.deepEqual(a, b);
    assert.equal(a.state, 'success');
    assert.equal(gw.lookups.length, 1);
  });
});
