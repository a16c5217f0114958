/**
 * End-to-end check of the CDN bundle as the CSP and SRI guide tells merchants to load it: a page that
 * loads only dist/cdn/pg-checkout.js, with its SRI hash, under a strict CSP (no
 * unsafe-inline, no unsafe-eval) with Trusted Types enforced, must show a working card form
 * and pay through it, and must not run a bundle that does not match its hash: in Chromium,
 * Firefox and WebKit (./engines.ts). Loading a locale and the brand marks on demand are
 * checked in Chromium (Playwright). Node starts a tiny static server.
 * Run by `npm run test:browser` after the web-test-runner suite.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {createServer, type IncomingMessage, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {Browser, Page} from 'playwright';
import {launchChromium} from '../../scripts/chromium.mjs';
import {pl} from '../../src/i18n/locales/pl.js';
import {
  RECORDER_PATH,
  RECORDER_SOURCE,
  launchEngine,
  recorderTag,
  testedEngines,
  type EngineBrowser,
  type EnginePage,
} from './engines.js';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "require-trusted-types-for 'script'",
  'trusted-types lit-html',
].join('; ');

const bundle = readFileSync('dist/cdn/pg-checkout.js');
const integrity = readFileSync('dist/cdn/pg-checkout.js.sri', 'utf8').trim();

const page = (sri: string, lang = 'en') => `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<title>Checkout</title>
${recorderTag(['pg-success'])}
<script src="/page.js"></script>
<script type="module" src="/pg-checkout.js" integrity="${sri}" crossorigin="anonymous"></script>
</head>
<body>
<main>
<h1>Checkout</h1>
<pg-card-form endpoint="/checkout/pay" order-ref="order-1"></pg-card-form>
<p id="result"></p>
</main>
</body>
</html>`;

const PAGE_JS = `
window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.violations.push(e.violatedDirective + ' ' + e.blockedURI);
});
document.addEventListener('pg-success', (e) => {
  document.getElementById('result').textContent = 'success ' + e.detail.orderRef;
});
`;

const payments: Array<{header: string | undefined; body: Record<string, unknown>}> = [];
/** The locale files (dist/cdn/locales/: the index, then the language's texts) pages asked for. */
const localeRequests: string[] = [];
/** Every path the server was asked for, in order. */
const requests: string[] = [];

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

let server: Server;
let browser: Browser;
let origin: string;

before(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname);
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, {
        'Content-Type': type,
        'Content-Security-Policy': CSP,
        'Cache-Control': 'no-store',
      });
      res.end(body);
    };
    if (url.pathname === '/') return send(200, 'text/html; charset=utf-8', page(integrity));
    if (url.pathname === '/tampered') {
      return send(
        200,
        'text/html; charset=utf-8',
        page(`sha384-${Buffer.alloc(48).toString('base64')}`),
      );
    }
    if (url.pathname === '/pl') return send(200, 'text/html; charset=utf-8', page(integrity, 'pl'));
    const locale = /^\/locales\/([\w-]+\.json)$/.exec(url.pathname)?.[1];
    if (locale) {
      localeRequests.push(locale);
      return send(200, 'application/json', readFileSync(`dist/cdn/locales/${locale}`));
    }
    if (url.pathname === '/favicon.ico') return send(204, 'image/x-icon', '');
    if (url.pathname === '/page.js') return send(200, 'text/javascript', PAGE_JS);
    if (url.pathname === RECORDER_PATH) return send(200, 'text/javascript', RECORDER_SOURCE);
    if (url.pathname === '/pg-checkout.js') return send(200, 'text/javascript', bundle);
    if (url.pathname === '/checkout/pay' && req.method === 'POST') {
      const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
      payments.push({header: req.headers['x-pg-checkout'] as string | undefined, body});
      const answer = {
        outcome: 'success',
        orderRef: body.orderRef,
        code: '1000',
        message: 'Approved',
      };
      return send(200, 'application/json', JSON.stringify(answer));
    }
    return send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

/** A page of the test server in a context of its own, its errors collected, once the form shows. */
async function openForm(pathName: string) {
  const context = await browser.newContext();
  const tab = await context.newPage();
  const problems: string[] = [];
  tab.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  tab.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await tab.goto(`${origin}${pathName}`);
  const number = tab.locator('pg-card-form input#number');
  await number.waitFor({state: 'visible', timeout: 10_000});
  const violations = () =>
    tab.evaluate(() => (window as unknown as {violations: string[]}).violations);
  return {context, tab, problems, number, violations};
}

/** Types the test card (expiry December, two years on) into the form; gives the year typed. */
async function typeCard(tab: Page): Promise<string> {
  const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
  await tab.locator('pg-card-form input#number').pressSequentially('4242424242424242');
  await tab.locator('pg-card-form input#expiry').pressSequentially(`12${year}`);
  await tab.locator('pg-card-form input#cvv').pressSequentially('123');
  return year;
}

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Types the test card into a form driven by ./engines.ts; gives the year typed. */
async function typeCardIn(tab: EnginePage): Promise<string> {
  const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
  await tab.typeInShadow('pg-card-form', 'input#number', '4242424242424242');
  await tab.typeInShadow('pg-card-form', 'input#expiry', `12${year}`);
  await tab.typeInShadow('pg-card-form', 'input#cvv', '123');
  return year;
}

for (const engine of testedEngines()) {
  describe(`CDN bundle under a strict CSP with Trusted Types, in ${engine}`, () => {
    let engineBrowser: EngineBrowser;
    before(async () => {
      engineBrowser = await launchEngine(engine);
    });
    after(() => engineBrowser?.close());

    it('renders a working card form and pays through it, with no violation', async () => {
      const tab = await engineBrowser.newPage();
      await tab.goto(`${origin}/`);
      const field = (id: string) =>
        `document.querySelector('pg-card-form')?.shadowRoot?.querySelector('input#${id}')`;
      await tab.waitFor(`!!${field('number')}`, {what: 'the card form'});
      const year = await typeCardIn(tab);
      assert.equal(await tab.evaluate(`${field('number')}.value`), '4242 4242 4242 4242');
      assert.equal(await tab.evaluate(`${field('expiry')}.value`), `12 / ${year}`);
      const paid = payments.length;
      await tab.click('pg-card-form', 'button[type=submit]');
      assert.deepEqual(await tab.waitForEvent('pg-success'), {
        orderRef: 'order-1',
        code: '1000',
        message: 'Approved',
      });
      await tab.waitFor(`document.getElementById('result').textContent === 'success order-1'`);

      assert.equal(payments.length, paid + 1);
      const payment = payments.at(-1)!;
      assert.equal(payment.header, '1');
      assert.deepEqual((payment.body as {card: unknown}).card, {
        number: '4242424242424242',
        expMonth: 12,
        expYear: 2000 + Number(year),
        cvv: '123',
      });
      // The form's styles applied (adoptedStyleSheets are allowed by style-src 'self').
      assert.equal(await tab.evaluate(`getComputedStyle(${field('number')}).height`), '44px');
      const violations = () => tab.evaluate<string[]>('window.violations');
      assert.deepEqual(await violations(), []);
      assert.deepEqual(await tab.consoleErrors(), []);
      assert.deepEqual(await tab.failedRequests(), []);

      // Trusted Types really are enforced on this page: a raw HTML string is refused.
      const sink = await tab.evaluate(`(() => {
        try {
          document.createElement('div').innerHTML = '<b>x</b>';
          return 'allowed';
        } catch (e) {
          return e.name;
        }
      })()`);
      assert.equal(sink, 'TypeError');
      assert.deepEqual(await violations(), ['require-trusted-types-for trusted-types-sink']);
      await tab.close();
    });

    it('does not run the bundle when its integrity hash does not match', async () => {
      const tab = await engineBrowser.newPage();
      await tab.goto(`${origin}/tampered`);
      // A module script runs (or is refused) before the load event goto waits for.
      assert.equal(await tab.evaluate(`customElements.get('pg-card-form') === undefined`), true);
      assert.equal(await tab.evaluate(`document.querySelector('pg-card-form').shadowRoot`), null);
      await tab.close();
    });
  });
}

describe('CDN bundle under a strict CSP with Trusted Types: loaded on demand (Chromium)', () => {
  it('loads a page language other than English from beside the bundle, only then, and pays in it', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const label = tab.locator('pg-card-form label[for="number"]');
    await tab.goto(`${origin}/`);
    await label.filter({hasText: 'Card number'}).waitFor({timeout: 10_000});
    assert.equal(localeRequests.length, 0, 'an English page fetched a locale');
    await tab.goto(`${origin}/pl`);
    await label.filter({hasText: 'Numer karty'}).waitFor({timeout: 10_000});
    // The index of the locales' hashes (pinned by the bundle), then Polish (pinned by it).
    assert.deepEqual(
      localeRequests.map((file) => file.split('-')[0]),
      ['index', 'pl'],
    );
    const form = tab.locator('pg-card-form');
    assert.equal((await form.locator('button[type=submit]').textContent())?.trim(), pl.pay);
    await typeCard(tab);
    await form.locator('button[type=submit]').click();
    await form.locator('[part="status"]').filter({hasText: pl.success}).waitFor({timeout: 10_000});
    assert.deepEqual(
      await tab.evaluate(() => (window as unknown as {violations: string[]}).violations),
      [],
    );
    await context.close();
  });

  it('shows the brand marks from the bundle itself: a page served pg-checkout.js alone needs nothing more', async () => {
    requests.length = 0;
    const {context, tab, problems, number, violations} = await openForm('/');
    await number.click();
    await number.pressSequentially('4242');
    const mark = tab.locator('pg-card-form svg[part="brand"]');
    await mark.waitFor({timeout: 10_000});
    assert.equal(await mark.getAttribute('data-brand'), 'visa');
    assert.equal(await mark.getAttribute('aria-label'), 'Visa');
    const input = (await number.boundingBox())!;
    const markBox = (await mark.boundingBox())!;
    assert.ok(markBox.x + markBox.width <= input.x + input.width);
    assert.ok(markBox.x >= input.x + input.width / 2, 'the mark sits at the end');
    await number.fill('');
    await number.pressSequentially('3782');
    await mark.and(tab.locator('[data-brand="american-express"]')).waitFor({timeout: 10_000});
    // The page, its scripts and the bundle: no file was fetched beside the bundle.
    assert.deepEqual(
      requests.filter((p) => p !== '/favicon.ico' && p !== RECORDER_PATH),
      ['/', '/page.js', '/pg-checkout.js'],
    );
    assert.deepEqual(await violations(), []);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
