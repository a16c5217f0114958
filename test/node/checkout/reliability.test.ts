/**
 * Money moves exactly once, tried as an unlucky merchant and as an attacker would, over
 * real HTTP against the sandbox with real SQLite files: a create held by the gateway past
 * the client's timeout and past any window, for every fault kind, with the customer
 * paying again during and after it; a 3-D Secure challenge abandoned, a second card, then
 * the first challenge completed (the double charge refunded automatically); double clicks
 * and concurrent calls of refund, capture and void; secondary operations whose answer is
 * lost; the card-testing limits under 60 concurrent requests and after a restart; a signed
 * webhook that contradicts the stored payment; the sweep's bounds; serving while the
 * gateway hangs.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  GatewayOutcomeUnknownError,
  SqlitePaymentStore,
  type AttemptRecord,
} from '../../../src/server/index.js';
import {velocityAddress} from '../../../src/server/defences/velocity.js';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../../../src/protocol/checkout.js';
import {
  CARDS,
  StubGateway,
  catalogue,
  complete3ds,
  eventually,
  inProcessApp,
  pay,
  payBody,
  payHttp,
  postWebhook,
  record,
  sandboxCharges,
  sandboxPayments,
  serveCompanion,
  signedWebhook,
  statusHttp,
  tempStores,
  type ServedCompanion,
} from './helpers.js';

const stores = tempStores('pg-reliability');
let sandbox: Sandbox;
let n = 0;
const open: {close(): Promise<void>}[] = [];

const newStore = (name: string) => stores.open(`${name}-${n++}`);

async function companion(
  name: string,
  overrides: Parameters<typeof serveCompanion>[2] = {},
  store = newStore(name),
): Promise<ServedCompanion & {store: SqlitePaymentStore}> {
  const c = await serveCompanion(sandbox, store, overrides);
  open.unshift(c);
  return {...c, store};
}

/** The sandbox's payments of an order. */
const payments = (orderRef: string) => sandboxPayments(sandbox, orderRef);

/** `POST /abandon` as the card form sends it (`{orderRef, attemptId}`), from `origin`. */
function abandonHttp(base: string, body: unknown, origin = base) {
  return fetch(`${base}/abandon`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
      Origin: origin,
    },
    body: JSON.stringify(body),
  });
}

/** Lets the request a `delay=…` fault holds go on: the test decides when, not a clock. */
let releaseHeld: () => void = () => {};

before(async () => {
  sandbox = await startSandbox({
    webhook: {retryDelaysMs: [100, 300, 600, 1000, 2000]},
    faultDelay: () => new Promise<void>((resolve) => (releaseHeld = resolve)),
  });
});

/**
 * The companion's fetch, keeping its first create request's answer for the test: the
 * companion gives that request up at its own timeout, as it would, while the request goes
 * on, so the test can await the sandbox's answer (the held create done, its order id free)
 * instead of sleeping past it.
 */
function keepingFirstCreate() {
  let answered: Promise<void> | undefined;
  const gatewayFetch = (input: string, init: RequestInit): Promise<Response> => {
    const create = new URL(input).pathname === '/api/v1/payment' && init.method === 'POST';
    if (!create || answered) return fetch(input, init);
    const {signal, ...rest} = init;
    const real = fetch(input, rest);
    answered = real.then(
      () => undefined,
      () => undefined,
    );
    return new Promise((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), {once: true});
      real.then(resolve, reject);
    });
  };
  return {gatewayFetch, answered: () => answered ?? Promise.reject(new Error('no create sent'))};
}

after(async () => {
  for (const o of open) await o.close().catch(() => undefined);
  await stores.cleanup();
  await sandbox?.close();
});

describe('a late create is charged once', () => {
  const FAULTS = [
    {fault: undefined, charged: true},
    {fault: '500', charged: false},
    {fault: '503', charged: false},
    {fault: 'drop', charged: false},
    {fault: '500-after-charge', charged: true},
    {fault: '503-after-charge', charged: true},
    {fault: 'drop-after-charge', charged: true},
    {fault: 'malformed-json', charged: true},
  ];
  for (const {fault, charged} of FAULTS) {
    test(`held past the client timeout, then ${fault ?? 'answered'}: one charge, paying again during and after`, async (t) => {
      let skew = 0;
      const held = keepingFirstCreate();
      // The first pay goes to an instance whose client gives up after 300 ms (the create is
      // held until released: it always does); the customer's next pays reach another
      // instance on the same store, whose client waits as long as a loaded machine needs.
      const c = await companion('late', {
        timeoutMs: 300,
        clock: () => Date.now() + skew,
        gatewayFetch: held.gatewayFetch,
      });
      const next = await companion('late', {clock: () => Date.now() + skew}, c.store);
      const ref = `late-${fault ?? 'ok'}`;
      sandbox.clearFaults();
      // Held until released (faultDelay above): past the client's 300 ms, however long.
      sandbox.addFault({match: {card_last4: '4242'}, fault: 'delay=1500', times: 1});
      if (fault) sandbox.addFault({match: {card_last4: '4242'}, fault, times: 1});
      try {
        const first = await payHttp(c.url, payBody(ref, `${ref}-1`));
        assert.equal(first.json['code'], 'not_confirmed', 'the client gave up: unknown');
        // The customer pays again while the gateway still holds the first create.
        const during = await payHttp(next.url, payBody(ref, `${ref}-2`));
        assert.equal(during.json['code'], 'not_confirmed', 'P-409, not found yet: still unknown');
        // The gateway finishes the held create (and its fault) now.
        releaseHeld();
        await held.answered();
        // Hours later — longer than any window — the customer pays once more.
        skew += 3 * 3600_000;
        const later = await payHttp(next.url, payBody(ref, `${ref}-3`));
        assert.equal(later.json['outcome'], 'success');
        const status = await statusHttp(next.url, ref);
        assert.equal(status.json['state'], 'success');
        const seen = sandboxCharges(sandbox, ref);
        t.diagnostic(
          `fault ${fault ?? 'none'}: charges expected 1, seen ${seen}; held create ${charged ? 'charged' : 'not charged'}`,
        );
        assert.equal(seen, 1);
        // One gateway order id for the order: it was the idempotency key throughout.
        assert.equal(new Set(payments(ref).map((p) => p.orderId)).size, 1);
      } finally {
        sandbox.clearFaults();
      }
    });
  }
});

describe('abandoned 3-D Secure', () => {
  test('abandon, pay with a second card, then the first challenge completes: one kept, the other refunded', async () => {
    const c = await companion('abandon');
    const ref = 'abandon-1';
    const first = await payHttp(c.url, payBody(ref, 'ab-1', CARDS.threeDS));
    assert.equal(first.json['outcome'], '3ds_required');
    const challenge = first.json['userActionUrl'] as string;
    // Paying again before abandoning gives the same challenge back (one live attempt)...
    const again = await payHttp(c.url, payBody(ref, 'ab-2', CARDS.success));
    assert.equal(again.json['outcome'], '3ds_required');
    // ...the customer cancels the challenge...
    const res = await abandonHttp(c.url, {orderRef: ref, attemptId: 'ab-1'});
    assert.equal(res.status, 200);
    const abandoned = (await res.json()) as Record<string, unknown>;
    assert.equal(abandoned['code'], 'abandoned');
    // ...and pays at once with another card: a new attempt, a new order id.
    const second = await payHttp(c.url, payBody(ref, 'ab-3', CARDS.success));
    assert.equal(second.json['outcome'], 'success');
    // The first challenge is completed after all (in another tab, say).
    await complete3ds(challenge, 'approve');
    const intents = await eventually(async () => {
      const list = await c.store.listIntents(ref);
      return list.some((i) => i.state === 'success') ? list : undefined;
    });
    assert.equal(intents.length, 1);
    assert.equal(intents[0]!.reason, 'duplicate_charge');
    assert.equal(intents[0]!.kind, 'refund');
    const [a1, a3] = await c.store.listAttempts(ref);
    assert.equal(intents[0]!.gatewayOrderId, a1!.gatewayOrderId, 'the later success is refunded');
    const byId = new Map(payments(ref).map((p) => [p.orderId, p]));
    assert.equal(byId.get(a1!.gatewayOrderId)!.refundedAmount, 1.5);
    assert.equal(byId.get(a3!.gatewayOrderId)!.refundedAmount, 0);
    assert.ok(
      c.lines.some((l) => /"level":50/.test(l) && /order charged twice/.test(l)),
      'logged at error level',
    );
    await eventually(() => c.updates.find((u) => u.kind === 'duplicate_charge'));
    const refundUpdate = await eventually(() =>
      c.updates.find(
        (u) => u.kind === 'refund' && u.reason === 'duplicate_charge' && u.state === 'success',
      ),
    );
    assert.equal(refundUpdate.attemptId, 'ab-1', 'the refunded payment is named');
    // Detected again (a duplicate webhook, a sweep, another process): no second refund.
    await c.app.service.checkDuplicates(ref);
    await c.app.recover();
    assert.equal(byId.get(a1!.gatewayOrderId)!.operations.length, 1);
    assert.equal(payments(ref).find((p) => p.orderId === a1!.gatewayOrderId)!.operations.length, 1);
  });

  test('a challenge finished just before the customer cancelled is found paid, not written off', async () => {
    // Webhooks refused (by address): the companion learns only by asking the gateway.
    const c = await companion('abandon-late', {webhookAllowedIps: ['192.0.2.1']});
    const ref = 'abandon-2';
    const first = await payHttp(c.url, payBody(ref, 'abl-1', CARDS.threeDS));
    // Approved at the bank; the customer presses Cancel before being handed back.
    const approved = await fetch(first.json['userActionUrl'] as string, {
      method: 'POST',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({decision: 'approve'}).toString(),
      redirect: 'manual',
    });
    assert.ok(approved.status < 400);
    assert.equal((await c.store.getAttempt('abl-1'))!.state, 'pending');
    const res = await abandonHttp(c.url, {orderRef: ref, attemptId: 'abl-1'});
    const status = (await res.json()) as Record<string, unknown>;
    assert.equal(status['state'], 'success');
    const [a] = await c.store.listAttempts(ref);
    assert.equal(a!.writtenOff, undefined);
    assert.equal(sandboxCharges(sandbox, ref), 1);
  });

  test('a 3-D Secure attempt without news past abandonAfterMs no longer blocks the order', async () => {
    let skew = 0;
    const c = await companion('stale', {
      clock: () => Date.now() + skew,
      attempts: {abandonAfterMs: 60_000, expireAfterMs: 3600_000},
    });
    const ref = 'stale-1';
    const first = await payHttp(c.url, payBody(ref, 'st-1', CARDS.threeDS));
    assert.equal(first.json['outcome'], '3ds_required');
    await sandbox.webhooksIdle(); // its pending webhook is news: wait for it before time passes
    skew += 61_000;
    const second = await payHttp(c.url, payBody(ref, 'st-2', CARDS.success));
    assert.equal(second.json['outcome'], 'success');
    const attempts = await c.store.listAttempts(ref);
    assert.equal(attempts[0]!.writtenOff, 'expired');
    assert.notEqual(attempts[0]!.gatewayOrderId, attempts[1]!.gatewayOrderId);
  });

  test('abandon is refused for an attempt of another order and from another origin', async () => {
    const c = await companion('abandon-bad');
    await payHttp(c.url, payBody('ab-x', 'abx-1', CARDS.threeDS));
    const post = (body: unknown, origin = c.url) => abandonHttp(c.url, body, origin);
    assert.equal((await post({orderRef: 'ab-y', attemptId: 'abx-1'})).status, 404);
    assert.equal(
      (await post({orderRef: 'ab-x', attemptId: 'abx-1'}, 'https://evil.example')).status,
      403,
    );
    const bad = await post({orderRef: 'ab-x'});
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /attemptId/);
    assert.equal((await c.store.listAttempts('ab-x'))[0]!.writtenOff, undefined);
  });
});

describe('secondary operations exactly once', () => {
  let c: ServedCompanion & {store: SqlitePaymentStore};
  let auth: ServedCompanion & {store: SqlitePaymentStore};
  before(async () => {
    c = await companion('ops');
    const cat = catalogue({method: 'auth'});
    auth = await companion('ops-auth', {resolveOrder: cat.resolveOrder});
  });
  const paid = async (app: ServedCompanion, ref: string) => {
    const r = await payHttp(app.url, payBody(ref, `${ref}-a`));
    assert.equal(r.json['outcome'], 'success');
    return payments(ref)[0]!;
  };
  const sandboxPayment = (ref: string) => payments(ref)[0]!;

  test('a double click and a retried request refund once', async () => {
    await paid(c, 'ref-1');
    const [a, b] = await Promise.all([
      c.app.refund({orderRef: 'ref-1', key: 'click-1', amount: '0.10'}),
      c.app.refund({orderRef: 'ref-1', key: 'click-1', amount: '0.10'}),
    ]);
    assert.equal(a.state, 'success');
    assert.equal(a.operationId, b.operationId);
    assert.deepEqual([a.repeated, b.repeated].sort(), [false, true]);
    const retried = await c.app.refund({orderRef: 'ref-1', key: 'click-1', amount: '0.1'});
    assert.equal(retried.repeated, true);
    assert.equal(sandboxPayment('ref-1').refundedAmount, 0.1);
    assert.equal(sandboxPayment('ref-1').operations.length, 1);
    // The same key for another request is an error naming the key.
    await assert.rejects(c.app.refund({orderRef: 'ref-1', key: 'click-1', amount: '0.20'}), {
      name: 'CheckoutInvalidRequestError',
      field: 'key',
    });
  });

  test('concurrent refunds with different keys never exceed what was paid', async () => {
    await paid(c, 'ref-2');
    const results = await Promise.allSettled(
      Array.from({length: 6}, (_, i) =>
        c.app.refund({orderRef: 'ref-2', key: `k-${i}`, amount: '0.50'}),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    assert.equal(ok.length, 3);
    assert.equal(refused.length, 3);
    for (const r of refused) {
      assert.equal((r as PromiseRejectedResult).reason.code, 'operation_refused');
      assert.match((r as PromiseRejectedResult).reason.reason, /over_refund|nothing_to_refund/);
    }
    assert.equal(sandboxPayment('ref-2').refundedAmount, 1.5);
    await assert.rejects(c.app.refund({orderRef: 'ref-2', key: 'k-more'}), {
      reason: 'nothing_to_refund',
    });
  });

  test('a refund whose answer is lost is found through the order lookup, never sent again', async () => {
    const p = await paid(c, 'ref-3');
    sandbox.addFault({match: {order_id: p.orderId}, fault: '500-after-charge', times: 1});
    const r = await c.app.refund({orderRef: 'ref-3', key: 'lost-1', amount: '0.30'});
    assert.equal(r.state, 'success', 'found by the lookup');
    assert.ok(r.operationId);
    assert.equal(sandboxPayment('ref-3').refundedAmount, 0.3);
    // The gateway did nothing (a plain 500): unknown, looked up, never re-sent.
    sandbox.addFault({match: {order_id: p.orderId}, fault: '500', times: 1});
    const u = await c.app.refund({orderRef: 'ref-3', key: 'lost-2', amount: '0.30'});
    assert.equal(u.state, 'unknown');
    await c.app.sweep({force: true});
    const again = await c.app.refund({orderRef: 'ref-3', key: 'lost-2', amount: '0.30'});
    assert.equal(again.state, 'unknown');
    assert.equal(again.repeated, true);
    assert.equal(sandboxPayment('ref-3').refundedAmount, 0.3);
    // Its amount stays reserved: at most 1.50 - 0.30 - 0.30 is left.
    await assert.rejects(c.app.refund({orderRef: 'ref-3', key: 'lost-3', amount: '1.00'}), {
      reason: 'over_refund',
    });
    sandbox.clearFaults();
  });

  test('capture and void of a hold: one each, and never both', async () => {
    await paid(auth, 'hold-1');
    const [a, b] = await Promise.all([
      auth.app.capture({orderRef: 'hold-1', key: 'cap-1', amount: '1.00'}),
      auth.app.capture({orderRef: 'hold-1', key: 'cap-1', amount: '1.00'}),
    ]);
    assert.equal(a.operationId, b.operationId);
    assert.equal(sandboxPayment('hold-1').capturedAmount, 1);
    await assert.rejects(auth.app.void({orderRef: 'hold-1', key: 'void-1'}), {
      reason: 'not_voidable',
    });
    await assert.rejects(auth.app.capture({orderRef: 'hold-1', key: 'cap-2'}), {
      reason: 'not_capturable',
    });
    // Refunds of a captured hold are bounded by the capture, not the hold.
    await assert.rejects(auth.app.refund({orderRef: 'hold-1', key: 'r-1', amount: '1.50'}), {
      reason: 'over_refund',
    });

    await paid(auth, 'hold-2');
    const voids = await Promise.allSettled([
      auth.app.void({orderRef: 'hold-2', key: 'v-a'}),
      auth.app.void({orderRef: 'hold-2', key: 'v-b'}),
      auth.app.void({orderRef: 'hold-2', key: 'v-a'}),
    ]);
    assert.equal(voids.filter((v) => v.status === 'fulfilled').length, 2);
    assert.equal(sandboxPayment('hold-2').operations.filter((o) => o.method === 'void').length, 1);
  });

  test('bad input names the field', async () => {
    await assert.rejects(c.app.refund({orderRef: 'ref-1', key: 'bad key!'}), {field: 'key'});
    await assert.rejects(c.app.refund({orderRef: 'ref-1', key: 'k', amount: '0.001'}), {
      field: 'amount',
    });
    await assert.rejects(c.app.refund({orderRef: 'ref-1', key: 'k', amount: 0.1 + 0.2}), {
      field: 'amount',
    });
    await assert.rejects(c.app.refund({orderRef: 'no-such-order', key: 'k'}), {
      name: 'CheckoutNotFoundError',
    });
  });
});

describe('card-testing limits', () => {
  const limits = {
    maxAttemptsPerIp: 10,
    maxAttemptsPerOrder: 5,
    maxAttemptsPerCard: 1000,
    windowMs: 60_000,
  };

  test('60 concurrent attempts with working cards from one address reach the gateway 10 times, also after a restart', async () => {
    const store = newStore('carding');
    const c = await companion('carding', {rateLimit: limits}, store);
    const before = sandbox.chargeCount();
    const answers = await Promise.all(
      Array.from({length: 60}, (_, i) => payHttp(c.url, payBody(`card-${i}`, `card-${i}-a`))),
    );
    const passed = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429).length;
    const reached = sandbox.chargeCount() - before;
    assert.equal(passed, 10);
    assert.equal(limited, 50);
    assert.equal(reached, 10);
    // A restart on the same database remembers.
    await c.close();
    const again = await companion('carding', {rateLimit: limits}, store);
    const after = await payHttp(again.url, payBody('card-after', 'card-after-a'));
    assert.equal(after.status, 429);
    assert.equal(sandbox.chargeCount() - before, 10);
  });

  test('29 concurrent attempts on one order reach the gateway at most 5 times', async () => {
    const c = await companion('carding-order', {rateLimit: {...limits, maxAttemptsPerIp: 1000}});
    const before = sandbox.payments().length;
    const answers = await Promise.all(
      Array.from({length: 29}, (_, i) =>
        payHttp(c.url, payBody('one-order', `oo-${i}`, CARDS.decline)),
      ),
    );
    assert.equal(sandbox.payments().length - before, 5);
    assert.equal(answers.filter((a) => a.status === 429).length, 24);
  });

  test('IPv6 clients count per /64', async () => {
    assert.equal(velocityAddress('2001:db8:1:2::5'), velocityAddress('2001:db8:1:2:ffff:0:0:1'));
    assert.equal(velocityAddress('2001:0db8:0001:0002::1'), '2001:db8:1:2::/64');
    assert.notEqual(velocityAddress('2001:db8:1:3::1'), velocityAddress('2001:db8:1:2::1'));
    assert.equal(velocityAddress('203.0.113.7'), '203.0.113.7');
    let i = 0;
    const gw = new StubGateway();
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
      clientIp: () => `2001:db8:7:7::${(++i).toString(16)}`,
      rateLimit: {maxAttemptsPerIp: 3, maxAttemptsPerOrder: 10, windowMs: 60_000},
    });
    const codes = [];
    for (let k = 0; k < 5; k++)
      codes.push((await pay(app, payBody(`v6-${k}`, `v6-${k}-a`))).status);
    assert.deepEqual(codes, [200, 200, 200, 429, 429]);
  });
});

describe('webhook cross-check', () => {
  for (const [what, change] of [
    ['amount', {amount: 0.01}],
    ['currency', {currency: 'UAH'}],
    ['pos_id', {pos_id: '00000000-0000-4000-8000-000000000000'}],
  ] as const) {
    test(`a signed success webhook with another ${what} changes nothing; it is kept and flagged`, async () => {
      const gw = new StubGateway();
      gw.onCreate = async (req) => record(req, 'pending');
      const store = new SqlitePaymentStore(':memory:');
      const {app, lines} = inProcessApp(store, gw);
      const r = await pay(app, payBody(`xc-${what}`, `xc-${what}-1`));
      assert.equal(((await r.json()) as {outcome: string}).outcome, '3ds_required');
      const [a] = await store.listAttempts(`xc-${what}`);
      const body = signedWebhook({...record({order_id: a!.gatewayOrderId}, 'success'), ...change});
      const res = await postWebhook(app, body);
      assert.equal(res.status, 200);
      assert.equal((await store.getAttempt(`xc-${what}-1`))!.state, 'pending');
      const events = await store.listEvents();
      assert.equal(events.at(-1)!.flag, what);
      assert.ok(lines.some((l) => /"level":50/.test(l) && /does not match/.test(l)));
      // The right webhook still applies.
      await postWebhook(app, signedWebhook(record({order_id: a!.gatewayOrderId}, 'success')));
      assert.equal((await store.getAttempt(`xc-${what}-1`))!.state, 'success');
    });
  }
});

describe('the sweep', () => {
  test('bounded concurrency, no overlap, backoff per attempt, and no lookups once expired', async () => {
    let now = 10_000_000;
    let running = 0;
    let most = 0;
    const gw = new StubGateway();
    gw.onCreate = async (req) => {
      throw new GatewayOutcomeUnknownError('timeout', {orderId: req.order_id});
    };
    const lookup = gw.getOperation.bind(gw);
    gw.getOperation = async (orderId: string) => {
      running++;
      most = Math.max(most, running);
      // Answers on a later turn of the event loop, so the sweep's lookups overlap.
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return lookup(orderId);
    };
    const store = new SqlitePaymentStore(':memory:');
    const {app} = inProcessApp(store, gw, {
      clock: () => now,
      sweep: {concurrency: 3, initialBackoffMs: 10_000, maxBackoffMs: 60_000, intervalMs: 0},
      attempts: {abandonAfterMs: 600_000, expireAfterMs: 3600_000},
    });
    for (let i = 0; i < 12; i++) await pay(app, payBody(`sw-${i}`, `sw-${i}-a`));
    gw.lookups.length = 0;
    now += 10_001;
    const [first, second] = await Promise.all([app.sweep(), app.sweep()]);
    assert.equal(first, second, 'a second sweep while one runs joins it');
    assert.equal(first.checked, 12);
    assert.equal(gw.lookups.length, 12);
    assert.ok(most <= 3, `at most 3 lookups at once, saw ${most}`);
    // Right after: every attempt is backing off.
    assert.equal((await app.sweep()).checked, 0);
    // The backoff doubles with each lookup.
    now += 10_001;
    assert.equal((await app.sweep()).checked, 0);
    now += 10_000;
    assert.equal((await app.sweep()).checked, 12);
    // Past the expiry: no more lookups; the attempts stay unknown (their order id is kept).
    now += 3600_000;
    gw.lookups.length = 0;
    const late = await app.sweep();
    assert.equal(late.checked, 0);
    assert.equal(late.expired, 12);
    assert.equal(gw.lookups.length, 0);
    const attempts: AttemptRecord[] = await store.listAttemptsInStates(['unknown']);
    assert.equal(attempts.length, 12);
  });

  test('start() serves at once while recovery waits on a gateway that never answers', async () => {
    const store = new SqlitePaymentStore(':memory:');
    const gw = new StubGateway();
    gw.onCreate = async (req) => {
      throw new GatewayOutcomeUnknownError('timeout', {orderId: req.order_id});
    };
    const first = inProcessApp(store, gw);
    await pay(first.app, payBody('hang-1', 'hang-1-a'));
    await first.app.close();
    let release!: () => void;
    const hanging = new Promise<void>((r) => (release = r));
    gw.getOperation = async () => {
      await hanging;
      throw new GatewayOutcomeUnknownError('timeout', {orderId: 'x'});
    };
    const {app} = inProcessApp(store, gw, {sweep: {intervalMs: 0}});
    app.start();
    assert.deepEqual(await app.health(), {state: 'recovering', store: true});
    // Other orders can pay meanwhile, under every rule.
    gw.onCreate = async (req) => record(req, 'success');
    const ok = await pay(app, payBody('hang-2', 'hang-2-a'));
    // Answered while the recovery's lookup still hangs (released only below): not after it.
    assert.equal(((await ok.json()) as {outcome: string}).outcome, 'success');
    release();
    await eventually(async () => (await app.health()).state === 'ready');
    await app.close();
  });
});
