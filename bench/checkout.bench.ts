/**
 * The full checkout in real Chromium, against a plain HTML form. One demo server (the
 * example app with the embedded sandbox, in-process) serves both flows; alternating runs,
 * each in a fresh browser context (cold cache), each with its own order. Both flows end on
 * the same page, the demo's result page (`/thanks?order=…`), which the server renders with
 * the order's status when it knows it to be paid (no script, no status request): what the
 * customer sees at the end is the same page, made the same way.
 *
 * - checkout (server-rendered): load `/checkout?order=…` (`<pg-card-form>` rendered by the
 *   server, pg-checkout/ssr; the demo's stylesheet, the hydrating bundle, the page script
 *   and its order-summary request), type a frictionless card, press Pay: the form posts the
 *   payment to the companion's pay route (`fetch`), says success, and the page script goes
 *   to the result page, until its heading says the payment went through;
 * - checkout (client-rendered): the same page as the server sends it, with the rendered form
 *   replaced by the bare `<pg-card-form>` tag and the bundle by the CDN one, as a page
 *   that renders in the browser (the CDN path) is;
 * - plain form: load a bare HTML form with the same three fields (no stylesheet, no script),
 *   submit it to a route of the same server that calls the same companion pay route and
 *   answers 303 to the same result page (post/redirect/get, as a plain form that takes
 *   payments does, so reloading the answer never pays twice), until its heading says the
 *   payment went through.
 *
 * Figures: median milliseconds of each and their ratios to the plain form (goal: ≤ 1.2).
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {Hono} from 'hono';
import {pino} from 'pino';
import {launchChromium} from '../scripts/chromium.mjs';
import {startSandbox} from '../sandbox/index.js';
import {CHECKOUT_BASE, createExampleApp} from '../server-example/app.js';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../src/protocol/checkout.js';
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
    // Every run pays with the same card from the same address: the card-testing limits
    // would refuse the later ones.
    payAttempts: {maxAttemptsPerIp: 1000, maxAttemptsPerCard: 1000},
    gateway: {
      ...sandbox.clientOptions(),
    },
  });
  await example.start();

  // The plain form's routes: the same companion pay route, called by the server.
  const bench = new Hono();
  bench.get('/bench/plain', (c) => c.html(plainPage(c.req.query('order') ?? '')));
  bench.get('/bench/client', async (c) => {
    const order = c.req.query('order') ?? '';
    const rendered = await (await example.app.request(`/checkout?order=${order}`)).text();
    const tag = `<pg-card-form id="card-form" endpoint="${CHECKOUT_BASE}/pay" status-endpoint="${CHECKOUT_BASE}/status" order-ref="${order}" amount="1.20" currency="XTS" lang="en"></pg-card-form>`;
    const page = rendered
      .replace(/<pg-card-form[\s\S]*?<\/pg-card-form>/, tag)
      .replace('/assets/pg-checkout-hydrate.js', '/assets/pg-checkout.js');
    if (page === rendered || !page.includes(tag)) throw new Error('no card form to replace');
    return c.html(page);
  });
  bench.post('/bench/plain-pay', async (c) => {
    const form = await c.req.parseBody();
    const expiry = String(form['expiry'] ?? '');
    const res = await fetch(`${server.url}${CHECKOUT_BASE}/pay`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Origin: server.url,
        [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
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
    await res.arrayBuffer();
    return c.redirect(`/thanks?order=${encodeURIComponent(String(form['order']))}`, 303);
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
  /** When the card form said success (`pg-success`), in this process's clock. */
  let formSuccessAt = 0;
  const timed = async (flow: (page: import('playwright').Page, order: string) => Promise<void>) => {
    const order = await newOrder();
    const context = await browser.newContext({viewport: {width: 1000, height: 800}});
    context.setDefaultTimeout(60_000);
    // The first only: the result page's `<pg-3ds-redirect>` says success again.
    await context.exposeFunction('pgBenchSuccess', () => {
      formSuccessAt ||= performance.now();
    });
    await context.addInitScript(() => {
      const w = window as unknown as {pgBenchSuccess(): void};
      document.addEventListener('pg-success', () => w.pgBenchSuccess());
    });
    const page = await context.newPage();
    formSuccessAt = 0;
    const started = performance.now();
    await flow(page, order);
    const ms = performance.now() - started;
    await context.close();
    return {ms, formSuccessMs: formSuccessAt ? formSuccessAt - started : undefined};
  };
  const pay = async (page: import('playwright').Page, url: string) => {
    await page.goto(url);
    await page.locator('input[name="cc-number"]').fill(CARD.number);
    await page.locator('input[name="cc-exp"]').fill(CARD.expiry);
    await page.locator('input[name="cc-csc"]').fill(CARD.cvv);
    // A server-rendered form takes typing before its module has run, but pays only after
    // (a customer takes longer than this to type a card).
    await page.waitForFunction(
      () => (document.querySelector('pg-card-form') as {hasUpdated?: boolean} | null)?.hasUpdated,
    );
    await page.locator('pg-card-form [part~="button"]').click();
    await page.locator('#result-title').filter({hasText: 'your payment went through'}).waitFor();
  };
  const checkout = (page: import('playwright').Page, order: string) =>
    pay(page, `${server.url}/checkout?order=${order}`);
  const client = (page: import('playwright').Page, order: string) =>
    pay(page, `${server.url}/bench/client?order=${order}`);
  const plain = async (page: import('playwright').Page, order: string) => {
    await page.goto(`${server.url}/bench/plain?order=${order}`);
    await page.locator('input[name="number"]').fill(CARD.number);
    await page.locator('input[name="expiry"]').fill(CARD.expiry);
    await page.locator('input[name="cvv"]').fill(CARD.cvv);
    await page.getByRole('button', {name: 'Pay'}).click();
    await page.locator('#result-title').filter({hasText: 'your payment went through'}).waitFor();
  };

  const flows = {checkout, client, plain};
  const ms: Record<keyof typeof flows, number[]> = {checkout: [], client: [], plain: []};
  const formMs: Record<keyof typeof flows, number[]> = {checkout: [], client: [], plain: []};
  const names = Object.keys(flows) as (keyof typeof flows)[];
  try {
    // One warm-up of each (JIT, SQLite, the bundle read once), not counted.
    for (const name of names) await timed(flows[name]);
    for (let i = 0; i < RUNS; i++) {
      // Rotate the order so each flow takes each position equally often.
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length]!;
        const run = await timed(flows[name]);
        ms[name].push(run.ms);
        if (run.formSuccessMs !== undefined) formMs[name].push(run.formSuccessMs);
      }
    }
  } finally {
    await browser.close();
    await example.close();
    await server.close();
    await sandbox.close();
    rmSync(dataDir, {recursive: true, force: true});
  }
  const c = median(ms.checkout);
  const cc = median(ms.client);
  const p = median(ms.plain);
  return {
    runs: RUNS,
    checkoutMedianMs: round(c, 0),
    clientRenderedMedianMs: round(cc, 0),
    plainFormMedianMs: round(p, 0),
    ratio: round(c / p),
    clientRenderedRatio: round(cc / p),
    goalRatio: 1.2,
    withinGoal: c / p <= 1.2,
    // Until the form itself said success, before the demo moves on to its result page.
    checkoutFormSuccessMs: round(median(formMs.checkout), 0),
    clientRenderedFormSuccessMs: round(median(formMs.client), 0),
    formSuccessRatio: round(median(formMs.checkout) / p),
    clientRenderedFormSuccessRatio: round(median(formMs.client) / p),
    note: 'page load to the result page saying success, frictionless card; both flows end on the same server-rendered result page; fresh context per run; rotating order',
  };
}
