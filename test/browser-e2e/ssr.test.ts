/**
 * `<pg-card-form>` rendered on the server (`pg-checkout/ssr`) and hydrated by the built
 * dist/cdn/pg-checkout-hydrate.js, in real Chromium, under a strict CSP with Trusted Types
 * (the form's inline styles allowed by their hash, `styleHashes`). The module is held back
 * by the test: the fields must be shown, focusable and typeable before it runs; what was
 * typed, and where the caret was, must survive hydration; nothing may move when it
 * hydrates; and the hydrated form formats, validates and pays. Then the same module loaded
 * by pg-checkout-hydrate-after-paint.js: only after the first paint (or the customer's
 * first touch, or at once in a hidden tab), with Pay pressed meanwhile kept, and never when
 * it is not the file it was built with.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {createServer, type IncomingMessage, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {Browser, Page} from 'playwright';
import {launchChromium} from '../../scripts/chromium.mjs';
import {renderCardForm, styleHashes, type CardFormHtmlOptions} from '../../src/ssr.js';

const MODULE = 'pg-checkout-hydrate.js';
const bundle = readFileSync(`dist/cdn/${MODULE}`);
const LOADER = 'pg-checkout-hydrate-after-paint.js';
const loader = readFileSync(`dist/cdn/${LOADER}`);
/** The hydrating module changed after the build (served under /tampered/). */
const tampered = Buffer.concat([bundle, Buffer.from('\nwindow.tampered = true;\n')]);

const csp = (styles: readonly string[], trustedTypes = 'lit-html pg-checkout') =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${styles.join(' ')}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "require-trusted-types-for 'script'",
    `trusted-types ${trustedTypes}`,
  ].join('; ');

/** Runs before the module: CSP violations, layout shifts, the outcome. */
const PAGE_JS = `
window.violations = [];
window.shifts = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.violations.push(e.violatedDirective + ' ' + e.blockedURI);
});
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.shifts.push(entry.value);
}).observe({type: 'layout-shift', buffered: true});
window.labels = [];
(function frame() {
  const label = document.querySelector('pg-card-form')?.shadowRoot?.querySelector('label[for="number"]');
  const text = label?.textContent.trim();
  if (text && !window.labels.includes(text)) window.labels.push(text);
  requestAnimationFrame(frame);
})();
document.addEventListener('pg-success', (e) => {
  document.getElementById('result').textContent = 'success ' + e.detail.orderRef;
});
`;

const OPTIONS: CardFormHtmlOptions = {
  endpoint: '/checkout/pay',
  orderRef: 'order-1',
  amount: '12.50',
  currency: 'UAH',
  lang: 'en',
};

const pageHtml = async (options: CardFormHtmlOptions, module = `/${MODULE}`) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Checkout</title>
<script src="/page.js"></script>
<script type="module" src="${module}"></script>
</head>
<body>
<main>
<h1>Checkout</h1>
${await renderCardForm(options)}
<p id="result"></p>
</main>
</body>
</html>`;

/** Two digits of a year two ahead: an expiry the form accepts (`12${YEAR}`). */
const YEAR = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
/** The card the paying tests type (number, `12${YEAR}`, 123), as the pay route receives it. */
const CARD = {number: '4242424242424242', expMonth: 12, expYear: 2000 + Number(YEAR), cvv: '123'};

const payments: Array<Record<string, unknown>> = [];

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

let server: Server;
let browser: Browser;
let origin: string;
let policy: string;
/** The policy of /old-policy/: Trusted Types allow Lit's policy alone, not the loader's. */
let oldPolicy: string;

before(async () => {
  const styles = await styleHashes(await renderCardForm(OPTIONS));
  policy = csp(styles);
  oldPolicy = csp(styles, 'lit-html');
  server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, type: string, body: string | Buffer) => {
        res.writeHead(status, {
          'Content-Type': type,
          'Content-Security-Policy': url.pathname.startsWith('/old-policy/') ? oldPolicy : policy,
          'Cache-Control': 'no-store',
        });
        res.end(body);
      };
      if (url.pathname === '/')
        return send(200, 'text/html; charset=utf-8', await pageHtml(OPTIONS));
      if (url.pathname === '/pl') {
        return send(200, 'text/html; charset=utf-8', await pageHtml({...OPTIONS, lang: 'pl'}));
      }
      const dir = /^\/(?:tampered|old-policy)\//.exec(url.pathname)?.[0] ?? '/';
      if (url.pathname === '/after-paint' || url.pathname === dir) {
        return send(200, 'text/html; charset=utf-8', await pageHtml(OPTIONS, `${dir}${LOADER}`));
      }
      if (url.pathname === `${dir}${LOADER}`) return send(200, 'text/javascript', loader);
      if (url.pathname === `/tampered/${MODULE}`) return send(200, 'text/javascript', tampered);
      if (url.pathname === `/old-policy/${MODULE}`) return send(200, 'text/javascript', bundle);
      const locale = /^\/locales\/([\w-]+\.json)$/.exec(url.pathname)?.[1];
      if (locale) return send(200, 'application/json', readFileSync(`dist/cdn/locales/${locale}`));
      if (url.pathname === '/page.js') return send(200, 'text/javascript', PAGE_JS);
      if (url.pathname === '/favicon.ico') return send(204, 'image/x-icon', '');
      if (url.pathname === `/${MODULE}`) return send(200, 'text/javascript', bundle);
      if (url.pathname === '/checkout/pay' && req.method === 'POST') {
        const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
        payments.push(body);
        const answer = {
          outcome: 'success',
          orderRef: body['orderRef'],
          code: '1000',
          message: 'Approved',
        };
        return send(200, 'application/json', JSON.stringify(answer));
      }
      return send(404, 'text/plain', 'not found');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A tab in a context of its own, its page errors, console errors and warnings collected. */
async function newTab() {
  const context = await browser.newContext();
  const tab = await context.newPage();
  const problems: string[] = [];
  tab.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  tab.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`);
  });
  return {context, tab, problems};
}

/** A page whose module is held until `release()`; its errors are collected. */
async function openHeld(path = '/') {
  const {context, tab, problems} = await newTab();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await tab.route(`**/${MODULE}`, async (route) => {
    await held;
    await route.continue();
  });
  // Not `domcontentloaded`: that waits for the module (deferred) to have run.
  await tab.goto(`${origin}${path}`, {waitUntil: 'commit'});
  await tab.locator('pg-card-form input#cvv').waitFor();
  const hydrated = async () => {
    release();
    await untilHydrated(tab);
  };
  return {context, tab, problems, hydrated};
}

/** Waits until the module has defined the element and its first update is done. */
async function untilHydrated(tab: Page) {
  await tab.waitForFunction(() => {
    const form = document.querySelector('pg-card-form') as
      (HTMLElement & {hasUpdated?: boolean}) | null;
    return customElements.get('pg-card-form') !== undefined && form?.hasUpdated === true;
  });
  await tab.evaluate(
    () =>
      (document.querySelector('pg-card-form') as unknown as {updateComplete: Promise<unknown>})
        .updateComplete,
  );
}

/** A page of its own, its errors collected; `init` (script text) runs before the page's. */
async function open(path: string, init?: string) {
  const {context, tab, problems} = await newTab();
  if (init) await context.addInitScript({content: init});
  await tab.goto(`${origin}${path}`);
  return {context, tab, problems};
}

/** When the page first painted, and when it asked for the hydrating module (if it did). */
const timings = (tab: Page) =>
  tab.evaluate((module) => {
    const paint = performance.getEntriesByName('first-paint')[0]?.startTime;
    const fetched = performance
      .getEntriesByType('resource')
      .find((e) => e.name.endsWith(`/${module}`))?.startTime;
    return {paint, fetched};
  }, MODULE);

const violations = (tab: Page) =>
  tab.evaluate(() => (window as unknown as {violations: string[]}).violations);

const defined = (tab: Page) => tab.evaluate(() => customElements.get('pg-card-form') !== undefined);

/** Where the form and each of its inputs are. */
const boxes = (tab: Page) =>
  tab.evaluate(() => {
    const form = document.querySelector('pg-card-form')!;
    const all = [form, ...form.shadowRoot!.querySelectorAll('input, button, label')];
    return all.map((el) => {
      const r = el.getBoundingClientRect();
      return [r.x, r.y, r.width, r.height].join(',');
    });
  });

describe('pg-checkout/ssr: a card form rendered on the server, hydrated by the module', () => {
  it('shows focusable, typeable, styled fields before the module runs', async () => {
    const {context, tab, hydrated} = await openHeld();
    assert.equal(await defined(tab), false, 'the module ran');
    const number = tab.locator('pg-card-form input#number');
    assert.equal(await number.isVisible(), true);
    // The styles came with the HTML (and the CSP allowed them by hash).
    assert.equal(await number.evaluate((el) => getComputedStyle(el).height), '44px');
    assert.match(
      (await tab.locator('pg-card-form [part~="button"]').textContent()) ?? '',
      /^\s*Pay UAH\s12\.50\s*$/,
    );
    await number.focus();
    await tab.keyboard.type('4242');
    assert.equal(await number.inputValue(), '4242');
    assert.equal(await defined(tab), false);
    await hydrated();
    assert.deepEqual(
      await tab.evaluate(() => (window as unknown as {violations: string[]}).violations),
      [],
    );
    await context.close();
  });

  it('keeps what was typed before hydration, formatted, with the caret after the same digits', async () => {
    const {context, tab, problems, hydrated} = await openHeld();
    const number = tab.locator('pg-card-form input#number');
    await number.focus();
    await tab.keyboard.type('42424242');
    await tab.keyboard.press('ArrowLeft');
    await tab.keyboard.press('ArrowLeft'); // after the sixth digit
    assert.equal(await number.inputValue(), '42424242');
    await hydrated();
    assert.equal(await number.inputValue(), '4242 4242');
    const caret = await number.evaluate((el: HTMLInputElement) => [
      el.selectionStart,
      el.selectionEnd,
      (el.getRootNode() as ShadowRoot).activeElement === el,
    ]);
    assert.deepEqual(caret, [7, 7, true], 'caret after "4242 42", focus kept');
    // Typing goes on where the customer was, formatted by the element now.
    await tab.keyboard.type('9');
    assert.equal(await number.inputValue(), '4242 4294 2');
    assert.equal(
      await tab.evaluate(
        () => (document.querySelector('pg-card-form') as unknown as {brand: string}).brand,
      ),
      'visa',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('sends nothing anywhere when Pay or Enter is pressed before the module runs', async () => {
    const {context, tab, problems, hydrated} = await openHeld();
    const requests: string[] = [];
    tab.on('request', (r) => requests.push(r.url()));
    const number = tab.locator('pg-card-form input#number');
    await number.focus();
    await tab.keyboard.type('4242424242424242');
    await tab.keyboard.press('Enter');
    await tab.locator('pg-card-form [part~="button"]').click();
    await hydrated();
    assert.equal(tab.url(), `${origin}/`);
    // The module, and the brand marks it loads once the number has focus: nothing else.
    assert.deepEqual(
      requests.filter(
        (url) => !url.endsWith(`/${MODULE}`) && !/\/brand-marks-[\w-]+\.js$/.test(url),
      ),
      [],
      'no navigation, no request',
    );
    assert.equal(await number.inputValue(), '4242 4242 4242 4242');
    assert.equal(payments.length, 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('moves nothing when it hydrates (element boxes equal, no layout-shift entry)', async () => {
    const {context, tab, problems, hydrated} = await openHeld();
    await tab.locator('pg-card-form input#cvv').waitFor();
    const before = await boxes(tab);
    await hydrated();
    assert.deepEqual(await boxes(tab), before);
    const shifts = await tab.evaluate(() => (window as unknown as {shifts: number[]}).shifts);
    assert.deepEqual(shifts, []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('pays through the hydrated form, validating first', async () => {
    const {context, tab, problems, hydrated} = await openHeld();
    await tab.locator('pg-card-form input#number').pressSequentially('4242424242424241');
    await hydrated();
    await tab.locator('pg-card-form input#expiry').pressSequentially(`12${YEAR}`);
    assert.equal(await tab.locator('pg-card-form input#expiry').inputValue(), `12 / ${YEAR}`);
    await tab.locator('pg-card-form input#cvv').pressSequentially('123');
    // The number typed before hydration is checked like any other: a wrong check digit.
    await tab.locator('pg-card-form [part~="button"]').click();
    assert.match((await tab.locator('pg-card-form #number-error').textContent()) ?? '', /\S/);
    assert.equal(payments.length, 0);
    const number = tab.locator('pg-card-form input#number');
    await number.focus();
    await tab.keyboard.press('End');
    await tab.keyboard.press('Backspace');
    await tab.keyboard.type('2');
    await tab.locator('pg-card-form [part~="button"]').click();
    await tab.locator('#result').filter({hasText: 'success order-1'}).waitFor({timeout: 10_000});
    assert.equal(payments.length, 1);
    assert.deepEqual(payments[0]!['card'], CARD);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('renders another language on the server, and hydration keeps it', async () => {
    const {context, tab, problems, hydrated} = await openHeld('/pl');
    const label = tab.locator('pg-card-form label[for="number"]');
    assert.equal((await label.textContent())?.trim(), 'Numer karty');
    const before = await boxes(tab);
    await hydrated();
    assert.equal((await label.textContent())?.trim(), 'Numer karty');
    // Never English in between: hydration waits for the Polish table.
    await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    assert.deepEqual(await tab.evaluate(() => (window as unknown as {labels: string[]}).labels), [
      'Numer karty',
    ]);
    assert.deepEqual(await boxes(tab), before);
    assert.deepEqual(
      await tab.evaluate(() => (window as unknown as {shifts: number[]}).shifts),
      [],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('pg-checkout-hydrate-after-paint.js: the hydrating module loaded after the first paint', () => {
  it('asks for pg-checkout-hydrate.js only after the page has painted, and hydrates under the strict policy', async () => {
    const {context, tab, problems} = await open('/after-paint');
    await untilHydrated(tab);
    const {paint, fetched} = await timings(tab);
    assert.ok(paint !== undefined && fetched !== undefined, `paint ${paint}, fetched ${fetched}`);
    assert.ok(fetched >= paint, `asked for at ${fetched} ms, painted at ${paint} ms`);
    const number = tab.locator('pg-card-form input#number');
    await number.pressSequentially('42424242');
    assert.equal(await number.inputValue(), '4242 4242');
    assert.deepEqual(await violations(tab), []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('keeps what was typed while it was on its way, and moves nothing', async () => {
    const {context, tab, problems, hydrated} = await openHeld('/after-paint');
    const before = await boxes(tab);
    const number = tab.locator('pg-card-form input#number');
    await number.focus();
    await tab.keyboard.type('42424242');
    assert.equal(await defined(tab), false);
    await hydrated();
    assert.equal(await number.inputValue(), '4242 4242');
    assert.deepEqual(await boxes(tab), before);
    assert.deepEqual(
      await tab.evaluate(() => (window as unknown as {shifts: number[]}).shifts),
      [],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('keeps Pay clicked while it was on its way: the form pays once hydrated, once, on what was typed', async () => {
    const {context, tab, problems, hydrated} = await openHeld('/after-paint');
    const before = payments.length;
    await tab.locator('pg-card-form input#number').pressSequentially('4242424242424242');
    await tab.locator('pg-card-form input#expiry').pressSequentially(`12${YEAR}`);
    await tab.locator('pg-card-form input#cvv').pressSequentially('123');
    const pay = tab.locator('pg-card-form [part~="button"]');
    await pay.click();
    await pay.click();
    assert.equal(await defined(tab), false);
    assert.equal(tab.url(), `${origin}/after-paint`);
    await hydrated();
    await tab.locator('#result').filter({hasText: 'success order-1'}).waitFor({timeout: 10_000});
    assert.equal(payments.length - before, 1);
    assert.deepEqual(payments.at(-1)!['card'], CARD);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('keeps Enter pressed in a field while it was on its way; a form left unfinished shows its errors', async () => {
    const {context, tab, problems, hydrated} = await openHeld('/after-paint');
    const before = payments.length;
    await tab.locator('pg-card-form input#number').pressSequentially('4242424242424242');
    await tab.keyboard.press('Enter');
    assert.equal(await defined(tab), false);
    await hydrated();
    await tab.locator('pg-card-form #expiry-error').filter({hasText: /\S/}).waitFor();
    assert.equal(payments.length, before);
    assert.equal(tab.url(), `${origin}/after-paint`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('waits for the paint; the customer touching the form first starts the load at once', async () => {
    // The page never hears of its paint: only the touch can start the load.
    const {context, tab, problems} = await open(
      '/after-paint',
      'PerformanceObserver.prototype.observe = () => {};',
    );
    await tab.waitForTimeout(300);
    assert.equal(await defined(tab), false);
    assert.equal((await timings(tab)).fetched, undefined, 'asked for before the paint');
    await tab.locator('pg-card-form input#number').focus();
    await untilHydrated(tab);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('loads at once in a hidden tab, which paints nothing', async () => {
    const {context, tab, problems} = await open(
      '/after-paint',
      `PerformanceObserver.prototype.observe = () => {};
       Object.defineProperty(Document.prototype, 'visibilityState', {get: () => 'hidden'});`,
    );
    await untilHydrated(tab);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('refuses a pg-checkout-hydrate.js that is not the file it was built with: it never runs, and the form says pg-error', async () => {
    const {context, tab, problems} = await open(
      '/tampered/',
      `window.pgErrors = [];
       document.addEventListener('pg-error', (e) => window.pgErrors.push(e.detail));`,
    );
    await tab.waitForFunction(() => performance.getEntriesByName('first-paint').length > 0);
    const refused = async () => {
      for (let i = 0; i < 50 && !problems.some((p) => /integrity/i.test(p)); i++) {
        await tab.waitForTimeout(100);
      }
    };
    await refused();
    assert.ok(
      problems.some((p) => /integrity/i.test(p)),
      `the browser says why: ${problems.join(' | ')}`,
    );
    await tab.waitForTimeout(300);
    assert.equal(await tab.evaluate(() => 'tampered' in window), false, 'the changed file ran');
    // The page hears it, as from a form that cannot pay.
    assert.deepEqual(
      await tab.evaluate(() => (window as unknown as {pgErrors: unknown}).pgErrors),
      [
        {
          orderRef: 'order-1',
          code: 'misconfigured',
          message: `pg-checkout: ${origin}/tampered/${MODULE} could not be loaded: refused by its integrity hash, missing, or offline`,
          retryable: false,
        },
      ],
    );
    assert.equal(await defined(tab), false);
    // The form stays inert: Enter sends the card nowhere.
    const paid = payments.length;
    await tab.locator('pg-card-form input#number').pressSequentially('4242424242424242');
    await tab.keyboard.press('Enter');
    await tab.waitForTimeout(200);
    assert.equal(tab.url(), `${origin}/tampered/`);
    assert.equal(payments.length, paid);
    await context.close();
  });

  it('under a policy whose Trusted Types do not allow pg-checkout, loads nothing and says so', async () => {
    const {context, tab} = await open(
      '/old-policy/',
      `window.pgErrors = [];
       document.addEventListener('pg-error', (e) => window.pgErrors.push(e.detail));`,
    );
    await tab.waitForFunction(() => (window as unknown as {pgErrors: unknown[]}).pgErrors.length);
    assert.deepEqual(
      await tab.evaluate(() => (window as unknown as {pgErrors: unknown}).pgErrors),
      [
        {
          orderRef: 'order-1',
          code: 'misconfigured',
          message: `pg-checkout: ${origin}/old-policy/${MODULE} could not be loaded: its CSP must allow the Trusted Types policy pg-checkout`,
          retryable: false,
        },
      ],
    );
    assert.equal((await timings(tab)).fetched, undefined, 'the module was asked for');
    assert.equal(await defined(tab), false);
    await context.close();
  });
});
