/**
 * The sandbox's HTTP surface as one Hono app (web-standard `Request → Response`): every
 * gateway endpoint under the spec's paths, with the live gateway's authentication and
 * error answers, the customer pages (3-D Secure challenge, hosted checkout), and the
 * unauthenticated inspection endpoints under `/sandbox/`. Faults on demand are applied
 * here, around the engine: before the work (delay, 5xx, drop) or after it
 * (`*-after-charge`, `malformed-json`). A create takes its `order_id` as it arrives,
 * before any of them, and gives it back when it is answered without a payment made.
 * Under the `live` profile a JSON body is first put in the spec's form (`profiles.ts`), and
 * a request accepted only thanks to that is noted in the leniency log.
 */
import {Hono} from 'hono';
import type {Context} from 'hono';
import * as z from 'zod';
import {GATEWAY_ENDPOINTS, verifyRequestAuth} from '../src/server/gateway/index.js';
import type {Credentials, GatewayEndpoint} from '../src/server/gateway/index.js';
import {SANDBOX_CODES, TEST_CARDS} from './cards.js';
import type {SandboxClock} from './clock.js';
import type {OrderClaim, SandboxEngine} from './engine/index.js';
import {REGISTER_DEFAULT_FIELDS, validate} from './engine/index.js';
import {ERROR_CODES, SandboxError, authError} from './errors.js';
import {FAULTS, FaultRuleInput, parseFaultHeader, splitFaults} from './faults.js';
import type {Fault, FaultRules} from './faults.js';
import {
  PAGE_CSP,
  RETURN_SCRIPT,
  STYLESHEET,
  alreadyFinalPage,
  challengePage,
  checkoutPage,
  returnPage,
} from './pages.js';
import {LENIENCY_RULES, LeniencyLog, readCallback, tolerateBody} from './profiles.js';
import type {Leniency, Profile} from './profiles.js';
import type {WebhookDispatcher} from './webhooks.js';

export interface AppDeps {
  engine: SandboxEngine;
  credentials: Required<Credentials> & {posId: string};
  clock: SandboxClock;
  webhooks: WebhookDispatcher;
  faults: FaultRules;
  returnMethod: 'POST' | 'GET';
  webhookSchedule: readonly number[];
  /** Moves the sandbox clock and waits for the webhooks it caused. */
  advance: (ms: number) => Promise<void>;
  /** `live` (the default) tolerates what the live gateway tolerates; `strict` enforces the spec. */
  profile?: Profile;
  /** Where `live` notes the requests it accepted only thanks to a tolerance. */
  leniencies?: LeniencyLog;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const NDJSON_TYPE = 'application/x-ndjson; charset=utf-8';

/** HTTP status of a register fetched before it is generated. */
export const REPORT_NOT_READY_STATUS = 409;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {'content-type': JSON_TYPE, ...headers},
  });
}

function errorResponse(err: SandboxError, headers: Record<string, string> = {}): Response {
  return json(err.status, err.body(), headers);
}

function ndjson(lines: readonly string[]): Response {
  return new Response(lines.length ? `${lines.join('\n')}\n` : '', {
    status: 200,
    headers: {'content-type': NDJSON_TYPE},
  });
}

function html(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': PAGE_CSP,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      ...headers,
    },
  });
}

/** A fault delay; unref'd so a closed sandbox never keeps the process alive. */
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * What a gateway handler gets: the parsed body (JSON endpoints), the request's faults and,
 * for a create, its hold on the order id.
 */
interface GatewayCall {
  c: Context;
  body: unknown;
  faults: Fault[];
  claim: OrderClaim | undefined;
  /** Tolerances this request relied on (live profile); a handler adds the query ones. */
  tolerated: Leniency[];
}

interface RouteSpec {
  endpoint: GatewayEndpoint;
  /** Parses a JSON body (406 when it is not JSON). */
  jsonBody?: boolean;
  /** Body field that must hold the sandbox's project id. */
  posField?: 'pos_id' | 'project_id';
  /** Money-moving: fault rules matching its order/card apply. */
  moneyMoving?: boolean;
  /** Creates an order: its `order_id` is taken on arrival (see `SandboxEngine.claimOrderId`). */
  claimsOrderId?: boolean;
}

const AdvanceBody = z
  .strictObject({
    ms: z.number().int().nonnegative().optional(),
    seconds: z.number().int().nonnegative().optional(),
    minutes: z.number().int().nonnegative().optional(),
    hours: z.number().int().nonnegative().optional(),
    days: z.number().int().nonnegative().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'give ms, seconds, minutes, hours or days',
  });

export function createApp(deps: AppDeps): Hono {
  const {engine, credentials} = deps;
  const profile = deps.profile ?? 'live';
  const leniencyLog = deps.leniencies ?? new LeniencyLog();
  const app = new Hono();
  const opened = new Map<string, number>();
  const knownPaths = new Map<string, Set<string>>();

  const remember = (method: string, path: string) => {
    const set = knownPaths.get(path) ?? new Set<string>();
    set.add(method);
    knownPaths.set(path, set);
  };

  /** Registers one gateway endpoint with authentication, faults and error answers. */
  const gateway = (
    spec: RouteSpec,
    handler: (call: GatewayCall) => Response | Promise<Response>,
  ) => {
    const {method, path} = GATEWAY_ENDPOINTS[spec.endpoint];
    if (knownPaths.get(path)?.has(method)) return;
    remember(method, path);
    app.on(method, path, async function gatewayEndpoint(c) {
      const url = new URL(c.req.url);
      const text = method === 'GET' ? '' : await c.req.text();
      const auth = verifyRequestAuth(
        (name) => c.req.header(name),
        {endpoint: spec.endpoint, method, pathAndQuery: url.pathname + url.search, body: text},
        credentials,
      );
      if (!auth.ok) return errorResponse(authError(), {'x-sandbox-auth-failure': auth.reason});
      const posId = c.req.param('posId');
      if (posId !== undefined && posId !== credentials.posId) {
        return errorResponse(authError(), {
          'x-sandbox-auth-failure': 'pos_id in the path is not this project',
        });
      }
      let faults: Fault[];
      try {
        faults = parseFaultHeader(c.req.header('x-sandbox-fault'));
      } catch (err) {
        return errorResponse(new SandboxError('V-400', (err as Error).message));
      }
      let body: unknown;
      const leniencies: Leniency[] = [];
      if (spec.jsonBody) {
        const type = c.req.header('content-type') ?? '';
        if (!/^application\/json\s*(;|$)/i.test(type)) {
          return errorResponse(
            new SandboxError(
              'M-406',
              'the body must be JSON sent with Content-Type: application/json',
            ),
          );
        }
        try {
          body = JSON.parse(text);
        } catch {
          return errorResponse(new SandboxError('M-406', 'the body is not valid JSON'));
        }
        if (profile === 'live') {
          const tolerated = tolerateBody(spec.endpoint, body);
          body = tolerated.body;
          leniencies.push(...tolerated.leniencies);
        }
        const field = spec.posField;
        if (field && typeof body === 'object' && body !== null) {
          const given = (body as Record<string, unknown>)[field];
          if (given !== undefined && given !== credentials.posId) {
            return errorResponse(authError(), {
              'x-sandbox-auth-failure': `${field} in the body is not this project`,
            });
          }
        }
      }
      // Taken as the request arrives, before any fault delay, and given back in `finally`:
      // a claim cannot outlive its request, whichever way the request ends.
      const claim = spec.claimsOrderId ? engine.claimOrderId(body) : undefined;
      try {
        const res = await faulted(spec, {c, body, faults, claim, tolerated: leniencies}, handler);
        if (res.status < 400) {
          leniencyLog.note({
            at: deps.clock.now().toISOString(),
            method,
            path: url.pathname,
            endpoint: spec.endpoint,
            leniencies,
          });
        }
        return res;
      } finally {
        claim?.release();
      }
    });
  };

  /** Runs a gateway handler inside its request's faults (and the matching fault rules). */
  async function faulted(
    spec: RouteSpec,
    call: GatewayCall,
    handler: (call: GatewayCall) => Response | Promise<Response>,
  ): Promise<Response> {
    const faults = spec.moneyMoving
      ? [...call.faults, ...deps.faults.take('request', engine.faultSubject(call.body))]
      : call.faults;
    const req = splitFaults(faults).request;
    for (const f of req) if (f.kind === 'delay') await sleep(f.ms);
    for (const f of req) {
      if (f.kind === 'drop' && !f.afterCharge) return Response.error();
      if (f.kind === 'error' && !f.afterCharge) return faultError(f.status);
    }
    let res: Response;
    try {
      res = await handler({...call, faults});
    } catch (err) {
      if (err instanceof SandboxError) return errorResponse(err);
      throw err;
    }
    if (res.status >= 400) return res;
    for (const f of req) {
      if (f.kind === 'drop' && f.afterCharge) return Response.error();
      if (f.kind === 'error' && f.afterCharge) return faultError(f.status);
      if (f.kind === 'malformed-json') {
        const good = await res.text();
        return new Response(good.slice(0, Math.max(1, Math.floor(good.length / 2))), {
          status: 200,
          headers: {'content-type': JSON_TYPE},
        });
      }
    }
    return res;
  }

  // --- Gateway endpoints ---------------------------------------------------------------

  gateway(
    {
      endpoint: 'createPayment',
      jsonBody: true,
      posField: 'pos_id',
      moneyMoving: true,
      claimsOrderId: true,
    },
    ({body, faults, claim}) => {
      const {record, location} = engine.createPayment(body, faults, claim);
      if (!location) return json(200, record);
      // The public plugins read the checkout address from `Location` or from a JSON
      // `redirect_url` (gateway-facts.md); `strict` answers the spec's bare record.
      const answer = profile === 'live' ? {...record, redirect_url: location} : record;
      return json(303, answer, {location});
    },
  );

  gateway({endpoint: 'cancelOrder'}, ({c}) =>
    json(200, engine.cancelOrder(c.req.param('orderId')!)),
  );

  gateway({endpoint: 'getOperation'}, ({c, tolerated}) => {
    const orderId = c.req.param('orderId')!;
    const operation = c.req.param('operation')!;
    const callback = readCallback(c.req.query('callback'), profile, tolerated);
    const transactionId = c.req.query('transactionId');
    if (callback === 'invalid') {
      throw new SandboxError('V-400', 'callback: must be true (to resend the webhook) or false');
    }
    if (callback === true) return json(200, engine.resend(orderId, operation, transactionId));
    if (transactionId !== undefined) {
      throw new SandboxError('V-400', 'transactionId: is only used with callback=true');
    }
    return json(200, engine.getOperation(orderId, operation));
  });

  gateway({endpoint: 'getOrder'}, ({c}) => json(200, engine.getOrder(c.req.param('orderId')!)));

  gateway({endpoint: 'getSubscriptionTransactions'}, ({c}) =>
    json(200, engine.subscriptionTransactions(c.req.param('recurringId')!, c.req.query())),
  );

  gateway({endpoint: 'getPeriodTransactions'}, ({c}) =>
    ndjson(engine.periodTransactions(c.req.query())),
  );

  gateway({endpoint: 'startRegister', jsonBody: true, posField: 'project_id'}, ({body}) =>
    json(200, engine.startRegister(body)),
  );

  gateway({endpoint: 'fetchRegister'}, ({c}) => {
    const lines = engine.fetchRegister(c.req.param('reportId')!);
    if (!lines) {
      return json(REPORT_NOT_READY_STATUS, {
        message: 'The report is not ready yet; fetch it again shortly',
        code: 'report_not_ready',
      });
    }
    return ndjson(lines);
  });

  gateway({endpoint: 'cancelSubscription'}, ({c}) =>
    json(200, engine.cancelSubscription(c.req.param('recurringId')!)),
  );

  gateway(
    {endpoint: 'capture', jsonBody: true, posField: 'pos_id', moneyMoving: true},
    ({body, faults}) => json(200, engine.capture(body, faults)),
  );
  gateway(
    {endpoint: 'void', jsonBody: true, posField: 'pos_id', moneyMoving: true},
    ({body, faults}) => json(200, engine.void(body, faults)),
  );
  gateway(
    {endpoint: 'refund', jsonBody: true, posField: 'pos_id', moneyMoving: true},
    ({body, faults}) => json(200, engine.refund(body, faults)),
  );

  // --- Customer pages ------------------------------------------------------------------

  const handBack = (paymentId: string): Response => {
    const p = engine.pagePayment(paymentId)!;
    if (deps.returnMethod === 'GET' && p.resultUrl) {
      const target = new URL(p.resultUrl);
      target.searchParams.set('order_id', p.orderId);
      target.searchParams.set('payment_id', p.paymentId);
      return new Response(null, {
        status: 303,
        headers: {location: target.href, 'cache-control': 'no-store'},
      });
    }
    return html(200, returnPage(p, p.resultUrl));
  };

  const unknownPage = () =>
    html(
      404,
      '<!doctype html><html lang="en"><title>Not found</title><h1>No such sandbox payment</h1></html>',
    );

  page('GET', '/sandbox/3ds/:paymentId', (c) => {
    const id = c.req.param('paymentId')!;
    const p = engine.pagePayment(id);
    if (!p) return unknownPage();
    if (!p.challenge) return html(200, alreadyFinalPage(p, p.resultUrl, '3-D Secure verification'));
    const times = opened.get(id) ?? 0;
    opened.set(id, times + 1);
    return html(200, challengePage(p, times > 0));
  });

  page('POST', '/sandbox/3ds/:paymentId', async (c) => {
    const id = c.req.param('paymentId')!;
    const form = new URLSearchParams(await c.req.text());
    const decision = form.get('decision');
    if (!engine.pagePayment(id)) return unknownPage();
    if (decision !== 'approve' && decision !== 'decline') {
      return html(
        400,
        '<!doctype html><html lang="en"><title>Bad request</title><h1>decision must be approve or decline</h1></html>',
      );
    }
    const result = engine.threeDSDecision(id, decision === 'approve')!;
    const p = engine.pagePayment(id)!;
    if (!result.changed)
      return html(200, alreadyFinalPage(p, p.resultUrl, '3-D Secure verification'));
    return handBack(id);
  });

  page('GET', '/sandbox/checkout/:paymentId', (c) => {
    const p = engine.pagePayment(c.req.param('paymentId')!);
    if (!p || p.mode !== 'hosted') return unknownPage();
    if (p.status !== 'init') return html(200, alreadyFinalPage(p, p.resultUrl, 'payment'));
    return html(200, checkoutPage(p, p.resultUrl));
  });

  page('POST', '/sandbox/checkout/:paymentId', async (c) => {
    const id = c.req.param('paymentId')!;
    const p = engine.pagePayment(id);
    if (!p || p.mode !== 'hosted') return unknownPage();
    const form = new URLSearchParams(await c.req.text());
    const result = engine.checkoutPay(id, {
      cc_number: form.get('cc_number') ?? '',
      exp_month: form.get('exp_month') ?? '',
      exp_year: form.get('exp_year') ?? '',
      card_cvv: form.get('card_cvv') ?? '',
    })!;
    const now = engine.pagePayment(id)!;
    switch (result.result) {
      case 'invalid':
        return html(422, checkoutPage(now, now.resultUrl, result.message));
      case 'final':
        return html(200, alreadyFinalPage(now, now.resultUrl, 'payment'));
      case 'challenge':
        return new Response(null, {status: 303, headers: {location: `/sandbox/3ds/${id}`}});
      default:
        return handBack(id);
    }
  });

  page(
    'GET',
    '/sandbox/assets/sandbox.css',
    () =>
      new Response(STYLESHEET, {
        headers: {'content-type': 'text/css; charset=utf-8', 'cache-control': 'max-age=300'},
      }),
  );
  page(
    'GET',
    '/sandbox/assets/return.js',
    () =>
      new Response(RETURN_SCRIPT, {
        headers: {'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'max-age=300'},
      }),
  );

  // --- Inspection and control (no gateway auth: a local emulator) ------------------------

  page(
    'GET',
    '/favicon.ico',
    () => new Response(null, {status: 204, headers: {'cache-control': 'max-age=86400'}}),
  );
  page(
    'GET',
    '/health',
    () => new Response('OK', {headers: {'content-type': 'text/plain; charset=utf-8'}}),
  );

  page('GET', '/sandbox', () =>
    json(200, {
      name: 'pg-checkout gateway sandbox',
      profile,
      pos_id: credentials.posId,
      endpoints: {
        gateway: Object.fromEntries(
          Object.entries(GATEWAY_ENDPOINTS).map(([k, v]) => [k, `${v.method} ${v.path}`]),
        ),
        admin: ADMIN_ENDPOINTS,
      },
      faults: FAULTS,
      errorCodes: ERROR_CODES,
      statusCodes: SANDBOX_CODES,
      webhookRetryDelaysMs: deps.webhookSchedule,
      registerDefaultFields: REGISTER_DEFAULT_FIELDS,
      leniencyRules: profile === 'live' ? LENIENCY_RULES : {},
    }),
  );
  page('GET', '/sandbox/cards', () => json(200, TEST_CARDS));
  page('GET', '/sandbox/webhooks', () => json(200, deps.webhooks.log()));
  page('DELETE', '/sandbox/webhooks', () => {
    deps.webhooks.clearLog();
    return new Response(null, {status: 204});
  });
  const clockBody = () => ({
    now: deps.clock.now().toISOString(),
    timestamp: deps.clock.now().toISOString().slice(0, 23),
    manual: deps.clock.manual,
    scheduledTasks: deps.clock.pending,
  });
  page('GET', '/sandbox/clock', () => json(200, clockBody()));
  page('POST', '/sandbox/clock/advance', async (c) => {
    const b = validate(AdvanceBody, await readJson(c), 'clock advance');
    const ms =
      (b.ms ?? 0) +
      (b.seconds ?? 0) * 1000 +
      (b.minutes ?? 0) * 60_000 +
      (b.hours ?? 0) * 3_600_000 +
      (b.days ?? 0) * 86_400_000;
    await deps.advance(ms);
    return json(200, clockBody());
  });
  page('GET', '/sandbox/faults', () => json(200, deps.faults.list()));
  page('POST', '/sandbox/faults', async (c) => {
    const rule = validate(FaultRuleInput, await readJson(c), 'fault rule');
    return json(201, {id: deps.faults.add(rule)});
  });
  page('DELETE', '/sandbox/faults', () => {
    deps.faults.clear();
    return new Response(null, {status: 204});
  });
  page('GET', '/sandbox/leniencies', () => json(200, leniencyLog.list()));
  page('DELETE', '/sandbox/leniencies', () => {
    leniencyLog.clear();
    return new Response(null, {status: 204});
  });
  page('GET', '/sandbox/payments', () => json(200, engine.payments()));
  page('GET', '/sandbox/subscriptions', () => json(200, engine.subscriptions()));

  // --- Wrong methods, unknown paths, failures -------------------------------------------

  for (const [path, methods] of knownPaths) {
    app.all(path, (c) =>
      errorResponse(
        new SandboxError(
          'M-405',
          `${c.req.method} is not allowed here; use ${[...methods].join(' or ')}`,
        ),
        {allow: [...methods].join(', ')},
      ),
    );
  }
  app.notFound((c) =>
    errorResponse(
      new SandboxError('N-404', `no endpoint ${c.req.method} ${new URL(c.req.url).pathname}`),
    ),
  );
  app.onError((err) => {
    if (err instanceof SandboxError) return errorResponse(err);
    console.error('sandbox: internal error', err);
    return errorResponse(new SandboxError('S-500', 'internal sandbox error'));
  });

  return app;

  function page(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    handler: (c: Context) => Response | Promise<Response>,
  ): void {
    remember(method, path);
    app.on(method, path, handler);
  }
}

function faultError(status: 500 | 503): Response {
  return errorResponse(
    new SandboxError(
      status === 500 ? 'S-500' : 'S-503',
      status === 500 ? 'Internal server error' : 'Service temporarily unavailable',
    ),
  );
}

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new SandboxError('M-406', 'the body is not valid JSON');
  }
}

/** The inspection and control endpoints, for the index and the CLI banner. */
export const ADMIN_ENDPOINTS = {
  'GET /health': 'Answers OK',
  'GET /sandbox': 'This index: endpoints, faults, codes',
  'GET /sandbox/cards': 'Test cards and their outcomes',
  'GET /sandbox/payments': 'Every primary payment with status and operations (card mask only)',
  'GET /sandbox/subscriptions': 'Every subscription with its next charge time',
  'GET /sandbox/webhooks': 'Webhook delivery log (every attempt)',
  'DELETE /sandbox/webhooks': 'Clears the delivery log',
  'GET /sandbox/clock': 'Sandbox clock',
  'POST /sandbox/clock/advance': 'Moves the clock: {"ms"|"seconds"|"minutes"|"hours"|"days": n}',
  'GET /sandbox/leniencies':
    'Requests the live profile accepted only by a tolerance the strict profile refuses',
  'DELETE /sandbox/leniencies': 'Clears that list',
  'GET /sandbox/faults': 'Fault rules in effect',
  'POST /sandbox/faults':
    'Adds a rule: {"match": {"order_id"?, "card_last4"?, "recurring_id"?}, "fault", "times"?}',
  'DELETE /sandbox/faults': 'Removes every fault rule',
  'GET /sandbox/3ds/:paymentId': 'The 3-D Secure challenge page (user_action_url)',
  'GET /sandbox/checkout/:paymentId': 'The hosted checkout page (the 303 location)',
} as const;
