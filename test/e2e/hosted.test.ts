/**
 * "Pay on the gateway's page" (hosted mode) as a customer: the companion creates the
 * hosted payment and the browser follows the 303 to the gateway's checkout page. Paid
 * there, the customer comes back to the result page; left unpaid, the order stays open
 * until the merchant cancels it in the back office, which the gateway then reports.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE,
  CARDS,
  chargesOf,
  checkA11y,
  createOrder,
  eventually,
  finish,
  gatewayPayments,
  login,
  openPage,
  sharedBrowser,
} from './harness.js';

const browser = sharedBrowser();

describe('paying on the gateway page (hosted)', () => {
  test('hosted: paid on the gateway page, back on the result page', async () => {
    const orderRef = await createOrder('coffee-beans');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await page.getByRole('button', {name: "Pay on the gateway's page"}).click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    const [created] = await gatewayPayments(orderRef);
    assert.equal(created?.mode, 'hosted');
    assert.equal(created?.status, 'init');
    await checkA11y(page, "the sandbox's hosted checkout page");
    await page.getByLabel('Card number').fill(CARDS.success.number);
    await page.getByLabel('Month').fill('12');
    await page.getByLabel('Year').fill('2034');
    await page.getByLabel('CVV').fill(CARDS.success.cvv);
    await page.getByRole('button', {name: /^Pay /}).click();
    await page.waitForURL(`${BASE}/thanks?order=${orderRef}`);
    await page.locator('#result-title').filter({hasText: 'your payment went through'}).waitFor();
    assert.equal(await chargesOf(orderRef), 1);
    await finish(w);
  });

  test('hosted: left unpaid, then cancelled from the back office', async () => {
    const orderRef = await createOrder('tea-sampler');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await page.getByRole('button', {name: "Pay on the gateway's page"}).click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    await page.getByRole('link', {name: 'Return to merchant'}).click();
    await page.waitForURL(`${BASE}/thanks?order=${orderRef}`);
    assert.deepEqual(
      (await gatewayPayments(orderRef)).map((p) => p.status),
      ['init'],
    );

    // The merchant cancels it.
    const admin = await openPage(browser());
    await login(admin.page);
    await admin.page.goto(`${BASE}/admin?order=${orderRef}`);
    await admin.page.locator('body[data-ready="true"]').waitFor();
    await admin.page.getByRole('button', {name: 'Cancel unpaid order'}).click();
    await eventually(
      async () => (await gatewayPayments(orderRef))[0]?.statusCode === '6007',
      'the gateway to cancel the order',
    );
    await admin.page.locator('[data-attempt] .badge--failure').first().waitFor();
    await checkA11y(admin.page, 'the back office order detail');
    await finish(admin);

    // The customer's result page learns it from the server.
    await page.reload();
    await page.locator('#result-title').filter({hasText: 'did not go through'}).waitFor();
    assert.equal(await chargesOf(orderRef), 0);
    await finish(w);
  });
});
