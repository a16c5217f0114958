/**
 * The back office as a merchant uses it, in real Chromium: sign-in, orders with every
 * gateway transaction, refunds (partial and full), capture and void of held payments, the
 * webhook log (signature results, duplicates, resend), transactions over a period, a
 * register (not ready first, then viewed and downloaded), and subscriptions whose charges
 * arrive as the sandbox clock moves, filtered, then cancelled. After each action the
 * gateway's own state is checked through the sandbox's inspection endpoints.
 *
 * The orders are paid through the checkout companion's pay route (what `<pg-card-form>`
 * sends); paying in the browser is what customer.test.ts covers.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import type {Page} from 'playwright';
import {
  ADMIN_TOKEN,
  BASE,
  CARDS,
  SANDBOX,
  checkA11y,
  createOrder,
  eventually,
  finish,
  gatewayPayments,
  login,
  openPage,
  screenshot,
  sharedBrowser,
  type Card,
  type Watched,
} from './harness.js';

let admin: Watched;
const browser = sharedBrowser();

/** Pays an order as `<pg-card-form>` would, through the companion's pay route. */
async function pay(productId: string, card: Card = CARDS.success): Promise<string> {
  const orderRef = await createOrder(productId);
  const res = await fetch(`${BASE}/api/checkout/pay`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Origin: BASE,
      'X-PG-Checkout': '1',
      'User-Agent': 'Mozilla/5.0 (e2e)',
    },
    body: JSON.stringify({
      orderRef,
      attemptId: `e2e-${orderRef}`,
      card: {number: card.number, expMonth: 12, expYear: 2034, cvv: card.cvv},
      fingerprint: {
        browserColorDepth: '24',
        browserScreenHeight: '800',
        browserScreenWidth: '1000',
        browserJavaEnabled: 'false',
        browserLanguage: 'en-US',
        browserTimeZone: 'UTC',
        browserTimeZoneOffset: '0',
        browserUserAgent: 'Mozilla/5.0 (e2e)',
      },
    }),
  });
  const body = (await res.json()) as {outcome: string};
  assert.equal(body.outcome, 'success', JSON.stringify(body));
  return orderRef;
}

/** Opens a section of the back office with a fresh load (a hash change alone would not reload it). */
async function openSection(page: Page, section: string): Promise<void> {
  await page.goto(`${BASE}/admin?section=${section}#${section}`);
  await page.locator('body[data-ready="true"]').waitFor();
}

async function openOrder(page: Page, orderRef: string): Promise<void> {
  await page.goto(`${BASE}/admin?order=${orderRef}`);
  await page.locator('body[data-ready="true"]').waitFor();
  await page.locator('#detail-title').filter({hasText: orderRef}).waitFor();
}

const attempt = (page: Page) => page.locator('[data-attempt]').first();

async function gatewayOrderIdOf(orderRef: string): Promise<string> {
  const [p] = await gatewayPayments(orderRef);
  assert.ok(p, 'the gateway has the payment');
  return p.orderId;
}

describe('the back office', () => {
  let refunded: string;

  test('sign-in: a wrong token is refused; the session cookie is HttpOnly and SameSite=Strict', async () => {
    const w = await openPage(browser());
    const {page} = w;
    await page.goto(`${BASE}/admin`);
    await page.waitForURL(`${BASE}/admin/login`);
    await checkA11y(page, 'the sign-in page');
    await page.getByLabel('Admin token').fill('not-the-token-at-all');
    await page.getByRole('button', {name: 'Sign in'}).click();
    await page.getByRole('alert').filter({hasText: 'That token is not right.'}).waitFor();
    const denied = await fetch(`${BASE}/admin/api/orders`);
    assert.equal(denied.status, 403);
    await login(page);
    const [cookie] = await w.context.cookies();
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    assert.notEqual(cookie?.value, ADMIN_TOKEN, 'the token itself is not the cookie');
    await checkA11y(page, 'the back office');
    await finish(w);
    admin = await openPage(browser());
    await login(admin.page);
  });

  test('an order with every gateway transaction; partial, then full refund', async () => {
    const {page} = admin;
    const orderRef = await pay('mug');
    refunded = orderRef;
    await openOrder(page, orderRef);
    await attempt(page).getByRole('cell', {name: 'purchase'}).waitFor();
    await page.getByLabel('Refund amount').fill('0.50');
    await page.getByRole('button', {name: 'Refund'}).click();
    await eventually(
      async () => (await gatewayPayments(orderRef))[0]?.refundedAmount === 0.5,
      'the partial refund at the gateway',
    );
    await attempt(page).getByRole('cell', {name: 'refund'}).first().waitFor();
    await screenshot(page, 'back-office');
    await checkA11y(page, 'the back office order detail');
    await page.getByLabel('Refund amount').fill('');
    await page.getByRole('button', {name: 'Refund'}).click();
    await eventually(
      async () => (await gatewayPayments(orderRef))[0]?.refundedAmount === 1.5,
      'the rest refunded at the gateway',
    );
    await eventually(
      async () => (await attempt(page).getByRole('cell', {name: 'refund'}).count()) === 2,
      'both refunds listed',
    );
  });

  test('a held payment captured in part; another one voided', async () => {
    const {page} = admin;
    const held = await pay('grinder-rental');
    await openOrder(page, held);
    await page.getByLabel('Capture amount').fill('1.00');
    await page.getByRole('button', {name: 'Capture'}).click();
    await eventually(async () => {
      const [p] = await gatewayPayments(held);
      return p?.capturedAmount === 1 && p.method === 'auth';
    }, 'the capture at the gateway');
    await attempt(page).getByRole('cell', {name: 'capture'}).waitFor();

    const voided = await pay('grinder-rental');
    await openOrder(page, voided);
    await page.getByRole('button', {name: 'Void'}).click();
    await eventually(async () => {
      const [p] = await gatewayPayments(voided);
      return p?.operations.some((o) => o.method === 'void' && o.status === 'success');
    }, 'the void at the gateway');
    await attempt(page).getByRole('cell', {name: 'void'}).waitFor();
    assert.equal((await gatewayPayments(voided))[0]?.capturedAmount, 0);
  });

  test('the webhook log: signatures checked, duplicates marked, a webhook resent', async () => {
    const {page} = admin;
    const gatewayOrderId = await gatewayOrderIdOf(refunded);
    const forged = await fetch(`${BASE}/api/checkout/webhook`, {
      method: 'POST',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({
        data: Buffer.from(JSON.stringify({order_id: gatewayOrderId, status: 'success'})).toString(
          'base64url',
        ),
        signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      }),
    });
    assert.equal(forged.status, 403);
    await openOrder(page, refunded);
    await page.getByRole('button', {name: 'Resend webhook'}).click();
    await eventually(async () => {
      const log = (await (await fetch(`${SANDBOX}/sandbox/webhooks`)).json()) as {
        resend: boolean;
        ok: boolean;
        summary: {order_id?: string};
      }[];
      return log.some((d) => d.resend && d.ok && d.summary.order_id === gatewayOrderId);
    }, 'the resent webhook delivered');
    await page.getByRole('button', {name: 'Refresh'}).nth(1).click();
    const rows = page.locator(`#webhooks-table tr[data-webhook-order="${gatewayOrderId}"]`);
    await rows.locator('.badge--dup').first().waitFor();
    await rows.filter({hasText: 'signature valid'}).first().waitFor();
    await page
      .locator('#webhooks-table tr')
      .filter({hasText: 'signature invalid'})
      .filter({hasText: '403'})
      .first()
      .waitFor();
    await checkA11y(page, 'the webhook log');
  });

  test('transactions over a period', async () => {
    const {page} = admin;
    const gatewayOrderId = await gatewayOrderIdOf(refunded);
    await openSection(page, 'period');
    await page.locator('#period-form').getByRole('button', {name: 'Show transactions'}).click();
    await page.locator('#period-result').getByText(gatewayOrderId).first().waitFor();
    const refunds = page
      .locator('#period-result tr')
      .filter({hasText: gatewayOrderId})
      .filter({hasText: 'refund'});
    assert.equal(await refunds.count(), 2);
  });

  test('a register: not ready at first, then viewed and downloaded as JSON', async () => {
    const {page} = admin;
    const gatewayOrderId = await gatewayOrderIdOf(refunded);
    await openSection(page, 'register');
    const form = page.locator('#register-form');
    await form.locator('#register-statuses').getByLabel('success', {exact: true}).check();
    await form.locator('#register-methods').getByLabel('refund', {exact: true}).check();
    await form.locator('#register-fields').getByLabel('status', {exact: true}).uncheck();
    await form.locator('#register-fields').getByLabel('cardMask', {exact: true}).check();
    await form.getByRole('button', {name: 'Generate register'}).click();
    await page.locator('#register-status').filter({hasText: 'Not ready yet'}).waitFor();
    await page.locator('#register-status').filter({hasText: 'Register ready'}).waitFor();
    await page.locator('#register-result').getByText(gatewayOrderId).first().waitFor();
    await checkA11y(page, 'the register');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', {name: 'Download JSON'}).click(),
    ]);
    const records = JSON.parse(readFileSync((await download.path())!, 'utf8')) as Record<
      string,
      unknown
    >[];
    const ours = records.filter((r) => r['orderId'] === gatewayOrderId);
    assert.equal(ours.length, 2, 'both refunds of the order');
    for (const r of records) {
      assert.equal(r['method'], 'refund');
      assert.deepEqual(Object.keys(r).sort(), [
        'amount',
        'cardMask',
        'currency',
        'dateTime',
        'method',
        'orderId',
      ]);
    }
  });

  test('a subscription: charges arrive as the sandbox clock moves; filters; cancel', async () => {
    const {page} = admin;
    const orderRef = await pay('coffee-club', CARDS.mastercard);
    const [first] = await gatewayPayments(orderRef);
    const recurringId = first?.recurringId;
    assert.ok(recurringId, 'the first payment started a subscription');
    await openSection(page, 'subscriptions');
    const row = page.locator(`tr[data-subscription="${recurringId}"]`);
    await row.getByRole('button', {name: /^Transactions/}).click();
    const txns = page.locator('#sub-transactions tbody tr');
    await eventually(async () => (await txns.count()) === 1, 'the first charge listed');

    const charges = async () =>
      (
        (await (await fetch(`${SANDBOX}/sandbox/payments`)).json()) as {
          recurringId: string | null;
          status: string;
        }[]
      ).filter((p) => p.recurringId === recurringId && p.status === 'success').length;
    await page.getByRole('button', {name: '+31 days'}).click();
    await eventually(async () => (await charges()) >= 2, 'a scheduled charge at the gateway');
    await page.locator('#sub-method').selectOption('purchase');
    await page.locator('#sub-status').selectOption('success');
    await page.locator('#sub-filter').getByRole('button', {name: 'Show transactions'}).click();
    await eventually(
      async () => (await txns.count()) === (await charges()),
      'the charges listed with the filters',
    );
    await page.locator('#sub-status').selectOption('failure');
    await page.locator('#sub-filter').getByRole('button', {name: 'Show transactions'}).click();
    await page.locator('#sub-transactions').getByText('No transaction matches.').waitFor();
    await checkA11y(page, 'the subscriptions');

    await page.getByRole('button', {name: 'Cancel subscription'}).click();
    await row.locator('.badge--canceled').waitFor();
    const subs = (await (await fetch(`${SANDBOX}/sandbox/subscriptions`)).json()) as {
      recurring_status: string;
      metadata: {id: string};
    }[];
    assert.equal(subs.find((s) => s.metadata.id === recurringId)?.recurring_status, 'canceled');
    const before = await charges();
    await page.getByRole('button', {name: '+31 days'}).click();
    await page.locator('#announce').filter({hasText: 'Sandbox clock moved'}).waitFor();
    assert.equal(await charges(), before, 'no charge after the cancel');
    await finish(admin);
  });
});
