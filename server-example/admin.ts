/**
 * The demo's back office: a sign-in form (the `ADMIN_TOKEN` from the environment; each
 * sign-in opens a server-side session whose random id the browser keeps in a signed,
 * HttpOnly, SameSite=Strict cookie; wrong tokens are throttled per client address), the
 * page, and the JSON API behind it — orders with every gateway transaction, the webhook log,
 * resend, cancel, capture, void, refund, subscriptions, period transactions, registers, and
 * the sandbox clock when the sandbox runs in-process. Every gateway call goes through the
 * same `GatewayClient` the companion uses.
 */
import {createHmac, timingSafeEqual} from 'node:crypto';
import type {Context, Hono, MiddlewareHandler} from 'hono';
import {deleteCookie, getSignedCookie, setSignedCookie} from 'hono/cookie';
import * as z from 'zod';
import {
  CheckoutError,
  GatewayError,
  GatewayValidationError,
  REGISTER_FIELDS,
  REGISTER_METHODS,
  RequestValidationError,
  STATUSES,
  type AttemptRecord,
  type CheckoutApp,
  type GatewayClient,
  type Logger,
  type SqlitePaymentStore,
} from '../src/server/index.js';
import type {AdminSessions} from './admin-sessions.js';
import {clientKey, socketAddress} from './client-address.js';
import type {ShopOrders} from './shop.js';
import {waitText, type SqliteThrottle} from './throttle.js';
import type {WebhookLog} from './webhook-log.js';
import {PageTemplates, SECURITY_HEADERS, esc} from './pages.js';

/** What the back office can do to the embedded sandbox. */
export interface SandboxControl {
  url: string;
  now(): Date;
  advance(ms: number): Promise<void>;
}

export interface AdminDeps {
  token: string | undefined;
  secureCookies: boolean;
  client: GatewayClient;
  checkout: CheckoutApp;
  store: SqlitePaymentStore;
  shop: ShopOrders;
  webhookLog: WebhookLog;
  sessions: AdminSessions;
  /** Counts wrong tokens (sign-in form and `Authorization: Bearer`) per client address. */
  loginThrottle: SqliteThrottle;
  sandbox: SandboxControl | undefined;
  templates: PageTemplates;
  csp: string;
  logger: Logger;
}

const COOKIE = 'pg_admin';

/** The key that signs the session cookie, derived from the token (which stays on the server). */
function cookieSecret(token: string): string {
  return createHmac('sha256', token)
    .update('pg-checkout demo back office session cookie')
    .digest('base64url');
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHmac('sha256', 'compare').update(given).digest();
  const b = createHmac('sha256', 'compare').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Public attempt fields: no raw gateway record, no card token. */
function publicAttempt(a: AttemptRecord) {
  const {raw: _raw, cardToken: _token, ...rest} = a;
  return {...rest, hosted: a.attemptId.startsWith('hosted-')};
}

/** A gateway error as a JSON answer (its message is safe: values are never echoed). */
function gatewayFailure(c: Context, error: unknown, logger: Logger) {
  if (error instanceof RequestValidationError) {
    return c.json(
      {error: {code: 'invalid_request', message: error.message, issues: error.issues}},
      400,
    );
  }
  if (error instanceof GatewayValidationError) {
    return c.json(
      {
        error: {
          code: error.gatewayCode ?? error.code,
          message: `The gateway refused: ${error.message}`,
        },
      },
      409,
    );
  }
  if (error instanceof GatewayError) {
    return c.json(
      {
        error: {
          code: error.gatewayCode ?? error.code,
          message: `The gateway call failed: ${error.message}`,
        },
      },
      502,
    );
  }
  logger.error(
    {error: error instanceof Error ? error.message : String(error)},
    'back office error',
  );
  return c.json(
    {error: {code: 'internal', message: 'Something went wrong; see the server log.'}},
    500,
  );
}

const Amount = z
  .string()
  .trim()
  .regex(/^\d+(\.\d{1,2})?$/, {message: 'must be an amount such as 1.50'})
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** An idempotency key: the page makes one per action and sends it again on a retry. */
const Key = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, {
  message: 'must be an idempotency key (1-100 characters A-Z a-z 0-9 _ . : -)',
});

const ActionBody = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('capture'),
    gatewayOrderId: z.string(),
    amount: Amount,
    key: Key,
  }),
  z.strictObject({action: z.literal('void'), gatewayOrderId: z.string(), key: Key}),
  z.strictObject({
    action: z.literal('refund'),
    gatewayOrderId: z.string(),
    amount: Amount,
    key: Key,
  }),
  z.strictObject({action: z.literal('cancel'), gatewayOrderId: z.string()}),
  z.strictObject({
    action: z.literal('resend'),
    gatewayOrderId: z.string(),
    operation: z.enum(['purchase', 'auth', 'capture', 'void', 'refund']).optional(),
    transactionId: z.string().min(1).optional(),
  }),
]);

const When = z.union([z.number(), z.string().min(1)]).transform((v, ctx) => {
  const t = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(t)) {
    ctx.addIssue({code: 'custom', message: 'must be a date'});
    return z.NEVER;
  }
  return t;
});

const RegisterBody = z.strictObject({
  start: When,
  end: When,
  statuses: z.array(z.enum(STATUSES)).default([]),
  methods: z.array(z.enum(REGISTER_METHODS)).default([]),
  fields: z.array(z.enum(REGISTER_FIELDS)).default([]),
});

const AdvanceBody = z.strictObject({
  days: z.number().int().min(0).max(400).default(0),
  hours: z
    .number()
    .int()
    .min(0)
    .max(24 * 400)
    .default(0),
});

/** ISO 8601 with an explicit offset, as the register wants it. */
const offsetIso = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

function invalid(c: Context, error: z.ZodError) {
  const issue = error.issues[0];
  const field = issue?.path.join('.') || '(body)';
  return c.json(
    {
      error: {
        code: 'invalid_request',
        message: `${field}: ${issue?.message ?? 'is invalid'}`,
        field,
      },
    },
    400,
  );
}

/** Whether a request may use the back office; `retryAfter` (s) when its address is throttled. */
interface Access {
  ok: boolean;
  retryAfter?: number;
}

/** Mounts the back office on `app` (under `/admin`). */
export function mountAdmin(app: Hono, deps: AdminDeps): void {
  const {client, store, shop, checkout, logger, sessions, loginThrottle} = deps;
  const secret = deps.token ? cookieSecret(deps.token) : undefined;
  const htmlHeaders = {...SECURITY_HEADERS, 'Content-Security-Policy': deps.csp};

  /** Checks a token from the sign-in form or a Bearer header, unless the address is throttled. */
  const checkToken = (c: Context, given: string, via: 'form' | 'bearer'): Access => {
    if (!deps.token) return {ok: false};
    const from = clientKey(c);
    const retryAfter = loginThrottle.retryAfter(from);
    if (retryAfter !== undefined) {
      logger.warn({client: from, via, retryAfter}, 'back office refused: too many wrong tokens');
      return {ok: false, retryAfter};
    }
    if (sameSecret(given, deps.token)) return {ok: true};
    loginThrottle.record(from);
    logger.warn({client: from, via}, 'back office refused: wrong token');
    return {ok: false};
  };

  /** The session id in the request's cookie, when its signature holds. */
  const cookieSession = async (c: Context): Promise<string | undefined> => {
    if (!secret) return undefined;
    const id = await getSignedCookie(c, secret, COOKIE);
    return typeof id === 'string' && id !== '' ? id : undefined;
  };

  const access = async (c: Context): Promise<Access> => {
    if (!deps.token) return {ok: false};
    const header = c.req.header('authorization');
    if (header?.startsWith('Bearer ')) return checkToken(c, header.slice(7), 'bearer');
    const id = await cookieSession(c);
    return {ok: id !== undefined && sessions.use(id)};
  };

  /** The JSON answer to a request without access. */
  const refused = (c: Context, a: Access, message: string) =>
    a.retryAfter === undefined
      ? c.json({error: {code: 'forbidden', message}}, 403)
      : c.json(
          {
            error: {
              code: 'rate_limited',
              message: `too many wrong tokens from this address: try again in ${waitText(a.retryAfter)}`,
              retryAfter: a.retryAfter,
            },
          },
          429,
          {'Retry-After': String(a.retryAfter)},
        );

  /** Cross-site requests are refused (the cookie is SameSite=Strict too). */
  const sameOrigin = (c: Context): boolean => {
    const site = c.req.header('sec-fetch-site');
    if (site && site !== 'same-origin' && site !== 'none') return false;
    const origin = c.req.header('origin');
    return origin === undefined || origin === new URL(c.req.url).origin || site === 'same-origin';
  };

  const loginPage = (
    c: Context,
    message: string,
    status: 200 | 403 | 429 = 200,
    headers: Record<string, string> = {},
  ) =>
    c.html(
      deps.templates.render('login', {
        message: message ? `<p class="notice notice--error" role="alert">${esc(message)}</p>` : '',
        form: deps.token
          ? ''
          : '<p class="notice notice--warn">The back office is off: start the server with <code>ADMIN_TOKEN</code> set (at least 16 characters).</p>',
      }),
      status,
      {...htmlHeaders, ...headers},
    );

  app.get('/admin/login', async function adminLoginPage(c) {
    if ((await access(c)).ok) return c.redirect('/admin', 303);
    return loginPage(c, c.req.query('error') ? 'That token is not right.' : '');
  });

  app.post('/admin/login', async function adminLogin(c) {
    if (!deps.token || !secret) return loginPage(c, '', 403);
    if (!sameOrigin(c)) return c.text('cross-site login refused', 403);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form['token'] === 'string' ? form['token'] : '';
    const checked = checkToken(c, token, 'form');
    if (checked.retryAfter !== undefined) {
      return loginPage(
        c,
        `Too many wrong tokens from your address: try again in ${waitText(checked.retryAfter)}.`,
        429,
        {'Retry-After': String(checked.retryAfter)},
      );
    }
    if (!checked.ok) return c.redirect('/admin/login?error=1', 303);
    loginThrottle.clear(clientKey(c));
    const id = sessions.create(socketAddress(c) ?? 'unknown');
    await setSignedCookie(c, COOKIE, id, secret, {
      path: '/admin',
      httpOnly: true,
      sameSite: 'Strict',
      secure: deps.secureCookies,
      maxAge: Math.floor(sessions.maxAgeMs / 1000),
    });
    return c.redirect('/admin', 303);
  });

  app.post('/admin/logout', async function adminLogout(c) {
    if (!sameOrigin(c)) return c.text('cross-site request refused', 403);
    const id = await cookieSession(c);
    if (id !== undefined) sessions.revoke(id);
    deleteCookie(c, COOKIE, {path: '/admin', secure: deps.secureCookies});
    return c.redirect('/admin/login', 303);
  });

  app.get('/admin', async function adminPage(c) {
    if (!(await access(c)).ok) return c.redirect('/admin/login', 303);
    return c.html(deps.templates.render('admin'), 200, htmlHeaders);
  });

  // The original API route of the example (Bearer token): one order, from the store.
  app.get('/admin/orders/:orderRef', async function adminOrder(c) {
    const a = await access(c);
    if (!a.ok) return refused(c, a, 'admin token required');
    const orderRef = c.req.param('orderRef');
    const order = shop.get(orderRef);
    if (!order) return c.json({error: {code: 'not_found', message: 'unknown order'}}, 404);
    const attempts = (await store.listAttempts(orderRef)).map(publicAttempt);
    return c.json({order, attempts, operations: await store.listOperations(orderRef)});
  });

  const guard: MiddlewareHandler = async function adminGuard(c, next) {
    const a = await access(c);
    if (!a.ok) return refused(c, a, 'sign in to the back office first');
    if (c.req.method !== 'GET') {
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim();
      if (type !== 'application/json' || !sameOrigin(c)) {
        return c.json({error: {code: 'forbidden', message: 'same-origin JSON requests only'}}, 403);
      }
    }
    await next();
    c.res.headers.set('Cache-Control', 'no-store');
  };
  app.use('/admin/api/*', guard);

  app.get('/admin/api/config', function adminConfig(c) {
    return c.json({
      sandbox: deps.sandbox !== undefined,
      sandboxUrl: deps.sandbox?.url ?? null,
      gatewayBaseUrl: client.baseUrl,
      gatewayNow: (deps.sandbox?.now() ?? new Date()).toISOString(),
      statuses: STATUSES,
      registerMethods: REGISTER_METHODS,
      registerFields: REGISTER_FIELDS,
    });
  });

  app.get('/admin/api/orders', async function adminOrders(c) {
    const orders = shop.list(200);
    const rows = await Promise.all(
      orders.map(async (o) => {
        const attempts = await store.listAttempts(o.orderRef);
        const last = attempts.at(-1);
        return {
          ...o,
          attempts: attempts.length,
          state: attempts.find((a) => a.state === 'success') ? 'success' : (last?.state ?? 'new'),
          hosted: last ? last.attemptId.startsWith('hosted-') : false,
        };
      }),
    );
    return c.json({orders: rows});
  });

  app.get('/admin/api/orders/:orderRef', async function adminOrderDetail(c) {
    const orderRef = c.req.param('orderRef');
    const order = shop.get(orderRef);
    if (!order) return c.json({error: {code: 'not_found', message: 'unknown order'}}, 404);
    const attempts = await store.listAttempts(orderRef);
    const gateway = await Promise.all(
      attempts
        .filter((a) => a.state !== 'creating')
        .map(async (a) => {
          try {
            return {
              gatewayOrderId: a.gatewayOrderId,
              transactions: await client.getOrder(a.gatewayOrderId),
            };
          } catch (error) {
            return {
              gatewayOrderId: a.gatewayOrderId,
              error: error instanceof Error ? error.message : 'lookup failed',
            };
          }
        }),
    );
    return c.json({
      order,
      attempts: attempts.map(publicAttempt),
      operations: (await store.listOperations(orderRef)).map(({raw: _raw, ...op}) => op),
      // Captures, voids and refunds as the companion stored them (reason `duplicate_charge`:
      // an automatic refund of a double charge).
      intents: (await store.listIntents(orderRef)).map(
        ({baseline: _b, fingerprint: _f, ...intent}) => intent,
      ),
      gateway,
    });
  });

  app.post('/admin/api/orders/:orderRef/actions', async function adminOrderAction(c) {
    const orderRef = c.req.param('orderRef');
    const parsed = ActionBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return invalid(c, parsed.error);
    const body = parsed.data;
    const attempt = (await store.listAttempts(orderRef)).find(
      (a) => a.gatewayOrderId === body.gatewayOrderId,
    );
    if (!attempt) {
      return c.json({error: {code: 'not_found', message: 'no such payment for this order'}}, 404);
    }
    try {
      let result: unknown;
      switch (body.action) {
        // Money moves through the companion: exactly once per key, serialised per order,
        // never more than was paid or held (see the README's "Never lose, never double").
        case 'capture':
        case 'refund':
          result = await checkout[body.action]({
            orderRef,
            key: body.key,
            gatewayOrderId: attempt.gatewayOrderId,
            ...(body.amount ? {amount: body.amount} : {}),
          });
          break;
        case 'void':
          result = await checkout.void({
            orderRef,
            key: body.key,
            gatewayOrderId: attempt.gatewayOrderId,
          });
          break;
        case 'cancel':
          result = await client.cancelOrder(attempt.gatewayOrderId);
          break;
        case 'resend':
          result =
            (await client.resendWebhook(
              attempt.gatewayOrderId,
              body.operation ?? attempt.method,
              body.transactionId ? {transactionId: body.transactionId} : {},
            )) ?? null;
          break;
      }
      logger.info(
        {orderRef, action: body.action, gatewayOrderId: attempt.gatewayOrderId},
        'back office action',
      );
      if (body.action === 'cancel' || body.action === 'resend') {
        // Update the companion's view at once; the gateway's webhook confirms it too.
        await checkout.reconcile(orderRef).catch(() => undefined);
      }
      return c.json({ok: true, result});
    } catch (error) {
      if (error instanceof CheckoutError) {
        return c.json(error.toBody(), error.status as 400, {'Cache-Control': 'no-store'});
      }
      return gatewayFailure(c, error, logger);
    }
  });

  app.get('/admin/api/webhooks', async function adminWebhooks(c) {
    return c.json({
      deliveries: deps.webhookLog.list(300),
      rejected: (await store.listRejectedWebhooks()).slice(-100).reverse(),
    });
  });

  app.get('/admin/api/subscriptions', async function adminSubscriptions(c) {
    const attempts = await store.listAttemptsInStates(['success', 'pending', 'init', 'failure']);
    const subs = attempts
      .filter((a) => a.recurringId)
      .map((a) => ({
        recurringId: a.recurringId!,
        orderRef: a.orderRef,
        gatewayOrderId: a.gatewayOrderId,
        amount: a.amount,
        currency: a.currency,
        state: a.state,
        createdAt: a.createdAt,
        canceledAt: shop.subscriptionCanceledAt(a.recurringId!) ?? null,
      }))
      .reverse();
    return c.json({subscriptions: subs});
  });

  const Filter = z.strictObject({
    method: z.enum(['purchase', 'refund']).optional(),
    status: z.enum(STATUSES).optional(),
  });

  app.get('/admin/api/subscriptions/:id/transactions', async function adminSubscriptionTxns(c) {
    const q = Filter.safeParse(
      Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v !== '')),
    );
    if (!q.success) return invalid(c, q.error);
    try {
      return c.json({
        transactions: await client.getSubscriptionTransactions(c.req.param('id'), q.data),
      });
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  app.post('/admin/api/subscriptions/:id/cancel', async function adminSubscriptionCancel(c) {
    const id = c.req.param('id');
    try {
      const result = await client.cancelSubscription(id);
      shop.markSubscriptionCanceled(id, Date.now());
      logger.info({recurringId: id}, 'subscription cancelled from the back office');
      return c.json({ok: true, result});
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  app.get('/admin/api/transactions', async function adminPeriod(c) {
    const start = When.safeParse(c.req.query('start'));
    const end = When.safeParse(c.req.query('end'));
    if (!start.success) return invalid(c, start.error);
    if (!end.success) return invalid(c, end.error);
    try {
      return c.json({
        transactions: await client.getPeriodTransactions({start: start.data, end: end.data}),
      });
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  app.post('/admin/api/registers', async function adminRegisterStart(c) {
    const parsed = RegisterBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return invalid(c, parsed.error);
    const b = parsed.data;
    try {
      const started = await client.startRegister({
        start_date: offsetIso(b.start),
        end_date: offsetIso(b.end),
        ...(b.statuses.length ? {statuses: b.statuses} : {}),
        ...(b.methods.length ? {methods: b.methods} : {}),
        ...(b.fields.length ? {transaction_details: b.fields} : {}),
      });
      return c.json({reportId: started.report_id, count: started.count});
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  app.get('/admin/api/registers/:id', async function adminRegisterFetch(c) {
    try {
      const result = await client.fetchRegister(c.req.param('id'));
      if (!result.ready) return c.json({ready: false, message: result.message});
      if (c.req.query('download') === '1') {
        return c.body(`${JSON.stringify(result.records, null, 2)}\n`, 200, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Disposition': `attachment; filename="register-${c.req.param('id').replace(/[^\w-]/g, '')}.json"`,
        });
      }
      return c.json({ready: true, records: result.records});
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  app.post('/admin/api/sandbox/advance', async function adminAdvance(c) {
    if (!deps.sandbox) {
      return c.json({error: {code: 'not_found', message: 'the sandbox is not embedded'}}, 404);
    }
    const parsed = AdvanceBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return invalid(c, parsed.error);
    const ms = (parsed.data.days * 24 + parsed.data.hours) * 3600_000;
    await deps.sandbox.advance(ms);
    await checkout.flushOutbox();
    logger.info({ms}, 'sandbox clock advanced from the back office');
    return c.json({now: deps.sandbox.now().toISOString()});
  });
}
