/**
 * The sandbox's HTTP surface as one Hono app (web-standard `Request → Response`): every
 * gateway endpoint under the spec's paths, with the live gateway's authentication and
 * error answers; the customer pages (`customer-pages.ts`) and the unauthenticated
 * inspection endpoints under `/sandbox/` (`admin.ts`) are added to it. Faults on demand are applied
 * here, around the engine: before the work (delay, 5xx, drop) or after it
 * (`*-after-charge`, `malformed-json`). A create takes its `order_id` as it arrives,
 * before any of them, and gives it back when it is answered without a payment made.
 * Under the `live` profile a JSON body is first put in the spec's form (`profiles.ts`), and
 * a request accepted only thanks to that is noted in the leniency log.
 */
import {Hono} from 'hono';
import type {Context} from 'hono';
import {GATEWAY_ENDPOINTS, verifyRequestAuth} from '../src/server/gateway/index.js';
import type {Credentials, GatewayEndpoint} from '../src/server/gateway/index.js';
import {registerAdmin} from './admin.js';
import type {SandboxClock} from './clock.js';
import {registerCustomerPages} from './customer-pages.js';
import type {OrderClaim, SandboxEngine} from './engine/index.js';
import {SandboxError, authError} from './errors.js';
import {parseFaultHeader, splitFaults} from './faults.js';
import type {Fault, FaultRules} from './faults.js';
import {LeniencyLog, readCallback, tolerateBody} from './profiles.js';
import type {Leniency, Profile} from './profiles.js';
import {JSON_TYPE, errorResponse, json, ndjson} from './responses.js';
import type {WebhookDispatcher} from './webhooks.js';

export {ADMIN_ENDPOINTS} from './admin.js';

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
  /** How a `delay=<ms>` fault waits (default: real time, see {@link realDelay}). */
  delay?: (ms: number) => Promise<void>;
}

/** HTTP status of a register fetched before it is generated. */
export const REPORT_NOT_READY_STATUS = 409;

/**
 * A fault delay in real time: it stands for network and gateway latency, which the
 * client's timeouts measure in real time too (not on the sandbox's business clock).
 * Unref'd so a closed sandbox never keeps the process alive.
 */
export const realDelay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

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

export function createApp(deps: AppDeps): Hono {
  const {engine, credentials} = deps;
  const profile = deps.profile ?? 'live';
  const leniencyLog = deps.leniencies ?? new LeniencyLog();
  const app = new Hono();
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
    for (const f of req) if (f.kind === 'delay') await (deps.delay ?? realDelay)(f.ms);
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

  registerCustomerPages(page, {engine, returnMethod: deps.returnMethod});
  registerAdmin(page, {...deps, profile, leniencyLog});

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
