/**
 * docs/guides/server-rendering.md, done as a newcomer does it (test/pack/newcomer.ts): from an
 * empty folder, the first payment's steps 1 to 4 (where the guide says it starts), the
 * guide's install, files and copy of the CDN build, `tsc --init`'s type check (and
 * `skipLibCheck: false`), the sandbox and the server started with its commands. The page
 * arrives with the form in its HTML (a declarative shadow root, in Ukrainian, the order's
 * total on its button) under the guide's CSP; in Chromium it hydrates with no console error
 * or CSP violation, and pays.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import type {Browser} from 'playwright';
import {sharedChromium} from '../../scripts/chromium.mjs';
import {uk} from '../../src/i18n/locales/uk.js';
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

const GUIDE = 'server-rendering.md';
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
  it("starts from the first payment's project; its steps type-check with tsc --init's settings", () => {
    firstPaymentProject(shop, packed.firstPayment);
    doSteps(shop, stepsBefore(steps, 'npx tsc --noEmit'));
    assert.deepEqual(
      steps.filter((s) => s.kind === 'file').map((s) => s.name),
      ['ssr-page.ts', 'server.ts'],
    );
    assert.match(shop.read('public/pg-checkout/pg-checkout-hydrate-after-paint.js'), /./);
    typeCheck(shop);
  });

  it('step 5: the form arrives in the HTML, hydrates under the CSP, and pays', async () => {
    running = await startShop(shop, steps, await freePort());
    const {origin, server} = running;
    const url = `${origin}/pay?order=ORDER-1001`;
    const res = await fetch(url, {headers: {accept: 'text/html'}});
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy') ?? '', /^script-src 'self'; style-src/);
    const html = await res.text();
    assert.match(html, /<pg-card-form[^>]*order-ref="ORDER-1001"/);
    assert.match(html, /<template [^>]*shadowrootmode="open"/, 'a declarative shadow root');
    assert.ok(html.includes(uk.cardNumber), 'the texts in Ukrainian, before any script');
    assert.equal((await fetch(`${origin}/pay?order=ORDER-9999`)).status, 404);

    browser = await sharedChromium();
    const context = await browser.newContext();
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(url);
    const paid = page.evaluate(
      () =>
        new Promise<string>((resolve) =>
          document.addEventListener('pg-success', (e) => resolve(e.detail.orderRef)),
        ),
    );
    const form = page.locator('pg-card-form');
    // Hydrated: the element is defined and has taken over the server's shadow root.
    await page.waitForFunction(() => customElements.get('pg-card-form') !== undefined);
    await typeCard(form);
    await form.locator('[part~="button"]').click();
    assert.equal(await paid, 'ORDER-1001');
    await server.waitFor(/order ORDER-1001 paid/);
    assert.deepEqual(problems, []);
    assert.doesNotMatch(server.output(), /"level":(40|50|60)/, 'nothing logged at warn or above');
    await context.close();
  });
});
