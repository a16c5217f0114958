/**
 * The guides followed one after another in ONE project, in the README's order, as a
 * newcomer does: from `npm init -y`, the first payment (ORDER-1001 paid), then hosted mode
 * and saved cards on top of it, each guide's files written over the last. Each guide alone
 * is tested from an empty folder (newcomer-*.test.ts); here the state one leaves is the
 * next one's start: ORDER-1001 is already paid in data/payments.db. Paying it again must
 * say so — on the hosted route's result page and after a "Save this card" payment, which
 * saves nothing — never "Payment successful." (it did, after a 200 in 48 ms with no gateway
 * call, and /account/cards stayed []). Then the saved-cards guide's advice (delete the
 * data/ folder) makes it work as written.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync, rmSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {Browser, BrowserContext} from 'playwright';
import {launchChromium} from '../../scripts/chromium.mjs';
import {en} from '../../src/i18n/locales/en.js';
import {freePort} from '../node/checkout/helpers.js';
import {
  doSteps,
  guideSteps,
  Newcomer,
  pageProblems,
  resultOf,
  startShop,
  stepsBefore,
  typeCard,
  type Shop,
} from './newcomer.js';
import {packed} from './packed.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
/** The guides this test follows on one project, as the README lists them. */
const FOLLOWED = ['first-payment.md', 'hosted-mode.md', 'saved-cards.md'];

let shop: Newcomer;
let running: Shop | undefined;
let browser: Browser | undefined;

/** Starts the shop with `guide`'s commands (stopping the one running) and a fresh browser context. */
async function open(guide: string): Promise<{shop: Shop; context: BrowserContext}> {
  await running?.server.stop();
  await running?.sandbox.stop();
  running = await startShop(shop, guideSteps(guide), await freePort());
  browser ??= await launchChromium();
  const context = await browser.newContext();
  context.setDefaultTimeout(30_000);
  return {shop: running, context};
}

before(() => {
  shop = new Newcomer(packed.tarball);
});

after(async () => {
  await browser?.close();
  await running?.server.stop();
  await running?.sandbox.stop();
  await shop?.remove();
});

describe('the guides in the README order, in one project from npm init -y', () => {
  it('the README lists them in this order', () => {
    const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
    const listed = [...readme.matchAll(/\(docs\/guides\/([\w-]+\.md)\)/g)].map((m) => m[1]!);
    const order = [...new Set(listed)].filter((g) => FOLLOWED.includes(g));
    assert.deepEqual(order, FOLLOWED);
  });

  it('first payment: ORDER-1001 is paid', async () => {
    const steps = guideSteps('first-payment.md');
    assert.equal(steps.find((s) => s.kind === 'command')?.text, 'npm init -y');
    // Type-checked by each guide's own test (newcomer-*.test.ts): here, the order only.
    doSteps(shop, stepsBefore(steps, 'npx tsc --noEmit'));
    const {shop: s, context} = await open('first-payment.md');
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${s.origin}/`);
    const form = page.locator('pg-card-form');
    await typeCard(form);
    await form.locator('[part~="button"]').click();
    await page.waitForURL(`${s.origin}/order/result?order=ORDER-1001`);
    assert.equal(await resultOf(page), en.success);
    await s.server.waitFor(/order ORDER-1001 paid/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('then hosted mode: the button on the paid ORDER-1001 says "already paid", not success', async () => {
    // Its files (the page); its commands start the sandbox and the server, as open() does.
    doSteps(
      shop,
      guideSteps('hosted-mode.md').filter((step) => step.kind === 'file'),
    );
    const {shop: s, context} = await open('hosted-mode.md');
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${s.origin}/hosted.html`);
    await page.locator('button').click();
    await page.waitForURL(`${s.origin}/order/result?order=ORDER-1001&already_paid=1`);
    assert.equal(await resultOf(page), en.alreadyPaid);
    await s.server.waitFor(/the order was already paid: nothing was charged/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('then saved cards: paying the paid ORDER-1001 with "Save this card" says nothing was saved', async () => {
    const steps = guideSteps('saved-cards.md');
    doSteps(shop, stepsBefore(steps, 'npx tsc --noEmit'));
    const {shop: s, context} = await open('saved-cards.md');
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${s.origin}/sign-in`);
    await page.waitForURL(`${s.origin}/?order=ORDER-1001`);
    const form = page.locator('pg-card-form');
    await form.locator('input[name="pg-save-card"]').check();
    await typeCard(form);
    await form.locator('[part~="button"]').click();
    await page.waitForURL(`${s.origin}/order/result?order=ORDER-1001&already_paid=1`);
    assert.equal(await resultOf(page), en.alreadyPaid);
    assert.match(en.alreadyPaid, /no card was saved/);
    await s.server.waitFor(
      /the order was already paid: nothing was charged, and the card was not saved/,
    );
    assert.deepEqual(await (await page.request.get(`${s.origin}/account/cards`)).json(), []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("then the saved-cards guide's advice (rm -r data) saves the card as written", async () => {
    await running?.server.stop();
    rmSync(path.join(shop.dir, 'data'), {recursive: true, force: true});
    const {shop: s, context} = await open('saved-cards.md');
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${s.origin}/sign-in`);
    await page.waitForURL(`${s.origin}/?order=ORDER-1001`);
    const form = page.locator('pg-card-form');
    await form.locator('input[name="pg-save-card"]').check();
    await typeCard(form);
    await form.locator('[part~="button"]').click();
    await page.waitForURL(`${s.origin}/order/result?order=ORDER-1001`);
    assert.equal(await resultOf(page), en.success);
    const cards = (await (await page.request.get(`${s.origin}/account/cards`)).json()) as unknown[];
    assert.equal(cards.length, 1);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
