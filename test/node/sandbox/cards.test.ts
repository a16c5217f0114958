/**
 * Test cards and money movements: each documented card's outcome, any other valid card,
 * card tokens (plain and `rcr:`), auth holds with partial capture, void, and partial
 * refunds up to the original amount, with over-limit requests refused and `chargeCount`
 * following the money.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  GatewayValidationError,
  OperationRecord,
  PaymentRecord,
} from '../../../src/server/gateway/index.js';
import type {PaymentRecord as PaymentRecordType} from '../../../src/server/gateway/index.js';
import {TEST_CARDS} from '../../../sandbox/index.js';
import {directRequest, raw, startTestSandbox, wireBody} from './helpers.js';
import type {TestSandbox} from './helpers.js';

let t: TestSandbox;
before(async () => {
  t = await startTestSandbox();
});
after(() => t.close());

async function pay(
  overrides: Parameters<typeof directRequest>[0] = {},
): Promise<PaymentRecordType> {
  const res = await t.client.createPayment(directRequest(overrides));
  assert.equal(res.kind, 'direct');
  return PaymentRecord.parse((res as {record: unknown}).record);
}

const expectCode = async (promise: Promise<unknown>, code: string) =>
  assert.rejects(
    promise,
    (e: unknown) => e instanceof GatewayValidationError && e.gatewayCode === code,
  );

describe('test cards', () => {
  const expected: Record<string, {status: string; code: string}> = {
    '4242424242424242': {status: 'success', code: '1000'},
    '5454545454545454': {status: 'success', code: '1000'},
    '4000000000003220': {status: 'pending', code: '2122'},
    '4000000000000002': {status: 'failure', code: '5152'},
    '4000000000009995': {status: 'failure', code: '5105'},
    '4000000000000127': {status: 'failure', code: '2007'},
  };
  test('the documented table matches the outcomes below', () => {
    assert.deepEqual(
      Object.fromEntries(TEST_CARDS.map((c) => [c.number, {status: c.status, code: c.statusCode}])),
      expected,
    );
  });

  for (const [number, outcome] of Object.entries(expected)) {
    test(`card ${number} ends ${outcome.status} ${outcome.code}`, async () => {
      const before = t.sandbox.chargeCount();
      const r = await pay({cc_number: number});
      assert.equal(r.status, outcome.status);
      assert.equal(r.status_code, outcome.code);
      assert.ok(r.status_description);
      assert.equal(r.cc_mask, `${number.slice(0, 6)}******${number.slice(-4)}`);
      assert.equal(t.sandbox.chargeCount() - before, outcome.status === 'success' ? 1 : 0);
      if (outcome.status === 'pending') {
        assert.equal(r.user_action_required, true);
        assert.equal(r.user_action_url, `${t.sandbox.url}/sandbox/3ds/${r.payment_id}`);
      } else {
        assert.equal(r.user_action_required, false);
        assert.equal(r.user_action_url ?? null, null);
      }
      assert.equal(r.cc_token != null, outcome.status === 'success');
    });
  }

  test('any other Luhn-valid card succeeds', async () => {
    const r = await pay({cc_number: '4111111111111111'});
    assert.equal(r.status, 'success');
    assert.equal(r.status_code, '1000');
  });

  test('external 3-D Secure results skip the challenge of the 3DS card', async () => {
    const r = await pay({
      cc_number: '4000000000003220',
      three_d_secure: {
        cavv: 'AAAB',
        eci: '05',
        ds_transaction_id: 'ds-1',
        status: 'Y',
        version: '2.2.0',
      },
    });
    assert.equal(r.status, 'success');
    assert.equal(r.eci, '05');
  });
});

/** A direct request paying with `cc_token` instead of card data. */
const byToken = (cc_token: string) => ({
  cc_number: undefined,
  exp_month: undefined,
  exp_year: undefined,
  card_cvv: undefined,
  cc_token,
});

describe('card tokens', () => {
  test('a token from a successful payment charges the same card, with or without rcr:', async () => {
    const first = await pay({cc_number: '5454545454545454'});
    const token = first.cc_token!;
    for (const cc_token of [token, `rcr:${token}`]) {
      const r = await pay({
        cc_number: undefined,
        exp_month: undefined,
        exp_year: undefined,
        card_cvv: undefined,
        cc_token,
      });
      assert.equal(r.status, 'success');
      assert.equal(r.cc_mask, '545454******5454');
    }
  });

  test('an unknown token is a 400 P-470 naming cc_token', async () => {
    const res = await raw(t.sandbox, 'POST', '/api/v1/payment', {
      body: wireBody(t.sandbox, {
        cc_number: undefined,
        exp_month: undefined,
        exp_year: undefined,
        card_cvv: undefined,
        cc_token: 'not-a-token',
      }),
    });
    assert.equal(res.status, 400);
    assert.match(res.text, /cc_token/);
    assert.match(res.text, /P-470/);
  });

  test('a token carries its expiry: the last second of the card month', async () => {
    const year = new Date().getUTCFullYear() + 2;
    const r = await pay({cc_number: '4242424242424242', exp_month: 2, exp_year: year});
    assert.equal(r.cc_token_expiration, `${year}-02-${year % 4 === 0 ? 29 : 28}T23:59:59`);
  });

  test('the 3-D Secure card is challenged again when it pays by token', async () => {
    const first = await pay({
      cc_number: '4000000000003220',
      three_d_secure: {
        cavv: 'AAAB',
        eci: '05',
        ds_transaction_id: 'ds-t',
        status: 'Y',
        version: '2.2.0',
      },
    });
    assert.equal(first.status, 'success');
    const again = await pay(byToken(first.cc_token!));
    assert.equal(again.status, 'pending');
    assert.equal(again.status_code, '2122');
    assert.ok(again.user_action_url);
  });
});

describe('expired tokens', () => {
  test('a token is refused with 400 P-471 once its expiry has passed on the sandbox clock', async () => {
    const now = new Date();
    const s = await startTestSandbox({clock: {manual: true, start: now}});
    try {
      const month = now.getUTCMonth() + 1;
      const res = await s.client.createPayment(
        directRequest({
          cc_number: '4242424242424242',
          exp_month: month,
          exp_year: now.getUTCFullYear(),
        }),
      );
      const token = PaymentRecord.parse((res as {record: unknown}).record).cc_token!;
      const ok = await s.client.createPayment(directRequest(byToken(token)));
      assert.equal(PaymentRecord.parse((ok as {record: unknown}).record).status, 'success');
      await s.sandbox.clock.advance(32 * 24 * 3600 * 1000);
      const late = await raw(s.sandbox, 'POST', '/api/v1/payment', {
        body: wireBody(s.sandbox, byToken(token)),
      });
      assert.equal(late.status, 400);
      assert.match(late.text, /P-471/);
      assert.match(late.text, /cc_token/);
    } finally {
      await s.close();
    }
  });
});

describe('token expiry at the end of the card month', () => {
  test('the token pays through the last second of its month and is refused from the next', async () => {
    // The sandbox's local time is UTC: a card expiring 03/2031, paid on its last day.
    const lastSecond = new Date(Date.UTC(2031, 2, 31, 23, 59, 59));
    const s = await startTestSandbox({clock: {manual: true, start: lastSecond}});
    try {
      const res = await s.client.createPayment(
        directRequest({cc_number: '4242424242424242', exp_month: 3, exp_year: 2031}),
      );
      const first = PaymentRecord.parse((res as {record: unknown}).record);
      assert.equal(first.cc_token_expiration, '2031-03-31T23:59:59');
      await s.sandbox.clock.advance(999); // 23:59:59.999: still the named second
      const late = await s.client.createPayment(directRequest(byToken(first.cc_token!)));
      assert.equal(PaymentRecord.parse((late as {record: unknown}).record).status, 'success');
      await s.sandbox.clock.advance(1); // 1 April, 00:00:00.000
      const next = await raw(s.sandbox, 'POST', '/api/v1/payment', {
        body: wireBody(s.sandbox, byToken(first.cc_token!)),
      });
      assert.equal(next.status, 400);
      assert.match(next.text, /P-471/);
    } finally {
      await s.close();
    }
  });
});

describe('auth, capture, void, refund', () => {
  test('auth holds (1002) without charging; a partial capture charges once', async () => {
    const before = t.sandbox.chargeCount();
    const auth = await pay({method: 'auth', amount: 12.5});
    assert.equal(auth.status, 'success');
    assert.equal(auth.status_code, '1002');
    assert.equal(t.sandbox.chargeCount(), before);
    const capture = OperationRecord.parse(
      await t.client.capture({order_id: auth.order_id!, order_currency: 'UAH', order_amount: 7.25}),
    );
    assert.equal(capture.method, 'capture');
    assert.equal(capture.amount, 7.25);
    assert.equal(capture.status, 'success');
    assert.equal(capture.payment_id, auth.payment_id);
    assert.ok(capture.operation_id);
    assert.equal(t.sandbox.chargeCount(), before + 1);
    const p = t.sandbox.payments().find((x) => x.orderId === auth.order_id)!;
    assert.equal(p.capturedAmount, 7.25);
    assert.equal(p.heldAmount, 0);
  });

  test('capture over the held amount, a second capture and a capture of a purchase are refused', async () => {
    const auth = await pay({method: 'auth', amount: 10});
    await expectCode(
      t.client.capture({order_id: auth.order_id!, order_currency: 'UAH', order_amount: 10.01}),
      'P-431',
    );
    await t.client.capture({order_id: auth.order_id!, order_currency: 'UAH'});
    await expectCode(t.client.capture({order_id: auth.order_id!, order_currency: 'UAH'}), 'P-430');
    const purchase = await pay();
    await expectCode(
      t.client.capture({order_id: purchase.order_id!, order_currency: 'UAH'}),
      'P-430',
    );
    const declined = await pay({method: 'auth', cc_number: '4000000000000002'});
    await expectCode(
      t.client.capture({order_id: declined.order_id!, order_currency: 'UAH'}),
      'P-430',
    );
  });

  test('void releases a hold; nothing can be captured, voided or refunded after it', async () => {
    const before = t.sandbox.chargeCount();
    const auth = await pay({method: 'auth', amount: 30});
    const v = OperationRecord.parse(
      await t.client.void({order_id: auth.order_id!, order_currency: 'UAH'}),
    );
    assert.equal(v.method, 'void');
    assert.equal(v.amount, 30);
    assert.equal(v.status, 'success');
    await expectCode(t.client.capture({order_id: auth.order_id!, order_currency: 'UAH'}), 'P-430');
    await expectCode(t.client.void({order_id: auth.order_id!, order_currency: 'UAH'}), 'P-440');
    await expectCode(t.client.refund({order_id: auth.order_id!, order_currency: 'UAH'}), 'P-450');
    assert.equal(t.sandbox.chargeCount(), before);
  });

  test('void of a purchase or of a captured auth is refused', async () => {
    const purchase = await pay();
    await expectCode(t.client.void({order_id: purchase.order_id!, order_currency: 'UAH'}), 'P-440');
    const auth = await pay({method: 'auth'});
    await t.client.capture({order_id: auth.order_id!, order_currency: 'UAH'});
    await expectCode(t.client.void({order_id: auth.order_id!, order_currency: 'UAH'}), 'P-440');
  });

  test('several partial refunds (1004) up to the purchase amount; one cent more is refused', async () => {
    const purchase = await pay({amount: 12.5});
    const amounts = [5, 5, 2.49];
    for (const refund_amount of amounts) {
      const r = OperationRecord.parse(
        await t.client.refund({order_id: purchase.order_id!, order_currency: 'UAH', refund_amount}),
      );
      assert.equal(r.method, 'refund');
      assert.equal(r.status_code, '1004');
      assert.equal(r.amount, refund_amount);
    }
    await expectCode(
      t.client.refund({order_id: purchase.order_id!, order_currency: 'UAH', refund_amount: 0.02}),
      'P-451',
    );
    const last = OperationRecord.parse(
      await t.client.refund({order_id: purchase.order_id!, order_currency: 'UAH'}),
    );
    assert.equal(last.amount, 0.01);
    await expectCode(
      t.client.refund({order_id: purchase.order_id!, order_currency: 'UAH'}),
      'P-451',
    );
    const order = await t.client.getOrder(purchase.order_id!);
    assert.deepEqual(
      order.map((r) => r.method),
      ['purchase', 'refund', 'refund', 'refund', 'refund'],
    );
    const latest = OperationRecord.parse(await t.client.getOperation(purchase.order_id!, 'refund'));
    assert.equal(latest.amount, 0.01);
  });

  test('a refund after capture is limited to the captured amount', async () => {
    const auth = await pay({method: 'auth', amount: 20});
    await t.client.capture({order_id: auth.order_id!, order_currency: 'UAH', order_amount: 8});
    await expectCode(
      t.client.refund({order_id: auth.order_id!, order_currency: 'UAH', refund_amount: 8.01}),
      'P-451',
    );
    const r = await t.client.refund({
      order_id: auth.order_id!,
      order_currency: 'UAH',
      refund_amount: 8,
    });
    assert.equal(r.amount, 8);
  });

  test('refunds of a held auth, a decline and a pending payment are refused', async () => {
    const auth = await pay({method: 'auth'});
    await expectCode(t.client.refund({order_id: auth.order_id!, order_currency: 'UAH'}), 'P-450');
    const declined = await pay({cc_number: '4000000000009995'});
    await expectCode(
      t.client.refund({order_id: declined.order_id!, order_currency: 'UAH'}),
      'P-450',
    );
    const pending = await pay({cc_number: '4000000000003220'});
    await expectCode(
      t.client.refund({order_id: pending.order_id!, order_currency: 'UAH'}),
      'P-450',
    );
  });

  test('a secondary operation in another currency is refused with P-460', async () => {
    const purchase = await pay();
    await expectCode(
      t.client.refund({order_id: purchase.order_id!, order_currency: 'USD'}),
      'P-460',
    );
  });

  test('amounts stay exact in minor units (0.1 + 0.2 style sums never drift)', async () => {
    const purchase = await pay({amount: 0.3});
    await t.client.refund({
      order_id: purchase.order_id!,
      order_currency: 'UAH',
      refund_amount: 0.1,
    });
    await t.client.refund({
      order_id: purchase.order_id!,
      order_currency: 'UAH',
      refund_amount: 0.2,
    });
    await expectCode(
      t.client.refund({order_id: purchase.order_id!, order_currency: 'UAH', refund_amount: 0.01}),
      'P-451',
    );
    assert.equal(
      t.sandbox.payments().find((p) => p.orderId === purchase.order_id)!.refundedAmount,
      0.3,
    );
  });
});
