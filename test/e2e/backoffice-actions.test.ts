/**
 * The back office page's side of safe actions, in real Chromium with the order detail
 * and the action route answered by the test (Playwright's `page.route`), so that each
 * case can be staged: a button stays disabled while its request runs; a refund sent
 * again after a lost answer carries the same idempotency key, and a new one once the
 * server has answered; a double charge refunded by the server is shown as a warning, a
 * written-off attempt as a tag, and the server's intents as a table.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import type {Route} from 'playwright';
import {BASE, checkA11y, eventually, login, openPage, sharedBrowser} from './harness.js';

const browser = sharedBrowser();

const ORDER = 'ord-0123456789ab';
const PAID = `${ORDER}-1-aa11`;
const LEFT = `${ORDER}-2-bb22`;

/** An order paid once by the card form, and a second attempt the customer abandoned. */
function detail(extra: Record<string, unknown> = {}) {
  return {
    order: {
      orderRef: ORDER,
      description: 'Mug',
      amount: '1.50',
      currency: 'XTS',
      kind: 'purchase',
      state: 'success',
      hosted: false,
      createdAt: Date.parse('2031-03-01T09:00:00Z'),
      paid: true,
    },
    attempts: [
      {
        attemptId: 'a-1',
        gatewayOrderId: PAID,
        seq: 1,
        method: 'purchase',
        amount: '1.50',
        currency: 'XTS',
        state: 'success',
        hosted: false,
      },
      {
        attemptId: 'a-2',
        gatewayOrderId: LEFT,
        seq: 2,
        method: 'purchase',
        amount: '1.50',
        currency: 'XTS',
        state: 'init',
        hosted: false,
        writtenOff: 'abandoned',
      },
    ],
    gateway: [
      {
        gatewayOrderId: PAID,
        transactions: [
          {method: 'purchase', mode: 'direct', amount: 1.5, currency: 'XTS', status: 'success'},
        ],
      },
    ],
    ...extra,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('actions: the button is disabled while its request runs; a refund retried after a lost answer keeps its key, a new one gets a new key', async () => {
  const w = await openPage(browser());
  const {page} = w;
  await login(page);
  await page.route(`${BASE}/admin/api/orders/${ORDER}`, (route) => route.fulfill({json: detail()}));
  const sent: {action: string; key?: string; amount?: string}[] = [];
  let hold: ((route: Route) => Promise<void>) | undefined;
  await page.route(`${BASE}/admin/api/orders/${ORDER}/actions`, async (route) => {
    sent.push(route.request().postDataJSON() as (typeof sent)[number]);
    await hold!(route);
  });
  await page.goto(`${BASE}/admin?order=${ORDER}`);
  await page.locator('body[data-ready="true"]').waitFor();
  /** Waits for the `n`-th action to be sent, answered and the detail shown again. */
  const settled = async (n: number) => {
    await eventually(async () => sent.length >= n, `action ${n}`);
    await page.locator('#detail-body .error-text').waitFor({state: 'detached'});
    await page.waitForFunction(
      () =>
        document.querySelector('[data-attempt] button') !== null &&
        document.querySelector('[data-attempt] button:disabled') === null,
    );
  };
  const section = page.locator(`[data-attempt="${PAID}"]`);
  const refund = section.getByRole('button', {name: 'Refund'});
  const resend = section.getByRole('button', {name: 'Resend webhook'});

  // 1. The answer is lost: while waiting, both buttons are disabled; then enabled again.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  hold = async (route) => {
    await released;
    await route.abort('failed');
  };
  await refund.click();
  await page.waitForFunction(() => document.querySelector('[data-attempt] button:disabled'));
  assert.equal(await refund.isDisabled(), true);
  assert.equal(await resend.isDisabled(), true);
  release();
  await section.locator('.error-text').waitFor();
  assert.equal(await refund.isEnabled(), true);

  // 2. Sent again: the same key. This time the server answers.
  hold = (route) => route.fulfill({json: {ok: true, result: null}});
  await refund.click();
  await settled(2);
  // 3. A new refund after a completed one: a new key.
  await page.locator(`[data-attempt="${PAID}"]`).getByRole('button', {name: 'Refund'}).click();
  await settled(3);

  assert.equal(sent.length, 3, JSON.stringify(sent));
  const [lost, retried, next] = sent as [(typeof sent)[0], (typeof sent)[0], (typeof sent)[0]];
  assert.equal(lost.action, 'refund');
  assert.match(lost.key ?? '', UUID);
  assert.equal(retried.key, lost.key, 'a retry after a lost answer reuses the key');
  assert.equal(retried.amount, lost.amount);
  assert.match(next.key ?? '', UUID);
  assert.notEqual(next.key, lost.key, 'a completed action frees its key');

  // Resend is not a money movement: no key.
  await page
    .locator(`[data-attempt="${PAID}"]`)
    .getByRole('button', {name: 'Resend webhook'})
    .click();
  await settled(4);
  assert.equal(sent.at(-1)?.action, 'resend');
  assert.equal(sent.at(-1)?.key, undefined);

  await w.context.close();
  // The lost answer is the only thing the console reports.
  assert.deepEqual(
    w.problems.filter((p) => !/net::ERR_FAILED|Failed to fetch/.test(p)),
    [],
  );
});

test('the order detail shows a double charge the server refunded, written-off attempts and the intents', async () => {
  const w = await openPage(browser());
  const {page} = w;
  await login(page);
  const createdAt = Date.parse('2031-03-01T09:05:00Z');
  await page.route(`${BASE}/admin/api/orders/${ORDER}`, (route) =>
    route.fulfill({
      json: detail({
        intents: [
          {
            key: 'dup-refund-1',
            kind: 'refund',
            amount: '1.50',
            state: 'success',
            reason: 'duplicate_charge',
            operationId: 'op-77',
            createdAt,
          },
          {key: 'merchant-capture-1', kind: 'capture', state: 'unknown', createdAt},
        ],
      }),
    }),
  );
  await page.goto(`${BASE}/admin?order=${ORDER}`);
  await page.locator('body[data-ready="true"]').waitFor();
  const notice = page.locator('[data-duplicate-charge="dup-refund-1"]');
  assert.equal(
    (await notice.textContent())?.trim(),
    'Charged twice: the later payment was refunded automatically. (1.50)',
  );
  assert.equal(await notice.getAttribute('role'), 'alert');
  assert.equal(
    await page.locator(`[data-attempt="${LEFT}"] [data-written-off]`).textContent(),
    'written off: abandoned',
  );
  assert.equal(await page.locator(`[data-attempt="${PAID}"] [data-written-off]`).count(), 0);
  const rows = page.getByRole('region', {name: `Captures, voids and refunds of ${ORDER}`});
  const text = (await rows.textContent()) ?? '';
  assert.match(text, /refund.*1\.50 XTS.*success.*charged twice.*op-77/);
  assert.match(text, /capture.*unknown.*merchant-capture-1/);
  await checkA11y(page, 'an order charged twice');
  await w.context.close();
  assert.deepEqual(w.problems, []);
});
