/**
 * `createCheckoutApp`: the merchant companion as a Hono app — Web-standard
 * `Request → Response`, so the same handler runs in Node (`@hono/node-server`), in a
 * Next.js route handler and in a worker. Routes (relative to where it is mounted, see
 * `CHECKOUT_ROUTES`): `POST /pay` for the card form, `GET /status` for the return page,
 * `GET|POST /return` where the gateway sends the customer after 3-D Secure,
 * `POST /webhook` for the gateway's notifications, and `POST /hosted` (a plain HTML form
 * posting `order`) that creates a hosted payment and sends the customer to the gateway's
 * page with a 303, and `POST /security-report` where browsers send the payment page's CSP
 * violation reports (security-report-route.ts). Errors are typed and turned into the
 * protocol's `CheckoutErrorBody` in one `onError`. Every request first passes one door
 * (ingress.ts): the answer's headers, its log line, the whole body within its limit and
 * deadline, admission; only then its route.
 */
import {Hono, type Context} from 'hono';
import type * as z from 'zod';
import {CHECKOUT_ROUTES, ORDER_QUERY_PARAM} from '../../protocol/checkout.js';
import {ALREADY_PAID_QUERY_PARAM} from '../../protocol/checkout.js';
import {
  AbandonRequestSchema,
  OrderRefSchema,
  OrderRequestSchema,
  PayRequestSchema,
  RemoveSavedCardRequestSchema,
} from '../../protocol/schemas.js';
import {
  NO_STORE,
  clientAddresses,
  checkoutErrorOf,
  closer,
  guardStoreBeside,
  readJsonBody,
  readiness,
} from './app-parts.js';
import {Admission} from './admission.js';
import {CardTestingBreaker} from '../defences/card-testing.js';
import {MemoryGuardStore} from '../store/guard-store.js';
import type {CheckoutApp, CheckoutCloseOptions, Env} from './checkout-app.js';
import {CheckoutError, CheckoutInvalidRequestError} from '../errors.js';
import {createCheckoutLogger} from '../telemetry/logger.js';
import {resolveCheckoutOptions, type CheckoutAppOptions} from './options-schema.js';
import type {OperationRequest} from '../payments/operations/types.js';
import {
  CheckoutMethodNotAllowedError,
  HOSTED_ROUTE,
  boundedBody,
  checkoutHeaders,
  requestLog,
  unroutedError,
} from './ingress.js';
import {checkoutCors, readBodyText, sameOriginForms, sameOriginJson} from './request-defences.js';
import {PaymentService} from '../payments/index.js';
import {SECURITY_REPORT_ROUTE, securityReportRoute} from './security-report-route.js';
import {AttemptVelocity} from '../defences/velocity.js';
import {telemetry} from '../telemetry/telemetry.js';

export type {CheckoutApp, CheckoutCloseOptions, CheckoutCloseResult} from './checkout-app.js';
export {HOSTED_ROUTE} from './ingress.js';

/**
 * Creates the companion app. Throws `CheckoutConfigError` naming every bad option.
 *
 * @example
 * ```ts
 * import {serve} from '@hono/node-server';
 * import {createCheckoutApp, SqlitePaymentStore} from 'pg-checkout/server';
 *
 * const checkout = createCheckoutApp({
 *   gateway: {
 *     baseUrl: 'http://127.0.0.1:4010', // npx pg-checkout-sandbox
 *     posId: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001',
 *     credentials: {
 *       apiKey: 'sandbox-api-key',
 *       apiSecret: 'sandbox-api-secret',
 *       endpointsKey: 'sandbox-endpoints-key',
 *     },
 *   },
 *   store: new SqlitePaymentStore('data/payments.db'),
 *   publicUrl: 'http://localhost:3000/checkout',
 *   returnPage: '/order/result',
 *   resolveOrder: async (orderRef) => ({
 *     amount: '1.50',
 *     currency: 'XTS',
 *     description: `Order ${orderRef}`,
 *     customer: {
 *       firstName: 'Olena',
 *       lastName: 'Kovalenko',
 *       email: 'olena@example.com',
 *       phone: '+380501234567',
 *     },
 *   }),
 * });
 * checkout.start();
 * serve({fetch: checkout.fetch, port: 3000});
 * ```
 */
export function createCheckoutApp(options: CheckoutAppOptions): CheckoutApp {
  const o = resolveCheckoutOptions(options);
  const logger = o.logger ?? createCheckoutLogger();
  const now = o.clock ?? Date.now;
  const returnPage = new URL(o.returnPage, o.base + '/');
  const ownGuard = o.guardStore === undefined;
  const guard = o.guardStore ?? guardStoreBeside(o.store);
  const service = new PaymentService({
    store: o.store,
    gateway: o.gatewayClient,
    webhookSecret: o.webhookSecretValue,
    resolveOrder: o.resolveOrder,
    onPaymentUpdate: o.onPaymentUpdate,
    serverUrl: o.base + CHECKOUT_ROUTES.webhook,
    resultUrl: (orderRef) =>
      `${o.base}${CHECKOUT_ROUTES.return}?${new URLSearchParams({[ORDER_QUERY_PARAM]: orderRef})}`,
    order3dsBypass: o.order3dsBypass,
    statusCheck: o.statusCheck,
    attempts: o.attempts,
    sweep: o.sweep,
    duplicateCharges: o.duplicateCharges,
    velocity: new AttemptVelocity(o.store, o.rateLimit, o.webhookSecretValue, now),
    cardTesting: new CardTestingBreaker(
      guard,
      o.cardTesting,
      logger,
      now,
      ownGuard && !(guard instanceof MemoryGuardStore),
    ),
    guard,
    webhookRejections: o.webhookRejections,
    webhookAllowedIps: o.webhookAllowedIps,
    instance: o.instance,
    logger,
    now,
  });

  const {clientIp, requireIp} = clientAddresses(o, logger);

  const admission = new Admission(o.admission, o.clock ? {now: o.clock} : {});
  const app = new Hono<Env>();
  // Spans, durations, gauges of admission, breaker, outbox (no-ops without @opentelemetry/api).
  app.use('*', telemetry.middleware());
  telemetry.observe(app, {admission, service, store: o.store, now});
  /** The error each refused request was answered with, for its log line (set by `onError`). */
  const answeredWith = new WeakMap<Context<Env>, CheckoutError>();

  // The door (ingress.ts), in this order. First, around everything: the security headers
  // of every answer that leaves — a 404, 405, 408, 413 or 503 as much as a 200.
  app.use('*', checkoutHeaders());

  // One line per request (ingress.ts): info when served, warn when refused, error on a 5xx.
  app.use('*', requestLog(logger, answeredWith));

  // The whole body, within the route's limit and `bodyTimeoutMs`, before admission: a
  // request takes no place while its body is still arriving (a slow sender is answered 408
  // and its connection closed; one that leaves is logged as an abort).
  app.use(
    '*',
    boundedBody({
      limitBytes: (c) =>
        c.req.path.endsWith(SECURITY_REPORT_ROUTE)
          ? o.securityReports.bodyLimitBytes
          : o.bodyLimitBytes,
      timeoutMs: o.bodyTimeoutMs,
    }),
  );

  // Backpressure: a place among the requests in flight, or `503 busy` at once (see
  // admission.ts). Held until the answer is made.
  app.use('*', async function admit(_c, next) {
    const leave = await admission.enter();
    try {
      await next();
    } finally {
      leave();
    }
  });

  const cors = checkoutCors(o.allowedOriginList);
  for (const route of ['pay', 'status', 'abandon', 'order', 'removeSavedCard'] as const) {
    app.use(CHECKOUT_ROUTES[route], cors);
  }
  const sameOrigin = sameOriginJson(o.allowedOriginList, o.development);

  /** A same-origin JSON body, parsed and checked against `schema`. */
  const jsonBody = <T>(
    c: Context<Env>,
    schema: z.ZodType<T>,
    onInvalid?: (json: unknown, cardField: boolean) => Promise<void>,
  ): Promise<T> => readJsonBody(c.req, o.bodyLimitBytes, schema, onInvalid);

  // Card data the browser sent that fails validation is an attempt too (card testers
  // probe with it): it is counted, per address and order, before the 400.
  const countInvalid = async (ip: string, json: unknown): Promise<void> => {
    const ref = OrderRefSchema.safeParse((json as {orderRef?: unknown} | null)?.orderRef);
    await service.velocity.reserve({ip, ...(ref.success ? {orderRef: ref.data} : {})});
  };

  app.post(CHECKOUT_ROUTES.pay, sameOrigin, async function payRoute(c) {
    const ip = requireIp(c);
    const body = await jsonBody(c, PayRequestSchema, (json, card) =>
      card ? countInvalid(ip, json) : Promise.resolve(),
    );
    try {
      const response = await service.pay(body, {
        ip,
        accept: c.req.header('accept'),
        userAgent: c.req.header('user-agent'),
        request: c.req.raw,
      });
      return c.json(response, 200, NO_STORE);
    } catch (error) {
      if (error instanceof CheckoutInvalidRequestError && error.field?.startsWith('card.')) {
        await countInvalid(ip, body);
      }
      throw error;
    }
  });

  app.post(CHECKOUT_ROUTES.abandon, sameOrigin, async function abandonRoute(c) {
    const body = await jsonBody(c, AbandonRequestSchema);
    return c.json(await service.abandon(body.orderRef, body.attemptId), 200, NO_STORE);
  });

  // What the form may know of its order: the total charged and the customer's saved cards
  // (same-origin JSON, like the pay route: the customer is the one resolveOrder names).
  // Every look-up is counted per client address before the order is resolved (a 429 with
  // Retry-After past the limit), so order references cannot be enumerated at speed.
  app.post(CHECKOUT_ROUTES.order, sameOrigin, async function orderRoute(c) {
    await service.velocity.reserveLookup(requireIp(c));
    const body = await jsonBody(c, OrderRequestSchema);
    return c.json(await service.savedCards.orderInfo(body, c.req.raw), 200, NO_STORE);
  });

  app.post(CHECKOUT_ROUTES.removeSavedCard, sameOrigin, async function removeCardRoute(c) {
    await service.velocity.reserveLookup(requireIp(c));
    const body = await jsonBody(c, RemoveSavedCardRequestSchema);
    return c.json(
      await service.savedCards.removeForOrder(body.orderRef, body.savedCardId, c.req.raw),
      200,
      NO_STORE,
    );
  });

  /** A 303 to the return page for `orderRef` (relative when `returnPage` is a path). */
  const toReturnPage = (c: Context<Env>, orderRef: string, alreadyPaid = false): Response => {
    const target = new URL(returnPage);
    target.searchParams.set(ORDER_QUERY_PARAM, orderRef);
    if (alreadyPaid) target.searchParams.set(ALREADY_PAID_QUERY_PARAM, '1');
    const location = o.returnPage.startsWith('/') ? target.pathname + target.search : target.href;
    return c.body(null, 303, {Location: location, ...NO_STORE});
  };

  const orderParam = (c: Context<Env>): string => {
    const parsed = OrderRefSchema.safeParse(c.req.query(ORDER_QUERY_PARAM));
    if (!parsed.success) {
      throw new CheckoutInvalidRequestError(
        `${ORDER_QUERY_PARAM}: ${parsed.error.issues[0]?.message ?? 'is invalid'}`,
        {
          field: ORDER_QUERY_PARAM,
        },
      );
    }
    return parsed.data;
  };

  app.get(CHECKOUT_ROUTES.status, async function statusRoute(c) {
    const orderRef = orderParam(c);
    return c.json(await service.status(orderRef, c.req.raw), 200, NO_STORE);
  });

  // The gateway sends the customer here after 3-D Secure, possibly as a cross-site POST
  // without cookies. Nothing in the request is trusted: the return page asks the status route.
  app.on(['GET', 'POST'], CHECKOUT_ROUTES.return, function returnRoute(c) {
    const orderRef = orderParam(c);
    service.customerReturned(orderRef);
    return toReturnPage(c, orderRef);
  });

  app.post(CHECKOUT_ROUTES.webhook, async function webhookRoute(c) {
    const ip = clientIp(c);
    const text = await readBodyText(c.req, o.bodyLimitBytes);
    if (!service.webhookSourceAllowed(ip)) {
      await service.rejectWebhook(ip, 'address_not_allowed', text);
      throw new CheckoutError('forbidden', 403, 'webhooks are not accepted from this address');
    }
    await service.webhook(text, ip);
    return c.body(null, 200);
  });

  // A plain HTML form (`<form method="post" action=".../hosted">` with an `order` field):
  // creates the hosted payment and sends the browser to the gateway's page. Same-origin
  // only, like the pay route, but a form cannot send the protocol header: `hono/csrf`.
  const forms = sameOriginForms(o.allowedOriginList);
  app.post(HOSTED_ROUTE, forms, async function hostedRoute(c) {
    const ip = requireIp(c);
    const text = await readBodyText(c.req, o.bodyLimitBytes);
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    let ref: unknown;
    if (type === 'application/json') {
      try {
        ref = (JSON.parse(text) as {order?: unknown} | null)?.order;
      } catch {
        throw new CheckoutInvalidRequestError('the body is not valid JSON', {field: '(body)'});
      }
    } else {
      ref = new URLSearchParams(text).get(ORDER_QUERY_PARAM) ?? undefined;
    }
    const parsed = OrderRefSchema.safeParse(ref);
    if (!parsed.success) {
      throw new CheckoutInvalidRequestError(
        `${ORDER_QUERY_PARAM}: is required (the order reference)`,
        {
          field: ORDER_QUERY_PARAM,
        },
      );
    }
    const result = await service.payHosted(parsed.data, {
      request: c.req.raw,
      ip,
      orderTimeout: o.hosted.orderTimeoutSeconds,
      language: o.hosted.language,
    });
    if (result.kind === 'redirect') return c.body(null, 303, {Location: result.url, ...NO_STORE});
    // Paid before this request: the return page says so (`already_paid=1`), not "success".
    return toReturnPage(c, parsed.data, 'alreadyPaid' in result.response);
  });

  /** Answers `e` as a `CheckoutErrorBody`, and keeps it for the request's log line. */
  const answer = (c: Context<Env>, e: CheckoutError): Response => {
    answeredWith.set(c, e);
    const headers: Record<string, string> = {...NO_STORE};
    if (e.retryAfter !== undefined) headers['Retry-After'] = String(e.retryAfter);
    if (e instanceof CheckoutMethodNotAllowedError) headers['Allow'] = e.allow.join(', ');
    return c.json(e.toBody(), e.status as 400, headers);
  };

  // Answered here rather than thrown: a throw would skip the request log's line.
  app.post(
    SECURITY_REPORT_ROUTE,
    securityReportRoute(o.securityReports, {logger, now, clientIp, guard}),
  );

  // No route took it: 405 (with `Allow`) for a route of ours asked with another method.
  const mountedAt = new URL(o.base).pathname.replace(/\/+$/, '');
  app.notFound((c) => {
    const path = c.req.path.startsWith(mountedAt) ? c.req.path.slice(mountedAt.length) : c.req.path;
    return answer(c, unroutedError(c.req.method, path));
  });

  app.onError((error, c) =>
    answer(
      c,
      checkoutErrorOf(error, {
        logger,
        path: c.req.path,
        retryAfter: () => admission.retryAfter(),
        closing: admission.closed,
      }),
    ),
  );

  const close = closer({
    admission,
    service,
    store: o.store,
    ownGuard: ownGuard ? guard : undefined,
  });

  return Object.assign(app, {
    start: () => service.start(),
    health: () => service.health(),
    ready: () => readiness(admission, service),
    unrouted: (method: string, path: string) => unroutedError(method, path),
    recover: () => service.recover(),
    sweep: (opts?: {force?: boolean}) => service.sweep(opts),
    reconcile: (orderRef: string) => service.reconcile(orderRef),
    capture: (request: OperationRequest) => service.operate('capture', request),
    void: (request: Omit<OperationRequest, 'amount'>) => service.operate('void', request),
    refund: (request: OperationRequest) => service.operate('refund', request),
    listSavedCards: (customerId?: string) => service.savedCards.list(customerId),
    removeSavedCard: (customerId: string, savedCardId: string) =>
      service.savedCards.remove(customerId, savedCardId),
    flushOutbox: () => service.flushOutbox(),
    cardTesting: () => service.cardTestingState(),
    rejectedWebhookCounts: () => service.rejectedWebhookCounts(),
    close: (options?: CheckoutCloseOptions) => close(options),
    load: () => ({
      inFlight: admission.inFlight,
      queued: admission.queued,
      refusedBusy: admission.refused,
    }),
    store: o.store,
    logger,
    service,
  });
}
