/**
 * Server rendering with `pg-checkout/react` keeps every configured value: React 19 renders
 * the page in Node (`renderToString`), Chromium hydrates it with the same components, and
 * every property of every element — strings, booleans, a number, an object, a function —
 * is on the element afterwards, the event props are listened to, and React reports no
 * hydration mismatch. Also: importing the wrapper on a server defines nothing, and the
 * server HTML itself already carries every property that has an attribute.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {build} from 'esbuild';
import {createElement as h} from 'react';
import {renderToString} from 'react-dom/server';
import type {Browser, Page} from 'playwright';
import {sharedChromium} from '../../../scripts/chromium.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');

let globalsAfterImport: string[] = [];
let html = '';
let server: http.Server;
let base = '';
let browser: Browser;
let page: Page;
const problems: string[] = [];

before(async () => {
  const before = ['customElements', 'HTMLElement', 'window', 'document'].filter(
    (name) => name in globalThis,
  );
  assert.deepEqual(before, [], 'a plain Node process to begin with');
  const {App} = await import('./fixtures/ssr-app.js');
  globalsAfterImport = ['customElements', 'HTMLElement', 'window', 'document'].filter(
    (name) => name in globalThis,
  );
  html = renderToString(h(App, {report: () => {}}));

  const client = await build({
    entryPoints: [path.join(here, 'fixtures/ssr-client.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    tsconfig: path.join(root, 'tsconfig.json'),
    // React's development build: it reports hydration mismatches on the console.
    define: {'process.env.NODE_ENV': '"development"'},
    logLevel: 'warning',
  });
  const script = client.outputFiles[0]!.text;
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>SSR</title></head><body><div id="root">${html}</div><script type="module" src="/client.js"></script></body></html>`;
  server = http.createServer((req, res) => {
    if (req.url === '/client.js') {
      res.writeHead(200, {'content-type': 'text/javascript'}).end(script);
    } else if (req.url === '/') {
      res.writeHead(200, {'content-type': 'text/html; charset=utf-8'}).end(page);
    } else {
      res.writeHead(204).end(); // favicon.ico
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await sharedChromium();
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function hydrated(): Promise<Page> {
  if (page) return page;
  page = await browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(base);
  await page.waitForFunction(
    () =>
      window.ssr?.hydrated &&
      ['pg-card-form', 'pg-3ds-redirect', 'pg-fingerprint'].every((t) => customElements.get(t)),
    null,
    {timeout: 10_000},
  );
  await page.evaluate(() =>
    Promise.all(
      [...document.querySelectorAll('pg-card-form, pg-3ds-redirect, pg-fingerprint')].map(
        (el) => (el as HTMLElement & {updateComplete: Promise<unknown>}).updateComplete,
      ),
    ),
  );
  return page;
}

describe('server rendering with pg-checkout/react', () => {
  test('importing pg-checkout/react on a server defines no element and adds no DOM global', () => {
    assert.deepEqual(globalsAfterImport, []);
  });

  test('pg-checkout/react exports the three components and nothing else', async () => {
    const wrapper = await import('../../../src/react/index.js');
    assert.deepEqual(Object.keys(wrapper).sort(), [
      'PgCardForm',
      'PgFingerprint',
      'PgThreeDSRedirect',
    ]);
    assert.equal(wrapper.PgCardForm.displayName, 'PgCardForm');
  });

  test('the server HTML carries every property that has an attribute, in kebab case', () => {
    const tag = (id: string) => new RegExp(`<[a-z0-9-]+ id="${id}"[^>]*>`).exec(html)?.[0] ?? '';
    const form = tag('wrapped');
    for (const attribute of [
      'class="checkout"',
      'order-ref="ssr-order-1"',
      'endpoint="/shop/checkout/pay"',
      'status-endpoint="/shop/checkout/status"',
      'three-ds-mode="iframe"',
      'challenge-window-size="03"',
      'holder-name=""',
      'customer-email=""',
    ]) {
      assert.ok(form.includes(attribute), `${attribute} in ${form}`);
    }
    assert.doesNotMatch(form, /customer-phone|orderRef|messages/);
    const redirect = tag('redirect');
    for (const attribute of [
      'mode="iframe"',
      'window-size="02"',
      'return-url="/shop/return"',
      'timeout="1234"',
      'poll-interval="50"',
      'no-status=""',
    ]) {
      assert.ok(redirect.includes(attribute), `${attribute} in ${redirect}`);
    }
    assert.ok(tag('fingerprint').includes('name="fp"'));
  });

  test('after hydration in Chromium every configured value is on the elements', async () => {
    const p = await hydrated();
    const {CARD_FORM, REDIRECT} = await import('./fixtures/ssr-app.js');
    // A string, not a function: tsx would wrap named functions in a helper the page lacks.
    const seen = (await p.evaluate(`(() => {
      const byId = (id) => document.getElementById(id);
      const pick = (el, keys) => Object.fromEntries(keys.map((k) => [k, el[k]]));
      byId('redirect').navigate('https://acs.example/challenge');
      return {
        form: pick(byId('wrapped'), ${JSON.stringify(Object.keys(CARD_FORM))}),
        className: byId('wrapped').className,
        button: byId('wrapped').shadowRoot.querySelector('[part~="button"]').textContent.trim(),
        redirect: pick(byId('redirect'), ${JSON.stringify(Object.keys(REDIRECT))}),
        fingerprint: byId('fingerprint').name,
        plain: pick(byId('plain'), ['orderRef', 'endpoint', 'threeDSMode', 'holderName']),
        camel: pick(byId('camel'), ['orderRef', 'holderName']),
        reports: window.ssr.reports,
      };
    })()`)) as Record<string, unknown>;
    assert.deepEqual(seen.form, CARD_FORM);
    assert.equal(seen.className, 'checkout');
    assert.equal(seen.button, 'Pay with React');
    assert.deepEqual(seen.redirect, REDIRECT);
    assert.deepEqual(seen.reports, [['navigate', 'https://acs.example/challenge']]);
    assert.equal(seen.fingerprint, 'fp');
    assert.deepEqual(seen.plain, {
      orderRef: 'plain-order',
      endpoint: '/plain/pay',
      threeDSMode: 'iframe',
      holderName: true,
    });
    // The control: written by hand in camelCase, React hydrates the element without its
    // properties, which is what the wrapper and the kebab-case typings are for.
    assert.deepEqual(seen.camel, {orderRef: '', holderName: false});
    assert.deepEqual(problems, [], 'no hydration mismatch or other console error');
  });

  test('event props are listened to after hydration', async () => {
    const p = await hydrated();
    const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
    const form = p.locator('#wrapped');
    await form.locator('input[name="cc-number"]').fill('4242424242424242');
    await form.locator('input[name="cc-exp"]').fill(`12${year}`);
    await form.locator('input[name="cc-csc"]').fill('123');
    await form.locator('input[name="cc-name"]').fill('ADA LOVELACE');
    await form.locator('input[name="email"]').fill('ada@example.com');
    await form.locator('[part~="button"]').click();
    await p.waitForFunction(() => window.ssr.reports.some(([what]) => what === 'submit'), null, {
      timeout: 10_000,
    });
    const reports = await p.evaluate(() => window.ssr.reports);
    assert.deepEqual(
      reports.find(([what]) => what === 'submit'),
      ['submit', 'ssr-order-1'],
    );
    assert.deepEqual(reports.filter(([what]) => what === 'validity').at(-1), ['validity', true]);
    assert.deepEqual(problems, []);
  });
});
