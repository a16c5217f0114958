/**
 * The request model read two ways: the wire schemas (what the sandbox checks: amounts are
 * JSON numbers, as the spec defines them) and the input schemas for the client's callers
 * (amounts may also be decimal text). Both come from one definition, so apart from the
 * amount reading they accept and refuse the same requests.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {
  CaptureRequest,
  PaymentRequest,
  RefundRequest,
  WireCaptureRequest,
  WireHostedPaymentRequest,
  WirePaymentRequest,
  WireRefundRequest,
  parseOrIssues,
  requestSchemas,
  WireAmount,
} from '../../../src/server/gateway/index.js';

const POS = '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001';
const hosted = {
  pos_id: POS,
  mode: 'hosted',
  method: 'purchase',
  amount: 12.5,
  currency: 'XTS',
  description: 'Order 1',
  order_id: 'wire-1',
  order_3ds_bypass: 'supported',
  customer_email: 'a@example.com',
  customer_phone: '+380501234567',
};

function fieldsOf(schema: Parameters<typeof parseOrIssues>[0], v: unknown) {
  const r = parseOrIssues(schema, v);
  return r.ok ? [] : r.issues.map((i) => i.field);
}

describe('wire request schemas', () => {
  it('refuse a payment amount sent as decimal text', () => {
    assert.deepEqual(fieldsOf(WirePaymentRequest, {...hosted, amount: '12.50'}), ['amount']);
  });
  it('refuse init_recurring.amount sent as decimal text', () => {
    const body = {
      ...hosted,
      init_recurring: {interval_unit: 'month', interval_count: 1, amount: '5.00'},
    };
    assert.deepEqual(fieldsOf(WirePaymentRequest, body), ['init_recurring.amount']);
  });
  it('refuse capture order_amount and refund refund_amount sent as decimal text', () => {
    const op = {pos_id: POS, order_id: 'o', order_currency: 'XTS'};
    assert.deepEqual(fieldsOf(WireCaptureRequest, {...op, order_amount: '1.5'}), ['order_amount']);
    assert.deepEqual(fieldsOf(WireRefundRequest, {...op, refund_amount: '1.5'}), ['refund_amount']);
  });
  it('accept the same requests with JSON numbers, and refuse a third decimal as before', () => {
    assert.equal(WirePaymentRequest.safeParse(hosted).success, true);
    assert.equal(WireAmount.safeParse(12.505).success, false);
    assert.equal(WireAmount.safeParse(0).success, false);
    assert.equal(WireAmount.safeParse(-1).success, false);
  });
});

describe('input request schemas (the caller layer on top)', () => {
  it('still take decimal text from callers and carry the number that goes on the wire', () => {
    const parsed = PaymentRequest.parse({...hosted, amount: '12.50'});
    assert.equal(parsed.amount, 12.5);
    assert.equal(WirePaymentRequest.safeParse(JSON.parse(JSON.stringify(parsed))).success, true);
    assert.equal(
      CaptureRequest.parse({pos_id: POS, order_id: 'o', order_currency: 'XTS', order_amount: '2'})
        .order_amount,
      2,
    );
    assert.equal(
      RefundRequest.parse({pos_id: POS, order_id: 'o', order_currency: 'XTS', refund_amount: '2.1'})
        .refund_amount,
      2.1,
    );
  });
  it('refuse everything else exactly as the wire schemas do', () => {
    const bad = {...hosted, currency: 'ZZZ', extra: 1, customer_phone: undefined};
    assert.deepEqual(fieldsOf(PaymentRequest, bad), fieldsOf(WirePaymentRequest, bad));
  });
});

describe('hosted contacts reading', () => {
  it('the spec requires customer_email and customer_phone on hosted requests', () => {
    const {customer_email: _e, customer_phone: _p, ...noContacts} = hosted;
    assert.deepEqual(fieldsOf(WireHostedPaymentRequest, noContacts).sort(), [
      'customer_email',
      'customer_phone',
    ]);
  });
  it("hostedContacts: 'optional' lets them be absent but still checks them when sent", () => {
    const relaxed = requestSchemas(WireAmount, {hostedContacts: 'optional'}).HostedPaymentRequest;
    const {customer_email: _e, customer_phone: _p, ...noContacts} = hosted;
    assert.equal(relaxed.safeParse(noContacts).success, true);
    assert.deepEqual(fieldsOf(relaxed, {...noContacts, customer_email: 'not-an-email'}), [
      'customer_email',
    ]);
  });
});
