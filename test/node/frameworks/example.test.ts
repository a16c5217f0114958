/**
 * The React example (examples/react/) as a merchant runs it: built with `vite build`
 * against pg-checkout installed from this repository's build (merchant.ts: a `file:`
 * dependency, resolved through package.json "exports"), served by a shop app that mounts
 * the checkout companion at /checkout on the same origin, against the gateway sandbox, and
 * paid in Chromium with the test card 4242 4242 4242 4242: the page shows what its
 * `onPgSuccess` prop received, and the companion recorded the payment.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync, readdirSync} from 'node:fs';
import type http from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {createAdaptorServer} from '@hono/node-server';
import {serveStatic} from '@hono/node-server/serve-static';
import {Hono} from 'hono';
import type {Browser} from 'playwright';
import {sharedChromium} from '../../../scripts/chromium.mjs';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  createCheckoutApp,
  SqlitePaymentStore,
  type CheckoutApp,
} from '../../../src/server/index.js';
import {GENEROUS_LIMITS, captureLogger, catalogue, updates} from '../checkout/helpers.js';
import {ROOT, merchantProject, node, type MerchantProject} from './merchant.js';

let project: MerchantProject;
let built = '';
let sandbox: Sandbox;
let checkout: CheckoutApp;
let server: http.Server;
let base = '';
let browser: Browser;
const payments = updates();
const log = captureLogger();

before(async () => {
  project = await merchantProject({modules: true}, path.join(ROOT, 'examples/react'));
  built = path.join(project.dir, 'dist');
  await node(
    [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    project.dir,
  );

  // The shop: the built app, and the companion under /checkout on the same origin. It
  // listens first, since the companion needs its public address.
  const shop = new Hono();
  server = createAdaptorServer({fetch: shop.fetch}) as http.Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sandbox = await startSandbox();
  checkout = createCheckoutApp({
    gateway: {
      ...sandbox.clientOptions(),
      retries: 0,
    },
    store: new SqlitePaymentStore(':memory:'),
    publicUrl: `${base}/checkout`,
    returnPage: '/',
    // The shop knows its customer, as the demo's does: the form asks for the card only.
    resolveOrder: catalogue({
      customer: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        phone: '+380501234567',
      },
    }).resolveOrder,
    onPaymentUpdate: payments.onPaymentUpdate,
    logger: log.logger,
    rateLimit: GENEROUS_LIMITS,
  });
  shop
    .route('/checkout', checkout)
    .use('/*', serveStatic({root: path.relative(process.cwd(), built)}));
  browser = await sharedChromium();
});

after(async () => {
  await browser?.close();
  await checkout?.close();
  await new Promise<void>((resolve) => {
    server?.close(() => resolve());
    server?.closeAllConnections();
  });
  await sandbox?.close();
  project?.remove();
});

describe('the React example (examples/react)', () => {
  test('builds with vite build, taking pg-checkout/react from the installed package', () => {
    const assets = readdirSync(path.join(built, 'assets'));
    const code = assets.map((f) => readFileSync(path.join(built, 'assets', f), 'utf8')).join('\n');
    assert.match(code, /could not load the checkout elements/, 'the wrapper is in the app');
    // ...and the elements, which it loads on its own, come as chunks of their own.
    assert.ok(
      assets.some((f) => f.startsWith('card-form-')),
      assets.join(', '),
    );
  });

  test('is what the frameworks guide shows: Checkout.tsx included from its file', () => {
    // The guide shows the file in a marked block that holds its text byte for byte
    // (scripts/docs/snippets.mjs keeps the two equal; lint fails when they differ).
    const guide = readFileSync(path.join(ROOT, 'docs/guides/frameworks.md'), 'utf8');
    const file = readFileSync(path.join(ROOT, 'examples/react/src/Checkout.tsx'), 'utf8');
    assert.match(guide, /^<!-- snippet: examples\/react\/src\/Checkout\.tsx -->$/m);
    assert.ok(guide.includes('```tsx\n' + file), 'the block after the marker is the file');
  });

  test('pays with 4242 4242 4242 4242 and shows what onPgSuccess received', async () => {
    const orderRef = `react-example-${Date.now()}`;
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      await page.goto(`${base}/?order=${orderRef}`);
      const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
      await page.locator('input[name="cc-number"]').fill('4242 4242 4242 4242');
      await page.locator('input[name="cc-exp"]').fill(`12${year}`);
      await page.locator('input[name="cc-csc"]').fill('123');
      await page.locator('input[name="cc-name"]').fill('ADA LOVELACE');
      await page.locator('pg-card-form [part~="button"]').click();
      const outcome = page.locator('p[data-outcome="paid"]');
      await outcome.waitFor({timeout: 15_000}).catch(async (error: unknown) => {
        const status = await page.locator('pg-card-form [part~="status"]').first().textContent();
        const said = await page.locator('p[data-outcome]').textContent();
        throw new Error(
          `no success shown; the form says "${status}", the page "${said}"; console: ${problems.join(' | ')}; companion log:\n${log.lines.slice(-5).join('')}`,
          {cause: error},
        );
      });
      assert.equal(await outcome.textContent(), `Paid: order ${orderRef}, card 424242******4242`);
      assert.ok(
        payments.list.some((u) => u.orderRef === orderRef && u.state === 'success'),
        `the companion recorded the payment: ${JSON.stringify(payments.list)}`,
      );
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
