/**
 * The example merchant app, as a function: builds a Hono app that serves a tiny shop
 * (a catalogue, server-side orders, a page with `<pg-card-form>` and a return page with
 * `<pg-3ds-redirect>`), mounts the checkout companion under `/api/checkout`, and answers
 * `GET /healthz`. `main.ts` starts it; tests start it in-process with their own config.
 */
import {randomBytes, timingSafeEqual} from 'node:crypto';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {Hono} from 'hono';
import * as z from 'zod';
import {
  SqlitePaymentStore,
  createCheckoutApp,
  type CheckoutApp,
  type GatewayClientOptions,
  type Logger,
  type PaymentUpdate,
  type ResolvedOrder,
} from '../src/server/index.js';

/** Where the companion is mounted in this app. */
export const CHECKOUT_BASE = '/api/checkout';

/** The shop's products: prices are decided here, never by the browser. */
export const PRODUCTS = {
  'tea-sampler': {name: 'Tea sampler', amount: '1.20', currency: 'XTS'},
  'coffee-beans': {name: 'Coffee beans, 250 g', amount: '1.85', currency: 'XTS'},
  mug: {name: 'Enamel mug', amount: '1.50', currency: 'XTS'},
} as const;
type ProductId = keyof typeof PRODUCTS;

export interface ExampleConfig {
  /** Where the app is reachable, e.g. `http://localhost:8080`. */
  publicUrl: string;
  /** Extra origins allowed to post payments (e.g. `http://127.0.0.1:8080`). */
  extraOrigins?: string[];
  dataDir: string;
  gateway: GatewayClientOptions;
  /** Bearer token of the `/admin` routes; without it they are off. */
  adminToken?: string;
  logger?: Logger;
  /** The built browser bundle; default `dist/cdn/pg-checkout.js`. */
  bundlePath?: string;
  onPaymentUpdate?: (update: PaymentUpdate) => void | Promise<void>;
}

export interface ExampleApp {
  app: Hono;
  checkout: CheckoutApp;
  store: SqlitePaymentStore;
  /** Reconciles what a crash left open and delivers pending updates; run before serving. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const OrderBody = z.strictObject({
  productId: z.enum(Object.keys(PRODUCTS) as [ProductId, ...ProductId[]]),
});

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
button { font: inherit; padding: 0.4rem 0.9rem; cursor: pointer; }
.note { background: #fff8c5; padding: 0.75rem; border-radius: 6px; }
li { margin: 0.4rem 0; }
</style>
<script type="module" src="/assets/pg-checkout.js"></script>
</head>
<body>
${body}
</body>
</html>`;
}

/** Builds the example app (nothing is started: call `start()`, then serve `app.fetch`). */
export function createExampleApp(config: ExampleConfig): ExampleApp {
  const dbFile = path.join(config.dataDir, 'payments.db');
  const store = new SqlitePaymentStore(dbFile);
  // The shop's own table (orders) lives in the same file, beside the companion's tables.
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS example_orders (
    order_ref TEXT PRIMARY KEY,
    product_id TEXT NOT NULL,
    amount TEXT NOT NULL,
    currency TEXT NOT NULL,
    description TEXT NOT NULL,
    paid INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  )`);
  const insertOrder = db.prepare(
    'INSERT INTO example_orders (order_ref, product_id, amount, currency, description, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const getOrder = db.prepare('SELECT * FROM example_orders WHERE order_ref = ?');
  const markPaid = db.prepare('UPDATE example_orders SET paid = 1 WHERE order_ref = ?');

  const base = config.publicUrl.replace(/\/+$/, '');
  const checkout = createCheckoutApp({
    gateway: config.gateway,
    store,
    publicUrl: base + CHECKOUT_BASE,
    returnPage: '/thanks',
    allowedOrigins: [new URL(base).origin, ...(config.extraOrigins ?? [])],
    ...(config.logger ? {logger: config.logger} : {}),
    resolveOrder(orderRef): ResolvedOrder | null {
      const row = getOrder.get(orderRef) as
        {amount: string; currency: string; description: string} | undefined;
      return row
        ? {amount: row.amount, currency: row.currency, description: row.description}
        : null;
    },
    async onPaymentUpdate(update) {
      if (update.kind === 'payment' && update.state === 'success') markPaid.run(update.orderRef);
      await config.onPaymentUpdate?.(update);
    },
  });

  const bundlePath = config.bundlePath ?? path.resolve('dist/cdn/pg-checkout.js');
  const app = new Hono();

  app.get('/healthz', async function healthz(c) {
    const ok = await store.ping();
    return c.json({ok}, ok ? 200 : 503);
  });

  app.get('/', function shopPage(c) {
    const items = Object.entries(PRODUCTS)
      .map(
        ([id, p]) =>
          `<li>${esc(p.name)} — ${esc(p.amount)} ${esc(p.currency)} <button data-product="${esc(id)}">Buy</button></li>`,
      )
      .join('\n');
    const bundle = existsSync(bundlePath)
      ? ''
      : '<p class="note">The browser bundle is missing: run <code>npm run build</code>, then reload.</p>';
    return c.html(
      page(
        'pg-checkout example shop',
        `<h1>Example shop</h1>
${bundle}
<ul>${items}</ul>
<div id="checkout" hidden>
<h2 id="what"></h2>
<pg-card-form endpoint="${CHECKOUT_BASE}/pay" customer-name customer-email customer-phone></pg-card-form>
</div>
<p>Test cards: 4242 4242 4242 4242 (success), 4000 0000 0000 3220 (3-D Secure), 4000 0000 0000 0002 (declined). Any future expiry, any CVV.</p>
<script type="module">
for (const button of document.querySelectorAll('button[data-product]')) {
  button.addEventListener('click', async () => {
    const res = await fetch('/api/orders', {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({productId: button.dataset.product}),
    });
    const order = await res.json();
    document.querySelector('#what').textContent = 'Order ' + order.orderRef + ': ' + order.description;
    document.querySelector('pg-card-form').setAttribute('order-ref', order.orderRef);
    document.querySelector('#checkout').hidden = false;
  });
}
</script>`,
      ),
    );
  });

  app.post('/api/orders', async function createOrder(c) {
    const parsed = OrderBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      return c.json(
        {
          error: {
            code: 'invalid_request',
            message: 'productId: must be a product of the shop',
            field: 'productId',
          },
        },
        400,
      );
    }
    const product = PRODUCTS[parsed.data.productId];
    const orderRef = `ord-${randomBytes(6).toString('hex')}`;
    insertOrder.run(
      orderRef,
      parsed.data.productId,
      product.amount,
      product.currency,
      product.name,
      Date.now(),
    );
    return c.json(
      {orderRef, amount: product.amount, currency: product.currency, description: product.name},
      201,
    );
  });

  app.get('/thanks', function returnPage(c) {
    return c.html(
      page(
        'Payment result',
        `<h1>Payment result</h1>
<pg-3ds-redirect resolve status-endpoint="${CHECKOUT_BASE}/status"></pg-3ds-redirect>
<p><a href="/">Back to the shop</a></p>`,
      ),
    );
  });

  app.get('/assets/pg-checkout.js', function bundle(c) {
    if (!existsSync(bundlePath)) {
      return c.text('// run `npm run build` to build dist/cdn/pg-checkout.js\n', 404, {
        'Content-Type': 'text/javascript; charset=utf-8',
      });
    }
    return c.body(readFileSync(bundlePath), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
    });
  });

  const adminAllowed = (header: string | undefined): boolean => {
    if (!config.adminToken || !header?.startsWith('Bearer ')) return false;
    const given = Buffer.from(header.slice(7));
    const expected = Buffer.from(config.adminToken);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  app.get('/admin/orders/:orderRef', async function adminOrder(c) {
    if (!adminAllowed(c.req.header('authorization'))) {
      return c.json({error: {code: 'forbidden', message: 'admin token required'}}, 403);
    }
    const orderRef = c.req.param('orderRef');
    const order = getOrder.get(orderRef);
    if (!order) return c.json({error: {code: 'not_found', message: 'unknown order'}}, 404);
    const attempts = (await store.listAttempts(orderRef)).map(
      ({raw: _raw, cardToken: _t, ...a}) => a,
    );
    return c.json({order, attempts, operations: await store.listOperations(orderRef)});
  });

  app.route(CHECKOUT_BASE, checkout);

  return {
    app,
    checkout,
    store,
    async start() {
      await checkout.recover();
    },
    async close() {
      await checkout.close();
      await store.close();
      db.close();
    },
  };
}
