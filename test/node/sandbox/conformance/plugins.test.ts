/**
 * Conformance, plugins: requests built exactly the way the gateway's public plugins and
 * SDKs build theirs (`gateway-facts.md`, "What the public integrations send and read"),
 * and their answers read the way those plugins read them. `live` accepts each of them and
 * notes the tolerances it relied on; `strict` refuses the ones that depart from the spec.
 */
import {mock} from 'node:test';
import assert from 'node:assert/strict';
import {OperationRecord, PaymentRecord} from '../../../../src/server/gateway/index.js';
import {raw, startReceiver} from '../helpers.js';
import {
  DAY,
  accepted,
  create,
  directBody,
  freshOrderId,
  orders,
  paidOrder,
  requestRow,
  table,
  tolerated,
} from './harness.js';
import type {Answer, Ctx, Row} from './harness.js';

/** A hosted create as the WordPress / OpenCart plugins build it: test currency, nulls, referrer, no phone. */
const pluginHosted = (ctx: Ctx) => ({
  pos_id: ctx.pos,
  mode: 'hosted',
  method: 'purchase',
  amount: 1.5,
  currency: 'XTS',
  description: 'Order #1042',
  order_id: freshOrderId('wp'),
  order_3ds_bypass: 'supported',
  server_url: 'https://shop.example/?wc-api=gateway_callback',
  result_url: 'https://shop.example/checkout/order-received/1042',
  customer_id: '17',
  customer_fname: 'Olena',
  customer_lname: 'Shevchenko',
  customer_email: 'olena@example.com',
  customer_referrer: 'https://shop.example/checkout',
  payload: null,
  products: [
    {id: '55', name: 'Mug', url: 'https://shop.example/mug', currency: 'XTS', amount: 1.5, qty: 1},
  ],
});

/** The PHP plugins' reader: a non-empty body is JSON holding `redirect_url`, else `Location`. */
function phpPluginCheckoutUrl(answer: Answer): string | undefined {
  if (answer.text.trim() === '') return answer.headers.get('location') ?? undefined;
  const body = JSON.parse(answer.text) as {redirect_url?: unknown};
  return typeof body.redirect_url === 'string' ? body.redirect_url : undefined;
}

/** The SDK that reads only `Location`. */
const locationOnly = (answer: Answer) => answer.headers.get('location') ?? undefined;

async function checkoutPageOpens(url: string | undefined): Promise<void> {
  assert.ok(url, 'the checkout address is readable');
  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Card number/);
}

/** An operation body as the plugins send it, on a fresh paid order. */
const pluginOperation =
  (path: string, method: 'auth' | 'purchase', fields: Record<string, unknown>) =>
  async (ctx: Ctx) => {
    const {orderId} = await paidOrder(ctx, {method, currency: 'XTS', amount: 1.5});
    return raw(ctx.sandbox, 'POST', path, {
      body: {pos_id: ctx.pos, order_id: orderId, order_currency: 'XTS', ...fields},
    });
  };

const REFUND_DATE = '2027-03-10 09:15:00';

const rows: Row[] = [
  requestRow(
    'WordPress hosted create (XTS, payload null, customer_referrer, no phone) is accepted and its address read from the JSON body',
    (ctx) => create(ctx, pluginHosted(ctx)),
    tolerated(
      'payload',
      [
        ['null-as-absent', 'payload'],
        ['customer-referrer-on-hosted', 'customer_referrer'],
        ['hosted-contact-optional', 'customer_phone'],
      ],
      303,
    ),
    async (_ctx, answer) => {
      await checkoutPageOpens(phpPluginCheckoutUrl(answer));
      assert.equal(phpPluginCheckoutUrl(answer), answer.headers.get('location'));
    },
  ),
  requestRow(
    'an SDK hosted create without phone or email is accepted and its address read from Location',
    (ctx) => {
      const {customer_email: _e, customer_referrer: _r, payload: _p, ...body} = pluginHosted(ctx);
      return create(ctx, body);
    },
    tolerated(
      'customer_email',
      [
        ['hosted-contact-optional', 'customer_email'],
        ['hosted-contact-optional', 'customer_phone'],
      ],
      303,
    ),
    async (_ctx, answer) => checkoutPageOpens(locationOnly(answer)),
  ),
  {
    name: 'a spec-clean hosted create: Location in both profiles; the JSON redirect_url only in live',
    async run(ctx) {
      const {payload: _p, customer_referrer: _r, ...clean} = pluginHosted(ctx);
      const answer = await create(ctx, {...clean, customer_phone: '+380501234567'});
      assert.equal(answer.status, 303);
      await checkoutPageOpens(locationOnly(answer));
      if (ctx.profile === 'live') {
        await checkoutPageOpens(phpPluginCheckoutUrl(answer));
      } else {
        // The spec does not describe the body; strict answers the bare payment record.
        assert.equal(phpPluginCheckoutUrl(answer), undefined);
      }
      assert.equal(PaymentRecord.parse(answer.json()).status, 'init');
    },
  },
  requestRow(
    'a plugin capture (order_amount as text, refund_date, comment null) is accepted',
    pluginOperation('/api/v1/capture', 'auth', {
      order_amount: '1.5',
      refund_date: REFUND_DATE,
      comment: null,
    }),
    tolerated('order_amount', [
      ['amount-as-text', 'order_amount'],
      ['unknown-field', 'refund_date'],
      ['null-as-absent', 'comment'],
    ]),
    (_ctx, answer) => {
      const rec = OperationRecord.parse(answer.json());
      assert.equal(rec.amount, 1.5);
      assert.equal(rec.status, 'success');
    },
  ),
  requestRow(
    'a plugin void (refund_date, refund_amount, server_url null) is accepted',
    pluginOperation('/api/v1/void', 'auth', {
      refund_date: REFUND_DATE,
      refund_amount: '1.5',
      server_url: null,
    }),
    tolerated('refund_date', [
      ['unknown-field', 'refund_date'],
      ['unknown-field', 'refund_amount'],
      ['null-as-absent', 'server_url'],
    ]),
    (_ctx, answer) => assert.equal(OperationRecord.parse(answer.json()).method, 'void'),
  ),
  requestRow(
    'a plugin refund (refund_amount as text, refund_date) is accepted for that amount',
    pluginOperation('/api/v1/refund', 'purchase', {refund_amount: '1.2', refund_date: REFUND_DATE}),
    tolerated('refund_amount', [
      ['amount-as-text', 'refund_amount'],
      ['unknown-field', 'refund_date'],
    ]),
    (_ctx, answer) => {
      const rec = OperationRecord.parse(answer.json());
      assert.equal(rec.amount, 1.2);
      assert.equal(rec.status_code, '1004');
    },
  ),
  requestRow(
    'an older-API void and refund (change_amount, order_amount) are accepted',
    pluginOperation('/api/v1/refund', 'purchase', {change_amount: 1.5, order_amount: 1.5}),
    tolerated('change_amount', [
      ['unknown-field', 'change_amount'],
      ['unknown-field', 'order_amount'],
    ]),
  ),
  requestRow(
    'an SDK resend with callback=1 is accepted and resends the webhook',
    async (ctx) => {
      const {orderId} = await paidOrder(ctx);
      return orders(ctx, `${orderId}/purchase?callback=1`);
    },
    tolerated('callback', [['callback-1', 'callback']]),
    (_ctx, answer) => assert.equal(PaymentRecord.parse(answer.json()).status, 'success'),
  ),
  requestRow(
    'a test-mode direct purchase (XTS, amount between 1 and 2) is accepted',
    (ctx) => create(ctx, directBody(ctx, {currency: 'XTS', amount: 1.99})),
    accepted(),
    (_ctx, answer) => {
      const rec = PaymentRecord.parse(answer.json());
      assert.equal(rec.currency, 'XTS');
      assert.equal(rec.amount, 1.99);
      assert.equal(rec.status, 'success');
    },
  ),
  {
    name: 'a hosted order submitted twice gets P-409, so the plugin reuses its first redirect',
    async run(ctx) {
      const {payload: _p, customer_referrer: _r, ...clean} = pluginHosted(ctx);
      const body = {...clean, customer_phone: '+380501234567'};
      const first = await create(ctx, body);
      const second = await create(ctx, body);
      assert.equal(first.status, 303);
      assert.equal((second.json() as {args: {code: string}}).args.code, 'P-409');
    },
  },
  {
    name: 'the plugins’ plain CPAY header with X-API-Key works on GET and POST',
    async run(ctx) {
      const c = ctx.sandbox.credentials;
      const headers = {
        'X-API-Auth': `CPAY ${c.apiKey}:${c.apiSecret}`,
        'X-API-Key': c.endpointsKey,
      };
      const {orderId} = await paidOrder(ctx);
      const get = await raw(ctx.sandbox, 'GET', `/api/v1/pos/${ctx.pos}/orders/${orderId}`, {
        auth: false,
        headers,
      });
      assert.equal(get.status, 200);
      const post = await raw(ctx.sandbox, 'POST', '/api/v1/refund', {
        auth: false,
        headers,
        body: {pos_id: ctx.pos, order_id: orderId, order_currency: 'UAH'},
      });
      assert.equal(post.status, 200);
    },
  },
  {
    name: 'a plugin’s empty HTTP 200 acknowledges a webhook: delivered once, no retry',
    async run(ctx) {
      const hooks = await startReceiver(ctx.sandbox.credentials.apiSecret);
      try {
        await paidOrder(ctx, {server_url: hooks.url});
        await ctx.sandbox.webhooksIdle();
        await ctx.sandbox.clock.advance(DAY);
        assert.equal(hooks.hits, 1);
      } finally {
        await hooks.close();
      }
    },
  },
  {
    name: 'a tolerated request is written once as a warn line naming rule and field, never a value',
    profiles: ['live'],
    async run(ctx) {
      const warn = mock.method(console, 'warn', () => undefined);
      try {
        const body = {
          ...pluginHosted(ctx),
          payload: null,
          customer_referrer: 'https://secret.example/',
        };
        await create(ctx, body);
        assert.equal(warn.mock.callCount(), 1);
        const line = String(warn.mock.calls[0]!.arguments[0]);
        assert.match(line, /^sandbox\[live\]: POST \/api\/v1\/payment relied on /);
        assert.match(line, /null-as-absent \(payload\)/);
        assert.match(line, /customer-referrer-on-hosted \(customer_referrer\)/);
        assert.doesNotMatch(line, /secret\.example/);
        const listed = await raw(ctx.sandbox, 'GET', '/sandbox/leniencies', {auth: false});
        assert.equal((listed.json() as unknown[]).length, 1);
      } finally {
        warn.mock.restore();
      }
    },
  },
  {
    name: 'strict notes nothing and writes no warn line',
    profiles: ['strict'],
    async run(ctx) {
      const warn = mock.method(console, 'warn', () => undefined);
      try {
        const answer = await create(ctx, {...pluginHosted(ctx)});
        assert.equal(answer.status, 400);
        assert.equal(warn.mock.callCount(), 0);
        assert.deepEqual(ctx.sandbox.leniencies(), []);
      } finally {
        warn.mock.restore();
      }
    },
  },
];

table('public plugins', rows);
