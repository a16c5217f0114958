/**
 * Conformance, fields: the spec's "Create payment" field table (direct and hosted
 * columns), the `init_recurring` table, the Limits table and the secondary operations of
 * the facts file, field by field, in both profiles. Amounts are checked as wire data: a
 * JSON string is not an amount. Where the live gateway tolerates a departure (unknown
 * fields, `null`, hosted contacts, `customer_referrer` on hosted, text secondary
 * amounts), `live` accepts and notes it and `strict` refuses.
 */
import {
  accepted,
  create,
  directBody,
  hostedBody,
  paidOrder,
  refused,
  requestRow,
  table,
  tolerated,
} from './harness.js';
import type {Ctx, Row} from './harness.js';
import {raw} from '../helpers.js';

const direct = (change: Record<string, unknown>) => (ctx: Ctx) =>
  create(ctx, directBody(ctx, change));
const hosted = (change: Record<string, unknown>) => (ctx: Ctx) =>
  create(ctx, hostedBody(ctx, change));

/** Fields the spec marks required for a direct payment. */
const DIRECT_REQUIRED = [
  'pos_id',
  'method',
  'amount',
  'currency',
  'description',
  'order_id',
  'order_3ds_bypass',
  'customer_fname',
  'customer_lname',
  'customer_email',
  'customer_phone',
  'customer_ip',
  'browser_fingerprint',
];
/** Fields the spec marks required for a hosted payment (contacts: see the tolerance rows). */
const HOSTED_REQUIRED = [
  'pos_id',
  'method',
  'amount',
  'currency',
  'description',
  'order_id',
  'order_3ds_bypass',
];
/** Fields the spec marks n/a for hosted payments (`customer_referrer`: a tolerance row). */
const HOSTED_NA: Record<string, unknown> = {
  cc_number: '4242424242424242',
  exp_month: 12,
  exp_year: 2031,
  card_cvv: '123',
  cc_token: 'tok',
  network_transaction_id: 'ntid',
  three_d_secure: {cavv: 'c', eci: '05', ds_transaction_id: 'd', status: 'Y'},
  customer_ip: '127.0.0.1',
  browser_fingerprint: {},
  cryptogram: {},
};
/** Optional fields of both modes, each with a valid value. */
const OPTIONAL_BOTH: Record<string, unknown> = {
  products: [
    {id: '1', name: 'Mug', url: 'https://shop.example/mug', currency: 'UAH', amount: 12.5, qty: 1},
  ],
  customer_id: 'c-1',
  customer_patronym: 'Ivanivna',
  customer_country: 'UA',
  customer_city: 'Kyiv',
  properties: {state: 'Kyiv', address: 'Khreshchatyk 1', post_code: '01001'},
  customer_birthday: '1990-05-17',
  customer_tax_id: '1234567890',
  server_url: 'https://shop.example/webhook',
  result_url: 'https://shop.example/return',
  merchant_mcc: '5999',
  payload: 'cart=42',
  validation_url: 'https://shop.example/validate',
  payway: 'card',
  init_recurring: {interval_unit: 'month', interval_count: 1},
};

const rows: Row[] = [
  // --- Create payment: required fields ------------------------------------------------
  ...DIRECT_REQUIRED.map((f) =>
    requestRow(`direct: ${f} is required`, direct({[f]: undefined}), refused(f)),
  ),
  ...HOSTED_REQUIRED.map((f) =>
    requestRow(`hosted: ${f} is required`, hosted({[f]: undefined}), refused(f)),
  ),
  requestRow('mode is required and is direct or hosted', direct({mode: 'wallet'}), refused('mode')),
  requestRow(
    'method on creation is auth or purchase only',
    direct({method: 'credit'}),
    refused('method'),
  ),
  requestRow('method auth is accepted', direct({method: 'auth'}), accepted()),
  requestRow('hosted method auth is accepted', hosted({method: 'auth'}), accepted(303)),

  // --- Create payment: optional fields and n/a ------------------------------------------
  ...Object.entries(OPTIONAL_BOTH).flatMap(([f, v]) => [
    requestRow(`direct: optional ${f} is accepted`, direct({[f]: v}), accepted()),
    requestRow(`hosted: optional ${f} is accepted`, hosted({[f]: v}), accepted(303)),
  ]),
  requestRow(
    'direct: optional customer_referrer is accepted',
    direct({customer_referrer: 'https://shop.example/cart'}),
    accepted(),
  ),
  requestRow(
    'hosted: optional customer_lang is accepted',
    hosted({customer_lang: 'uk'}),
    accepted(303),
  ),
  requestRow(
    'hosted: optional order_timeout is accepted',
    hosted({order_timeout: 900}),
    accepted(303),
  ),
  requestRow(
    'direct: three_d_secure from an external 3DS is accepted',
    direct({
      three_d_secure: {
        cavv: 'AAAB',
        eci: '05',
        ds_transaction_id: 'ds-1',
        status: 'Y',
        version: '2.2.0',
      },
    }),
    accepted(),
  ),
  requestRow(
    'direct: network_transaction_id is accepted',
    direct({network_transaction_id: 'ntid-1'}),
    accepted(),
  ),
  ...Object.entries(HOSTED_NA).map(([f, v]) =>
    requestRow(`hosted: ${f} is n/a and refused`, hosted({[f]: v}), refused(f)),
  ),
  requestRow(
    'direct: customer_lang is n/a (hosted only)',
    direct({customer_lang: 'uk'}),
    tolerated('customer_lang', [['unknown-field', 'customer_lang']]),
  ),
  requestRow(
    'direct: order_timeout is n/a (hosted only)',
    direct({order_timeout: 900}),
    tolerated('order_timeout', [['unknown-field', 'order_timeout']]),
  ),

  // --- Field rules ---------------------------------------------------------------------
  requestRow('amount must be positive', direct({amount: -1}), refused('amount')),
  requestRow('amount zero is refused', direct({amount: 0}), refused('amount')),
  requestRow('amount has at most 2 decimals', direct({amount: 10.005}), refused('amount')),
  requestRow('amount is a JSON number, not text', direct({amount: '12.50'}), refused('amount')),
  requestRow('amount with 2 decimals is accepted', direct({amount: 0.01}), accepted()),
  requestRow('currency is ISO 4217', direct({currency: 'ABC'}), refused('currency')),
  requestRow(
    'customer_country is ISO 3166-1 alpha-2',
    direct({customer_country: 'UKR'}),
    refused('customer_country'),
  ),
  requestRow(
    'customer_birthday is yyyy-MM-dd',
    direct({customer_birthday: '17.05.1990'}),
    refused('customer_birthday'),
  ),
  requestRow(
    'payload is up to 4000 symbols',
    direct({payload: 'x'.repeat(4001)}),
    refused('payload'),
  ),
  requestRow(
    'payload counts symbols: 4000 emoji are accepted',
    direct({payload: '💳'.repeat(4000)}),
    accepted(),
  ),
  requestRow('exp_month is a month number', direct({exp_month: 13}), refused('exp_month')),
  requestRow('exp_month is a JSON number', direct({exp_month: '12'}), refused('exp_month')),
  requestRow('card_cvv is digits only', direct({card_cvv: '12a'}), refused('card_cvv')),
  requestRow(
    'cc_number passes the Luhn check',
    direct({cc_number: '4242424242424241'}),
    refused('cc_number'),
  ),
  requestRow(
    'rule 1: full card data or cc_token, not both',
    direct({cc_token: 'tok-1'}),
    refused('cc_number'),
  ),
  requestRow(
    'rule 1: full card data or cc_token, not neither',
    direct({cc_number: undefined, exp_month: undefined, exp_year: undefined, card_cvv: undefined}),
    refused('cc_number'),
  ),
  requestRow('result_url is a URL', direct({result_url: 'not a url'}), refused('result_url')),

  // --- init_recurring ------------------------------------------------------------------
  requestRow(
    'init_recurring.interval_unit is day, week, month, quarter or year',
    direct({init_recurring: {interval_unit: 'fortnight', interval_count: 1}}),
    refused('init_recurring.interval_unit'),
  ),
  ...['day', 'week', 'month', 'quarter', 'year'].map((unit) =>
    requestRow(
      `init_recurring.interval_unit ${unit} is accepted`,
      direct({init_recurring: {interval_unit: unit, interval_count: 1}}),
      accepted(),
    ),
  ),
  requestRow(
    'init_recurring.interval_count is at most 30',
    direct({init_recurring: {interval_unit: 'day', interval_count: 31}}),
    refused('init_recurring.interval_count'),
  ),
  requestRow(
    'init_recurring.interval_count is required',
    direct({init_recurring: {interval_unit: 'day'}}),
    refused('init_recurring.interval_count'),
  ),
  requestRow(
    'init_recurring.retry_attempts is at most 7',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, retry_attempts: 8}}),
    refused('init_recurring.retry_attempts'),
  ),
  requestRow(
    'init_recurring.retry_interval_hours is at most 23 for day',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, retry_interval_hours: 24}}),
    refused('init_recurring.retry_interval_hours'),
  ),
  requestRow(
    'init_recurring.retry_interval_hours 23 for day is accepted',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, retry_interval_hours: 23}}),
    accepted(),
  ),
  requestRow(
    'init_recurring.retry_interval_hours is at most 72 for other units',
    direct({init_recurring: {interval_unit: 'week', interval_count: 1, retry_interval_hours: 73}}),
    refused('init_recurring.retry_interval_hours'),
  ),
  requestRow(
    'init_recurring.start_date is YYYY-MM-DD',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, start_date: '2027/04/01'}}),
    refused('init_recurring.start_date'),
  ),
  requestRow(
    'init_recurring.time is HH:MM:SS',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, time: '25:00:00'}}),
    refused('init_recurring.time'),
  ),
  requestRow(
    'init_recurring.notification_url is a URL',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, notification_url: 'x'}}),
    refused('init_recurring.notification_url'),
  ),
  requestRow(
    'init_recurring.amount is positive with at most 2 decimals',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, amount: 1.005}}),
    refused('init_recurring.amount'),
  ),
  requestRow(
    'init_recurring.amount is a JSON number, not text',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, amount: '5.00'}}),
    refused('init_recurring.amount'),
  ),
  requestRow(
    'init_recurring with every field is accepted',
    direct({
      init_recurring: {
        interval_unit: 'month',
        interval_count: 2,
        retry_attempts: 7,
        retry_interval_hours: 72,
        start_date: '2027-04-01',
        expiry_date: '2028-04-01',
        time: '10:30:00',
        notification_url: 'https://shop.example/recurring',
        amount: 4.99,
      },
    }),
    accepted(),
  ),

  // --- What live tolerates (gateway-facts.md) ------------------------------------------
  requestRow(
    'an unknown field',
    direct({colour: 'red'}),
    tolerated('colour', [['unknown-field', 'colour']]),
  ),
  requestRow(
    'an unknown field inside init_recurring',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, colour: 'red'}}),
    tolerated('init_recurring.colour', [['unknown-field', 'init_recurring.colour']]),
  ),
  requestRow(
    'null for an optional field',
    direct({payload: null}),
    tolerated('payload', [['null-as-absent', 'payload']]),
  ),
  requestRow(
    'null for an optional nested field',
    direct({init_recurring: {interval_unit: 'day', interval_count: 1, expiry_date: null}}),
    tolerated('init_recurring.expiry_date', [['null-as-absent', 'init_recurring.expiry_date']]),
  ),
  requestRow(
    'null for a required field is still refused',
    direct({currency: null}),
    refused('currency'),
  ),
  requestRow(
    'hosted without customer_phone',
    hosted({customer_phone: undefined}),
    tolerated('customer_phone', [['hosted-contact-optional', 'customer_phone']], 303),
  ),
  requestRow(
    'hosted without customer_email',
    hosted({customer_email: undefined}),
    tolerated('customer_email', [['hosted-contact-optional', 'customer_email']], 303),
  ),
  requestRow(
    'hosted contacts, when sent, still follow their rules',
    hosted({customer_email: 'not-an-email'}),
    refused('customer_email'),
  ),
  requestRow(
    'direct contacts stay required',
    direct({customer_phone: undefined}),
    refused('customer_phone'),
  ),
  requestRow(
    'customer_referrer on a hosted request',
    hosted({customer_referrer: 'https://shop.example/cart'}),
    tolerated('customer_referrer', [['customer-referrer-on-hosted', 'customer_referrer']], 303),
  ),

  // --- Secondary operations (gateway-facts.md) -----------------------------------------
  ...secondaryRows(),
];

function secondaryRows(): Row[] {
  const op =
    (path: string, method: string, change: Record<string, unknown>) => async (ctx: Ctx) => {
      const {orderId} = await paidOrder(ctx, {method});
      return raw(ctx.sandbox, 'POST', path, {
        body: {pos_id: ctx.pos, order_id: orderId, order_currency: 'UAH', ...change},
      });
    };
  return [
    requestRow(
      'capture: order_currency is required',
      op('/api/v1/capture', 'auth', {order_currency: undefined}),
      refused('order_currency'),
    ),
    requestRow(
      'capture: partial order_amount is accepted',
      op('/api/v1/capture', 'auth', {order_amount: 5}),
      accepted(),
    ),
    requestRow(
      'capture: order_amount has at most 2 decimals',
      op('/api/v1/capture', 'auth', {order_amount: 5.001}),
      refused('order_amount'),
    ),
    requestRow(
      'capture: order_amount as decimal text',
      op('/api/v1/capture', 'auth', {order_amount: '12.5'}),
      tolerated('order_amount', [['amount-as-text', 'order_amount']]),
    ),
    requestRow(
      'capture: comment is at most 2048 characters',
      op('/api/v1/capture', 'auth', {comment: 'x'.repeat(2049)}),
      refused('comment'),
    ),
    requestRow(
      'void: accepted with comment',
      op('/api/v1/void', 'auth', {comment: 'customer asked'}),
      accepted(),
    ),
    requestRow(
      'refund: partial refund_amount is accepted',
      op('/api/v1/refund', 'purchase', {refund_amount: 2.5}),
      accepted(),
    ),
    requestRow(
      'refund: refund_amount must be positive',
      op('/api/v1/refund', 'purchase', {refund_amount: -1}),
      refused('refund_amount'),
    ),
    requestRow(
      'refund: refund_amount as decimal text',
      op('/api/v1/refund', 'purchase', {refund_amount: '2.5'}),
      tolerated('refund_amount', [['amount-as-text', 'refund_amount']]),
    ),
    requestRow(
      'refund: refund_amount text that is not an amount is refused',
      op('/api/v1/refund', 'purchase', {refund_amount: '2.505'}),
      refused('refund_amount'),
    ),
    requestRow(
      'refund: server_url is a URL',
      op('/api/v1/refund', 'purchase', {server_url: 'nope'}),
      refused('server_url'),
    ),
  ];
}

table('fields', rows);
