/**
 * The demo's checkout page renders its card form on the server (`pg-checkout/ssr`,
 * server-example/card-form-html.ts): with the hydrating bundle held back, the form is there,
 * accessible and typeable under the page's strict CSP; once the bundle runs, the card
 * typed before it is kept, and the payment goes through the sandbox; the page then says
 * the result in place (no request), at the result page's address, which a reload renders.
 * The page asks the shop nothing before paying (the summary is in its HTML), and the
 * modules the form loads as it starts arrive preloaded, with the bundle, each fetched once.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE,
  CARDS,
  chargesOf,
  checkA11y,
  createOrder,
  finish,
  openPage,
  payButton,
  sharedBrowser,
} from './harness.js';

const browser = sharedBrowser();

test('server-rendered checkout: typed before hydration, paid after it', async () => {
  const orderRef = await createOrder('tea-sampler');
  const w = await openPage(browser());
  const {page} = w;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/assets/pg-checkout-hydrate.js', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${BASE}/checkout?order=${orderRef}`, {waitUntil: 'commit'});
  const number = page.locator('pg-card-form input[name="cc-number"]');
  await number.waitFor();
  assert.equal(await page.evaluate(() => customElements.get('pg-card-form')), undefined);
  assert.equal(await page.locator('pg-card-form').getAttribute('order-ref'), orderRef);
  assert.match((await payButton(page).textContent()) ?? '', /Pay XTS\s1\.20/);
  await checkA11y(page, 'the server-rendered checkout before hydration');
  await number.focus();
  await page.keyboard.type(CARDS.success.number);

  release();
  await page.waitForFunction(
    () =>
      (document.querySelector('pg-card-form') as HTMLElement & {hasUpdated?: boolean}).hasUpdated,
  );
  assert.equal(await number.inputValue(), '4242 4242 4242 4242');
  await page.locator('input[name="cc-exp"]').pressSequentially('1234');
  await page.locator('input[name="cc-csc"]').pressSequentially(CARDS.success.cvv);
  await checkA11y(page, 'the server-rendered checkout after hydration');
  const documents: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'document') documents.push(new URL(r.url()).pathname);
  });
  await payButton(page).click();
  await page.waitForURL(`${BASE}/thanks?order=${orderRef}`);
  await page.locator('#result-title').filter({hasText: 'your payment went through'}).waitFor();
  assert.equal(await chargesOf(orderRef), 1);

  // Said in place: no request for the result page, the pay panel gone, the heading focused
  // (announced), the address the result page's.
  assert.deepEqual(documents, []);
  assert.equal(await page.locator('#pay-panel').isHidden(), true);
  assert.equal(await page.locator('#paid').isVisible(), true);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'result-title');
  assert.match(await page.title(), /^Paid · /);
  assert.equal(
    await page.locator('#admin-link').getAttribute('href'),
    `/admin?order=${encodeURIComponent(orderRef)}`,
  );
  await checkA11y(page, 'the checkout saying success in place');

  // A reload asks the server for that address: its result page says the same.
  await page.reload();
  assert.deepEqual(documents, ['/thanks']);
  await page.locator('#result-title').filter({hasText: 'your payment went through'}).waitFor();
  assert.equal(await page.locator('pg-card-form').count(), 0);
  assert.equal(await chargesOf(orderRef), 1);
  await finish(w);
});

test('checkout: the summary is in the page, the startup modules arrive preloaded, each fetched once', async () => {
  const orderRef = await createOrder('tea-sampler');
  const w = await openPage(browser());
  const {page} = w;
  await page.addInitScript(() => {
    void customElements
      .whenDefined('pg-card-form')
      .then(() => performance.mark('pg-card-form defined'));
  });
  const asked: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/api/orders')) asked.push(r.url());
  });
  await page.goto(`${BASE}/checkout?order=${orderRef}`);
  // In the HTML: no request needed to show what is being paid.
  assert.equal(await page.locator('#summary [data-field="total"]').textContent(), '1.20 XTS');
  assert.equal(await page.locator('#summary [data-field="orderRef"]').textContent(), orderRef);

  // The page's own preloads; not the hydrating bundle's, which its loader
  // (pg-checkout-hydrate-after-paint.js) adds once the page has painted.
  const preloads = (
    await page.$$eval('link[rel="modulepreload"]', (links) =>
      links.map((l) => new URL((l as HTMLLinkElement).href).pathname),
    )
  ).filter((p) => p !== '/assets/pg-checkout-hydrate.js');
  assert.equal(preloads.length, 3, preloads.join(' '));
  for (const [i, name] of ['order-request', 'saved-cards-view', 'brand-marks'].entries()) {
    assert.match(preloads[i] ?? '', new RegExp(`^/assets/${name}-[\\w-]+\\.js$`));
  }
  // Each is what the hydrating bundle imports: the form uses it (the order's answer shows
  // the save-card offer, a focus asks for the brand marks) without fetching it again.
  await page.waitForFunction(
    () =>
      (document.querySelector('pg-card-form') as HTMLElement & {hasUpdated?: boolean}).hasUpdated,
  );
  await page.locator('pg-card-form input[name="pg-save-card"]').waitFor({state: 'attached'});
  await page.locator('pg-card-form input[name="cc-number"]').focus();
  await page.waitForFunction(
    (hrefs) =>
      hrefs.every((h) =>
        performance.getEntriesByType('resource').some((e) => new URL(e.name).pathname === h),
      ),
    preloads,
  );
  await page.waitForTimeout(200);
  // Fetched once each, and asked for before the bundle ran (the page's links, not the
  // bundle's imports: module scripts run only once the document is parsed).
  const fetched = await page.evaluate(
    (hrefs) =>
      hrefs.map((h) =>
        performance
          .getEntriesByType('resource')
          .filter((e) => new URL(e.name).pathname === h)
          .map(
            (e) => e.startTime < performance.getEntriesByName('pg-card-form defined')[0]!.startTime,
          ),
      ),
    preloads,
  );
  assert.deepEqual(fetched, [[true], [true], [true]]);
  assert.deepEqual(asked, [], 'the page asked the order API');
  await finish(w);
});

test('checkout of an unknown order: no card form is rendered, the page says so', async () => {
  const w = await openPage(browser());
  await w.page.goto(`${BASE}/checkout?order=ord-000000000000`);
  await w.page.locator('#no-order').waitFor();
  assert.equal(await w.page.locator('pg-card-form').count(), 0);
  await finish(w);
});
