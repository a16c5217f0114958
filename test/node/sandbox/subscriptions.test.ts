/**
 * Subscriptions on the sandbox's manual clock: schedules in every interval unit (with
 * calendar-month arithmetic clamped to month ends), a year of monthly charges in one
 * test, failed charges retried per `retry_attempts` / `retry_interval_hours`, `expiry_date`
 * and cancel stopping the charges, charge webhooks to `notification_url` with
 * `recurring {id, status}`, and the subscription lookups.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  PaymentRecord,
  SubscriptionChargeWebhook,
  SubscriptionRecord,
} from '../../../src/server/gateway/index.js';
import type {InitRecurringInput} from '../../../src/server/gateway/index.js';
import {occurrence} from '../../../sandbox/schedule.js';
import {
  directRequest,
  hostedRequest,
  offsetIso,
  postForm,
  startReceiver,
  startTestSandbox,
} from './helpers.js';
import type {Receiver, TestSandbox} from './helpers.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

async function withClock(start: string, fn: (t: TestSandbox, hooks: Receiver) => Promise<void>) {
  const t = await startTestSandbox({clock: {manual: true, start: new Date(start)}});
  const hooks = await startReceiver(t.sandbox.credentials.apiSecret);
  try {
    await fn(t, hooks);
  } finally {
    await t.close();
    await hooks.close();
  }
}

async function subscribe(
  t: TestSandbox,
  init: InitRecurringInput,
  extra: Parameters<typeof directRequest>[0] = {},
) {
  const req = directRequest({init_recurring: init, ...extra});
  const res = await t.client.createPayment(req);
  const record = PaymentRecord.parse((res as {record: unknown}).record);
  return {req, record, id: record.recurring?.id ?? ''};
}

/** Creation times (sandbox clock) of a subscription's scheduled charges. */
const chargeTimes = (t: TestSandbox, id: string) =>
  t.sandbox
    .payments()
    .filter((p) => p.recurringId === id && p.subscriptionCharge)
    .map((p) => p.createdAt);

describe('schedule arithmetic', () => {
  const at = (y: number, m: number, d: number) => ({
    year: y,
    month: m,
    day: d,
    hour: 10,
    minute: 0,
    second: 0,
  });
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  test('monthly from Jan 31 clamps to Feb 28/29 and returns to the 31st', () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((k) => iso(occurrence(at(2027, 1, 31), 'month', 1, k))),
      ['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30'],
    );
    assert.equal(iso(occurrence(at(2028, 1, 31), 'month', 1, 1)), '2028-02-29');
  });

  test('quarter is three calendar months, year twelve (Feb 29 → Feb 28)', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((k) => iso(occurrence(at(2027, 11, 30), 'quarter', 1, k))),
      ['2028-02-29', '2028-05-30', '2028-08-30', '2028-11-30'],
    );
    assert.deepEqual(
      [1, 4].map((k) => iso(occurrence(at(2028, 2, 29), 'year', 1, k))),
      ['2029-02-28', '2032-02-29'],
    );
  });

  test('days and weeks count whole days, across month and year ends', () => {
    assert.equal(iso(occurrence(at(2027, 12, 30), 'day', 3, 1)), '2028-01-02');
    assert.equal(iso(occurrence(at(2027, 12, 30), 'week', 2, 1)), '2028-01-13');
  });
});

describe('scheduled charges', () => {
  test('a year of monthly charges from Jan 31: one per month, clamped, webhooks to notification_url', async () => {
    await withClock('2027-01-10T09:00:00Z', async (t, hooks) => {
      const notify = await startReceiver(t.sandbox.credentials.apiSecret);
      try {
        const {id, record} = await subscribe(
          t,
          {
            interval_unit: 'month',
            interval_count: 1,
            start_date: '2027-01-31',
            time: '10:30:00',
            amount: 4.99,
            notification_url: notify.url,
          },
          {server_url: hooks.url},
        );
        assert.equal(record.recurring?.status, 'init');
        const before = t.sandbox.chargeCount();
        await t.sandbox.clock.advance(366 * DAY);
        const times = chargeTimes(t, id);
        assert.deepEqual(times, [
          '2027-01-31T10:30:00.000',
          '2027-02-28T10:30:00.000',
          '2027-03-31T10:30:00.000',
          '2027-04-30T10:30:00.000',
          '2027-05-31T10:30:00.000',
          '2027-06-30T10:30:00.000',
          '2027-07-31T10:30:00.000',
          '2027-08-31T10:30:00.000',
          '2027-09-30T10:30:00.000',
          '2027-10-31T10:30:00.000',
          '2027-11-30T10:30:00.000',
          '2027-12-31T10:30:00.000',
        ]);
        assert.equal(t.sandbox.chargeCount() - before, 12);
        const charges = notify.received.map((w) => SubscriptionChargeWebhook.parse(w.payload));
        assert.equal(charges.length, 12);
        for (const c of charges) {
          assert.equal(c.recurring.id, id);
          assert.equal(c.recurring.status, 'active');
          assert.equal(c.amount, 4.99);
          assert.equal(c.status, 'success');
          assert.equal(c.method, 'purchase');
        }
        assert.equal(new Set(charges.map((c) => c.payment_id)).size, 12);
        assert.equal(hooks.received.length, 1, 'only the initial payment goes to server_url');
        const list = await t.client.getSubscriptionTransactions(id);
        assert.equal(list.length, 13);
      } finally {
        await notify.close();
      }
    });
  });

  test('without start_date the first charge is one interval after creation, at the creation time of day', async () => {
    await withClock('2027-05-15T08:20:00Z', async (t) => {
      const {id} = await subscribe(t, {interval_unit: 'week', interval_count: 1});
      await t.sandbox.clock.advance(15 * DAY);
      assert.deepEqual(chargeTimes(t, id), ['2027-05-22T08:20:00.000', '2027-05-29T08:20:00.000']);
    });
  });

  test('every third day, every quarter and every year follow their units', async () => {
    await withClock('2027-11-30T00:00:00Z', async (t) => {
      const daily = await subscribe(t, {interval_unit: 'day', interval_count: 3, time: '06:00:00'});
      const quarterly = await subscribe(t, {
        interval_unit: 'quarter',
        interval_count: 1,
        time: '06:00:00',
      });
      const yearly = await subscribe(t, {
        interval_unit: 'year',
        interval_count: 1,
        start_date: '2028-02-29',
        time: '06:00:00',
      });
      await t.sandbox.clock.advance(10 * DAY);
      assert.deepEqual(
        chargeTimes(t, daily.id).map((s) => s.slice(0, 10)),
        ['2027-12-03', '2027-12-06', '2027-12-09'],
      );
      await t.client.cancelSubscription(daily.id);
      await t.sandbox.clock.advance(3 * 366 * DAY);
      assert.deepEqual(
        chargeTimes(t, quarterly.id)
          .slice(0, 5)
          .map((s) => s.slice(0, 10)),
        ['2028-02-29', '2028-05-30', '2028-08-30', '2028-11-30', '2029-02-28'],
      );
      assert.deepEqual(
        chargeTimes(t, yearly.id).map((s) => s.slice(0, 10)),
        ['2028-02-29', '2029-02-28', '2030-02-28'],
      );
    });
  });

  test('a failed charge is retried retry_attempts times, retry_interval_hours apart', async () => {
    await withClock('2027-06-01T12:00:00Z', async (t, hooks) => {
      const {id, record} = await subscribe(
        t,
        {interval_unit: 'day', interval_count: 1, retry_attempts: 2, retry_interval_hours: 5},
        {server_url: hooks.url},
      );
      t.sandbox.addFault({match: {recurring_id: id}, fault: 'decline', times: 3});
      await t.sandbox.clock.advance(DAY + 11 * HOUR);
      const charges = t.sandbox
        .payments()
        .filter((p) => p.recurringId === id && p.subscriptionCharge);
      assert.deepEqual(
        charges.map((p) => [p.createdAt, p.status, p.statusCode]),
        [
          ['2027-06-02T12:00:00.000', 'failure', '5152'],
          ['2027-06-02T17:00:00.000', 'failure', '5152'],
          ['2027-06-02T22:00:00.000', 'failure', '5152'],
        ],
      );
      await t.sandbox.clock.advance(DAY);
      const next = t.sandbox.payments().filter((p) => p.recurringId === id && p.subscriptionCharge);
      assert.equal(next.length, 4);
      assert.deepEqual(
        [next[3]!.createdAt, next[3]!.status],
        ['2027-06-03T12:00:00.000', 'success'],
      );
      const failed = await t.client.getSubscriptionTransactions(id, {status: 'failure'});
      assert.equal(failed.length, 3);
      const statuses = hooks.received
        .filter(
          (w) =>
            w.payload.kind === 'subscription_charge' && w.payload.payment_id !== record.payment_id,
        )
        .map((w) => w.payload.status);
      assert.deepEqual(statuses, ['failure', 'failure', 'failure', 'success']);
    });
  });

  test('a retry that succeeds ends the retries', async () => {
    await withClock('2027-06-01T12:00:00Z', async (t) => {
      const {id} = await subscribe(t, {
        interval_unit: 'week',
        interval_count: 1,
        retry_attempts: 3,
      });
      t.sandbox.addFault({match: {recurring_id: id}, fault: 'decline=5105', times: 1});
      await t.sandbox.clock.advance(7 * DAY + 3 * DAY);
      const charges = t.sandbox
        .payments()
        .filter((p) => p.recurringId === id && p.subscriptionCharge);
      assert.deepEqual(
        charges.map((p) => [p.createdAt, p.statusCode]),
        [
          ['2027-06-08T12:00:00.000', '5105'],
          ['2027-06-09T12:00:00.000', '1000'],
        ],
      );
    });
  });

  test('expiry_date is the last charge date; nothing is charged after it', async () => {
    await withClock('2027-02-01T07:00:00Z', async (t) => {
      const {id} = await subscribe(t, {
        interval_unit: 'day',
        interval_count: 1,
        start_date: '2027-02-03',
        expiry_date: '2027-02-05',
      });
      await t.sandbox.clock.advance(30 * DAY);
      assert.deepEqual(
        chargeTimes(t, id).map((s) => s.slice(0, 10)),
        ['2027-02-03', '2027-02-04', '2027-02-05'],
      );
      const subs = (await (await fetch(`${t.sandbox.url}/sandbox/subscriptions`)).json()) as {
        next_charge_at: unknown;
      }[];
      assert.equal(subs[0]!.next_charge_at, null);
    });
  });

  test('cancel stops every further charge, retries included', async () => {
    await withClock('2027-02-01T07:00:00Z', async (t) => {
      const {id} = await subscribe(t, {interval_unit: 'day', interval_count: 1});
      t.sandbox.addFault({match: {recurring_id: id}, fault: 'decline', times: 1});
      await t.sandbox.clock.advance(DAY);
      assert.equal(chargeTimes(t, id).length, 1);
      const cancelled = SubscriptionRecord.parse(await t.client.cancelSubscription(id));
      assert.equal(cancelled.recurring_status, 'canceled');
      const chargesBefore = t.sandbox.chargeCount();
      await t.sandbox.clock.advance(60 * DAY);
      assert.equal(chargeTimes(t, id).length, 1);
      assert.equal(t.sandbox.chargeCount(), chargesBefore);
      const again = await t.client.cancelSubscription(id);
      assert.equal(again.recurring_status, 'canceled');
      const initial = PaymentRecord.parse(
        await t.client.getOperation(cancelled.recurring_payment.order_id!, 'purchase'),
      );
      assert.equal(initial.recurring?.status, 'canceled');
    });
  });
});

describe('subscription life cycle', () => {
  test('a first payment pending 3DS keeps the subscription init until approved, then it charges', async () => {
    await withClock('2027-04-01T10:00:00Z', async (t) => {
      const {id, record} = await subscribe(
        t,
        {interval_unit: 'day', interval_count: 1},
        {cc_number: '4000000000003220'},
      );
      assert.equal(record.status, 'pending');
      assert.equal(record.recurring?.status, 'init');
      await t.sandbox.clock.advance(2 * DAY);
      assert.equal(chargeTimes(t, id).length, 0);
      await postForm(record.user_action_url!, {decision: 'approve'});
      const after = PaymentRecord.parse(await t.client.getOperation(record.order_id!, 'purchase'));
      assert.equal(after.recurring?.status, 'active');
      await t.sandbox.clock.advance(DAY);
      assert.equal(chargeTimes(t, id).length, 1);
    });
  });

  test('a declined first payment leaves the subscription init with no charges', async () => {
    await withClock('2027-04-01T10:00:00Z', async (t) => {
      const {id, record} = await subscribe(
        t,
        {interval_unit: 'day', interval_count: 1},
        {cc_number: '4000000000000002'},
      );
      assert.equal(record.recurring?.status, 'init');
      await t.sandbox.clock.advance(5 * DAY);
      assert.equal(chargeTimes(t, id).length, 0);
    });
  });

  test('a hosted subscription starts when the customer pays on the checkout page', async () => {
    await withClock('2027-04-01T10:00:00Z', async (t) => {
      const req = hostedRequest({init_recurring: {interval_unit: 'week', interval_count: 1}});
      const res = await t.client.createPayment(req);
      await postForm((res as {checkoutUrl: string}).checkoutUrl, {
        cc_number: '5454545454545454',
        exp_month: '12',
        exp_year: '2031',
        card_cvv: '123',
      });
      const initial = PaymentRecord.parse(await t.client.getOperation(req.order_id, 'purchase'));
      assert.equal(initial.recurring?.status, 'active');
      await t.sandbox.clock.advance(7 * DAY);
      assert.equal(chargeTimes(t, initial.recurring!.id).length, 1);
    });
  });

  test('subscription resend picks a charge by transactionId, else the latest one', async () => {
    await withClock('2027-04-01T10:00:00Z', async (t, hooks) => {
      const {id, req} = await subscribe(
        t,
        {interval_unit: 'day', interval_count: 1},
        {server_url: hooks.url},
      );
      await t.sandbox.clock.advance(2 * DAY);
      const charges = (await t.client.getSubscriptionTransactions(id, {method: 'purchase'})).map(
        (r) => PaymentRecord.parse(r),
      );
      assert.equal(charges.length, 3);
      const first = await t.client.resendWebhook(req.order_id, 'purchase', {
        transactionId: charges[1]!.transaction_id!,
      });
      assert.equal(first?.payment_id, charges[1]!.payment_id);
      const latest = await t.client.resendWebhook(req.order_id, 'purchase');
      assert.equal(latest?.payment_id, charges[2]!.payment_id);
      await t.sandbox.webhooksIdle();
      const resent = t.sandbox.webhookLog().filter((e) => e.resend);
      assert.deepEqual(
        resent.map((e) => e.summary.payment_id),
        [charges[1]!.payment_id, charges[2]!.payment_id],
      );
      assert.ok(resent.every((e) => e.summary.recurring_id === id));
    });
  });

  test('the subscription token (rcr:) pays, and refunds show under method=refund', async () => {
    await withClock('2027-04-01T10:00:00Z', async (t) => {
      const {id, req} = await subscribe(t, {interval_unit: 'month', interval_count: 1});
      const record = await t.client.cancelSubscription(id);
      const token = record.recurring_payment.cc_token!;
      assert.match(token, /^rcr:[0-9a-f]{32}$/);
      const paid = await t.client.createPayment(
        directRequest({
          cc_number: undefined,
          exp_month: undefined,
          exp_year: undefined,
          card_cvv: undefined,
          cc_token: token,
        }),
      );
      assert.equal((paid as {record: {status: string}}).record.status, 'success');
      await t.client.refund({order_id: req.order_id, order_currency: 'UAH', refund_amount: 1});
      const refunds = await t.client.getSubscriptionTransactions(id, {method: 'refund'});
      assert.deepEqual(
        refunds.map((r) => r.method),
        ['refund'],
      );
    });
  });

  test('registers name scheduled charges recurrent and the first payment purchase', async () => {
    await withClock('2027-04-01T10:00:00Z', async (t) => {
      await subscribe(t, {interval_unit: 'day', interval_count: 1});
      await t.sandbox.clock.advance(2 * DAY);
      const start = Date.parse('2027-03-31T00:00:00Z');
      const report = await t.client.startRegister({
        start_date: offsetIso(start),
        end_date: offsetIso(start + 10 * DAY),
        methods: ['recurrent'],
        transaction_details: ['method', 'dateTime'],
      });
      assert.equal(report.count, 2);
      const all = await t.client.startRegister({
        start_date: offsetIso(start),
        end_date: offsetIso(start + 10 * DAY),
        transaction_details: ['method'],
      });
      const records = await t.client.waitForRegister(all.report_id, {initialDelayMs: 20});
      assert.deepEqual(
        records.map((r) => r['method']),
        ['purchase', 'recurrent', 'recurrent'],
      );
    });
  });

  test('POST /sandbox/clock/advance moves the clock by days and runs the charges', async () => {
    await withClock('2027-04-01T10:00:00Z', async (t) => {
      const {id} = await subscribe(t, {interval_unit: 'day', interval_count: 1});
      const res = await fetch(`${t.sandbox.url}/sandbox/clock/advance`, {
        method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({days: 2, hours: 1}),
      });
      const clock = (await res.json()) as {now: string; manual: boolean};
      assert.equal(clock.now, '2027-04-03T11:00:00.000Z');
      assert.equal(clock.manual, true);
      assert.equal(chargeTimes(t, id).length, 2);
      const bad = await fetch(`${t.sandbox.url}/sandbox/clock/advance`, {
        method: 'POST',
        body: '{"weeks": 1}',
      });
      assert.equal(bad.status, 400);
    });
  });
});
