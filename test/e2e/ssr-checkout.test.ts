/**
 * The demo's checkout page renders its card form on the server (`pg-checkout/ssr`,
 * server-example/card-form-html.ts): with the hydrating bundle held back, the form is there,
 * accessible and typeable under the page's strict CSP; Pay pressed before the bundle runs is
 * taken once it has, on the card typed before it, and the payment goes through the sandbox;
 * the page then says the result in place (no request), at the result page's address, which
 * a reload renders.
 * The page asks the shop nothing before paying (the summary is in its HTML), and of
 * pg-checkout it loads the after-paint loader (named with its SRI hash) and the hydrating
 * bundle, which holds everything the form runs: nothing else. When the hydrating bundle
 * arrives changed, the browser refuses it and the page does not fail silently: the form
 * says so to the customer, and the shop's back office lists the report it sent.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {UNAVAILABLE_TEXTS} from '../../src/i18n/unavailable.js';
import {
  ADMIN_TOKEN,
  BASE,
  CARDS,
  chargesOf,
  checkA11y,
  createOrder,
  finish,
  gatewayPayments,
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
  await page.locator('input[name="cc-exp"]').pressSequentially('1234');
  await page.locator('input[name="cc-csc"]').pressSequentially(CARDS.success.cvv);
  const documents: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'document') documents.push(new URL(r.url()).pathname);
  });
  // Pay pressed while the bundle is on its way, as on a slow network: the after-paint
  // loader keeps the press, and the form pays once hydrated, on what was typed before.
  await payButton(page).click();
  assert.equal(await page.evaluate(() => customElements.get('pg-card-form')), undefined);
  release();
  await page.waitForURL(`${BASE}/thanks?order=${orderRef}`);
  await page.locator('#result-title').filter({hasText: 'your payment went through'}).waitFor();
  assert.equal(await chargesOf(orderRef), 1);
  // Paid with the card typed before hydration (the form has since cleared it).
  const [paid] = await gatewayPayments(orderRef);
  assert.deepEqual([paid?.paidWith, paid?.ccMask?.slice(-4)], ['card', '4242']);

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

test('checkout: the summary is in the page; of pg-checkout, the pinned loader and the bundle it pins, nothing else', async () => {
  const orderRef = await createOrder('tea-sampler');
  const w = await openPage(browser());
  const {page} = w;
  const asked: string[] = [];
  const assets: string[] = [];
  page.on('request', (r) => {
    const {pathname} = new URL(r.url());
    if (pathname.startsWith('/api/orders')) asked.push(r.url());
    if (pathname.startsWith('/assets/')) assets.push(pathname);
  });
  await page.goto(`${BASE}/checkout?order=${orderRef}`);
  // In the HTML: no request needed to show what is being paid.
  assert.equal(await page.locator('#summary [data-field="total"]').textContent(), '1.20 XTS');
  assert.equal(await page.locator('#summary [data-field="orderRef"]').textContent(), orderRef);
  const loader = page.locator('script[src="/assets/pg-checkout-hydrate-after-paint.js"]');
  assert.match((await loader.getAttribute('integrity')) ?? '', /^sha384-[\w+/]{64}$/);

  // The order's answer shows the save-card offer, a digit the brand mark: both from the
  // bundle itself.
  await page.waitForFunction(
    () =>
      (document.querySelector('pg-card-form') as HTMLElement & {hasUpdated?: boolean}).hasUpdated,
  );
  await page.locator('pg-card-form input[name="pg-save-card"]').waitFor({state: 'attached'});
  await page.locator('pg-card-form input[name="cc-number"]').pressSequentially('4242');
  await page.locator('pg-card-form svg[part="brand"][data-brand="visa"]').waitFor();
  assert.deepEqual(assets, [
    '/assets/pg-checkout-hydrate-after-paint.js',
    '/assets/pg-checkout-hydrate.js',
  ]);
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

test('checkout whose hydrating bundle arrives changed: the customer is told, the back office lists the report', async () => {
  const orderRef = await createOrder('tea-sampler');
  const w = await openPage(browser());
  const {page} = w;
  const MODULE = `${BASE}/assets/pg-checkout-hydrate.js`;
  // One byte of its licence comment changed on the way: still a module that would run.
  await page.route(MODULE, async (route) => {
    const response = await route.fetch();
    const body = await response.body();
    const at = body.indexOf('/*! pg-checkout') + 4;
    body[at] = body[at] === 0x41 ? 0x42 : 0x41;
    await route.fulfill({response, body});
  });
  await page.addInitScript(() => {
    const seen: unknown[] = [];
    Object.defineProperty(window, 'pgErrors', {value: seen});
    document.addEventListener('pg-error', (e) => seen.push((e as CustomEvent).detail));
  });
  const reported = page.waitForResponse((r) => r.url() === `${BASE}/api/checkout/security-report`);
  await page.goto(`${BASE}/checkout?order=${orderRef}`);

  // The customer reads why Pay is off, in the form's language.
  const status = page.locator('pg-card-form [part~="status"]');
  await status.filter({hasText: UNAVAILABLE_TEXTS['en']!}).waitFor();
  assert.equal(await payButton(page).isDisabled(), true);
  assert.equal(await page.locator('pg-card-form input[name="cc-number"]').isDisabled(), true);
  assert.equal(await page.evaluate(() => customElements.get('pg-card-form')), undefined);
  await checkA11y(page, 'the checkout whose bundle was refused');
  const errors = await page.evaluate(() => (window as unknown as {pgErrors: unknown[]}).pgErrors);
  assert.deepEqual(
    errors.map((e) => (e as {code: string; orderRef: string}).code),
    ['misconfigured'],
  );

  // The shop's companion took the report; the back office lists it.
  assert.equal((await reported).status(), 204);
  const {reports} = (await (
    await fetch(`${BASE}/admin/api/security-reports`, {
      headers: {Authorization: `Bearer ${ADMIN_TOKEN}`},
    })
  ).json()) as {reports: Array<{blockedUrl: string; directive: string; documentUrl: string}>};
  assert.ok(
    reports.some(
      (r) =>
        r.blockedUrl === MODULE &&
        r.directive === 'integrity' &&
        r.documentUrl === `${BASE}/checkout`,
    ),
    `not listed: ${JSON.stringify(reports)}`,
  );
  assert.equal(await chargesOf(orderRef), 0);
  // The one console error is the browser's own refusal of the changed file.
  const refusal = w.problems.filter((p) => /integrity/i.test(p) && p.includes(MODULE));
  assert.equal(refusal.length, 1, w.problems.join('\n'));
  w.problems.splice(w.problems.indexOf(refusal[0]!), 1);
  await finish(w);
});
