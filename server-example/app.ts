/**
 * The demo merchant app, as a function: builds a Hono app that serves the demo shop — the
 * store, the checkout with `<pg-card-form>` (3-D Secure by redirect or in a modal), the
 * result page with `<pg-3ds-redirect>`, "pay on the gateway's page" (hosted), the CDN
 * page, and the back office — mounts the checkout companion under `/api/checkout`, and
 * answers `GET /healthz`. Every route has a body limit, and new orders are counted per
 * client address (see `ExampleLimits`). `main.ts` starts it; tests start it in-process with
 * their own config.
 */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {Hono, type Context} from 'hono';
import * as z from 'zod';
import {
  GatewayClient,
  SqlitePaymentStore,
  createCheckoutApp,
  createCheckoutLogger,
  type CheckoutApp,
  type CheckoutAppOptions,
  type GatewayClientOptions,
  type InitRecurringInput,
  type Logger,
  type PaymentUpdate,
  type ResolvedOrder,
} from '../src/server/index.js';
import {mountAdmin, type SandboxControl} from './admin.js';
import {AdminSessions} from './admin-sessions.js';
import {limitBodies} from './body-limits.js';
import {clientKey, socketAddress} from './client-address.js';
import {
  DEFAULT_SUBSCRIPTION,
  DEMO_CUSTOMER,
  PRODUCTS,
  PRODUCT_IDS,
  describeSchedule,
} from './catalog.js';
import {
  MISSING_BUILD_NOTE,
  PageTemplates,
  SECURITY_HEADERS,
  contentSecurityPolicy,
  esc,
  loadBundle,
  type Bundle,
} from './pages.js';
import {ShopOrders} from './shop.js';
import {SqliteThrottle, waitText} from './throttle.js';
import {WebhookLog, inspectWebhook} from './webhook-log.js';

export {PRODUCTS} from './catalog.js';
export type {SandboxControl} from './admin.js';

/** Where the companion is mounted in this app. */
export const CHECKOUT_BASE = '/api/checkout';

export interface ExampleConfig {
  /** Where the app is reachable, e.g. `http://localhost:8080`. */
  publicUrl: string;
  /** Extra origins allowed to post payments (e.g. `http://127.0.0.1:8080`). */
  extraOrigins?: string[];
  dataDir: string;
  gateway: GatewayClientOptions;
  /** Token of the back office (`/admin`); without it the back office is off. */
  adminToken?: string;
  logger?: Logger;
  /** The built browser bundle; default `dist/cdn/pg-checkout.js`. */
  bundlePath?: string;
  /** The demo's HTML and CSS; default `demo/`. */
  demoDir?: string;
  /** The built page scripts; default `dist/demo/`. */
  demoBuildDir?: string;
  /** The subscription product's schedule (`init_recurring`); default monthly. */
  subscription?: InitRecurringInput;
  /** The embedded sandbox, when there is one: the back office can move its clock. */
  sandbox?: SandboxControl;
  /** How long the gateway's hosted page stays payable, in seconds. */
  hostedOrderTimeoutSeconds?: number;
  /** The companion's card-testing limits (`rateLimit`); its defaults where not given. */
  payAttempts?: CheckoutAppOptions['rateLimit'];
  onPaymentUpdate?: (update: PaymentUpdate) => void | Promise<void>;
  /** The throttles and the back office's sessions; each has a default. */
  limits?: ExampleLimits;
  /** The clock of the throttles and the sessions (ms since the epoch); default `Date.now`. */
  now?: () => number;
}

const positive = z.number().int().positive();
const Limits = z.strictObject({
  /** Orders one client address may create (by the form or the API) per `orderWindowMs`. */
  orders: positive.default(30),
  orderWindowMs: positive.default(10 * 60_000),
  /** Wrong admin tokens from one client address per `loginWindowMs` before it is refused. */
  loginFailures: positive.default(5),
  loginWindowMs: positive.default(15 * 60_000),
  /** A back-office session ends this long after its sign-in... */
  sessionMaxAgeMs: positive.default(8 * 3600_000),
  /** ...or after this long without a request. */
  sessionIdleMs: positive.default(3600_000),
});
export type ExampleLimits = z.input<typeof Limits>;

function parseLimits(input: ExampleLimits | undefined): z.output<typeof Limits> {
  const parsed = Limits.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new TypeError(
    `ExampleConfig.limits${issue.path.map((p) => `.${String(p)}`).join('')}: ${issue.message}`,
  );
}

export interface ExampleApp {
  app: Hono;
  checkout: CheckoutApp;
  store: SqlitePaymentStore;
  client: GatewayClient;
  /**
   * Starts the companion's background work and returns at once: recovery of what a crash
   * left open (`/healthz` says `recovering` meanwhile), then the periodic sweep.
   */
  start(): void;
  close(): Promise<void>;
}

const OrderBody = z.strictObject({productId: z.enum(PRODUCT_IDS)});
const OrderRef = z.string().regex(/^ord-[0-9a-f]{12}$/);

/** Builds the example app (nothing is started: call `start()`, then serve `app.fetch`). */
export function createExampleApp(config: ExampleConfig): ExampleApp {
  const limits = parseLimits(config.limits);
  const now = config.now ?? Date.now;
  const dbFile = path.join(config.dataDir, 'payments.db');
  const store = new SqlitePaymentStore(dbFile);
  // The shop's own tables live in the same file, beside the companion's tables.
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  const shop = new ShopOrders(db);
  const webhookLog = new WebhookLog(db);
  const orderThrottle = new SqliteThrottle(
    db,
    'orders',
    {max: limits.orders, windowMs: limits.orderWindowMs},
    now,
  );
  const subscription = config.subscription ?? DEFAULT_SUBSCRIPTION;
  const logger = config.logger ?? createCheckoutLogger();

  const base = config.publicUrl.replace(/\/+$/, '');
  const client = new GatewayClient(config.gateway);
  const checkout = createCheckoutApp({
    gateway: client,
    webhookSecret: config.gateway.credentials.apiSecret,
    store,
    publicUrl: base + CHECKOUT_BASE,
    returnPage: '/thanks',
    allowedOrigins: [new URL(base).origin, ...(config.extraOrigins ?? [])],
    logger,
    ...(config.hostedOrderTimeoutSeconds
      ? {hosted: {orderTimeoutSeconds: config.hostedOrderTimeoutSeconds}}
      : {}),
    ...(config.payAttempts ? {rateLimit: config.payAttempts} : {}),
    resolveOrder(orderRef): ResolvedOrder | null {
      const order = shop.get(orderRef);
      if (!order) return null;
      return {
        amount: order.amount,
        currency: order.currency,
        description: order.description,
        customer: DEMO_CUSTOMER,
        payload: JSON.stringify({orderRef, productId: order.productId}),
        ...(order.kind === 'auth' ? {method: 'auth'} : {}),
        ...(order.kind === 'subscription' ? {initRecurring: subscription} : {}),
      };
    },
    async onPaymentUpdate(update) {
      if (update.kind === 'payment' && update.state === 'success') shop.markPaid(update.orderRef);
      await config.onPaymentUpdate?.(update);
    },
  });

  const demoDir = config.demoDir ?? path.resolve('demo');
  const buildDir = config.demoBuildDir ?? path.resolve('dist/demo');
  const bundlePath = config.bundlePath ?? path.resolve('dist/cdn/pg-checkout.js');
  let bundle: Bundle | undefined;
  const getBundle = () => (bundle ??= loadBundle(bundlePath));
  const templates = new PageTemplates(demoDir);
  const gatewayOrigin = new URL(client.baseUrl).origin;
  const csp = contentSecurityPolicy(gatewayOrigin);
  const pageHeaders = {...SECURITY_HEADERS, 'Content-Security-Policy': csp};
  const app = new Hono();
  // First of all: nothing below may read a body before its size is limited.
  app.use('*', limitBodies(CHECKOUT_BASE));

  const page = (c: Context, name: string, slots: Record<string, string> = {}) =>
    c.html(
      templates.render(name, {
        'build-note': getBundle() ? '' : MISSING_BUILD_NOTE,
        ...slots,
      }),
      200,
      pageHeaders,
    );

  // Answers at once, also while start-up recovery waits on a slow gateway: `state` tells
  // `ready` from `recovering`; only a store that does not answer makes it 503.
  app.get('/healthz', async function healthz(c) {
    const health = await checkout.health();
    return c.json({ok: health.store, state: health.state}, health.store ? 200 : 503, {
      'Cache-Control': 'no-store',
    });
  });

  // ---- pages -------------------------------------------------------------------------

  app.get('/', function storePage(c) {
    const cards = PRODUCT_IDS.map((id) => {
      const p = PRODUCTS[id];
      const tag =
        p.kind === 'subscription'
          ? `<span class="tag">Subscription, ${esc(describeSchedule(subscription))}</span>`
          : p.kind === 'auth'
            ? '<span class="tag">Held, captured later</span>'
            : '';
      return `<li class="product">
  <h2 class="product__name">${esc(p.name)}</h2>
  <p class="product__blurb">${esc(p.blurb)}</p>
  ${tag}
  <p class="product__price">${esc(p.amount)} ${esc(p.currency)}</p>
  <form method="post" action="/orders" class="product__actions">
    <input type="hidden" name="productId" value="${esc(id)}">
    <button class="button" name="page" value="checkout">Buy ${esc(p.name.toLowerCase())}</button>
  </form>
</li>`;
    }).join('\n');
    return page(c, 'index', {products: cards});
  });

  // A plain form: the store works without script. `page=cdn` leads to the CDN page.
  app.post('/orders', async function orderForm(c) {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const parsed = OrderBody.safeParse({productId: form['productId']});
    if (!parsed.success) return c.text('unknown product', 400);
    const wait = takeOrderPlace(c);
    if (wait !== undefined) {
      return c.text(`Too many new orders from your address: try again in ${waitText(wait)}.`, 429, {
        'Retry-After': String(wait),
      });
    }
    const order = shop.create(parsed.data.productId);
    const target = form['page'] === 'cdn' ? '/cdn' : '/checkout';
    return c.redirect(`${target}?order=${order.orderRef}`, 303);
  });

  /** Counts a new order for the client's address; answers the seconds to wait when at the limit. */
  function takeOrderPlace(c: Context): number | undefined {
    const key = clientKey(c);
    const wait = orderThrottle.take(key);
    if (wait !== undefined) {
      logger.warn({client: key, retryAfter: wait}, 'order refused: too many from one address');
    }
    return wait;
  }

  app.get('/checkout', function checkoutPage(c) {
    return page(c, 'checkout');
  });

  app.get('/thanks', function resultPage(c) {
    return page(c, 'result');
  });

  // The CDN page: nothing but the bundle's script tag with its SRI hash; the server fills in
  // the order, so the page needs no script of its own.
  app.get('/cdn', function cdnPage(c) {
    const ref = OrderRef.safeParse(c.req.query('order'));
    const order = ref.success ? shop.get(ref.data) : undefined;
    const b = getBundle();
    const summary = order
      ? `<p class="summary"><span>${esc(order.description)}</span> <strong>${esc(order.amount)} ${esc(order.currency)}</strong></p>
<pg-card-form endpoint="${CHECKOUT_BASE}/pay" order-ref="${esc(order.orderRef)}"></pg-card-form>
<p class="hint">After paying, see the result on <a href="/thanks?order=${esc(order.orderRef)}">the order's result page</a>.</p>`
      : `<form method="post" action="/orders" class="stack">
<input type="hidden" name="productId" value="tea-sampler">
<p>Start an order for the tea sampler (1.20 XTS) and pay for it on this page.</p>
<button class="button" name="page" value="cdn">Start an order</button>
</form>`;
    return c.html(
      templates.render('cdn', {
        'build-note': b ? '' : MISSING_BUILD_NOTE,
        script: b
          ? `<script type="module" src="/assets/pg-checkout.js" integrity="${b.integrity}" crossorigin="anonymous"></script>`
          : '',
        body: summary,
      }),
      200,
      pageHeaders,
    );
  });

  // ---- assets ------------------------------------------------------------------------

  app.get('/assets/pg-checkout.js', function bundleAsset(c) {
    const b = getBundle();
    if (!b) {
      return c.text('// run `npm run build` to build dist/cdn/pg-checkout.js\n', 404, {
        'Content-Type': 'text/javascript; charset=utf-8',
      });
    }
    return c.body(new Uint8Array(b.code), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
    });
  });

  // Cached once read: a rebuild of dist/ while the server runs must not break a page.
  const staticCache = new Map<string, Buffer>();
  const staticFile = (file: string | undefined, type: string) => (c: Context) => {
    if (!file) return c.text('not found', 404);
    try {
      let data = staticCache.get(file);
      if (!data) staticCache.set(file, (data = readFileSync(file)));
      return c.body(new Uint8Array(data), 200, {
        'Content-Type': type,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      });
    } catch {
      return c.text('not found: run `npm run build`', 404);
    }
  };
  app.get('/demo/styles.css', (c) =>
    staticFile(path.join(demoDir, 'styles.css'), 'text/css; charset=utf-8')(c),
  );
  app.get('/demo/favicon.svg', (c) =>
    staticFile(path.join(demoDir, 'favicon.svg'), 'image/svg+xml')(c),
  );
  app.get('/demo/js/:file', (c) => {
    const name = c.req.param('file');
    const file = /^[a-z-]+\.js$/.test(name) ? path.join(buildDir, name) : undefined;
    return staticFile(file, 'text/javascript; charset=utf-8')(c);
  });

  // ---- shop API ----------------------------------------------------------------------

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
    const wait = takeOrderPlace(c);
    if (wait !== undefined) {
      return c.json(
        {
          error: {
            code: 'rate_limited',
            message: `too many new orders from this address: try again in ${waitText(wait)}`,
            retryAfter: wait,
          },
        },
        429,
        {'Retry-After': String(wait)},
      );
    }
    const o = shop.create(parsed.data.productId);
    return c.json(
      {orderRef: o.orderRef, amount: o.amount, currency: o.currency, description: o.description},
      201,
    );
  });

  app.get('/api/orders/:orderRef', function orderSummary(c) {
    const ref = OrderRef.safeParse(c.req.param('orderRef'));
    const order = ref.success ? shop.get(ref.data) : undefined;
    if (!order) return c.json({error: {code: 'not_found', message: 'unknown order'}}, 404);
    return c.json(
      {
        orderRef: order.orderRef,
        description: order.description,
        amount: order.amount,
        currency: order.currency,
        kind: order.kind,
        paid: order.paid,
        ...(order.kind === 'subscription' ? {schedule: describeSchedule(subscription)} : {}),
      },
      200,
      {'Cache-Control': 'no-store'},
    );
  });

  // ---- the companion, with every webhook delivery logged for the back office ---------

  // Runs after `limitBody`: the copy of the body it reads is within the limit.
  app.use(`${CHECKOUT_BASE}/webhook`, async function logWebhook(c, next) {
    if (c.req.method !== 'POST') return next();
    const receivedAt = Date.now();
    const text = await c.req.raw.clone().text();
    let receipt;
    try {
      receipt = inspectWebhook(text, config.gateway.credentials.apiSecret);
    } catch {
      receipt = undefined;
    }
    await next();
    if (receipt) {
      webhookLog.record(receipt, socketAddress(c) ?? 'unknown', c.res.status, receivedAt);
    }
  });
  app.route(CHECKOUT_BASE, checkout);

  mountAdmin(app, {
    token: config.adminToken,
    secureCookies: base.startsWith('https:'),
    client,
    checkout,
    store,
    shop,
    webhookLog,
    sessions: new AdminSessions(
      db,
      {maxAgeMs: limits.sessionMaxAgeMs, idleMs: limits.sessionIdleMs},
      now,
    ),
    loginThrottle: new SqliteThrottle(
      db,
      'admin-login',
      {max: limits.loginFailures, windowMs: limits.loginWindowMs},
      now,
    ),
    sandbox: config.sandbox,
    templates,
    csp,
    logger,
  });

  return {
    app,
    checkout,
    store,
    client,
    start() {
      checkout.start();
    },
    async close() {
      await checkout.close();
      await store.close();
      db.close();
    },
  };
}
