/**
 * Backpressure (issue 28): the companion works on at most `admission.maxInFlight`
 * requests, queues `admission.queue` more for at most `queueTimeoutMs`, and answers the
 * rest `503 busy` with `Retry-After` at once — a request it did nothing for, which the same
 * attempt, sent again, gets paid (once). Closing refuses new requests the same way
 * (webhooks too, so the gateway sends them again), lets those admitted finish, delivers
 * the outbox with `flush` and closes the store with `closeStore`. In process, with a stub
 * gateway whose creates wait on the test, and the in-memory store.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {setImmediate} from 'node:timers/promises';
import {CHECKOUT_ERROR_CODES} from '../../../src/protocol/checkout.js';
import {Admission} from '../../../src/server/http/admission.js';
import {SqlitePaymentStore, type PaymentStore} from '../../../src/server/index.js';
import {
  StubGateway,
  inProcessApp,
  pay,
  payBody,
  postWebhook,
  primaryWebhook,
  record,
  signedWebhook,
} from './helpers.js';

/** A stub gateway whose creates wait until `open()`. */
function gatedGateway() {
  const gw = new StubGateway();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const waiting: {n: number; resolve: () => void}[] = [];
  gw.onCreate = async (req) => {
    for (const w of waiting.filter((w) => gw.created.length >= w.n)) w.resolve();
    await gate;
    return record(req, 'success');
  };
  /** Resolves once `n` creates have reached the gateway (and wait at its gate). */
  const arrived = (n: number) =>
    new Promise<void>((resolve) =>
      gw.created.length >= n ? resolve() : waiting.push({n, resolve}),
    );
  return {gw, open, arrived};
}

async function errorOf(res: Response) {
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    code: ((await res.json()) as {error?: {code?: string}}).error?.code,
  };
}

describe('admission: a bounded queue in front of the work', () => {
  test('busy is a protocol error code', () => {
    assert.ok((CHECKOUT_ERROR_CODES as readonly string[]).includes('busy'));
  });

  test('queue full: 503 busy with Retry-After at once; a wait past the deadline too; the same attempt paid after', async (t) => {
    // The queue's deadline on the test's clock: it passes when the test says.
    t.mock.timers.enable({apis: ['setTimeout']});
    const {gw, open, arrived} = gatedGateway();
    const store = new SqlitePaymentStore(':memory:');
    const {app} = inProcessApp(store, gw, {
      admission: {
        maxInFlight: 2,
        queue: 1,
        queueTimeoutMs: 300,
        retryAfterSeconds: 3,
        retryAfterMaxSeconds: 3,
      },
    });
    const running = [pay(app, payBody('bp-1', 'bp-1-a')), pay(app, payBody('bp-2', 'bp-2-a'))];
    await arrived(2);
    assert.deepEqual(app.load(), {inFlight: 2, queued: 0, refusedBusy: 0});
    const queued = pay(app, payBody('bp-3', 'bp-3-a'));
    for (let turn = 0; turn < 1000 && app.load().queued < 1; turn++) await setImmediate();
    assert.equal(app.load().queued, 1);
    const full = await errorOf(await pay(app, payBody('bp-4', 'bp-4-a')));
    // At once: bp-3 still waits in the queue, its deadline not passed.
    assert.equal(app.load().queued, 1, 'answered at once, not after the queue deadline');
    assert.deepEqual(full, {status: 503, retryAfter: '3', code: 'busy'});
    t.mock.timers.tick(300);
    assert.deepEqual(await errorOf(await queued), {status: 503, retryAfter: '3', code: 'busy'});
    assert.equal(gw.created.length, 2, 'nothing of the refused requests reached the gateway');
    open();
    for (const r of await Promise.all(running)) assert.equal(r.status, 200);
    // The customer sends the refused attempts again after Retry-After: paid, once each.
    for (const ref of ['bp-3', 'bp-4']) {
      const again = await pay(app, payBody(ref, `${ref}-a`));
      assert.equal(again.status, 200);
      assert.equal(((await again.json()) as {outcome: string}).outcome, 'success');
    }
    assert.equal(gw.created.length, 4);
    assert.deepEqual(app.load(), {inFlight: 0, queued: 0, refusedBusy: 2});
    await app.close();
  });

  test('Retry-After spreads the retries as refusals outnumber answers, at random, within its bounds', async () => {
    let now = 10_000;
    let random = 0.999;
    const admission = new Admission(
      {maxInFlight: 1, queue: 0, retryAfterSeconds: 2, retryAfterMaxSeconds: 10},
      {now: () => now, random: () => random},
    );
    const refusal = () =>
      admission.enter().then(
        () => assert.fail('admitted'),
        (e: {retryAfter: number}) => e.retryAfter,
      );
    let leave = await admission.enter();
    // Few refused: the least wait, whatever the draw.
    assert.equal(await refusal(), 2);
    // One request answered, then 3 more refused in the same second: 4 refused per answer
    // asks a spread of 8 s (4 × 2), the whole of 2..10.
    leave();
    leave = await admission.enter();
    for (let i = 0; i < 3; i++) await refusal();
    assert.equal(await refusal(), 10, 'the top of the spread');
    random = 0;
    assert.equal(await refusal(), 2, 'the bottom of the spread');
    random = 0.5;
    assert.equal(await refusal(), 6);
    // Never past the most, however many are refused.
    random = 0.999;
    for (let i = 0; i < 50; i++) assert.ok((await refusal()) <= 10);
    // The next second still remembers the last; two seconds later, calm again.
    now += 1000;
    assert.equal(await refusal(), 10);
    now += 2000;
    leave();
    leave = await admission.enter();
    assert.equal(await refusal(), 2);
    // Shutting down is no pressure: the least wait, for another instance answers.
    admission.close();
    assert.equal(await refusal(), 2);
    leave();
  });

  test('bad admission options are named', async () => {
    const store = new SqlitePaymentStore(':memory:');
    assert.throws(
      () => inProcessApp(store, new StubGateway(), {admission: {maxInFlight: 0}}),
      /admission\.maxInFlight: must be a positive whole number/,
    );
    assert.throws(
      () => inProcessApp(store, new StubGateway(), {admission: {queue: -1}}),
      /admission\.queue: must be a whole number/,
    );
  });
});

describe('close: refuse, drain, deliver, close the store', () => {
  test('in-flight pays finish; new pays and webhooks meanwhile get 503 busy; updates delivered; store closed', async () => {
    const {gw, open, arrived} = gatedGateway();
    const memory = new SqlitePaymentStore(':memory:');
    let storeClosed = false;
    const store: PaymentStore = Object.assign(Object.create(memory) as PaymentStore, {
      close: async () => {
        storeClosed = true;
        await memory.close();
      },
    });
    const {app, updates} = inProcessApp(store, gw);
    const running = pay(app, payBody('close-1', 'close-1-a'));
    await arrived(1);
    const closing = app.close({flush: true, closeStore: true, timeoutMs: 5000});
    // While it closes: a new pay and a webhook are refused, to be sent again elsewhere.
    assert.deepEqual(await errorOf(await pay(app, payBody('close-2', 'close-2-a'))), {
      status: 503,
      retryAfter: '2',
      code: 'busy',
    });
    const webhook = await postWebhook(
      app,
      signedWebhook(primaryWebhook(gw.created[0]!.order_id, 'success')),
    );
    assert.equal(webhook.status, 503);
    assert.equal(webhook.headers.get('retry-after'), '2');
    assert.equal(storeClosed, false, 'the store stays open while a pay runs');
    open();
    const answered = await running;
    assert.equal(answered.status, 200, 'the pay in flight finished');
    assert.deepEqual(await closing, {drained: true, flushed: true});
    assert.equal(storeClosed, true);
    assert.deepEqual(
      updates.map((u) => `${u.orderRef}:${u.state}`),
      ['close-1:success'],
      'its update delivered before the store closed',
    );
    assert.equal(gw.created.length, 1, 'the refused pay reached nothing');
  });

  test('closed admission refuses at once; idle is false until the last admitted leaves', async () => {
    const admission = new Admission({maxInFlight: 1});
    const leave = await admission.enter();
    admission.close();
    await assert.rejects(admission.enter(), {code: 'busy', status: 503, retryAfter: 2});
    assert.equal(await admission.idle(Date.now() + 50), false);
    leave();
    assert.equal(await admission.idle(Date.now() + 50), true);
  });
});
