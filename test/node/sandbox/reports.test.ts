/**
 * Reports: the period query's newline-delimited entries (primary and secondary
 * transactions, decimal-text amounts, empty `dateTime` while pending, the period bounds
 * on the sandbox clock) and the register's two stages (start with filters and the 31-day
 * limit, then `report_not_ready` until the delay has passed, then exactly the selected
 * fields).
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  PeriodTransaction,
  REGISTER_FIELDS,
  RegisterRecord,
  ReportNotReady,
} from '../../../src/server/gateway/index.js';
import {REGISTER_DEFAULT_FIELDS, REPORT_NOT_READY_STATUS} from '../../../sandbox/index.js';
import {directRequest, offsetIso, raw, startTestSandbox} from './helpers.js';
import type {TestSandbox} from './helpers.js';

const START = Date.parse('2027-08-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let t: TestSandbox;
const orders: Record<string, string> = {};

before(async () => {
  t = await startTestSandbox({clock: {manual: true, start: new Date(START)}, reportDelayMs: 0});
  // Day 0: a purchase refunded in part; day 1: a pending 3DS payment; day 2: a decline; day 40: a purchase.
  const p = directRequest({amount: 12.5, payload: 'basket-1'});
  await t.client.createPayment(p);
  await t.sandbox.clock.advance(HOUR);
  await t.client.refund({order_id: p.order_id, order_currency: 'UAH', refund_amount: 2.5});
  await t.sandbox.clock.advance(DAY);
  const pending = directRequest({cc_number: '4000000000003220', amount: 7});
  await t.client.createPayment(pending);
  await t.sandbox.clock.advance(DAY);
  const declined = directRequest({cc_number: '4000000000000002', amount: 3});
  await t.client.createPayment(declined);
  await t.sandbox.clock.advance(38 * DAY);
  const late = directRequest({amount: 1});
  await t.client.createPayment(late);
  Object.assign(orders, {
    p: p.order_id,
    pending: pending.order_id,
    declined: declined.order_id,
    late: late.order_id,
  });
});
after(() => t.close());

describe('period transactions', () => {
  test('one JSON object per line, with the period entry fields, primary and secondary', async () => {
    const res = await raw(
      t.sandbox,
      'GET',
      `/api/v1/pos/${t.sandbox.credentials.posId}/transactions?startDate=${START}&enddate=${START + 3 * DAY}`,
    );
    assert.equal(res.status, 200);
    const lines = res.text.trimEnd().split('\n');
    assert.equal(lines.length, 4);
    const entries = lines.map((l) => PeriodTransaction.parse(JSON.parse(l)));
    assert.deepEqual(
      entries.map((e) => [e.orderId, e.method, e.status, e.amount]),
      [
        [orders['p'], 'purchase', 'success', '12.50'],
        [orders['p'], 'refund', 'success', '2.50'],
        [orders['pending'], 'purchase', 'pending', '7.00'],
        [orders['declined'], 'purchase', 'failure', '3.00'],
      ],
    );
    assert.equal(entries[0]!.dateTime, START);
    assert.equal(entries[1]!.dateTime, START + HOUR);
    assert.equal(entries[2]!.dateTime, '');
    assert.equal(entries[0]!.payload, 'basket-1');
    assert.equal(entries[0]!.paymentSystem, 'visa');
    assert.equal(entries[1]!.paymentId, entries[0]!.paymentId);
    assert.equal(entries[0]!.projectId, t.sandbox.credentials.posId);
  });

  test('the client reads the period and the bounds are inclusive', async () => {
    const entries = await t.client.getPeriodTransactions({start: START + HOUR, end: START + HOUR});
    assert.deepEqual(
      entries.map((e) => e.method),
      ['refund'],
    );
    const late = await t.client.getPeriodTransactions({
      start: new Date(START + 30 * DAY),
      end: new Date(START + 60 * DAY),
    });
    assert.deepEqual(
      late.map((e) => e.orderId),
      [orders['late']],
    );
  });

  test('a missing or non-numeric bound is a 400 naming it', async () => {
    const base = `/api/v1/pos/${t.sandbox.credentials.posId}/transactions`;
    const missing = await raw(t.sandbox, 'GET', `${base}?startDate=${START}`);
    assert.equal(missing.status, 400);
    assert.match(missing.text, /enddate/);
    const text = await raw(t.sandbox, 'GET', `${base}?startDate=yesterday&enddate=${START}`);
    assert.equal(text.status, 400);
    assert.match(text.text, /startDate/);
  });
});

describe('registers', () => {
  const period = {start_date: offsetIso(START), end_date: offsetIso(START + 31 * DAY)};

  test('start counts the filtered records; fetch gives exactly the selected fields, in order', async () => {
    const started = await t.client.startRegister({
      ...period,
      statuses: ['success'],
      transaction_details: ['orderId', 'amount', 'method', 'dateTime'],
    });
    assert.equal(started.count, 2);
    const records = await t.client.waitForRegister(started.report_id, {initialDelayMs: 30});
    assert.equal(records.length, started.count);
    for (const r of records)
      assert.deepEqual(Object.keys(r), ['orderId', 'amount', 'method', 'dateTime']);
    assert.deepEqual(
      records.map((r) => [r['method'], r['amount']]),
      [
        ['purchase', '12.50'],
        ['refund', '2.50'],
      ],
    );
    assert.equal(records[0]!['dateTime'], START);
  });

  test('fetch answers report_not_ready until reportDelayMs has passed, then the records', async () => {
    const slow = await startTestSandbox({reportDelayMs: 1_500});
    try {
      await slow.client.createPayment(directRequest());
      const now = Date.now();
      const started = await slow.client.startRegister({
        start_date: offsetIso(now - DAY),
        end_date: offsetIso(now + DAY),
      });
      const early = await raw(slow.sandbox, 'GET', `/streaming-report/fetch/${started.report_id}`);
      assert.equal(early.status, REPORT_NOT_READY_STATUS);
      assert.equal(ReportNotReady.parse(early.json()).code, 'report_not_ready');
      assert.equal((await slow.client.fetchRegister(started.report_id)).ready, false);
      const records = await slow.client.waitForRegister(started.report_id, {initialDelayMs: 100});
      assert.equal(records.length, 1);
      assert.equal((await slow.client.fetchRegister(started.report_id)).ready, true);
    } finally {
      await slow.close();
    }
  });

  test('methods and statuses filter together', async () => {
    const refunds = await t.client.startRegister({...period, methods: ['refund']});
    assert.equal(refunds.count, 1);
    const failures = await t.client.startRegister({
      ...period,
      statuses: ['failure', 'pending'],
      methods: ['purchase'],
    });
    assert.equal(failures.count, 2);
    const none = await t.client.startRegister({...period, methods: ['capture']});
    assert.equal(none.count, 0);
    const empty = await t.client.waitForRegister(none.report_id, {initialDelayMs: 30});
    assert.deepEqual(empty, []);
  });

  test('without transaction_details the documented default fields are used; every field can be selected', async () => {
    const started = await t.client.startRegister({...period, statuses: ['pending']});
    const [record] = await t.client.waitForRegister(started.report_id, {initialDelayMs: 30});
    assert.deepEqual(Object.keys(record!), [...REGISTER_DEFAULT_FIELDS]);
    assert.equal(record!['cardMask'], '400000******3220');
    const everything = await t.client.startRegister({
      ...period,
      statuses: ['success'],
      transaction_details: [...REGISTER_FIELDS],
    });
    const records = await t.client.waitForRegister(everything.report_id, {initialDelayMs: 30});
    for (const r of records) {
      assert.deepEqual(Object.keys(r), [...REGISTER_FIELDS]);
      RegisterRecord.parse(r);
      assert.equal(typeof r['amount'], 'string');
      assert.equal(typeof r['dateTime'], 'number');
    }
  });

  test('a period over 31 days is a 400 naming end_date', async () => {
    const res = await raw(t.sandbox, 'POST', '/streaming-report/start', {
      body: {
        project_id: t.sandbox.credentials.posId,
        start_date: offsetIso(START),
        end_date: offsetIso(START + 31 * DAY + 1),
      },
    });
    assert.equal(res.status, 400);
    assert.match(res.text, /end_date: the register period must be at most 31 days/);
  });

  test('an unknown field or status in the register request is a 400 naming it', async () => {
    const res = await raw(t.sandbox, 'POST', '/streaming-report/start', {
      body: {
        project_id: t.sandbox.credentials.posId,
        ...period,
        transaction_details: ['orderId', 'cardNumber'],
      },
    });
    assert.equal(res.status, 400);
    assert.match(res.text, /transaction_details\.1/);
  });
});
