/**
 * `checkout.reconcile(orderRef)`, the public way to bring an order in line with the
 * gateway: it looks up the order's open payments at once (no rate limit, no backoff),
 * stores what the gateway says, and answers the order's state as the status route does.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {GatewayOutcomeUnknownError, MemoryPaymentStore} from '../../../src/server/index.js';
import {StubGateway, inProcessApp, pay, payBody, record} from './helpers.js';

/** A companion whose status checks would not look anything up for an hour. */
function slowToCheck(gw: StubGateway) {
  const now = 1_000_000;
  return inProcessApp(new MemoryPaymentStore(), gw, {
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
      ((await (await app.request('/status?order=rc-1')).json()) as {reason: string}).reason,
      'not_confirmed',
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
      ['unknown', 'success'],
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

  test('a gateway that does not know the order yet leaves it not confirmed (pay again), never "not created"', async () => {
    const gw = new StubGateway();
    gw.onCreate = async (req) => {
      throw new GatewayOutcomeUnknownError('timeout', {orderId: req.order_id});
    };
    const {app} = slowToCheck(gw);
    await pay(app, payBody('rc-4', 'att-rc4'));
    const state = await app.reconcile('rc-4');
    assert.equal(state.state, 'failure');
    assert.equal(state.reason, 'not_confirmed', 'never not_created: the order id stays live');
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

  test('an unconfirmed create is looked up with backoff and stops at maxUnknownLookups, however often the status is asked', async () => {
    const gw = new StubGateway();
    gw.onCreate = async (req) => {
      throw new GatewayOutcomeUnknownError('timeout', {orderId: req.order_id});
    };
    let now = 1_000_000;
    const {app, lines} = inProcessApp(new MemoryPaymentStore(), gw, {
      clock: () => now,
      statusCheck: {afterMs: 0, minIntervalMs: 1_000},
      sweep: {intervalMs: 0, initialBackoffMs: 5_000, maxBackoffMs: 30 * 60_000},
    });
    await pay(app, payBody('rc-6', 'att-rc6'));
    const start = gw.lookups.length;
    const at: number[] = [];
    // "Check again" every 2 seconds for 3 hours of the app's time, and sweeps beside it.
    for (let t = 0; t < 3 * 3600; t += 2) {
      now += 2_000;
      const before = gw.lookups.length;
      const body = (await (await app.request('/status?order=rc-6')).json()) as {
        state: string;
        reason?: string;
        final: boolean;
      };
      assert.deepEqual([body.state, body.reason, body.final], ['failure', 'not_confirmed', true]);
      if (t % 60 === 0) await app.sweep();
      if (gw.lookups.length > before) at.push(now);
    }
    const looked = gw.lookups.length - start;
    assert.ok(looked <= 10, `at most maxUnknownLookups (10) lookups, got ${looked}`);
    assert.ok(looked >= 8, `it is looked up for a while (${looked})`);
    // Each wait at least doubles (the backoff), up to the cap.
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    for (let i = 1; i < gaps.length; i++)
      assert.ok(gaps[i]! >= Math.min(gaps[i - 1]! * 2 - 2_000, 30 * 60_000));
    assert.ok(
      lines.filter((l) => l.includes('still unknown')).length <= 10,
      'a bounded number of log lines',
    );
    // The attempt is still live: paying again re-sends its order id.
    assert.equal((await app.store.getAttempt('att-rc6'))!.state, 'unknown');
  });
});
