/**
 * The demo as a customer uses it, in real Chromium: the store, the checkout with
 * `<pg-card-form>`, 3-D Secure by full redirect and in a modal, the result page, declines,
 * a double click, a gateway failure with a retry, a reload of the result page, a checkout
 * with the keyboard only, and a phone-sized screen. Each test has its own order and checks
 * the gateway's side through the sandbox's inspection endpoints.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import type {Page} from 'playwright';
import {
  BASE,
  CARDS,
  chargesOf,
  checkA11y,
  createOrder,
  eventually,
  fillCard,
  finish,
  formStatus,
  gatewayPayments,
  openPage,
  payButton,
  sandboxPost,
  screenshot,
  sharedBrowser,
} from './harness.js';

const browser = sharedBrowser();

const resultHeading = (page: Page) => page.locator('#result-title');

async function expectPaidResult(page: Page, orderRef: string): Promise<void> {
  try {
    await page.waitForURL(`${BASE}/thanks?order=${orderRef}`);
  } catch (error) {
    // Say where the customer got stuck: the page, and the card form's own state.
    const form = await page
      .locator('pg-card-form')
      .evaluate(
        (el) =>
          `${(el as HTMLElement & {state: string}).state}: ${el.shadowRoot?.textContent?.replace(/\s+/g, ' ').slice(0, 300)}`,
      )
      .catch(() => 'no card form');
    throw new Error(`never reached the result page; at ${page.url()}; form ${form}`, {
      cause: error,
    });
  }
  await assertHeading(page, 'Thank you: your payment went through');
}

async function assertHeading(page: Page, text: string): Promise<void> {
  await resultHeading(page).filter({hasText: text}).waitFor();
}

describe('paying as a customer', () => {
  test('frictionless card: from the store to the result page, charged once', async () => {
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(BASE);
    await checkA11y(page, 'the store');
    await page.getByRole('button', {name: 'Buy tea sampler'}).click();
    await page.waitForURL(/\/checkout\?order=ord-[0-9a-f]{12}$/);
    const orderRef = new URL(page.url()).searchParams.get('order')!;
    await page.locator('#summary [data-field="total"]').filter({hasText: '1.20 XTS'}).waitFor();
    await payButton(page).waitFor();
    await checkA11y(page, 'the checkout');
    await fillCard(page, CARDS.success);
    await screenshot(page, 'checkout');
    await payButton(page).click();
    await expectPaidResult(page, orderRef);
    await page.locator('#summary [data-field="orderRef"]').filter({hasText: orderRef}).waitFor();
    await checkA11y(page, 'the result page (paid)');
    assert.equal(await chargesOf(orderRef), 1);
    await finish(w);
  });

  test('3-D Secure approved on the bank page (full redirect)', async () => {
    const orderRef = await createOrder('coffee-beans');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await fillCard(page, CARDS.threeDS);
    await payButton(page).click();
    await page.waitForURL(/\/sandbox\/3ds\//);
    await page.getByRole('button', {name: 'Approve'}).waitFor();
    await screenshot(page, '3ds');
    await checkA11y(page, "the sandbox's 3-D Secure page");
    await page.getByRole('button', {name: 'Approve'}).click();
    await expectPaidResult(page, orderRef);
    await screenshot(page, 'result');
    const [payment] = await gatewayPayments(orderRef);
    assert.equal(payment?.status, 'success');
    assert.equal(await chargesOf(orderRef), 1);
    await finish(w);
  });

  test('3-D Secure declined on the bank page', async () => {
    const orderRef = await createOrder('mug');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await fillCard(page, CARDS.threeDS);
    await payButton(page).click();
    await page.waitForURL(/\/sandbox\/3ds\//);
    await page.getByRole('button', {name: 'Decline'}).click();
    await page.waitForURL(`${BASE}/thanks?order=${orderRef}`);
    await assertHeading(page, 'The payment did not go through');
    await checkA11y(page, 'the result page (declined)');
    const payments = await gatewayPayments(orderRef);
    assert.deepEqual(
      payments.map((p) => p.status),
      ['failure'],
    );
    await finish(w);
  });

  test('3-D Secure in a modal window, approved, then the result page', async () => {
    const orderRef = await createOrder('tea-sampler');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await page.getByLabel('Show 3-D Secure in a window on this page').check();
    await fillCard(page, CARDS.threeDS);
    await payButton(page).click();
    const frame = page.frameLocator('pg-card-form iframe');
    await frame.getByRole('button', {name: 'Approve'}).waitFor();
    assert.equal(new URL(page.url()).pathname, '/checkout', 'the customer stays on the checkout');
    await screenshot(page, '3ds-modal');
    await frame.getByRole('button', {name: 'Approve'}).click();
    await expectPaidResult(page, orderRef);
    assert.equal(await chargesOf(orderRef), 1);
    await finish(w);
  });

  test('a declined card shows why, and nothing is charged', async () => {
    const orderRef = await createOrder('mug');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await fillCard(page, CARDS.declined);
    await payButton(page).click();
    await formStatus(page).filter({hasText: 'Your bank declined the payment.'}).waitFor();
    assert.equal(new URL(page.url()).pathname, '/checkout');
    await checkA11y(page, 'the checkout after a decline');
    assert.equal(await chargesOf(orderRef), 0);
    await finish(w);
  });

  test('a wrong security code is declined with its own message', async () => {
    const orderRef = await createOrder('mug');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await fillCard(page, CARDS.wrongCvv);
    await payButton(page).click();
    await formStatus(page).filter({hasText: 'wrong security code'}).waitFor();
    const payments = await gatewayPayments(orderRef);
    assert.deepEqual(
      payments.map((p) => [p.status, p.statusCode]),
      [['failure', '2007']],
    );
    await finish(w);
  });

  test('a double click on Pay makes one charge', async () => {
    const orderRef = await createOrder('coffee-beans');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await fillCard(page, CARDS.mastercard);
    await payButton(page).dblclick();
    await expectPaidResult(page, orderRef);
    const payments = await gatewayPayments(orderRef);
    assert.equal(payments.length, 1, 'one payment reached the gateway');
    assert.equal(await chargesOf(orderRef), 1);
    await finish(w);
  });

  test('the gateway failing once: a clear message, then a retry charges once', async () => {
    const orderRef = await createOrder('tea-sampler');
    const fault = await sandboxPost('/sandbox/faults', {
      match: {card_last4: CARDS.faulty.number.slice(-4)},
      fault: '503',
      times: 1,
    });
    assert.equal(fault.status, 201);
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await fillCard(page, CARDS.faulty);
    await payButton(page).click();
    // The outcome is unknown: the customer is told it was not confirmed and may try again
    // (never "no money was taken": the gateway may still create it). The retry re-sends the
    // create with the same order id, so it cannot charge twice.
    await formStatus(page).filter({hasText: 'could not confirm the payment'}).waitFor();
    assert.equal(await chargesOf(orderRef), 0);
    // "Try again" is one click: the security code is still in its input.
    assert.equal(
      await page.locator('input[name="cc-csc"]').inputValue(),
      CARDS.faulty.cvv,
      'the security code is kept for the retry',
    );
    await payButton(page).click();
    await expectPaidResult(page, orderRef);
    assert.equal(await chargesOf(orderRef), 1);
    await finish(w);
  });

  test('reloading the result page changes nothing', async () => {
    const orderRef = await createOrder('mug');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await fillCard(page, CARDS.success);
    await payButton(page).click();
    await expectPaidResult(page, orderRef);
    const before = await gatewayPayments(orderRef);
    for (let i = 0; i < 2; i++) {
      await page.reload();
      await assertHeading(page, 'Thank you: your payment went through');
    }
    assert.deepEqual(await gatewayPayments(orderRef), before);
    assert.equal(await chargesOf(orderRef), 1);
    await finish(w);
  });

  test('checking out with the keyboard only', async () => {
    const orderRef = await createOrder('coffee-beans');
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/checkout?order=${orderRef}`);
    await payButton(page).waitFor();
    const focusedName = () =>
      page.evaluate(() => {
        let el: Element | null = document.activeElement;
        while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
        return el?.getAttribute('name') ?? el?.id ?? el?.tagName ?? '';
      });
    for (let i = 0; i < 30 && (await focusedName()) !== 'cc-number'; i++) {
      await page.keyboard.press('Tab');
    }
    assert.equal(await focusedName(), 'cc-number', 'Tab reaches the card number');
    await page.keyboard.type(CARDS.keyboard.number);
    await page.keyboard.press('Tab');
    assert.equal(await focusedName(), 'cc-exp');
    await page.keyboard.type('1234');
    await page.keyboard.press('Tab');
    assert.equal(await focusedName(), 'cc-csc');
    await page.keyboard.type(CARDS.keyboard.cvv);
    await page.keyboard.press('Enter');
    await expectPaidResult(page, orderRef);
    assert.equal(await chargesOf(orderRef), 1);
    await finish(w);
  });

  test('on a phone-sized screen: readable, no sideways scrolling, pays', async () => {
    const w = await openPage(browser(), {
      viewport: {width: 390, height: 844},
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const {page} = w;
    const noSideways = async (what: string) => {
      const {scroll, width} = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        width: window.innerWidth,
      }));
      assert.ok(scroll <= width, `${what}: page is ${scroll}px wide in a ${width}px screen`);
    };
    await page.goto(BASE);
    await noSideways('the store');
    await page.getByRole('button', {name: 'Buy enamel mug'}).tap();
    await page.waitForURL(/\/checkout\?order=/);
    const orderRef = new URL(page.url()).searchParams.get('order')!;
    await payButton(page).waitFor();
    await noSideways('the checkout');
    await checkA11y(page, 'the checkout on a phone');
    await fillCard(page, CARDS.success);
    await payButton(page).tap();
    await expectPaidResult(page, orderRef);
    await noSideways('the result page');
    assert.equal(await chargesOf(orderRef), 1);
    await eventually(async () => (await gatewayPayments(orderRef)).length === 1, 'the payment');
    await finish(w);
  });
});
