/**
 * The full checkout in real Chromium, against a plain HTML form. One demo server (the
 * example app with the embedded sandbox, in-process) serves every flow; alternating runs,
 * each in a fresh browser context (cold cache), each with its own order. Every flow ends
 * when the customer reads that the payment went through (`#result-title`), at the result
 * page's address (`/thanks?order=…`): the plain form's answer is that page, which the server
 * renders with the order's status when it knows it to be paid (no script, no status
 * request); the checkout says it in place, as the demo does, and a reload renders the same
 * page on the server.
 *
 * - checkout (server-rendered): load `/checkout?order=…` (`<pg-card-form>` and the order
 *   summary rendered by the server, pg-checkout/ssr; the shop's stylesheet, the hydrating
 *   bundle, the page script and the form's startup modules, named for preloading), type a
 *   frictionless card, press Pay: the form posts the payment to the companion's pay route
 *   (`fetch`), says success, and the page script says it in place (the address becomes the
 *   result page's, no request), until its heading says the payment went through;
 * - checkout (client-rendered): the same page as the server sends it, with the rendered form
 *   replaced by the bare `<pg-card-form>` tag and the bundle (and its preloads) by the CDN
 *   one, as a page that renders in the browser (the CDN path) is;
 * - plain form: the same checkout page as the server sends it (the shop's stylesheet, the
 *   summary), with a plain HTML form of the same three fields in place of `<pg-card-form>`
 *   and no script at all; submitted to a route of the same server that calls the same
 *   companion pay route (in-process, as the companion is mounted in the merchant's app) and
 *   answers 303 to the same result page (post/redirect/get, as a plain form that takes
 *   payments does, so reloading the answer never pays twice), until its heading says the
 *   payment went through. The goal's baseline: only the payment part differs.
 * - bare form (for reference): a page of nothing but that form (no stylesheet, no summary),
 *   the same post and result page.
 *
 * Figures: median milliseconds of each, their ratios to the plain form (goal: ≤ 1.2) and
 * to the bare one, and the load average over the run (the machine is shared).
 * `CHECKOUT_TRACE=1 npm run bench -- checkout` also prints every run's requests (stderr).
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {loadavg, tmpdir} from 'node:os';
import path from 'node:path';
import {Hono} from 'hono';
import {pino} from 'pino';
import {launchChromium} from '../scripts/chromium.mjs';
import {startSandbox} from '../sandbox/index.js';
import {CHECKOUT_BASE, createExampleApp} from '../server-example/app.js';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../src/protocol/checkout.js';
import {serveLoopback} from './load.js';
import {median, round} from './stats.js';

const RUNS = 9;
const CARD = {number: '4242424242424242', expiry: '1234', cvv: '123'};

const plainForm = (
  orderRef: string,
) => `<form method="post" action="/bench/plain-pay" id="plain-form">
<input type="hidden" name="order" value="${orderRef}">
<label>Card number <input name="number" autocomplete="cc-number"></label>
<label>Expiry <input name="expiry" autocomplete="cc-exp"></label>
<label>Security code <input name="cvv" autocomplete="cc-csc"></label>
<button>Pay</button>
</form>`;

const barePage = (orderRef: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pay</title></head><body>
${plainForm(orderRef)}</body></html>`;

const CARD_FORM = /<pg-card-form[\s\S]*?<\/pg-card-form>/;
const SCRIPT = /<script type="module" src="[^"]*"(?: integrity="[^"]*")?><\/script>\s*/g;

/** `page` with `re` replaced by `by`; throws when `re` matched nothing (the page changed). */
function swap(page: string, re: RegExp | string, by: string): string {
  const next = page.replace(re, by);
  if (next === page) throw new Error(`the checkout page has no ${String(re)} to replace`);
  return next;
}

export default async function checkoutBench() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pg-bench-checkout-'));
  const sandbox = await startSandbox({});
  const server = await serveLoopback();
  const example = createExampleApp({
    publicUrl: server.url,
    dataDir,
    logger: pino({level: 'silent'}),
    // Every run pays with the same card from the same address, and its page asks for its
    // order: the card-testing limits and the order look-ups' would refuse the later ones.
    payAttempts: {maxAttemptsPerIp: 1000, maxAttemptsPerCard: 1000, maxOrderLookupsPerIp: 100_000},
    // ...and every order comes from this process: more than the 30 a client may start.
    limits: {orders: 1000},
    gateway: {
      ...sandbox.clientOptions(),
    },
  });
  await example.start();

  /**
   * The plain and client-rendered pages of an order, made from the checkout page as the
   * example app sends it, before the order's run is timed: a server makes such a page with
   * a template, not by rendering a card form and throwing it away.
   */
  const derivedPages = new Map<string, {plain: string; client: string}>();
  const derivePages = async (order: string) => {
    const rendered = await (await example.app.request(`/checkout?order=${order}`)).text();
    const plain = swap(swap(rendered, CARD_FORM, plainForm(order)), SCRIPT, '');
    const tag = `<pg-card-form id="card-form" endpoint="${CHECKOUT_BASE}/pay" status-endpoint="${CHECKOUT_BASE}/status" order-ref="${order}" amount="1.20" currency="XTS" lang="en" offer-save-card></pg-card-form>`;
    let client = swap(rendered, CARD_FORM, tag);
    // The CDN bundle where the page named the loader (each file's hash is its own).
    const loaderTag = /src="\/assets\/pg-checkout-hydrate-after-paint\.js" integrity="[^"]*"/;
    client = swap(client, loaderTag, 'src="/assets/pg-checkout.js"');
    derivedPages.set(order, {plain, client});
  };
  const derived = (order: string | undefined, kind: 'plain' | 'client') => {
    const page = derivedPages.get(order ?? '');
    if (!page) throw new Error(`no ${kind} page made for order ${order}`);
    return page[kind];
  };

  // The plain form's routes: the same companion pay route, called by the server.
  const bench = new Hono();
  bench.get('/bench/bare', (c) => c.html(barePage(c.req.query('order') ?? '')));
  bench.get('/bench/plain', (c) => c.html(derived(c.req.query('order'), 'plain')));
  bench.get('/bench/client', (c) => c.html(derived(c.req.query('order'), 'client')));
  bench.post('/bench/plain-pay', async (c) => {
    const form = await c.req.parseBody();
    const expiry = String(form['expiry'] ?? '');
    // In-process, as the merchant's own app calls what is mounted in it: no extra hop.
    const res = await example.app.request(
      `${server.url}${CHECKOUT_BASE}/pay`,
      {
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
      },
      c.env,
    );
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
    if (res.status !== 201) throw new Error(`no order: ${res.status} ${await res.text()}`);
    const {orderRef} = (await res.json()) as {orderRef: string};
    await derivePages(orderRef);
    return orderRef;
  };

  const browser = await launchChromium();
  /** When the card form said success (`pg-success`), in this process's clock. */
  let formSuccessAt = 0;
  /**
   * With `CHECKOUT_TRACE=1`: every request of a run (start, time to first byte, end, in ms
   * from the start of the run), printed to stderr: the flow's critical path.
   */
  const trace = (name: string, page: import('playwright').Page, started: number) => {
    if (!process.env['CHECKOUT_TRACE']) return () => undefined;
    const epoch = Date.now() - (performance.now() - started);
    const lines: [number, string][] = [];
    page.on('requestfinished', (r) => {
      const t = r.timing();
      const at = t.startTime - epoch;
      const path = r.url().replace(server.url, '');
      const ttfb = Math.round(t.responseStart - t.requestStart);
      lines.push([
        at,
        `${r.method()} ${path} (ttfb ${ttfb}, end ${Math.round(at + t.responseEnd)})`,
      ]);
    });
    return (ms: number) => {
      lines.push([ms, 'done']);
      lines.sort((a, b) => a[0] - b[0]);
      console.error(
        `-- ${name}\n${lines.map(([at, l]) => `${Math.round(at)}`.padStart(6) + ` ${l}`).join('\n')}`,
      );
    };
  };
  const timed = async (
    name: string,
    flow: (page: import('playwright').Page, order: string) => Promise<void>,
  ) => {
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
    const traced = trace(name, page, started);
    await flow(page, order);
    const ms = performance.now() - started;
    traced(ms);
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
    if (!new URL(page.url()).pathname.endsWith('/thanks')) {
      throw new Error(`the checkout said success at ${page.url()}, not the result page's address`);
    }
  };
  const checkout = (page: import('playwright').Page, order: string) =>
    pay(page, `${server.url}/checkout?order=${order}`);
  const client = (page: import('playwright').Page, order: string) =>
    pay(page, `${server.url}/bench/client?order=${order}`);
  const post = async (page: import('playwright').Page, url: string) => {
    await page.goto(url);
    await page.locator('input[name="number"]').fill(CARD.number);
    await page.locator('input[name="expiry"]').fill(CARD.expiry);
    await page.locator('input[name="cvv"]').fill(CARD.cvv);
    await page.locator('#plain-form button').click();
    await page.locator('#result-title').filter({hasText: 'your payment went through'}).waitFor();
  };
  const plain = (page: import('playwright').Page, order: string) =>
    post(page, `${server.url}/bench/plain?order=${order}`);
  const bare = (page: import('playwright').Page, order: string) =>
    post(page, `${server.url}/bench/bare?order=${order}`);

  const flows = {checkout, client, plain, bare};
  type Flow = keyof typeof flows;
  const ms: Record<Flow, number[]> = {checkout: [], client: [], plain: [], bare: []};
  const formMs: Record<Flow, number[]> = {checkout: [], client: [], plain: [], bare: []};
  const names = Object.keys(flows) as Flow[];
  const loadBefore = loadavg()[0]!;
  try {
    // One warm-up of each (JIT, SQLite, the bundle read once), not counted.
    for (const name of names) await timed(`${name} (warm-up)`, flows[name]);
    for (let i = 0; i < RUNS; i++) {
      // Rotate the order so each flow takes each position equally often.
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length]!;
        const run = await timed(name, flows[name]);
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
  const loadAfter = loadavg()[0]!;
  const c = median(ms.checkout);
  const cc = median(ms.client);
  const p = median(ms.plain);
  const b = median(ms.bare);
  return {
    runs: RUNS,
    checkoutMedianMs: round(c, 0),
    clientRenderedMedianMs: round(cc, 0),
    plainFormMedianMs: round(p, 0),
    ratio: round(c / p),
    clientRenderedRatio: round(cc / p),
    // The median of each round's own ratio (the flows of a round run back to back), which
    // a change of load during the run moves less.
    pairedRatio: round(median(ms.checkout.map((x, i) => x / ms.plain[i]!))),
    clientRenderedPairedRatio: round(median(ms.client.map((x, i) => x / ms.plain[i]!))),
    goalRatio: 1.2,
    withinGoal: c / p <= 1.2 && cc / p <= 1.2,
    // The same against a page of nothing but the form (no stylesheet, no summary).
    bareFormMedianMs: round(b, 0),
    bareRatio: round(c / b),
    clientRenderedBareRatio: round(cc / b),
    // Until the form itself said success (the page says it in place right after).
    checkoutFormSuccessMs: round(median(formMs.checkout), 0),
    clientRenderedFormSuccessMs: round(median(formMs.client), 0),
    formSuccessRatio: round(median(formMs.checkout) / p),
    clientRenderedFormSuccessRatio: round(median(formMs.client) / p),
    loadAverage: [round(loadBefore), round(loadAfter)],
    note: 'page load until the customer reads that the payment went through, frictionless card, at the result page address: the plain form on the server-rendered result page (post/redirect/get), the checkout in place; the plain form is the same checkout page with a plain form and no script; fresh context per run; rotating order',
  };
}
