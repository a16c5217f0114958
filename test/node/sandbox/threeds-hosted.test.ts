/**
 * The customer's side over HTTP: the 3-D Secure page (approve, decline, opened twice,
 * answered after the payment is final, the POST and GET hand-backs) and the hosted
 * checkout (paid, paid through 3DS, bad card data, left unpaid and cancelled, expired by
 * `order_timeout` on the sandbox clock). The same pages in a real browser are in
 * browser.test.ts.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {PaymentRecord} from '../../../src/server/gateway/index.js';
import {
  directRequest,
  handBackForm,
  hostedRequest,
  postForm,
  startReceiver,
  startTestSandbox,
} from './helpers.js';
import type {Receiver, TestSandbox} from './helpers.js';

const RESULT_URL = 'https://merchant.example/checkout/return?ref=42';

let t: TestSandbox;
let hooks: Receiver;
before(async () => {
  t = await startTestSandbox();
  hooks = await startReceiver(t.sandbox.credentials.apiSecret);
});
after(async () => {
  await t.close();
  await hooks.close();
});

async function pending3ds(overrides: Parameters<typeof directRequest>[0] = {}) {
  const req = directRequest({
    cc_number: '4000000000003220',
    result_url: RESULT_URL,
    server_url: hooks.url,
    ...overrides,
  });
  const res = await t.client.createPayment(req);
  const record = PaymentRecord.parse((res as {record: unknown}).record);
  assert.equal(record.status, 'pending');
  return {req, record, url: record.user_action_url!};
}

const webhooksFor = (orderId: string) =>
  hooks.received.filter((w) => w.payload.order_id === orderId);

describe('3-D Secure page', () => {
  test('shows the sandbox issuer challenge with amount and masked card, Approve and Decline', async () => {
    const {url} = await pending3ds({amount: 99.9});
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy')!, /script-src 'self'/);
    const html = await res.text();
    assert.match(html, /Gateway sandbox/);
    assert.match(html, /3-D Secure verification/);
    assert.match(html, /99\.90 UAH/);
    assert.match(html, /400000\*{6}3220/);
    assert.ok(!html.includes('4000000000003220'));
    assert.match(html, /<button[^>]*value="approve">Approve<\/button>/);
    assert.match(html, /<button[^>]*value="decline">Decline<\/button>/);
    assert.ok(!/<script>/.test(html), 'no inline script');
  });

  test('Approve makes the payment success 1000, hands back to result_url by POST and sends one webhook', async () => {
    const {req, record, url} = await pending3ds();
    const answer = await postForm(url, {decision: 'approve'});
    assert.equal(answer.status, 200);
    const form = handBackForm(answer.text)!;
    assert.equal(form.action, RESULT_URL);
    assert.deepEqual(form.fields, {order_id: req.order_id, payment_id: record.payment_id});
    assert.match(answer.text, /<script src="\/sandbox\/assets\/return.js"><\/script>/);
    assert.match(answer.text, /<button class="primary" type="submit">Continue<\/button>/);
    const after = PaymentRecord.parse(await t.client.getOperation(req.order_id, 'purchase'));
    assert.equal(after.status, 'success');
    assert.equal(after.status_code, '1000');
    assert.equal(after.eci, '05');
    assert.ok(after.cc_token);
    await t.sandbox.webhooksIdle();
    assert.deepEqual(
      webhooksFor(req.order_id).map((w) => w.payload.status),
      ['pending', 'success'],
    );
  });

  test('Decline makes the payment failure 2123 and hands back too', async () => {
    const {req, url} = await pending3ds();
    const answer = await postForm(url, {decision: 'decline'});
    assert.ok(handBackForm(answer.text));
    const after = await t.client.getOperation(req.order_id, 'purchase');
    assert.equal(after.status, 'failure');
    assert.equal(after.status_code, '2123');
    await t.sandbox.webhooksIdle();
    assert.deepEqual(
      webhooksFor(req.order_id).map((w) => w.payload.status),
      ['pending', 'failure'],
    );
  });

  test('Approve of an auth holds (1002)', async () => {
    const {req, url} = await pending3ds({method: 'auth'});
    await postForm(url, {decision: 'approve'});
    const after = await t.client.getOperation(req.order_id, 'auth');
    assert.equal(after.status_code, '1002');
  });

  test('a page opened twice says so; the second answer changes nothing and sends no webhook', async () => {
    const {req, url} = await pending3ds();
    const first = await (await fetch(url)).text();
    assert.doesNotMatch(first, /opened before/);
    const second = await (await fetch(url)).text();
    assert.match(second, /This challenge was opened before\. Only the first answer counts\./);
    await postForm(url, {decision: 'approve'});
    const late = await postForm(url, {decision: 'decline'});
    assert.equal(handBackForm(late.text), undefined);
    assert.match(late.text, /already completed/);
    assert.match(late.text, /Nothing was changed/);
    const after = await t.client.getOperation(req.order_id, 'purchase');
    assert.equal(after.status, 'success');
    await t.sandbox.webhooksIdle();
    assert.equal(webhooksFor(req.order_id).filter((w) => w.payload.status !== 'pending').length, 1);
  });

  test('the page opened after the payment is final says so and shows no buttons', async () => {
    const {url} = await pending3ds();
    await postForm(url, {decision: 'decline'});
    const html = await (await fetch(url)).text();
    assert.match(html, /already completed/);
    assert.doesNotMatch(html, /<button/);
  });

  test('an unknown payment or a decision other than approve/decline is refused', async () => {
    const unknown = await fetch(
      `${t.sandbox.url}/sandbox/3ds/00000000-0000-4000-8000-000000000000`,
    );
    assert.equal(unknown.status, 404);
    const {url} = await pending3ds();
    const bad = await postForm(url, {decision: 'maybe'});
    assert.equal(bad.status, 400);
  });

  test('without result_url the page says the payment finished and there is nowhere to return', async () => {
    const {url} = await pending3ds({result_url: undefined});
    const answer = await postForm(url, {decision: 'approve'});
    assert.match(answer.text, /No result_url was given/);
    assert.equal(handBackForm(answer.text), undefined);
  });

  test('returnMethod GET hands back with a 303 to result_url carrying order_id and payment_id', async () => {
    const g = await startTestSandbox({returnMethod: 'GET'});
    try {
      const req = directRequest({cc_number: '4000000000003220', result_url: RESULT_URL});
      const res = await g.client.createPayment(req);
      const record = PaymentRecord.parse((res as {record: unknown}).record);
      const answer = await postForm(record.user_action_url!, {decision: 'approve'});
      assert.equal(answer.status, 303);
      const location = new URL(answer.headers.get('location')!);
      assert.equal(location.origin + location.pathname, 'https://merchant.example/checkout/return');
      assert.equal(location.searchParams.get('ref'), '42');
      assert.equal(location.searchParams.get('order_id'), req.order_id);
      assert.equal(location.searchParams.get('payment_id'), record.payment_id);
    } finally {
      await g.close();
    }
  });
});

describe('hosted checkout', () => {
  async function hosted(overrides: Parameters<typeof hostedRequest>[0] = {}) {
    const req = hostedRequest({result_url: RESULT_URL, server_url: hooks.url, ...overrides});
    const res = await t.client.createPayment(req);
    assert.equal(res.kind, 'hosted');
    return {req, checkoutUrl: (res as {checkoutUrl: string}).checkoutUrl};
  }

  test('the checkout page shows the order, a labelled card form and a way back unpaid', async () => {
    const {checkoutUrl} = await hosted({amount: 15.5, description: 'Two <b>mugs</b>'});
    const html = await (await fetch(checkoutUrl)).text();
    assert.match(html, /Pay 15\.50 UAH/);
    assert.match(html, /Two &lt;b&gt;mugs&lt;\/b&gt;/);
    for (const [id, name, autocomplete] of [
      ['cc-number', 'cc_number', 'cc-number'],
      ['cc-exp-month', 'exp_month', 'cc-exp-month'],
      ['cc-exp-year', 'exp_year', 'cc-exp-year'],
      ['cc-csc', 'card_cvv', 'cc-csc'],
    ]) {
      assert.match(html, new RegExp(`<label for="${id}">`));
      assert.match(
        html,
        new RegExp(`<input id="${id}" name="${name}" autocomplete="${autocomplete}"`),
      );
    }
    assert.match(
      html,
      /<a href="https:\/\/merchant\.example\/checkout\/return\?ref=42">Return to merchant<\/a>/,
    );
  });

  test('paying with a test card succeeds, hands back to result_url and sends the webhook', async () => {
    const {req, checkoutUrl} = await hosted();
    const before = t.sandbox.chargeCount();
    const answer = await postForm(checkoutUrl, {
      cc_number: '4242 4242 4242 4242',
      exp_month: '12',
      exp_year: '2031',
      card_cvv: '123',
    });
    assert.equal(handBackForm(answer.text)?.fields['order_id'], req.order_id);
    const record = PaymentRecord.parse(await t.client.getOperation(req.order_id, 'purchase'));
    assert.equal(record.status, 'success');
    assert.equal(record.cc_mask, '424242******4242');
    assert.equal(t.sandbox.chargeCount(), before + 1);
    await t.sandbox.webhooksIdle();
    assert.deepEqual(
      webhooksFor(req.order_id).map((w) => w.payload.status),
      ['success'],
    );
    const again = await (await fetch(checkoutUrl)).text();
    assert.match(again, /already completed/);
  });

  test('a declining card ends the hosted payment in failure', async () => {
    const {req, checkoutUrl} = await hosted();
    await postForm(checkoutUrl, {
      cc_number: '4000000000009995',
      exp_month: '12',
      exp_year: '2031',
      card_cvv: '123',
    });
    const record = await t.client.getOperation(req.order_id, 'purchase');
    assert.equal(record.status_code, '5105');
  });

  test('the 3DS card goes through the 3DS page before the hand-back', async () => {
    const {req, checkoutUrl} = await hosted({method: 'auth'});
    const answer = await postForm(checkoutUrl, {
      cc_number: '4000000000003220',
      exp_month: '12',
      exp_year: '2031',
      card_cvv: '123',
    });
    assert.equal(answer.status, 303);
    const threeDs = new URL(answer.headers.get('location')!, t.sandbox.url).href;
    assert.match(threeDs, /\/sandbox\/3ds\//);
    const approved = await postForm(threeDs, {decision: 'approve'});
    assert.ok(handBackForm(approved.text));
    const record = await t.client.getOperation(req.order_id, 'auth');
    assert.equal(record.status_code, '1002');
  });

  test('bad card data re-shows the form with an error, echoes nothing and changes nothing', async () => {
    const {req, checkoutUrl} = await hosted();
    const answer = await postForm(checkoutUrl, {
      cc_number: '4242424242424241',
      exp_month: '12',
      exp_year: '2031',
      card_cvv: '123',
    });
    assert.equal(answer.status, 422);
    assert.match(answer.text, /role="alert">The card number is not valid/);
    assert.ok(!answer.text.includes('4242424242424241'));
    const expired = await postForm(checkoutUrl, {
      cc_number: '4242424242424242',
      exp_month: '1',
      exp_year: '2001',
      card_cvv: '123',
    });
    assert.match(expired.text, /The card has expired/);
    assert.equal((await t.client.getOperation(req.order_id, 'purchase')).status, 'init');
  });

  test('left unpaid it stays init and can be cancelled (6007, with a webhook)', async () => {
    const {req, checkoutUrl} = await hosted();
    await fetch(checkoutUrl);
    assert.equal((await t.client.getOperation(req.order_id, 'purchase')).status, 'init');
    const cancelled = await t.client.cancelOrder(req.order_id);
    assert.equal(cancelled.status, 'failure');
    assert.equal(cancelled.status_code, '6007');
    await t.sandbox.webhooksIdle();
    assert.deepEqual(
      webhooksFor(req.order_id).map((w) => w.payload.status_code),
      ['6007'],
    );
    const paid = await postForm(checkoutUrl, {
      cc_number: '4242424242424242',
      exp_month: '12',
      exp_year: '2031',
      card_cvv: '123',
    });
    assert.match(paid.text, /already completed/);
    assert.equal((await t.client.getOperation(req.order_id, 'purchase')).status_code, '6007');
  });

  test('order_timeout expires an unpaid hosted order on the sandbox clock (6009, with a webhook)', async () => {
    const m = await startTestSandbox({
      clock: {manual: true, start: new Date('2027-03-01T10:00:00Z')},
    });
    const receiver = await startReceiver(m.sandbox.credentials.apiSecret);
    try {
      const unpaid = hostedRequest({order_timeout: 600, server_url: receiver.url});
      const paid = hostedRequest({order_timeout: 600, server_url: receiver.url});
      await m.client.createPayment(unpaid);
      const created = await m.client.createPayment(paid);
      await postForm((created as {checkoutUrl: string}).checkoutUrl, {
        cc_number: '4242424242424242',
        exp_month: '12',
        exp_year: '2031',
        card_cvv: '123',
      });
      await m.sandbox.clock.advance(599_000);
      assert.equal((await m.client.getOperation(unpaid.order_id, 'purchase')).status, 'init');
      await m.sandbox.clock.advance(1_000);
      const expired = await m.client.getOperation(unpaid.order_id, 'purchase');
      assert.equal(expired.status, 'failure');
      assert.equal(expired.status_code, '6009');
      assert.equal(expired.processing_time, '2027-03-01T10:10:00.000');
      assert.equal((await m.client.getOperation(paid.order_id, 'purchase')).status, 'success');
      assert.deepEqual(
        receiver.received
          .filter((w) => w.payload.order_id === unpaid.order_id)
          .map((w) => w.payload.status_code),
        ['6009'],
      );
    } finally {
      await m.close();
      await receiver.close();
    }
  });
});
