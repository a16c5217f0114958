/**
 * docs/guides/subscriptions.md, done as a newcomer does it (test/pack/newcomer.ts): from an
 * empty folder, the first payment's steps 1 to 4 (where the guide says it starts), the
 * guide's checkout.ts, `tsc --init`'s type check (and `skipLibCheck: false`), the sandbox and
 * the server started with its commands; ORDER-1001 paid in Chromium starts the subscription,
 * and the guide's `curl` moves the sandbox's clock a month on: the gateway's charge reaches
 * the server's `onPaymentUpdate` as the guide says, once.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import type {Browser} from 'playwright';
import {sharedChromium} from '../../scripts/chromium.mjs';
import {freePort} from '../node/checkout/helpers.js';
import {
  doSteps,
  firstPaymentProject,
  guideSteps,
  Newcomer,
  pageProblems,
  resultOf,
  startShop,
  stepsBefore,
  typeCard,
  typeCheck,
  type Shop,
} from './newcomer.js';
import {packed} from './packed.js';

const GUIDE = 'subscriptions.md';
const steps = guideSteps(GUIDE);

let shop: Newcomer;
let running: Shop | undefined;
let browser: Browser | undefined;

before(() => {
  shop = new Newcomer(packed.tarball);
});

after(async () => {
  await browser?.close();
  await running?.server.stop();
  await running?.sandbox.stop();
  await shop?.remove();
});

describe(`${GUIDE}, from an empty folder`, () => {
  it("starts from the first payment's project; its checkout.ts type-checks with tsc --init's settings", () => {
    firstPaymentProject(shop, packed.firstPayment);
    doSteps(shop, stepsBefore(steps, 'npx tsc --noEmit'));
    assert.deepEqual(
      steps.filter((s) => s.kind === 'file').map((s) => s.name),
      ['checkout.ts'],
    );
    typeCheck(shop);
  });

  it('step 2: the first payment starts the subscription; a month on, the charge reaches onPaymentUpdate', async () => {
    running = await startShop(shop, steps, await freePort());
    const {origin, server, sandboxUrl} = running;
    browser = await sharedChromium();
    const context = await browser.newContext();
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${origin}/`);
    const form = page.locator('pg-card-form');
    await typeCard(form);
    await form.locator('[part~="button"]').click();
    await page.waitForURL(`${origin}/order/result?order=ORDER-1001`);
    assert.equal(await resultOf(page), 'Payment successful.');
    await server.waitFor(/order ORDER-1001 paid/);
    assert.deepEqual(problems, []);
    await context.close();

    const curl = steps.find((s) => s.kind === 'command' && /^curl /.test(s.text))!.text;
    assert.match(curl, /http:\/\/127\.0\.0\.1:4010\/sandbox\/clock\/advance/);
    const moved = shop.run(curl.replace('http://127.0.0.1:4010', sandboxUrl));
    assert.match(moved.output, /"now":"\d{4}-\d{2}-\d{2}T/, moved.output);
    const [line, amount, recurringId] = await server.waitFor(/charged (\S+) XTS for (\S+)/, 30_000);
    assert.equal(Number(amount), 1.5, line); // the order's total (the update writes it 1.5)
    const subscriptions = (await (await fetch(`${sandboxUrl}/sandbox/subscriptions`)).json()) as {
      metadata: {id: string};
    }[];
    assert.deepEqual(
      subscriptions.map((s) => s.metadata.id),
      [recurringId],
      'the charge names the subscription the payment started',
    );
    // One charge, told once (the sandbox sends some webhooks twice on purpose).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(server.output().match(/charged \S+ XTS for/g)?.length, 1);
    assert.doesNotMatch(server.output(), /"level":(40|50|60)/, 'nothing logged at warn or above');
  });
});
