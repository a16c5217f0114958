/**
 * Requests other than payment creation (register, period and subscription queries,
 * capture/void/refund) and the lenient parsing of everything the gateway sends back:
 * unknown fields kept, nulls accepted, `limit_info` as text or object, an empty period
 * `dateTime`.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  CancelResponse,
  CaptureRequest,
  ErrorBody,
  isOperationRecord,
  OperationRecord,
  OrderTransactions,
  PaymentRecord,
  PeriodQuery,
  PeriodTransaction,
  RefundRequest,
  RegisterRecord,
  RegisterRequest,
  RegisterStarted,
  ReportNotReady,
  SubscriptionRecord,
  SubscriptionTransactionsQuery,
  VoidRequest,
} from '../../../src/server/gateway/index.js';
import {operationRecord, paymentRecord, POS_ID} from './helpers.js';

const DAY = 24 * 3600_000;

describe('register request', () => {
  const start = Date.UTC(2026, 0, 1);
  const register = (endMs: number, over: Record<string, unknown> = {}) => ({
    project_id: POS_ID,
    start_date: new Date(start).toISOString(),
    end_date: new Date(endMs).toISOString(),
    ...over,
  });

  test('a period of exactly 31 days is accepted', () => {
    assert.equal(RegisterRequest.safeParse(register(start + 31 * DAY)).success, true);
  });

  test('a period of 31 days and 1 ms is refused on end_date', () => {
    const parsed = RegisterRequest.safeParse(register(start + 31 * DAY + 1));
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error?.issues[0]?.path, ['end_date']);
    assert.match(parsed.error?.issues[0]?.message ?? '', /at most 31 days/);
  });

  test('the period length counts offsets, not wall clock text', () => {
    const ok = register(0, {
      start_date: '2026-01-01T00:00:00.000+02:00',
      end_date: '2026-01-31T22:00:00.000+00:00',
    });
    assert.equal(RegisterRequest.safeParse(ok).success, true);
    const over = {...ok, end_date: '2026-01-31T22:00:00.001+00:00'};
    assert.equal(RegisterRequest.safeParse(over).success, false);
  });

  test('an end before the start is refused', () => {
    assert.equal(RegisterRequest.safeParse(register(start - 1)).success, false);
  });

  test('statuses, methods and transaction_details take only the enumerations', () => {
    const ok = register(start + DAY, {
      statuses: ['success', 'failure'],
      methods: ['purchase', 'refund', 'recurrent'],
      transaction_details: ['orderId', 'amount', 'receiverFee'],
    });
    assert.equal(RegisterRequest.safeParse(ok).success, true);
    assert.equal(RegisterRequest.safeParse({...ok, statuses: ['done']}).success, false);
    assert.equal(RegisterRequest.safeParse({...ok, methods: ['sale']}).success, false);
    assert.equal(
      RegisterRequest.safeParse({...ok, transaction_details: ['cardNumber']}).success,
      false,
    );
  });

  test('dates without an offset are refused', () => {
    assert.equal(
      RegisterRequest.safeParse(register(start + DAY, {start_date: '2026-01-01T00:00:00.000'}))
        .success,
      false,
    );
  });
});

describe('queries', () => {
  test('subscription transactions: method purchase and refund are accepted', () => {
    assert.equal(SubscriptionTransactionsQuery.safeParse({method: 'purchase'}).success, true);
    assert.equal(
      SubscriptionTransactionsQuery.safeParse({method: 'refund', status: 'success'}).success,
      true,
    );
    assert.equal(SubscriptionTransactionsQuery.safeParse({}).success, true);
  });

  test("subscription transactions: method 'auth' is refused", () => {
    for (const bad of ['auth', 'capture', 'PURCHASE']) {
      const parsed = SubscriptionTransactionsQuery.safeParse({method: bad});
      assert.equal(parsed.success, false, bad);
      assert.match(parsed.error?.issues[0]?.message ?? '', /purchase or refund/);
    }
    assert.equal(SubscriptionTransactionsQuery.safeParse({status: 'done'}).success, false);
  });

  test('period query: Unix milliseconds, end not before start', () => {
    assert.equal(
      PeriodQuery.safeParse({startDate: 1767225600000, enddate: 1767312000000}).success,
      true,
    );
    assert.equal(PeriodQuery.safeParse({startDate: 2, enddate: 1}).success, false);
    assert.equal(PeriodQuery.safeParse({startDate: 1.5, enddate: 2}).success, false);
  });
});

describe('secondary operation requests (beyond the spec)', () => {
  const base = {pos_id: POS_ID, order_id: 'order-1', order_currency: 'UAH'};

  test('capture takes an optional exact amount and a comment of at most 2048', () => {
    assert.equal(CaptureRequest.safeParse({...base, order_amount: 5.5}).success, true);
    assert.equal(CaptureRequest.safeParse({...base, order_amount: 0.1 + 0.2}).success, false);
    assert.equal(CaptureRequest.safeParse({...base, comment: 'c'.repeat(2048)}).success, true);
    assert.equal(CaptureRequest.safeParse({...base, comment: 'c'.repeat(2049)}).success, false);
  });

  test('void takes no amount', () => {
    assert.equal(VoidRequest.safeParse(base).success, true);
    assert.equal(VoidRequest.safeParse({...base, order_amount: 1}).success, false);
  });

  test('refund takes an optional exact refund_amount and an ISO currency', () => {
    assert.equal(RefundRequest.safeParse({...base, refund_amount: 1.01}).success, true);
    assert.equal(RefundRequest.safeParse({...base, refund_amount: -1}).success, false);
    assert.equal(RefundRequest.safeParse({...base, order_currency: 'uah'}).success, false);
  });
});

describe('records are parsed leniently', () => {
  test('a payment record keeps unknown fields', () => {
    const parsed = PaymentRecord.parse(
      paymentRecord({brand_new_field: {x: 1}, bank_short_name: 'PB'}),
    );
    assert.deepEqual(parsed['brand_new_field'], {x: 1});
    assert.equal(parsed.bank_short_name, 'PB');
  });

  test('a payment record accepts null for absent fields', () => {
    const parsed = PaymentRecord.parse(
      paymentRecord({
        gateway_order_id: null,
        billing_order_id: null,
        user_action_url: null,
        fee: null,
        recurring: null,
      }),
    );
    assert.equal(parsed.gateway_order_id, null);
  });

  test('limit_info may be a string or an object', () => {
    assert.equal(
      PaymentRecord.parse(paymentRecord({limit_info: 'daily limit'})).limit_info,
      'daily limit',
    );
    const asObject = PaymentRecord.parse(
      paymentRecord({
        limit_info: {retry_after: '2026-02-01T00:00:00.000', description: 'daily', extra: 1},
      }),
    );
    assert.deepEqual(asObject.limit_info, {
      retry_after: '2026-02-01T00:00:00.000',
      description: 'daily',
      extra: 1,
    });
    assert.equal(PaymentRecord.safeParse(paymentRecord({limit_info: 5})).success, false);
  });

  test('status_code and mcc given as numbers become strings', () => {
    const parsed = PaymentRecord.parse(paymentRecord({status_code: 2122, mcc: 5411}));
    assert.equal(parsed.status_code, '2122');
    assert.equal(parsed.mcc, '5411');
  });

  test('amount given as decimal text becomes a number', () => {
    assert.equal(PaymentRecord.parse(paymentRecord({amount: '10.10'})).amount, 10.1);
  });

  test('a record must still have a known status', () => {
    assert.equal(PaymentRecord.safeParse(paymentRecord({status: 'done'})).success, false);
    assert.equal(PaymentRecord.safeParse(paymentRecord({status: undefined})).success, false);
  });

  test('a subscription payment record carries recurring {id, status}', () => {
    const parsed = PaymentRecord.parse(paymentRecord({recurring: {id: 'r-1', status: 'init'}}));
    assert.deepEqual(parsed.recurring, {id: 'r-1', status: 'init'});
    assert.equal(
      PaymentRecord.safeParse(paymentRecord({recurring: {id: 'r-1', status: 'paused'}})).success,
      false,
    );
  });

  test('an order lookup holds the primary record, then operation records', () => {
    const list = OrderTransactions.parse([
      paymentRecord({method: 'auth'}),
      operationRecord('capture'),
    ]);
    assert.equal(isOperationRecord(list[0]!), false);
    assert.equal(isOperationRecord(list[1]!), true);
    assert.equal(list[1]!.method, 'capture');
  });

  test('an operation record needs operation_id and a secondary method', () => {
    assert.equal(OperationRecord.safeParse(operationRecord('refund')).success, true);
    assert.equal(OperationRecord.safeParse(operationRecord('purchase')).success, false);
    const {operation_id: _dropped, ...noId} = operationRecord('refund');
    assert.equal(OperationRecord.safeParse(noId).success, false);
  });

  test('the cancel answer is a non-empty array of payment records', () => {
    const record = paymentRecord({
      status: 'failure',
      status_code: '6007',
      customer_city: null,
      mode: 'hosted',
    });
    assert.equal(CancelResponse.parse([record])[0]?.status_code, '6007');
    assert.equal(CancelResponse.safeParse([]).success, false);
  });

  test("a period entry's dateTime may be Unix ms or an empty string, extras kept", () => {
    const entry = {
      projectId: POS_ID,
      orderId: 'o-1',
      paymentId: 'p-1',
      amount: '10.10',
      currency: 'UAH',
      method: 'purchase',
      status: 'pending',
      dateTime: '',
      authCode: '',
      rrnCode: '',
      future: true,
    };
    assert.equal(PeriodTransaction.parse(entry).dateTime, '');
    assert.equal(
      PeriodTransaction.parse({...entry, dateTime: 1767225600000}).dateTime,
      1767225600000,
    );
    assert.equal(PeriodTransaction.parse(entry)['future'], true);
    assert.equal(PeriodTransaction.safeParse({...entry, dateTime: 'yesterday'}).success, false);
    assert.equal(PeriodTransaction.safeParse({...entry, amount: 10.1}).success, false);
  });

  test('a register record holds any selection of fields, extras kept', () => {
    const parsed = RegisterRecord.parse({
      orderId: 'o-1',
      amount: '10.10',
      dateTime: 1767225600000,
      newField: 'x',
    });
    assert.equal(parsed['orderId'], 'o-1');
    assert.equal(parsed['newField'], 'x');
  });

  test('register start answer and report_not_ready body', () => {
    assert.deepEqual(RegisterStarted.parse({report_id: 'r-1', count: 0}), {
      report_id: 'r-1',
      count: 0,
    });
    assert.equal(RegisterStarted.safeParse({report_id: 'r-1', count: -1}).success, false);
    assert.equal(
      ReportNotReady.safeParse({message: 'wait', code: 'report_not_ready'}).success,
      true,
    );
    assert.equal(ReportNotReady.safeParse({message: 'wait', code: 'other'}).success, false);
  });

  test('the error body keeps args and their code', () => {
    const parsed = ErrorBody.parse({
      message: 'Invalid pos_id field or credentials',
      args: {code: 'S-404', field: 'pos_id'},
    });
    assert.equal(parsed.args?.code, 'S-404');
    assert.equal(parsed.args?.['field'], 'pos_id');
  });

  test('a subscription record parses with recurring_status canceled', () => {
    const parsed = SubscriptionRecord.parse({
      recurring_payment: {
        pos_id: POS_ID,
        order_id: 'o-1',
        amount: 10.1,
        currency: 'UAH',
        cc_token: 't',
        extra: 1,
      },
      recurring_config: {
        interval_unit: 'month',
        interval_count: 1,
        retry_attempts: 3,
        retry_interval_hours: 24,
        start_date: '2026-01-01',
        time: '10:00:00',
      },
      recurring_status: 'canceled',
      metadata: {id: 'r-1', created_at: '2026-01-01T10:00:00.000', updated_at: null},
    });
    assert.equal(parsed.recurring_status, 'canceled');
    assert.equal(parsed.recurring_payment['extra'], 1);
  });
});
