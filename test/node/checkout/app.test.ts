/**
 * The companion in-process (`app.request`) against a scriptable stub gateway: options
 * validation, how the direct request is built (the never-double rules run on both the
 * stub and the sandbox: `never-double.test.ts`), webhooks (signature, duplicates, order, early arrival, secondary operations), the
 * outbox, the status and return routes, and the security checks of the pay route.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  CheckoutConfigError,
  SqlitePaymentStore,
  StoreUnavailableError,
  createCheckoutApp,
  type CheckoutAppOptions,
  type PaymentRecord,
} from '../../../src/server/index.js';
import {
  CARDS,
  ORIGIN,
  POS_ID,
  PUBLIC_URL,
  SECRET,
  StubGateway,
  inProcessApp,
  pay,
  payBody,
  postWebhook,
  primaryWebhook,
  record,
  signedWebhook,
} from './helpers.js';

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

/**
 * Another instance on `store`, after the first died holding an outbox entry: it leaves the
 * entry alone while the first's claim runs (60 s by default), then answers what a second
 * instance, a lease later, delivers.
 */
async function deliveredByAnotherInstance(store: SqlitePaymentStore, gw: StubGateway) {
  const early = inProcessApp(store, gw);
  await early.app.recover();
  assert.deepEqual(early.updates, [], 'not while the first instance holds the entry');
  const later = Date.now() + 60_000;
  const second = inProcessApp(store, gw, {clock: () => later});
  await second.app.recover();
  return second.updates;
}

describe('options', () => {
  const base = (): CheckoutAppOptions => ({
    gateway: new StubGateway(),
    webhookSecret: SECRET,
    store: new SqlitePaymentStore(':memory:'),
    publicUrl: PUBLIC_URL,
    returnPage: '/thanks',
    resolveOrder: () => null,
  });

  test('an unknown key is an error naming it', () => {
    assert.throws(
      () =>
        createCheckoutApp({...base(), onPaymentUpdated: () => {}} as unknown as CheckoutAppOptions),
      (e: unknown) => e instanceof CheckoutConfigError && /onPaymentUpdated/.test(e.message),
    );
    assert.throws(
      () =>
        createCheckoutApp({
          ...base(),
          rateLimit: {maxFailures: 3},
        } as unknown as CheckoutAppOptions),
      /rateLimit\.maxFailures/,
    );
  });

  test('a missing required key is an error naming it', () => {
    const {resolveOrder: _r, ...rest} = base();
    assert.throws(() => createCheckoutApp(rest as CheckoutAppOptions), /resolveOrder: is required/);
    const {publicUrl: _p, ...noUrl} = base();
    assert.throws(() => createCheckoutApp(noUrl as CheckoutAppOptions), /publicUrl/);
  });

  test('a client instance needs the webhook secret; client options carry it', () => {
    const {webhookSecret: _s, ...rest} = base();
    assert.throws(() => createCheckoutApp(rest), /webhookSecret/);
    const app = createCheckoutApp({
      ...rest,
      gateway: {
        baseUrl: 'http://127.0.0.1:9',
        posId: POS_ID,
        credentials: {apiKey: 'k', apiSecret: 's', endpointsKey: 'e'},
      },
    });
    assert.equal(typeof app.fetch, 'function');
  });

  test('bad values are named', () => {
    assert.throws(
      () => createCheckoutApp({...base(), order3dsBypass: 'sometimes' as 'always'}),
      /order3dsBypass/,
    );
    assert.throws(
      () => createCheckoutApp({...base(), allowedOrigins: ['https://a.example/path']}),
      /allowedOrigins\.0/,
    );
  });
});

describe('pay: building the direct request', () => {
  test('answers success with the protocol shape only, and builds the request on the server', async () => {
    const gw = new StubGateway();
    const {app, catalogue} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
      order3dsBypass: 'always',
    });
    catalogue.orders.set('ord-1', {
      amount: '12.50',
      currency: 'XTS',
      description: 'Two books',
      customer: {email: 'merchant@example.com', firstName: 'Grace'},
      initRecurring: {interval_unit: 'month', interval_count: 1},
    });
    const res = await pay(app, {...payBody('ord-1', 'att-1'), amount: 0.01} as unknown as object);
    assert.equal(res.status, 400, 'an amount from the browser is not even accepted');
    const ok = await pay(app, payBody('ord-1', 'att-1'), {Accept: 'application/json, */*;q=0.1'});
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('cache-control'), 'no-store');
    const body = await json(ok);
    assert.deepEqual(Object.keys(body).sort(), [
      'cardMask',
      'code',
      'message',
      'orderRef',
      'outcome',
    ]);
    assert.equal(body['outcome'], 'success');
    const req = gw.created[0]!;
    assert.equal(req.pos_id, POS_ID);
    assert.equal(req.amount, '12.50');
    assert.equal(req.order_3ds_bypass, 'always');
    assert.match(req.order_id, /^ord-1-1-[0-9a-f]{8}$/);
    assert.equal(req.customer_ip, '203.0.113.7');
    assert.equal(req.customer_email, 'merchant@example.com', 'the merchant’s data wins');
    assert.equal(req.customer_fname, 'Grace');
    assert.equal(
      req.customer_lname,
      'Lovelace',
      'the browser fills what the merchant did not give',
    );
    // The form's fetch header is not the page's: without the page's, the documented default.
    assert.equal(
      req.browser_fingerprint.browserAcceptHeader,
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    );
    assert.equal(req.browser_fingerprint.browserIpAddress, '203.0.113.7');
    assert.equal(req.browser_fingerprint.browserUserAgent, 'Mozilla/5.0 (test)');
    assert.equal(req.server_url, `${PUBLIC_URL}/webhook`);
    assert.equal(req.result_url, `${PUBLIC_URL}/return?order=ord-1`);
    assert.deepEqual(req.init_recurring, {interval_unit: 'month', interval_count: 1});
  });

  test('trustProxy reads the client address from X-Forwarded-For', async () => {
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
      clientIp: undefined,
      trustProxy: 1,
    });
    const res = await app.request(
      '/pay',
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-PG-Checkout': '1',
          'X-Forwarded-For': '198.51.100.99, 192.0.2.44',
        },
        body: JSON.stringify(payBody('ord-x', 'att-x')),
      },
      {incoming: {socket: {remoteAddress: '::ffff:10.0.0.1'}}},
    );
    assert.equal(res.status, 200);
    assert.equal(gw.created[0]!.customer_ip, '192.0.2.44');
  });

  test('without trustProxy the socket address is used', async () => {
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {clientIp: undefined});
    await app.request(
      '/pay',
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-PG-Checkout': '1',
          'X-Forwarded-For': '198.51.100.99',
        },
        body: JSON.stringify(payBody('ord-y', 'att-y')),
      },
      {incoming: {socket: {remoteAddress: '::ffff:10.0.0.1'}}},
    );
    assert.equal(gw.created[0]!.customer_ip, '10.0.0.1');
  });

  test('a missing customer field the browser could give is a 400 naming it', async () => {
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw);
    const body = payBody('ord-2', 'att-2');
    delete body.customer!.email;
    const res = await pay(app, body);
    assert.equal(res.status, 400);
    const err = (await json(res))['error'] as Record<string, unknown>;
    assert.equal(err['field'], 'customer.email');
    assert.equal(gw.created.length, 0);
  });

  test('an expired card is a 400 on card.expYear that does not echo the card', async () => {
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw);
    const body = payBody('ord-3', 'att-3');
    body.card!.expYear = 2001;
    const res = await pay(app, body);
    const text = await res.text();
    assert.equal(res.status, 400);
    assert.match(text, /card\.expYear/);
    assert.doesNotMatch(text, /4242424242424242/);
    assert.equal(gw.created.length, 0);
  });

  test('an unknown order is 404 not_found', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    const res = await pay(app, payBody('missing-1', 'att-4'));
    assert.equal(res.status, 404);
    assert.equal(((await json(res))['error'] as {code: string}).code, 'not_found');
  });

  test('an order the merchant data makes invalid is a 500 internal, logged by field', async () => {
    const {app, catalogue, lines} = inProcessApp(
      new SqlitePaymentStore(':memory:'),
      new StubGateway(),
    );
    catalogue.orders.set('bad-amount', {amount: '1.005', currency: 'XTS', description: 'x'});
    const res = await pay(app, payBody('bad-amount', 'att-5'));
    assert.equal(res.status, 500);
    assert.equal(((await json(res))['error'] as {code: string}).code, 'internal');
    assert.ok(lines.some((l) => l.includes('"field":"amount"')));
  });
});

describe('webhooks', () => {
  async function pendingOrder(ref: string) {
    const gw = new StubGateway();
    gw.onCreate = async (req) => record(req, 'pending');
    const ctx = inProcessApp(new SqlitePaymentStore(':memory:'), gw);
    await pay(ctx.app, payBody(ref, `att-${ref}`));
    const orderId = gw.created[0]!.order_id;
    return {...ctx, gw, orderId};
  }

  test('a signed webhook is stored, applied and acknowledged with an empty 200', async () => {
    const {app, orderId, updates} = await pendingOrder('w1');
    const res = await postWebhook(
      app,
      signedWebhook(primaryWebhook(orderId, 'success', {future_field: 'kept'})),
    );
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '');
    const attempt = await app.store.getAttemptByGatewayOrderId(orderId);
    assert.equal(attempt?.state, 'success');
    assert.match(attempt!.raw!, /future_field/);
    assert.equal((await app.store.listEvents()).length, 1);
    await app.flushOutbox();
    assert.deepEqual(
      updates.map((u) => u.state),
      ['pending', 'success'],
    );
  });

  test('a duplicate changes nothing and an older status never overwrites a final one', async () => {
    const {app, orderId, updates} = await pendingOrder('w2');
    const success = signedWebhook(primaryWebhook(orderId, 'success'));
    assert.equal((await postWebhook(app, success)).status, 200);
    assert.equal((await postWebhook(app, success)).status, 200);
    assert.equal(
      (await postWebhook(app, signedWebhook(primaryWebhook(orderId, 'pending', {x: 1})))).status,
      200,
    );
    assert.equal(
      (await postWebhook(app, signedWebhook(primaryWebhook(orderId, 'failure')))).status,
      200,
    );
    assert.equal((await app.store.getAttemptByGatewayOrderId(orderId))?.state, 'success');
    assert.equal((await app.store.listEvents()).length, 3);
    await app.flushOutbox();
    assert.deepEqual(
      updates.map((u) => u.state),
      ['pending', 'success'],
    );
  });

  test('a forged signature is refused with 403 and recorded', async () => {
    const {app, orderId} = await pendingOrder('w3');
    const res = await postWebhook(
      app,
      signedWebhook(primaryWebhook(orderId, 'success'), 'wrong-secret'),
    );
    assert.equal(res.status, 403);
    assert.equal(((await json(res))['error'] as {code: string}).code, 'forbidden');
    assert.equal((await app.store.getAttemptByGatewayOrderId(orderId))?.state, 'pending');
    const rejected = await app.store.listRejectedWebhooks();
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0]!.reason, 'bad_signature');
    assert.equal((await app.store.listEvents()).length, 0);
  });

  test('a webhook that overtakes the create response is applied to the stored attempt', async () => {
    const gw = new StubGateway();
    let appRef: {request: (p: string, i: RequestInit) => Response | Promise<Response>} | undefined =
      undefined;
    gw.onCreate = async (req) => {
      const res = await postWebhook(
        appRef!,
        signedWebhook(primaryWebhook(req.order_id, 'success')),
      );
      assert.equal(res.status, 200);
      return record(req, 'pending');
    };
    const {app, updates} = inProcessApp(new SqlitePaymentStore(':memory:'), gw);
    appRef = app;
    const answer = await json(await pay(app, payBody('w4', 'att-w4')));
    assert.equal(answer['outcome'], 'success', 'the later, older create answer does not win');
    await app.flushOutbox();
    assert.deepEqual(
      updates.map((u) => u.state),
      ['success'],
    );
  });

  test('refund and subscription-charge webhooks are recorded as operations and reported', async () => {
    const {app, orderId, updates} = await pendingOrder('w5');
    await postWebhook(
      app,
      signedWebhook(primaryWebhook(orderId, 'success', {recurring: {id: 'rec-1', status: 'init'}})),
    );
    const refund = {
      operation_id: 'op-1',
      payment_id: `pay-${orderId}`,
      order_id: orderId,
      pos_id: POS_ID,
      mode: 'direct',
      method: 'refund',
      amount: 1,
      currency: 'XTS',
      status: 'success',
      status_code: '1004',
      created_at: '2026-01-02T00:00:00.000',
    };
    assert.equal((await postWebhook(app, signedWebhook(refund))).status, 200);
    const charge = primaryWebhook(orderId, 'success', {
      payment_id: 'pay-charge-2',
      transaction_id: 'txn-2',
      recurring: {id: 'rec-1', status: 'active'},
    });
    assert.equal((await postWebhook(app, signedWebhook(charge))).status, 200);
    assert.equal((await postWebhook(app, signedWebhook(charge))).status, 200);
    const ops = await app.store.listOperations('w5');
    assert.deepEqual(
      ops.map((o) => [o.kind, o.operationId]),
      [
        ['refund', 'op-1'],
        ['subscription_charge', 'txn-2'],
      ],
    );
    await app.flushOutbox();
    assert.deepEqual(
      updates.map((u) => `${u.kind}:${u.state}`),
      ['payment:pending', 'payment:success', 'refund:success', 'subscription_charge:success'],
    );
    assert.equal(updates[1]!.recurringId, 'rec-1');
  });

  test('the allow-list refuses other source addresses and records them', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      webhookAllowedIps: ['35.187.74.148'],
    });
    const res = await postWebhook(app, signedWebhook(primaryWebhook('x', 'success')));
    assert.equal(res.status, 403);
    assert.equal((await app.store.listRejectedWebhooks())[0]?.reason, 'address_not_allowed');
    const allowed = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      webhookAllowedIps: ['35.187.74.148'],
      clientIp: () => '35.187.74.148',
    });
    assert.equal(
      (await postWebhook(allowed.app, signedWebhook(primaryWebhook('x', 'success')))).status,
      200,
    );
  });

  test('signed data that is not a known payload is kept and acknowledged', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    const res = await postWebhook(app, signedWebhook({method: 'dispute', something: 1}));
    assert.equal(res.status, 200);
    assert.equal((await app.store.listEvents())[0]?.kind, 'undecodable');
  });
});

describe('onPaymentUpdate and the outbox', () => {
  test('a failing hook is retried; each change is delivered once it succeeds', async () => {
    const gw = new StubGateway();
    const store = new SqlitePaymentStore(':memory:');
    const seen: string[] = [];
    let fail = true;
    const {app} = inProcessApp(store, gw, {
      onPaymentUpdate: (u) => {
        if (fail) throw new Error('merchant database down');
        seen.push(`${u.orderRef}:${u.state}`);
      },
    });
    await pay(app, payBody('ob-1', 'att-ob1'));
    await app.flushOutbox();
    assert.deepEqual(seen, []);
    assert.equal((await store.pendingOutbox()).length, 1);
    fail = false;
    await app.flushOutbox();
    assert.deepEqual(seen, ['ob-1:success']);
    await app.flushOutbox();
    assert.deepEqual(seen, ['ob-1:success'], 'not delivered twice');
  });

  test('a store failing during delivery is logged and retried, never an unhandled rejection', async () => {
    const gw = new StubGateway();
    const store = new SqlitePaymentStore(':memory:');
    const markDelivered = store.markOutboxDelivered.bind(store);
    const claim = store.claimOutbox.bind(store);
    const claimAfter = store.claimOutboxAfterDelivery.bind(store);
    let down = true;
    store.markOutboxDelivered = (id, at) =>
      down ? Promise.reject(new Error('database unreachable')) : markDelivered(id, at);
    store.claimOutbox = (...args) =>
      down && seen.length > 0 ? Promise.reject(new Error('database unreachable')) : claim(...args);
    // The marks go with the next claim: it fails while the database is down.
    store.claimOutboxAfterDelivery = (...args) =>
      down ? Promise.reject(new Error('database unreachable')) : claimAfter(...args);
    const seen: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let now = Date.now();
      const {app} = inProcessApp(store, gw, {
        clock: () => now,
        onPaymentUpdate: (u) => void seen.push(`${u.orderRef}:${u.state}`),
      });
      await pay(app, payBody('ob-3', 'att-ob3'));
      await app.flushOutbox(); // delivered, but marking it fails
      await app.flushOutbox(); // reading the outbox fails
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
      assert.deepEqual(seen, ['ob-3:success']);
      // The database is back; the claim has run out. The mark waited for the next claim:
      // written now, and not delivered again.
      down = false;
      now += 61_000;
      await app.flushOutbox();
      await app.flushOutbox();
      assert.deepEqual(seen, ['ob-3:success']);
      assert.equal((await store.pendingOutbox()).length, 0);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('deliveries are marked with the next claim, one store call instead of two per run', async (t) => {
    // The mark's own run waits MARK_DELAY_MS on a timer: on the test's clock.
    t.mock.timers.enable({apis: ['setTimeout']});
    const store = new SqlitePaymentStore(':memory:');
    const calls: string[] = [];
    for (const name of [
      'claimOutbox',
      'claimOutboxAfterDelivery',
      'markOutboxDelivered',
    ] as const) {
      const real = (store[name] as (...a: unknown[]) => Promise<unknown>).bind(store);
      (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        calls.push(name);
        const done = real(...args);
        if (calls.length === 4) void done.then(() => fourthDone());
        return done;
      };
    }
    let fourthDone = () => {};
    const fourth = new Promise<void>((resolve) => (fourthDone = resolve));
    const {app, updates, delivered} = inProcessApp(store, new StubGateway());
    for (const n of [1, 2, 3]) {
      await pay(app, payBody(`mk-${n}`, `att-mk${n}`));
      // The run the write kicked, on the next turn, has handed it to the hook.
      await delivered(n);
    }
    assert.deepEqual(
      updates.map((u) => u.orderRef),
      ['mk-1', 'mk-2', 'mk-3'],
    );
    // The first run claims; each later one marks the run before it and claims.
    assert.deepEqual(calls, [
      'claimOutbox',
      'claimOutboxAfterDelivery',
      'claimOutboxAfterDelivery',
    ]);
    assert.equal((await store.pendingOutbox()).length, 1, 'the last delivery waits for a claim');
    // Nothing else comes: the last one is marked a moment later (MARK_DELAY_MS, 100 ms), by
    // a run of its own: its claim is the fourth call.
    // (After one more turn of the event loop: the last run has ended, and armed the timer.)
    await new Promise((resolve) => setImmediate(resolve));
    t.mock.timers.tick(100);
    await fourth;
    assert.equal((await store.pendingOutbox()).length, 0);
    assert.equal(calls.length, 4);
    assert.deepEqual(updates.length, 3, 'nothing delivered twice');
  });

  test('a crash before the marks are written delivers those updates again, once their claims run out', async () => {
    const store = new SqlitePaymentStore(':memory:');
    const gw = new StubGateway();
    const first = inProcessApp(store, gw);
    await pay(first.app, payBody('mc-1', 'att-mc1'));
    await first.delivered(1);
    assert.deepEqual(
      first.updates.map((u) => u.orderRef),
      ['mc-1'],
    );
    // The process "dies" before the mark went with a claim: never closed, no more runs.
    assert.equal((await store.pendingOutbox()).length, 1);
    const redelivered = await deliveredByAnotherInstance(store, gw);
    assert.deepEqual(
      redelivered.map((u) => u.updateId),
      first.updates.map((u) => u.updateId),
      'the same update, its updateId to deduplicate by',
    );
    assert.equal((await store.pendingOutbox()).length, 0);
  });

  test('close marks what was delivered before it resolves', async () => {
    const store = new SqlitePaymentStore(':memory:');
    const {app, updates, delivered} = inProcessApp(store, new StubGateway());
    await pay(app, payBody('cl-1', 'att-cl1'));
    await delivered(1);
    assert.equal(updates.length, 1);
    assert.equal((await store.pendingOutbox()).length, 1);
    await app.close();
    assert.equal((await store.pendingOutbox()).length, 0);
  });

  test('a crash between storing and calling re-delivers on start', async () => {
    const store = new SqlitePaymentStore(':memory:');
    const gw = new StubGateway();
    const first = inProcessApp(store, gw, {onPaymentUpdate: () => new Promise(() => {})});
    await pay(first.app, payBody('ob-2', 'att-ob2'));
    // Delivery starts on the turn after the write: the first instance claims the entry then.
    await new Promise((resolve) => setImmediate(resolve));
    // The process "dies" here: the hook never returned. Another instance on the same store
    // leaves the entry to it while its claim runs (60 s by default), then delivers it.
    const redelivered = await deliveredByAnotherInstance(store, gw);
    assert.deepEqual(
      redelivered.map((u) => `${u.orderRef}:${u.state}`),
      ['ob-2:success'],
    );
  });
  test("an instance already running takes over a dead instance's entry at its next sweep, once the claim ran out", async () => {
    const store = new SqlitePaymentStore(':memory:');
    const gw = new StubGateway();
    let now = 1_000_000;
    const clock = () => now;
    const running = inProcessApp(store, gw, {clock, sweep: {intervalMs: 0}});
    const dying = inProcessApp(store, gw, {clock, onPaymentUpdate: () => new Promise(() => {})});
    await pay(dying.app, payBody('ob-3', 'att-ob3'));
    await new Promise((resolve) => setImmediate(resolve));
    // The dying instance holds the entry (its hook never returns); no payment follows, so
    // no write kicks the running instance's outbox.
    await running.app.sweep();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(running.updates.length, 0, 'not while the claim runs');
    now += 60_000;
    await running.app.sweep();
    // The store answers in process: the delivery takes a few turns, not a clock.
    for (let i = 0; i < 50 && running.updates.length === 0; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(
      running.updates.map((u) => `${u.orderRef}:${u.state}`),
      ['ob-3:success'],
    );
    await running.app.close();
  });
});

describe('status and return routes', () => {
  test('status: none for a new order, 404 for an unknown one, 400 for a bad reference', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    assert.deepEqual(await json(await app.request('/status?order=new-1')), {
      orderRef: 'new-1',
      state: 'none',
      final: false,
    });
    assert.equal((await app.request('/status?order=missing-2')).status, 404);
    assert.equal((await app.request('/status?order=%3Cscript%3E')).status, 400);
    assert.equal((await app.request('/status')).status, 400);
  });

  test('status asks the gateway about a pending attempt only after afterMs, at most once per minIntervalMs', async () => {
    let now = 5_000_000;
    const gw = new StubGateway();
    gw.onCreate = async (req) => record(req, 'pending');
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
      clock: () => now,
      statusCheck: {afterMs: 10_000, minIntervalMs: 5_000},
    });
    await pay(app, payBody('st-1', 'att-st1'));
    const orderId = gw.created[0]!.order_id;
    assert.equal((await json(await app.request('/status?order=st-1')))['state'], 'pending');
    assert.equal(gw.lookups.length, 0);
    now += 10_000;
    await app.request('/status?order=st-1');
    await app.request('/status?order=st-1');
    assert.equal(gw.lookups.length, 1);
    gw.known.set(orderId, record({order_id: orderId}, 'success'));
    now += 5_000;
    const status = await json(await app.request('/status?order=st-1'));
    assert.equal(gw.lookups.length, 2);
    assert.deepEqual(status, {
      orderRef: 'st-1',
      state: 'success',
      final: true,
      code: '1000',
      message: 'Transaction successful',
    });
  });

  test('return (GET or cross-site POST without cookies) 303-redirects to the return page', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    for (const method of ['GET', 'POST']) {
      const res = await app.request('/return?order=ord-r', {
        method,
        headers: {
          'Sec-Fetch-Site': 'cross-site',
          Origin: 'https://gw.example',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        ...(method === 'POST' ? {body: 'order_id=x&payment_id=y&status=success'} : {}),
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/thanks?order=ord-r');
    }
    assert.equal((await app.request('/return')).status, 400);
  });
});

describe('pay route security', () => {
  const good = () => payBody('sec-1', 'att-sec1');

  test('refuses requests without the header, with a wrong version, non-JSON or from another origin', async () => {
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw);
    const cases: Record<string, string | null>[] = [
      {'X-PG-Checkout': null},
      {'X-PG-Checkout': '0'},
      {'Content-Type': 'text/plain'},
      {'Content-Type': 'application/x-www-form-urlencoded'},
      {Origin: 'https://evil.example'},
      {Origin: null, 'Sec-Fetch-Site': 'cross-site'},
    ];
    for (const c of cases) {
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'X-PG-Checkout': '1',
        Origin: ORIGIN,
      };
      for (const [k, v] of Object.entries(c)) {
        if (v === null) delete headers[k];
        else headers[k] = v;
      }
      const res = await app.request('/pay', {
        method: 'POST',
        headers,
        body: JSON.stringify(good()),
      });
      assert.equal(res.status, 403, JSON.stringify(c));
      assert.equal(((await json(res))['error'] as {code: string}).code, 'forbidden');
    }
    assert.equal(gw.created.length, 0);
    const sameSite = await app.request('/pay', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'X-PG-Checkout': '1',
        'Sec-Fetch-Site': 'same-origin',
      },
      body: JSON.stringify(good()),
    });
    assert.equal(sameSite.status, 200);
  });

  test('an extra allowed origin gets CORS headers and a preflight answer', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      allowedOrigins: [ORIGIN, 'https://pay.other.example'],
    });
    const pre = await app.request('/pay', {
      method: 'OPTIONS',
      headers: {Origin: 'https://pay.other.example'},
    });
    assert.equal(pre.status, 204);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /X-PG-Checkout/);
    const res = await pay(app, good(), {Origin: 'https://pay.other.example'});
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://pay.other.example');
    const evil = await app.request('/pay', {
      method: 'OPTIONS',
      headers: {Origin: 'https://evil.example'},
    });
    assert.equal(evil.status, 403);
  });

  test('attempts past the per-address limit are refused with 429 and Retry-After, successes included', async () => {
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
      rateLimit: {maxAttemptsPerIp: 3, maxAttemptsPerOrder: 100, windowMs: 60_000},
    });
    // Working cards count too: a card tester's valid stolen cards are attempts.
    for (let i = 0; i < 3; i++) {
      const ok = await json(await pay(app, payBody(`rl-${i}`, `att-rl${i}`)));
      assert.equal(ok['outcome'], 'success');
    }
    const res = await pay(app, payBody('rl-x', 'att-rlx'));
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    const err = (await json(res))['error'] as {code: string; retryAfter: number};
    assert.equal(err.code, 'rate_limited');
    assert.ok(err.retryAfter >= 1 && err.retryAfter <= 60);
    assert.equal(gw.created.length, 3);
  });

  test('an attempt the store failed to write uses up no card-testing place', async () => {
    // The store fails twice at the attempt's write (its reservation is in that write): the
    // customer is answered 503 and no create is sent, and nothing was counted either.
    class FailingInserts extends SqlitePaymentStore {
      failures = 2;
      override insertAttempt(...args: Parameters<SqlitePaymentStore['insertAttempt']>) {
        if (this.failures-- > 0) return Promise.reject(new StoreUnavailableError('down'));
        return super.insertAttempt(...args);
      }
    }
    const gw = new StubGateway();
    const {app} = inProcessApp(new FailingInserts(':memory:'), gw, {
      rateLimit: {maxAttemptsPerIp: 3, maxAttemptsPerOrder: 100, windowMs: 60_000},
    });
    for (let i = 0; i < 2; i++) {
      assert.equal((await pay(app, payBody(`sf-${i}`, `att-sf${i}`))).status, 503);
    }
    for (let i = 0; i < 3; i++) {
      const ok = await json(await pay(app, payBody(`sf-ok-${i}`, `att-sf-ok${i}`)));
      assert.equal(ok['outcome'], 'success');
    }
    assert.equal((await pay(app, payBody('sf-x', 'att-sfx'))).status, 429);
    assert.equal(gw.created.length, 3);
  });

  test('attempts per order and per card are limited too, and card-data validation failures count', async () => {
    const gw = new StubGateway();
    gw.onCreate = async (req) => record(req, 'failure');
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
      rateLimit: {
        maxAttemptsPerIp: 100,
        maxAttemptsPerOrder: 2,
        maxAttemptsPerCard: 3,
        windowMs: 60_000,
      },
    });
    const bad = payBody('rl-o', 'att-o1');
    bad.card!.number = '4242424242424241';
    assert.equal((await pay(app, bad)).status, 400);
    assert.equal((await pay(app, payBody('rl-o', 'att-o2', CARDS.decline))).status, 200);
    const res = await pay(app, payBody('rl-o', 'att-o3'));
    assert.equal(res.status, 429);
    assert.equal((await pay(app, payBody('rl-other', 'att-o4', CARDS.decline))).status, 200);
    // One card on several orders: counted per card (keyed hash, never the number).
    assert.equal((await pay(app, payBody('rl-c1', 'att-c1', CARDS.decline))).status, 200);
    assert.equal((await pay(app, payBody('rl-c2', 'att-c2', CARDS.decline))).status, 429);
    assert.equal((await pay(app, payBody('rl-c3', 'att-c3'))).status, 200);
  });

  test('a body over the limit is refused with 413', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      bodyLimitBytes: 2048,
    });
    const body = {...good(), pad: 'x'.repeat(4096)};
    const res = await pay(app, body);
    assert.equal(res.status, 413);
    const err = (await json(res))['error'] as {code: string; field: string};
    assert.equal(err.code, 'invalid_request');
    assert.equal(err.field, '(body)');
  });

  test('validation errors name the field and never echo card data', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    const body = payBody('v-1', 'att-v1', '4242424242424241', '9876');
    const res = await pay(app, body);
    const text = await res.text();
    assert.equal(res.status, 400);
    assert.match(text, /"field":"card.number"/);
    assert.doesNotMatch(text, /424242424242424/);
    const unknownKey = await pay(app, {...payBody('v-2', 'att-v2'), '4242424242424242': 1});
    const t2 = await unknownKey.text();
    assert.equal(unknownKey.status, 400);
    assert.doesNotMatch(t2, /4242424242424242/);
    const notJson = await pay(app, '{"card": {"number": "4242424242424242"');
    const t3 = await notJson.text();
    assert.equal(notJson.status, 400);
    assert.doesNotMatch(t3, /4242/);
  });

  test('an unknown route is a JSON 404', async () => {
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    const res = await app.request('/nope');
    assert.equal(res.status, 404);
    assert.equal(((await json(res))['error'] as {code: string}).code, 'not_found');
  });
});

export type {PaymentRecord};
