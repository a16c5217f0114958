/**
 * A customer cancels the 3-D Secure challenge in real Chromium, pays at once with another
 * card, and the first challenge is then completed anyway (in another tab, say): the form
 * never strands the customer, and the order keeps exactly one payment — the later success
 * is refunded automatically, and the back office's API shows it.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {
  ADMIN_TOKEN,
  BASE,
  CARDS,
  createOrder,
  eventually,
  fillCard,
  finish,
  formStatus,
  gatewayPayments,
  openPage,
  payButton,
  sharedBrowser,
} from './harness.js';

const browser = sharedBrowser();

test('3-D Secure cancelled with Escape, another card paid, the first challenge completed later: one payment kept', async () => {
  const orderRef = await createOrder('tea-sampler');
  const w = await openPage(browser());
  const {page} = w;
  await page.goto(`${BASE}/checkout?order=${orderRef}`);
  await page.getByLabel('Show 3-D Secure in a window on this page').check();
  await fillCard(page, CARDS.threeDS);
  await payButton(page).click();
  const frame = page.frameLocator('pg-card-form iframe');
  await frame.getByRole('button', {name: 'Approve'}).waitFor();
  const challenge = await page.locator('pg-card-form iframe').getAttribute('src');
  assert.ok(challenge);

  // The customer changes their mind: Escape closes the challenge, and the form says the
  // payment was cancelled and may be made again — at once, not after a minute.
  await page.keyboard.press('Escape');
  await formStatus(page).filter({hasText: 'Payment cancelled'}).waitFor({timeout: 10_000});

  // Another card, straight away.
  await fillCard(page, CARDS.success);
  await payButton(page).click();
  await page.waitForURL(`${BASE}/thanks?order=${orderRef}`);

  // The first challenge is completed after all.
  const approved = await fetch(challenge, {
    method: 'POST',
    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({decision: 'approve'}).toString(),
    redirect: 'manual',
  });
  assert.ok(approved.status < 400);

  // Both were charged at the gateway; the later success is refunded automatically.
  const payments = await eventually(async () => {
    const list = await gatewayPayments(orderRef);
    const success = list.filter((p) => p.status === 'success');
    return success.length === 2 && success.some((p) => p.refundedAmount > 0) ? success : undefined;
  }, 'the automatic refund of the double charge');
  const kept = payments.map((p) => Math.round((p.amount - p.refundedAmount) * 100));
  assert.deepEqual(kept.sort(), [0, 120], 'one payment of 1.20 kept, the other refunded in full');
  const refunded = payments.find((p) => p.refundedAmount > 0)!;

  // The back office's order detail lists the automatic refund.
  const detail = (await (
    await fetch(`${BASE}/admin/api/orders/${orderRef}`, {
      headers: {Authorization: `Bearer ${ADMIN_TOKEN}`},
    })
  ).json()) as {
    intents: {reason: string; kind: string; state: string; gatewayOrderId: string}[];
    attempts: {gatewayOrderId: string; writtenOff?: string}[];
  };
  assert.deepEqual(
    detail.intents.map((i) => [i.reason, i.kind, i.state, i.gatewayOrderId]),
    [['duplicate_charge', 'refund', 'success', refunded.orderId]],
  );
  assert.equal(detail.attempts[0]!.writtenOff, 'abandoned');
  assert.equal(detail.attempts[0]!.gatewayOrderId, refunded.orderId, 'the abandoned one');
  await finish(w);
});
