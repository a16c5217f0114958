/**
 * Conformance, endpoints: every endpoint of the spec (1–10), the secondary operations of
 * the facts file and the HTTP errors the facts file lists, each a named row checking its
 * method, path and the shape of its answer with the gateway core's record schemas, in both
 * profiles.
 */
import assert from 'node:assert/strict';
import {
  CancelResponse,
  OperationRecord,
  OrderTransactions,
  PaymentRecord,
  PeriodTransaction,
  RegisterRecord,
  RegisterStarted,
  ReportNotReady,
  SubscriptionRecord,
} from '../../../../src/server/gateway/index.js';
import {eventually, offsetIso, raw} from '../helpers.js';
import {
  CLOCK_START,
  cancelledHosted,
  DAY,
  create,
  directBody,
  hostedBody,
  orders,
  paidOrder,
  row,
  table,
} from './harness.js';
import type {Ctx, Row} from './harness.js';

async function subscription(ctx: Ctx): Promise<{orderId: string; id: string}> {
  const {orderId, record} = await paidOrder(ctx, {
    init_recurring: {interval_unit: 'day', interval_count: 1},
  });
  return {orderId, id: PaymentRecord.parse(record).recurring!.id};
}

const rows: Row[] = [
  row('1. POST /api/v1/payment (direct) answers a payment record', async (ctx) => {
    const res = await create(ctx, directBody(ctx));
    assert.equal(res.status, 200);
    const rec = PaymentRecord.parse(res.json());
    assert.equal(rec.mode, 'direct');
    assert.equal(rec.status, 'success');
  }),
  row(
    '1. POST /api/v1/payment (hosted) answers 303 with the checkout page in location',
    async (ctx) => {
      const res = await create(ctx, hostedBody(ctx));
      assert.equal(res.status, 303);
      const location = res.headers.get('location');
      assert.ok(location);
      const page = await fetch(location);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Card number/);
    },
  ),
  row(
    '2. POST /api/v1/pos/{pos_id}/order/{order_id}/cancel answers an array with the record',
    async (ctx) => {
      const res = await cancelledHosted(ctx);
      assert.equal(res.status, 200);
      const [rec] = CancelResponse.parse(res.json());
      assert.equal(rec!.status, 'failure');
      assert.equal(rec!.status_code, '6007');
      const wire = (res.json() as Record<string, unknown>[])[0]!;
      assert.equal(wire['billing_order_id'], null, 'absent fields are null in the cancel response');
    },
  ),
  row('3. GET …/orders/{order_id}/{operation} answers that operation’s record', async (ctx) => {
    const {orderId} = await paidOrder(ctx, {method: 'auth'});
    await raw(ctx.sandbox, 'POST', '/api/v1/capture', {
      body: {pos_id: ctx.pos, order_id: orderId, order_currency: 'UAH'},
    });
    const auth = await orders(ctx, `${orderId}/auth`);
    assert.equal(PaymentRecord.parse(auth.json()).method, 'auth');
    const cap = await orders(ctx, `${orderId}/capture`);
    assert.equal(OperationRecord.parse(cap.json()).method, 'capture');
  }),
  row('3. GET …/orders/{order_id}/{operation}?callback=true resends the webhook', async (ctx) => {
    const {orderId} = await paidOrder(ctx);
    const res = await orders(ctx, `${orderId}/purchase?callback=true`);
    assert.equal(res.status, 200);
    assert.equal(PaymentRecord.parse(res.json()).order_id, orderId);
  }),
  row(
    '4. GET …/purchase?callback=true&transactionId= answers a record with recurring',
    async (ctx) => {
      const {orderId, id} = await subscription(ctx);
      const first = PaymentRecord.parse((await orders(ctx, `${orderId}/purchase`)).json());
      const res = await orders(
        ctx,
        `${orderId}/purchase?callback=true&transactionId=${first.transaction_id!}`,
      );
      assert.equal(res.status, 200);
      assert.equal(PaymentRecord.parse(res.json()).recurring?.id, id);
    },
  ),
  row(
    '5. GET …/orders/{order_id} answers the primary record first, then operations',
    async (ctx) => {
      const {orderId} = await paidOrder(ctx, {method: 'auth'});
      await raw(ctx.sandbox, 'POST', '/api/v1/capture', {
        body: {pos_id: ctx.pos, order_id: orderId, order_currency: 'UAH'},
      });
      const list = OrderTransactions.parse((await orders(ctx, orderId)).json());
      assert.deepEqual(
        list.map((r) => r.method),
        ['auth', 'capture'],
      );
      assert.ok('operation_id' in list[1]!);
    },
  ),
  row('6. GET /api/v1/pos/{pos}/recurring/{id} answers the subscription’s records', async (ctx) => {
    const {id} = await subscription(ctx);
    const res = await raw(
      ctx.sandbox,
      'GET',
      `/api/v1/pos/${ctx.pos}/recurring/${id}?method=purchase&status=success`,
    );
    assert.equal(res.status, 200);
    const list = res.json() as unknown[];
    assert.equal(list.length, 1);
    PaymentRecord.parse(list[0]);
  }),
  row(
    '7. GET /api/v1/pos/{pos}/transactions?startDate&enddate answers one entry per line',
    async (ctx) => {
      const {orderId} = await paidOrder(ctx);
      const start = Date.parse(CLOCK_START) - DAY;
      const res = await raw(
        ctx.sandbox,
        'GET',
        `/api/v1/pos/${ctx.pos}/transactions?startDate=${start}&enddate=${start + 30 * DAY}`,
      );
      assert.equal(res.status, 200);
      const entries = res.text
        .trim()
        .split('\n')
        .map((l) => PeriodTransaction.parse(JSON.parse(l)));
      assert.ok(entries.some((e) => e.orderId === orderId));
    },
  ),
  row('8/9. POST /streaming-report/start, then GET /streaming-report/fetch/{id}', async (ctx) => {
    await paidOrder(ctx);
    const start = Date.parse(CLOCK_START) - DAY;
    const started = await raw(ctx.sandbox, 'POST', '/streaming-report/start', {
      body: {
        project_id: ctx.pos,
        start_date: offsetIso(start),
        end_date: offsetIso(start + 30 * DAY),
        transaction_details: ['orderId', 'amount', 'status'],
      },
    });
    assert.equal(started.status, 200);
    const {report_id: id, count} = RegisterStarted.parse(started.json());
    const early = await raw(ctx.sandbox, 'GET', `/streaming-report/fetch/${id}`);
    assert.equal(ReportNotReady.parse(early.json()).code, 'report_not_ready');
    const ready = await eventually(async () => {
      const res = await raw(ctx.sandbox, 'GET', `/streaming-report/fetch/${id}`);
      return res.status === 200 ? res : undefined;
    });
    const lines = ready.text
      .trim()
      .split('\n')
      .map((l) => RegisterRecord.parse(JSON.parse(l)));
    assert.equal(lines.length, count);
    assert.deepEqual(Object.keys(lines[0]!).sort(), ['amount', 'orderId', 'status']);
  }),
  row(
    '10. PUT /api/v1/recurring/{id}/cancel answers the subscription record, canceled',
    async (ctx) => {
      const {id} = await subscription(ctx);
      const res = await raw(ctx.sandbox, 'PUT', `/api/v1/recurring/${id}/cancel`);
      assert.equal(res.status, 200);
      assert.equal(SubscriptionRecord.parse(res.json()).recurring_status, 'canceled');
    },
  ),
  ...(['capture', 'void', 'refund'] as const).map((method) =>
    row(`facts: POST /api/v1/${method} answers a ${method} operation record`, async (ctx) => {
      const {orderId} = await paidOrder(ctx, {method: method === 'refund' ? 'purchase' : 'auth'});
      const res = await raw(ctx.sandbox, 'POST', `/api/v1/${method}`, {
        body: {pos_id: ctx.pos, order_id: orderId, order_currency: 'UAH'},
      });
      assert.equal(res.status, 200, res.text);
      const rec = OperationRecord.parse(res.json());
      assert.equal(rec.method, method);
      assert.equal(rec.order_id, orderId);
    }),
  ),
  row('facts: GET /health answers OK without authentication', async (ctx) => {
    const res = await raw(ctx.sandbox, 'GET', '/health', {auth: false});
    assert.equal(res.text, 'OK');
  }),
  row('facts: 401 S-404 for wrong credentials', async (ctx) => {
    const res = await raw(ctx.sandbox, 'GET', `/api/v1/pos/${ctx.pos}/orders/x`, {
      headers: {'X-API-Auth': 'CPAY sandbox-api-key:wrong'},
    });
    assert.equal(res.status, 401);
    assert.deepEqual(res.json(), {
      message: 'Invalid pos_id field or credentials',
      args: {code: 'S-404'},
    });
  }),
  row('facts: 404 for an unknown order', async (ctx) => {
    assert.equal((await orders(ctx, 'no-such-order')).status, 404);
  }),
  row('facts: 405 for a wrong method on a known path', async (ctx) => {
    assert.equal((await raw(ctx.sandbox, 'GET', '/api/v1/payment')).status, 405);
  }),
  row('facts: 406 for a POST body that is not application/json', async (ctx) => {
    const res = await raw(ctx.sandbox, 'POST', '/api/v1/payment', {
      text: 'a=1',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    });
    assert.equal(res.status, 406);
  }),
  row('versioning: payment endpoints under /api/v1/, registers without a version', async (ctx) => {
    assert.equal((await raw(ctx.sandbox, 'POST', '/api/v2/payment', {body: {}})).status, 404);
    assert.equal(
      (await raw(ctx.sandbox, 'POST', '/api/v1/streaming-report/start', {body: {}})).status,
      404,
    );
  }),
];

table('endpoints', rows);
