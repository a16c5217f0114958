/**
 * The full checkout in real Chromium, against a plain HTML form. One demo server (the
 * example app with the embedded sandbox, in-process) serves both flows; alternating runs,
 * each in a fresh browser context (cold cache), each with its own order:
 *
 * - checkout: load `/checkout?order=…` (`<pg-card-form>`, the bundle, the page script), type
 *   a frictionless card, press Pay, until the result page (`<pg-3ds-redirect>` asking the
 *   status route) shows the success;
 * - plain form: load a bare HTML form with the same three fields, submit it to a route of
 *   the same server that calls the same companion pay route, until its answer page shows
 *   the success.
 *
 * Figures: median milliseconds of each and their ratio (checkout / plain form).
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {Hono} from 'hono';
import {pino} from 'pino';
import {launchChromium} from '../scripts/chromium.mjs';
import {startSandbox} from '../sandbox/index.js';
import {CHECKOUT_BASE, createExampleApp} from '../server-example/app.js';
import {median, round, serveLoopback} from './load.js';

const RUNS = 7;
const CARD = {number: '4242424242424242', expiry: '1234', cvv: '123'};

const plainPage = (orderRef: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pay</title></head><body>
<form method="post" action="/bench/plain-pay">
<input type="hidden" name="order" value="${orderRef}">
<label>Card number <input name="number" autocomplete="cc-number"></label>
<label>Expiry <input name="expiry" autocomplete="cc-exp"></label>
<label>Security code <input name="cvv" autocomplete="cc-csc"></label>
<button>Pay</button>
</form></body></html>`;

export default async function checkoutBench() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pg-bench-checkout-'));
  const sandbox = await startSandbox({});
  const server = await serveLoopback();
  const example = createExampleApp({
    publicUrl: server.url,
    dataDir,
    logger: pino({level: 'silent'}),
    gateway: {
      ...sandbox.clientOptions(),
    },
  });
  await example.start();

  // The plain form's routes: the same companion pay route, called by the server.
  const bench = new Hono();
  bench.get('/bench/plain', (c) => c.html(plainPage(c.req.query('order') ?? '')));
  bench.post('/bench/plain-pay', async (c) => {
    const form = await c.req.parseBody();
    const expiry = String(form['expiry'] ?? '');
    const res = await fetch(`${server.url}${CHECKOUT_BASE}/pay`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Origin: server.url,
        'X-PG-Checkout': '1',
        'User-Agent': c.req.header('user-agent') ?? 'bench',
      },
      body: JSON.stringify({
        orderRef: String(form['order']),
        attemptId: `plain-${String(form['order'])}`,
        card: {
          number: String(form['number']),
          expMonth: Number(expiry.slice(0, 2)),
          expYear: 2000 + Number(expiry.slice(2, 4)),
          cvv: String(form['cvv']),
        },
        fingerprint: {
          browserColorDepth: '24',
          browserScreenHeight: '800',
          browserScreenWidth: '1000',
          browserJavaEnabled: 'false',
          browserLanguage: 'en-US',
          browserTimeZone: 'UTC',
          browserTimeZoneOffset: '0',
          browserUserAgent: c.req.header('user-agent') ?? 'bench',
        },
      }),
    });
    const answer = (await res.json()) as {outcome?: string};
    return c.html(`<!doctype html><title>Result</title><h1>Payment ${answer.outcome}</h1>`);
  });
  server.setHandler((req, env) =>
    new URL(req.url).pathname.startsWith('/bench/')
      ? bench.fetch(req, env)
      : example.app.fetch(req, env),
  );

  const newOrder = async () => {
    const res = await example.app.request('/api/orders', {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({productId: 'tea-sampler'}),
    });
    return ((await res.json()) as {orderRef: string}).orderRef;
  };

  const browser = await launchChromium();
  const timed = async (flow: (page: import('playwright').Page, order: string) => Promise<void>) => {
    const order = await newOrder();
    const context = await browser.newContext({viewport: {width: 1000, height: 800}});
    context.setDefaultTimeout(60_000);
    const page = await context.newPage();
    const started = performance.now();
    await flow(page, order);
    const ms = performance.now() - started;
    await context.close();
    return ms;
  };
  const checkout = async (page: import('playwright').Page, order: string) => {
    await page.goto(`${server.url}/checkout?order=${order}`);
    await page.locator('input[name="cc-number"]').fill(CARD.number);
    await page.locator('input[name="cc-exp"]').fill(CARD.expiry);
    await page.locator('input[name="cc-csc"]').fill(CARD.cvv);
    await page.locator('pg-card-form [part~="button"]').click();
    await page.locator('#result-title').filter({hasText: 'your payment went through'}).waitFor();
  };
  const plain = async (page: import('playwright').Page, order: string) => {
    await page.goto(`${server.url}/bench/plain?order=${order}`);
    await page.locator('input[name="number"]').fill(CARD.number);
    await page.locator('input[name="expiry"]').fill(CARD.expiry);
    await page.locator('input[name="cvv"]').fill(CARD.cvv);
    await page.getByRole('button', {name: 'Pay'}).click();
    await page.getByRole('heading', {name: 'Payment success'}).waitFor();
  };

  const checkoutMs: number[] = [];
  const plainMs: number[] = [];
  try {
    // One warm-up of each (JIT, SQLite, the bundle read once), not counted.
    await timed(checkout);
    await timed(plain);
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        checkoutMs.push(await timed(checkout));
        plainMs.push(await timed(plain));
      } else {
        plainMs.push(await timed(plain));
        checkoutMs.push(await timed(checkout));
      }
    }
  } finally {
    await browser.close();
    await example.close();
    await server.close();
    await sandbox.close();
    rmSync(dataDir, {recursive: true, force: true});
  }
  const c = median(checkoutMs);
  const p = median(plainMs);
  return {
    runs: RUNS,
    checkoutMedianMs: round(c, 0),
    plainFormMedianMs: round(p, 0),
    ratio: round(c / p),
    note: 'page load to success with a frictionless card; fresh context per run; alternating',
  };
}
