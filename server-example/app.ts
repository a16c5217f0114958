/**
 * The demo merchant app, as a function: builds a Hono app that serves the demo shop — the
 * store, the checkout with `<pg-card-form>` (3-D Secure by redirect or in a modal), the
 * result page with `<pg-3ds-redirect>`, "pay on the gateway's page" (hosted), the CDN
 * page, and the back office — mounts the checkout companion under `/api/checkout`, and
 * answers `GET /healthz` (liveness) and `GET /readyz` (readiness, for a load balancer).
 * Every request passes one door first, in this order: the headers of its answer (the
 * pages' security headers, or the companion's under `/api/checkout` — a 404, 405, 408,
 * 413 or 503 carries them as a 200 does), its whole body within its route's limit and a
 * deadline (`body-limits.ts`), the visitor's session, then the route (the companion's own
 * door adds admission). Every visitor has a session of their own (the signed-in demo
 * customer, `visitor.ts`), and new orders are counted per client address (see
 * `ExampleLimits`). Everything it keeps is in one database: SQLite in `dataDir`, or
 * PostgreSQL with `database` (`db/storage.ts`). `main.ts` starts it; tests start it
 * in-process with their own config.
 */
import {randomBytes} from 'node:crypto';
import {existsSync} from 'node:fs';
import path from 'node:path';
import {Hono, type Context, type MiddlewareHandler} from 'hono';
import {HTTPException} from 'hono/http-exception';
import {
  CheckoutClientAbortedError,
  CheckoutError,
  CheckoutMethodNotAllowedError,
  GatewayClient,
  SECURITY_REPORT_ROUTE,
  checkoutHeaders,
  StoreBusyError,
  StoreUnavailableError,
  createCheckoutApp,
  createCheckoutLogger,
  type CheckoutApp,
  type CheckoutLogger,
  type PaymentStore,
  type ResolvedOrder,
} from '../src/server/index.js';
import {AdminSessions, backOffice} from './admin/index.js';
import {assetRoutes, loadCdn, type CdnFiles} from './assets.js';
import {CARD_FORM_STYLE_SRC} from './card-form-html.js';
import {limitBodies} from './body-limits.js';
import {DEFAULT_SUBSCRIPTION} from './catalog.js';
import {clientAddresses} from './client-address.js';
import {parseLimits, type ExampleConfig} from './config.js';
import {openStorage} from './db/storage.js';
import {HealthLog} from './health/log.js';
import {orderLimit} from './order-limit.js';
import {ordersApi} from './orders-api.js';
import {PageTemplates, pageSecurity} from './pages.js';
import {ShopOrders} from './shop.js';
import {storefrontRoutes} from './storefront.js';
import {Throttle} from './throttle.js';
import {visitorSessions} from './visitor.js';
import {WebhookLog, logWebhooks} from './webhook-log.js';

export {PRODUCTS} from './catalog.js';
export type {SandboxControl} from './admin/index.js';
export type {ExampleConfig, ExampleLimits} from './config.js';

/** Where the companion is mounted in this app. */
export const CHECKOUT_BASE = '/api/checkout';

export interface ExampleApp {
  app: Hono;
  checkout: CheckoutApp;
  /** `PostgresPaymentStore` with `database`, else `SqlitePaymentStore` in `dataDir`. */
  store: PaymentStore;
  client: GatewayClient;
  /**
   * Starts the companion's background work and returns at once: recovery of what a crash
   * left open (`/healthz` says `recovering` meanwhile), then the periodic sweep.
   */
  start(): void;
  close(): Promise<void>;
}

/**
 * `middleware`, except on the paths at or under one of `prefixes` — the paths
 * `except('<prefix>/*', …)` of `hono/combine` skips (`/admin`, `/admin/`, `/admin/x`; not
 * `/adminx`) — with no more than a prefix test in front of the routes it skips: `except`
 * wraps every request, those too, in two layers of async middleware and a router match.
 */
export function exceptUnder(
  prefixes: readonly string[],
  middleware: MiddlewareHandler,
): MiddlewareHandler {
  const under = (p: string) => prefixes.some((x) => p === x || p.startsWith(`${x}/`));
  return async function exceptUnderPrefixes(c, next) {
    return under(c.req.path) ? next() : middleware(c, next);
  };
}

/** Builds the example app (nothing is started: call `start()`, then serve `app.fetch`). */
export function createExampleApp(config: ExampleConfig): ExampleApp {
  const limits = parseLimits(config.limits);
  const now = config.now ?? Date.now;
  const logger = config.logger ?? createCheckoutLogger();
  // The payments and the shop's own tables, in one database (db/storage.ts).
  const storage = openStorage(config);
  const {store, db, securityReports} = storage;
  const shop = new ShopOrders(db);
  const webhookLog = new WebhookLog(db, now);
  const healthLog = new HealthLog(db, now);
  config.healthRecorder?.attach(healthLog);
  const throttle = (bucket: string, max: number, windowMs: number) =>
    new Throttle(db, bucket, {max, windowMs}, now);
  const clients = clientAddresses(config.trustProxy ?? 0, (socket) =>
    logger.warn(
      {socket},
      'a request carries X-Forwarded-For but TRUST_PROXY is not set: every client behind that proxy counts as its address (see docs/guides/going-live.md)',
    ),
  );
  const subscription = config.subscription ?? DEFAULT_SUBSCRIPTION;

  const base = config.publicUrl.replace(/\/+$/, '');
  // The visitors' sessions, their cookies signed with a secret of the instance (visitor.ts).
  const visitors = visitorSessions({
    secret: config.visitorSecret ?? randomBytes(32).toString('base64url'),
    secure: base.startsWith('https:'),
  });
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
    securityReports: {
      store: securityReports,
      ...(config.onSecurityReport ? {onSecurityReport: config.onSecurityReport} : {}),
    },
    ...(config.trustProxy ? {trustProxy: config.trustProxy} : {}),
    ...(config.instance ? {instance: config.instance} : {}),
    ...(config.sweep ? {sweep: config.sweep} : {}),
    ...(config.admission ? {admission: config.admission} : {}),
    ...(config.bodyTimeoutMs ? {bodyTimeoutMs: config.bodyTimeoutMs} : {}),
    // The customer is the one signed in on the request (the visitor's signed session), never
    // one the browser names: saved cards are offered and kept per visitor, and a cookie
    // made up to name a customer is a guest's, whom the card-testing breaker slows.
    async resolveOrder(orderRef, request): Promise<ResolvedOrder | null> {
      const order = await shop.get(orderRef);
      if (!order) return null;
      return {
        amount: order.amount,
        currency: order.currency,
        description: order.description,
        customer: await visitors.customerOf(request),
        payload: JSON.stringify({orderRef, productId: order.productId}),
        ...(order.kind === 'auth' ? {method: 'auth'} : {}),
        ...(order.kind === 'subscription' ? {initRecurring: subscription} : {}),
      };
    },
    async onPaymentUpdate(update) {
      if (update.kind === 'payment' && update.state === 'success') {
        await shop.markPaid(update.orderRef);
      }
      await config.onPaymentUpdate?.(update);
    },
  });

  const demoDir = config.demoDir ?? path.resolve('demo');
  const bundlePath = config.bundlePath ?? path.resolve('dist/cdn/pg-checkout.js');
  // The bundle's folder as its script inventory lists it, read once it is built.
  let cdn: CdnFiles | undefined;
  const getCdn = () =>
    (cdn ??= existsSync(bundlePath) ? loadCdn(path.dirname(bundlePath)) : undefined);
  const templates = new PageTemplates(demoDir);
  const takeOrderPlace = orderLimit(
    throttle('orders', limits.orders, limits.orderWindowMs),
    clients,
    logger,
  );

  const app = new Hono();
  app.onError(shopErrors(logger));
  app.notFound(unrouted(checkout));
  // The door. First, around everything: the headers of every answer that leaves, whoever
  // made it — the pages' (pages.ts), or under the companion its own (a JSON API that other
  // origins may call).
  const pages = pageSecurity(new URL(client.baseUrl).origin, CARD_FORM_STYLE_SRC, {
    // Where the browsers send the pages' CSP violation reports: the companion's route.
    reportUrl: `${base}${CHECKOUT_BASE}${SECURITY_REPORT_ROUTE}`,
  });
  const api = checkoutHeaders();
  app.use('*', function answerHeaders(c, next) {
    const p = c.req.path;
    return (p === CHECKOUT_BASE || p.startsWith(`${CHECKOUT_BASE}/`) ? api : pages)(c, next);
  });
  // Then the whole body, within its limit and deadline: nothing below waits on a client.
  app.use('*', limitBodies(CHECKOUT_BASE, config.bodyTimeoutMs));
  // Each visitor signs in as a demo customer of their own: the session the shop's pages
  // open (the back office has its own sessions, the companion sets no cookie).
  app.use('*', exceptUnder([CHECKOUT_BASE, '/admin'], visitors.sessions));

  // Answers at once, also while start-up recovery waits on a slow gateway: `state` tells
  // `ready` from `recovering`; only a store that does not answer makes it 503.
  app.get('/healthz', async function healthz(c) {
    const health = await checkout.health();
    return c.json({ok: health.store, state: health.state}, health.store ? 200 : 503, {
      'Cache-Control': 'no-store',
    });
  });

  // Readiness, for a load balancer: 503 while this instance cannot take a payment — every
  // admission place taken and none given back for `admission.notReadyAfterMs` (5 s), the
  // database not answering, or shutting down (docs/guides/several-instances.md).
  app.get('/readyz', async function readyz(c) {
    const r = await checkout.ready();
    return c.json({ready: r.ready, reasons: r.reasons, state: r.state}, r.ready ? 200 : 503, {
      'Cache-Control': 'no-store',
    });
  });

  app.route(
    '/',
    storefrontRoutes({
      shop,
      templates,
      getCdn,
      subscription,
      takeOrderPlace,
      checkoutBase: CHECKOUT_BASE,
      orderStatus: (orderRef, request) => checkout.service.status(orderRef, request),
    }),
  );
  app.route(
    '/',
    assetRoutes({
      demoDir,
      buildDir: config.demoBuildDir ?? path.resolve('dist/demo'),
      getCdn,
    }),
  );
  app.route('/api/orders', ordersApi({shop, subscription, takeOrderPlace}));

  // The companion, with every webhook delivery logged for the back office (after the body
  // limit: the copy of the body the log reads is within it).
  app.use(
    `${CHECKOUT_BASE}/webhook`,
    logWebhooks(webhookLog, config.gateway.credentials.apiSecret, clients),
  );
  app.route(CHECKOUT_BASE, checkout);

  app.route(
    '/admin',
    backOffice({
      token: config.adminToken,
      secureCookies: base.startsWith('https:'),
      client,
      checkout,
      store,
      shop,
      webhookLog,
      securityReports,
      clients,
      sessions: new AdminSessions(
        db,
        {maxAgeMs: limits.sessionMaxAgeMs, idleMs: limits.sessionIdleMs},
        now,
      ),
      loginThrottle: throttle('admin-login', limits.loginFailures, limits.loginWindowMs),
      sandbox: config.sandbox,
      templates,
      logger,
      health: {
        log: healthLog,
        flush: config.healthRecorder && (() => config.healthRecorder!.flush()),
        now,
      },
    }),
  );

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
      // This instance's last counts, before the database closes.
      await config.healthRecorder?.detach();
      await webhookLog.flush().catch((error: unknown) => {
        logger.error({error: (error as Error).message}, 'webhook log: the last lines are lost');
      });
      await storage.close();
    },
  };
}

/**
 * The answer to a request no route took: under the companion, its own (`405` with `Allow`
 * for one of its routes asked with another method, else a JSON `404`); elsewhere a plain
 * 404. The door puts the headers on either.
 */
function unrouted(checkout: CheckoutApp) {
  return function unrouted(c: Context): Response {
    const p = c.req.path;
    if (p !== CHECKOUT_BASE && !p.startsWith(`${CHECKOUT_BASE}/`)) return c.text('Not Found', 404);
    const e = checkout.unrouted(c.req.method, p.slice(CHECKOUT_BASE.length));
    const headers: Record<string, string> = {'Cache-Control': 'no-store'};
    if (e instanceof CheckoutMethodNotAllowedError) headers['Allow'] = e.allow.join(', ');
    return c.json(e.toBody(), e.status as 404, headers);
  };
}

/**
 * The shop's answer to an error of its own routes (the companion answers its own): a
 * database that cannot be reached, or busy past the pool's deadline, is a 503 with
 * `Retry-After` (JSON for the APIs, text for a page); anything else is logged and
 * answered 500.
 */
function shopErrors(logger: CheckoutLogger) {
  const json = (c: Context) => c.req.path.startsWith('/api/') || c.req.path.startsWith('/admin/');
  return function shopError(error: Error, c: Context): Response {
    // The door's refusals (body-limits.ts): too large, too slow (both close the connection),
    // or the client gone — an abort, not a fault.
    if (error instanceof CheckoutError) {
      const line = {method: c.req.method, path: c.req.path, status: error.status};
      if (error instanceof CheckoutClientAbortedError) logger.info(line, 'client aborted');
      else logger.warn({...line, code: error.code, message: error.message}, 'request refused');
      const close = error.status === 408 || error.status === 413;
      return c.json(error.toBody(), error.status as 400, close ? {Connection: 'close'} : {});
    }
    // Hono's own refusals (a cross-site form post to the back office's sign-in) as Hono answers them.
    if (error instanceof HTTPException) return error.getResponse();
    // Every connection of the pool was busy past the deadline: the database is up.
    if (error instanceof StoreBusyError) {
      logger.warn({path: c.req.path, error: error.message}, 'shop database busy');
      const headers = {'Retry-After': '2', 'Cache-Control': 'no-store'};
      const message = 'this server is busy: try again in a moment';
      return json(c)
        ? c.json({error: {code: 'busy', message, retryAfter: 2}}, 503, headers)
        : c.text(`Sorry, ${message}.`, 503, headers);
    }
    if (error instanceof StoreUnavailableError) {
      logger.error({path: c.req.path, error: error.message}, 'shop database unavailable');
      const headers = {'Retry-After': '5', 'Cache-Control': 'no-store'};
      const message = "the shop's database cannot be reached: try again shortly";
      return json(c)
        ? c.json({error: {code: 'store_unavailable', message, retryAfter: 5}}, 503, headers)
        : c.text(`Sorry, ${message}.`, 503, headers);
    }
    logger.error({path: c.req.path, error: error.message}, 'unhandled error');
    return c.text('Internal Server Error', 500);
  };
}
