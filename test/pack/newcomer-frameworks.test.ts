/**
 * docs/guides/frameworks.md's React part, done as a newcomer does it (test/pack/newcomer.ts):
 * from an empty folder, the first payment's steps 1 to 4 (where the guide says it starts),
 * React installed, the page in React written and bundled as the guide says, `tsc --init`'s
 * type check (its `"jsx": "react-jsx"`; and `skipLibCheck: false`), the sandbox and the
 * server started with its commands, and the payment made in Chromium: the page shows what
 * `onPgSuccess` received.
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
  startShop,
  stepsBefore,
  typeCard,
  typeCheck,
  type Shop,
} from './newcomer.js';
import {packed} from './packed.js';

const GUIDE = 'frameworks.md';
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
  it("starts from the first payment's project; React's page, bundled, type-checks with tsc --init's settings", () => {
    firstPaymentProject(shop, packed.firstPayment);
    doSteps(shop, stepsBefore(steps, 'npx tsc --noEmit'));
    assert.deepEqual(
      steps.filter((s) => s.kind === 'file').map((s) => s.name),
      ['checkout-page.tsx', 'public/index.html'],
    );
    assert.match(shop.read('tsconfig.json'), /"jsx": "react-jsx"/);
    assert.match(shop.read('public/checkout-page.js'), /pg-card-form/);
    typeCheck(shop);
  });

  it('step 3: React renders the form, which pays; the page shows what onPgSuccess received', async () => {
    running = await startShop(shop, steps, await freePort());
    const {origin, server} = running;
    browser = await sharedChromium();
    const context = await browser.newContext();
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${origin}/`);
    const form = page.locator('pg-card-form');
    await typeCard(form);
    await form.locator('[part~="button"]').click();
    const outcome = page.locator('[data-outcome="paid"]');
    await outcome.waitFor();
    assert.equal(
      (await outcome.innerText()).trim(),
      'Paid: order ORDER-1001, card 424242******4242',
    );
    await server.waitFor(/order ORDER-1001 paid/);
    assert.deepEqual(problems, []);
    assert.doesNotMatch(server.output(), /"level":(40|50|60)/, 'nothing logged at warn or above');
    await context.close();
  });
});
