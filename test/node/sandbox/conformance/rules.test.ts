/**
 * Conformance, rules: the spec's state tables (transactions and subscriptions), the
 * status codes seen with statuses, which timestamp field each record carries, the
 * `init_recurring` defaults, the validation rules of "Errors", the webhook delivery and
 * signature rules and the facts file's `order_id` rule — each a named row, in both
 * profiles.
 */
import assert from 'node:assert/strict';
import {
  PaymentRecord,
  SubscriptionRecord,
  verifyWebhook,
} from '../../../../src/server/gateway/index.js';
import {offsetIso, postForm, raw, startReceiver} from '../helpers.js';
import {
  CLOCK_START,
  cancelOrder,
  cancelledHosted,
  DAY,
  TIMESTAMP,
  create,
  directBody,
  hostedBody,
  orders,
  paidOrder,
  row,
  table,
} from './harness.js';
import type {Ctx, Row} from './harness.js';

const THREE_DS_CARD = '4000000000003220';

async function subscribe(ctx: Ctx, initRecurring: Record<string, unknown>) {
  const {orderId, record} = await paidOrder(ctx, {init_recurring: initRecurring});
  return {orderId, record: PaymentRecord.parse(record), raw: record};
}

/** Scheduled charges of one subscription so far. */
const chargesOf = (ctx: Ctx, id: string) =>
  ctx.sandbox.payments().filter((p) => p.recurringId === id && p.subscriptionCharge);

const cancelSubscription = async (ctx: Ctx, id: string) =>
  SubscriptionRecord.parse(
    (await raw(ctx.sandbox, 'PUT', `/api/v1/recurring/${id}/cancel`)).json(),
  );

const rows: Row[] = [
  // --- States and transitions: transactions ------------------------------------------
  row('state table: direct needing 3DS is pending 2122 with user_action_url', async (ctx) => {
    const res = await create(ctx, directBody(ctx, {cc_number: THREE_DS_CARD}));
    const rec = PaymentRecord.parse(res.json());
    assert.equal(rec.status, 'pending');
    assert.equal(rec.status_code, '2122');
    assert.equal(rec.user_action_required, true);
    assert.ok(rec.user_action_url);
  }),
  row('state table: hosted accepted is init, answered by a redirect', async (ctx) => {
    const body = hostedBody(ctx);
    const res = await create(ctx, body);
    assert.equal(res.status, 303);
    const rec = PaymentRecord.parse(
      (await orders(ctx, `${body['order_id'] as string}/purchase`)).json(),
    );
    assert.equal(rec.status, 'init');
  }),
  row(
    'state table: cancel of an init hosted purchase gives failure 6007, no user action',
    async (ctx) => {
      const res = await cancelledHosted(ctx);
      const [rec] = res.json() as Record<string, unknown>[];
      assert.equal(rec!['status'], 'failure');
      assert.equal(rec!['status_code'], '6007');
      assert.equal(rec!['user_action_required'], false);
      assert.match(String(rec!['status_description']), /cancel/i);
    },
  ),
  row('state table: cancel of an init hosted auth gives failure 6007', async (ctx) => {
    const res = await cancelledHosted(ctx, {method: 'auth'});
    assert.equal((res.json() as Record<string, unknown>[])[0]!['status_code'], '6007');
  }),
  row('rule: cancel applies only to init hosted payments', async (ctx) => {
    const {orderId} = await paidOrder(ctx);
    const res = await cancelOrder(ctx, orderId);
    assert.equal(res.status, 400);
  }),
  row('status codes: 1000 with success for a purchase', async (ctx) => {
    const {record} = await paidOrder(ctx);
    assert.equal(record['status'], 'success');
    assert.equal(record['status_code'], '1000');
  }),
  row('status codes: 1004 with success for a refund', async (ctx) => {
    const {orderId} = await paidOrder(ctx);
    const res = await raw(ctx.sandbox, 'POST', '/api/v1/refund', {
      body: {pos_id: ctx.pos, order_id: orderId, order_currency: 'UAH'},
    });
    const rec = res.json() as Record<string, unknown>;
    assert.equal(rec['status'], 'success');
    assert.equal(rec['status_code'], '1004');
  }),

  // --- States and transitions: subscriptions ----------------------------------------
  row(
    'subscription state table: init after creation, even when the first payment succeeds at once',
    async (ctx) => {
      const {record} = await subscribe(ctx, {interval_unit: 'day', interval_count: 1});
      assert.equal(record.status, 'success');
      assert.equal(record.recurring?.status, 'init');
      assert.ok(record.recurring?.id);
    },
  ),
  row(
    'subscription state table: init after creation when the first payment is pending',
    async (ctx) => {
      const res = await create(
        ctx,
        directBody(ctx, {
          cc_number: THREE_DS_CARD,
          init_recurring: {interval_unit: 'day', interval_count: 1},
        }),
      );
      const rec = PaymentRecord.parse(res.json());
      assert.equal(rec.status, 'pending');
      assert.equal(rec.recurring?.status, 'init');
    },
  ),
  row('subscription state table: a hosted subscription is init after creation', async (ctx) => {
    const body = hostedBody(ctx, {init_recurring: {interval_unit: 'week', interval_count: 1}});
    await create(ctx, body);
    const rec = PaymentRecord.parse(
      (await orders(ctx, `${body['order_id'] as string}/purchase`)).json(),
    );
    assert.equal(rec.recurring?.status, 'init');
  }),
  row(
    'subscription state table: cancel makes any subscription canceled, no further debits',
    async (ctx) => {
      const {record} = await subscribe(ctx, {interval_unit: 'day', interval_count: 1});
      const id = record.recurring!.id;
      assert.equal((await cancelSubscription(ctx, id)).recurring_status, 'canceled');
      await ctx.sandbox.clock.advance(3 * DAY);
      assert.equal(chargesOf(ctx, id).length, 0);
    },
  ),

  // --- Timestamp fields per record ---------------------------------------------------
  row('records: creation and operation lookups carry processing_time', async (ctx) => {
    const {orderId, record} = await paidOrder(ctx);
    assert.match(String(record['processing_time']), TIMESTAMP);
    const looked = (await orders(ctx, `${orderId}/purchase`)).json() as Record<string, unknown>;
    assert.match(String(looked['processing_time']), TIMESTAMP);
    assert.match(String(looked['created_at']), TIMESTAMP);
  }),
  row('records: the cancel response carries processed_at', async (ctx) => {
    const res = await cancelledHosted(ctx);
    const [rec] = res.json() as Record<string, unknown>[];
    assert.match(String(rec!['processed_at']), TIMESTAMP);
    assert.equal(rec!['processing_time'], undefined);
  }),
  row('records: recurring records (subscription transactions) carry processed_at', async (ctx) => {
    const {record} = await subscribe(ctx, {interval_unit: 'day', interval_count: 1});
    await ctx.sandbox.clock.advance(DAY);
    const list = (
      await raw(ctx.sandbox, 'GET', `/api/v1/pos/${ctx.pos}/recurring/${record.recurring!.id}`)
    ).json() as Record<string, unknown>[];
    assert.equal(list.length, 2);
    for (const r of list) {
      assert.match(String(r['processed_at']), TIMESTAMP);
      assert.equal(r['processing_time'], undefined);
    }
  }),
  row(
    'records: a subscription resend answers a recurring record with processed_at',
    async (ctx) => {
      const {orderId} = await subscribe(ctx, {interval_unit: 'day', interval_count: 1});
      const rec = (await orders(ctx, `${orderId}/purchase?callback=true`)).json() as Record<
        string,
        unknown
      >;
      assert.ok(rec['recurring']);
      assert.match(String(rec['processed_at']), TIMESTAMP);
      assert.equal(rec['processing_time'], undefined);
    },
  ),
  row('records: cc_token_expiration has no milliseconds', async (ctx) => {
    const {record} = await paidOrder(ctx);
    assert.match(String(record['cc_token_expiration']), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  }),

  // --- init_recurring defaults -------------------------------------------------------
  row(
    'init_recurring: start_date when none was sent is the first scheduled charge',
    async (ctx) => {
      const now = ctx.sandbox.clock.now().getTime();
      const {record} = await subscribe(ctx, {interval_unit: 'week', interval_count: 2});
      const sub = await cancelSubscription(ctx, record.recurring!.id);
      const first = new Date(now + 14 * DAY).toISOString().slice(0, 10);
      assert.equal(sub.recurring_config.start_date, first);
    },
  ),
  row('init_recurring: the first charge happens on that start_date', async (ctx) => {
    const {record} = await subscribe(ctx, {interval_unit: 'day', interval_count: 3});
    const id = record.recurring!.id;
    await ctx.sandbox.clock.advance(3 * DAY);
    const charges = chargesOf(ctx, id);
    assert.equal(charges.length, 1);
    const charge = charges[0]!;
    const sub = await cancelSubscription(ctx, id);
    assert.equal(charge.createdAt.slice(0, 10), sub.recurring_config.start_date);
  }),
  row('init_recurring: start_date when sent is kept', async (ctx) => {
    const {record} = await subscribe(ctx, {
      interval_unit: 'month',
      interval_count: 1,
      start_date: '2027-05-01',
    });
    assert.equal(
      (await cancelSubscription(ctx, record.recurring!.id)).recurring_config.start_date,
      '2027-05-01',
    );
  }),
  row('init_recurring: time defaults to the time of subscription creation (UTC)', async (ctx) => {
    const now = ctx.sandbox.clock.now().toISOString().slice(11, 19);
    const {record} = await subscribe(ctx, {interval_unit: 'day', interval_count: 1});
    assert.equal((await cancelSubscription(ctx, record.recurring!.id)).recurring_config.time, now);
  }),
  row(
    'init_recurring: retry_attempts defaults to 3, retry_interval_hours to 2 for day',
    async (ctx) => {
      const {record} = await subscribe(ctx, {interval_unit: 'day', interval_count: 1});
      const c = (await cancelSubscription(ctx, record.recurring!.id)).recurring_config;
      assert.equal(c.retry_attempts, 3);
      assert.equal(c.retry_interval_hours, 2);
    },
  ),
  row('init_recurring: retry_interval_hours defaults to 24 for other units', async (ctx) => {
    const {record} = await subscribe(ctx, {interval_unit: 'month', interval_count: 1});
    assert.equal(
      (await cancelSubscription(ctx, record.recurring!.id)).recurring_config.retry_interval_hours,
      24,
    );
  }),
  row('init_recurring: amount defaults to the initial amount', async (ctx) => {
    const {record} = await subscribe(ctx, {interval_unit: 'month', interval_count: 1});
    assert.equal(
      (await cancelSubscription(ctx, record.recurring!.id)).recurring_payment.amount,
      12.5,
    );
  }),

  // --- Validation rules of "Errors" --------------------------------------------------
  row('errors rule: the subscription query method is only purchase or refund', async (ctx) => {
    const {record} = await subscribe(ctx, {interval_unit: 'day', interval_count: 1});
    const path = `/api/v1/pos/${ctx.pos}/recurring/${record.recurring!.id}`;
    assert.equal((await raw(ctx.sandbox, 'GET', `${path}?method=capture`)).status, 400);
    assert.equal((await raw(ctx.sandbox, 'GET', `${path}?method=refund`)).status, 200);
  }),
  row('errors rule: the register period is at most 31 days', async (ctx) => {
    const start = Date.parse(CLOCK_START);
    const res = await raw(ctx.sandbox, 'POST', '/streaming-report/start', {
      body: {
        project_id: ctx.pos,
        start_date: offsetIso(start),
        end_date: offsetIso(start + 32 * DAY),
      },
    });
    assert.equal(res.status, 400);
    assert.match(res.text, /31 days/);
  }),
  row('facts rule: a reused order_id is P-409, even after a failed attempt', async (ctx) => {
    const body = directBody(ctx, {cc_number: '4000000000000002'});
    const first = await create(ctx, body);
    assert.equal(PaymentRecord.parse(first.json()).status, 'failure');
    const again = await create(ctx, {...body, cc_number: '4242424242424242'});
    assert.equal((again.json() as {args: {code: string}}).args.code, 'P-409');
  }),

  // --- Events -------------------------------------------------------------------------
  row(
    'events: webhooks are form-encoded data and a 28-character signature that verifies',
    async (ctx) => {
      const hooks = await startReceiver(ctx.sandbox.credentials.apiSecret);
      try {
        await paidOrder(ctx, {server_url: hooks.url});
        await ctx.sandbox.webhooksIdle();
        assert.equal(hooks.received.length, 1);
        const [hook] = hooks.received;
        assert.equal(hook!.signature.length, 28);
        const payload = verifyWebhook(
          {data: hook!.data, signature: hook!.signature},
          ctx.sandbox.credentials.apiSecret,
        );
        assert.equal(payload.kind, 'primary');
        assert.match(String((payload as {processed_at?: string}).processed_at), TIMESTAMP);
      } finally {
        await hooks.close();
      }
    },
  ),
  row('events: a 3DS approval changes the status and sends a webhook', async (ctx) => {
    const hooks = await startReceiver(ctx.sandbox.credentials.apiSecret);
    try {
      const res = await create(
        ctx,
        directBody(ctx, {cc_number: THREE_DS_CARD, server_url: hooks.url}),
      );
      const rec = PaymentRecord.parse(res.json());
      await postForm(rec.user_action_url!, {decision: 'approve'});
      await ctx.sandbox.webhooksIdle();
      assert.equal(hooks.received.at(-1)?.payload.status, 'success');
    } finally {
      await hooks.close();
    }
  }),
];

table('rules', rows);
