/**
 * Server rendering from the packed tarball: in the server app (which installed the optional
 * peer @lit-labs/ssr), `pg-checkout/ssr` renders `<pg-card-form>`, and a merchant page made
 * of that HTML and the package's dist/cdn/pg-checkout-hydrate-after-paint.js (pinned by its
 * `.sri`, as the guide says), which loads pg-checkout-hydrate.js beside it, shows the fields
 * before the module runs and hydrates them in Chromium, keeping what was typed.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import type {Browser} from 'playwright';
import {sharedChromium} from '../../scripts/chromium.mjs';
import {installedPackage, packed, runNode} from './packed.js';

const app = packed.server;

let server: Server;
let browser: Browser;
let origin: string;
let formHtml: string;

before(async () => {
  // In a process of its own, as a merchant's server renders it.
  const rendered = await runNode(app, [
    '--input-type=module',
    '-e',
    `const {renderCardForm} = await import('pg-checkout/ssr');
    process.stdout.write(await renderCardForm({endpoint: '/pay', orderRef: 'packed-1', amount: '5.00', currency: 'EUR'}));`,
  ]);
  assert.equal(rendered.stderr, '');
  formHtml = rendered.stdout;
  const cdn = (file: string) => readFileSync(path.join(installedPackage(app), 'dist/cdn', file));
  const files = ['pg-checkout-hydrate.js', 'pg-checkout-hydrate-after-paint.js'];
  const integrity = cdn('pg-checkout-hydrate-after-paint.js.sri').toString().trim();
  server = createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, {'Content-Type': 'text/html; charset=utf-8'});
      res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay</title>` +
          `<script type="module" src="/pg-checkout-hydrate-after-paint.js" integrity="${integrity}"></script></head>` +
          `<body><main><h1>Pay</h1>${formHtml}</main></body></html>`,
      );
    } else if (files.includes(req.url?.slice(1) ?? '')) {
      res.writeHead(200, {'Content-Type': 'text/javascript'});
      res.end(cdn(req.url!.slice(1)));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await sharedChromium();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('pg-checkout/ssr from the package', () => {
  it('renders the card form into a declarative shadow root', () => {
    assert.match(formHtml, /<pg-card-form[^>]* order-ref="packed-1"/);
    assert.match(formHtml, /<template shadowroot="open" shadowrootmode="open"/);
    assert.match(formHtml, /<input[^>]*name="cc-number"/);
  });

  it('a merchant page shows the fields at once and the packed module hydrates them', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (e) => problems.push(e.message));
    tab.on('console', (m) => {
      if (m.type() === 'error' && !m.text().includes('404')) problems.push(m.text());
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await tab.route('**/pg-checkout-hydrate.js', async (route) => {
      await held;
      await route.continue();
    });
    await tab.goto(`${origin}/`, {waitUntil: 'commit'});
    const number = tab.locator('pg-card-form input#number');
    await number.waitFor();
    await number.focus();
    await tab.keyboard.type('4242424242424242');
    assert.equal(await tab.evaluate(() => customElements.get('pg-card-form')), undefined);
    release();
    await tab.waitForFunction(
      () => (document.querySelector('pg-card-form') as {hasUpdated?: boolean} | null)?.hasUpdated,
    );
    assert.equal(await number.inputValue(), '4242 4242 4242 4242');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
