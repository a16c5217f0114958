/**
 * The gateway sandbox: a local, stateful emulator of the whole gateway interface, for
 * tests, the demo and merchants trying every flow by hand. `startSandbox()` starts it
 * in-process on loopback and returns its URL, credentials, a controllable clock and the
 * inspection helpers; `fetchHandler` serves the same app without a socket. State lives in
 * memory and dies with `close()`, which also clears every timer. Its `profile` is `live`
 * (the default: tolerates what the live gateway tolerates, and lists where a merchant
 * relies on it) or `strict` (the spec to the letter); see `profiles.ts`.
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {getRequestListener} from '@hono/node-server';
import * as z from 'zod';
import {Uuid} from '../src/server/gateway/index.js';
import {createApp} from './app.js';
import {SandboxClock} from './clock.js';
import {SandboxEngine} from './engine/index.js';
import type {SandboxPayment} from './engine/index.js';
import {FaultRuleInput, FaultRules} from './faults.js';
import {LeniencyLog, PROFILES, profileRequests} from './profiles.js';
import type {LeniencyRecord, Profile} from './profiles.js';
import type {FaultRule} from './faults.js';
import {WebhookDispatcher} from './webhooks.js';
import type {WebhookDelivery} from './webhooks.js';

export type {SandboxPayment} from './engine/index.js';
export type {WebhookDelivery, WebhookSummary} from './webhooks.js';
export type {FaultRule} from './faults.js';
export type {Leniency, LeniencyRecord, LeniencyRule, Profile} from './profiles.js';
export {LENIENCY_RULES, PROFILES} from './profiles.js';
export {TEST_CARDS, SANDBOX_CODES} from './cards.js';
export type {TestCard} from './cards.js';
export {ERROR_CODES} from './errors.js';
export {FAULTS} from './faults.js';
export {REGISTER_DEFAULT_FIELDS} from './engine/index.js';
export {REPORT_NOT_READY_STATUS, ADMIN_ENDPOINTS} from './app.js';

/** The sandbox's fixed test credentials (override them with options or the CLI's env). */
export const DEFAULT_CREDENTIALS = {
  posId: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001',
  apiKey: 'sandbox-api-key',
  apiSecret: 'sandbox-api-secret',
  endpointsKey: 'sandbox-endpoints-key',
} as const;

/** The documented webhook retry schedule: delays before the 2nd, 3rd, ... attempt. */
export const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000] as const;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const rate = z
  .number()
  .min(0, {message: 'must be from 0 to 1'})
  .max(1, {message: 'must be from 0 to 1'});

/** Options of {@link startSandbox}. Unknown keys are an error naming the key. */
export const SandboxOptions = z.strictObject({
  port: z.number().int().min(0).max(65535).default(0),
  host: z
    .string()
    .refine((h) => LOOPBACK.has(h), {
      message: 'must be a loopback address (127.0.0.1, ::1, localhost)',
    })
    .default('127.0.0.1'),
  credentials: z
    .strictObject({
      posId: Uuid.optional(),
      apiKey: z
        .string()
        .min(1)
        .regex(/^[^:\s]+$/, {message: 'must not contain ":" or spaces'})
        .optional(),
      apiSecret: z.string().min(1).regex(/^\S+$/, {message: 'must not contain spaces'}).optional(),
      endpointsKey: z.string().min(1).optional(),
    })
    .default({}),
  clock: z
    .strictObject({start: z.date().optional(), manual: z.boolean().default(false)})
    .default({manual: false}),
  webhook: z
    .strictObject({
      timeoutMs: z.number().int().positive().default(5_000),
      retryDelaysMs: z
        .array(z.number().int().nonnegative())
        .max(20)
        .default([...DEFAULT_RETRY_DELAYS_MS]),
      duplicateRate: rate.default(0),
      reverseOrderRate: rate.default(0),
      seed: z.number().int().default(1),
    })
    .default({
      timeoutMs: 5_000,
      retryDelaysMs: [...DEFAULT_RETRY_DELAYS_MS],
      duplicateRate: 0,
      reverseOrderRate: 0,
      seed: 1,
    }),
  reportDelayMs: z.number().int().nonnegative().default(1_000),
  returnMethod: z.enum(['POST', 'GET']).default('POST'),
  profile: z.enum(PROFILES, {error: 'must be live or strict'}).default('live'),
  /**
   * How a `delay=<ms>` fault waits; default real time. A test passes its own to hold a
   * request and release it when it chooses, instead of measuring time.
   */
  faultDelay: z
    .custom<(ms: number) => Promise<void>>((v) => typeof v === 'function', {
      message: 'must be a function (ms) => Promise<void>',
    })
    .optional(),
  publicUrl: z
    .url()
    .refine((u) => !u.endsWith('/'), {message: 'must not end with /'})
    .optional(),
});
export type SandboxOptions = z.input<typeof SandboxOptions>;

/** A running sandbox. */
export interface Sandbox {
  /** Base URL, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  /** `live` (tolerates what the live gateway tolerates) or `strict` (the spec to the letter). */
  readonly profile: Profile;
  readonly credentials: {posId: string; apiKey: string; apiSecret: string; endpointsKey: string};
  /**
   * What a gateway client needs to talk to this sandbox — `{baseUrl, posId, credentials}`,
   * the shape of `GatewayClientOptions` — so a merchant app points at it in one line.
   */
  clientOptions(): {
    baseUrl: string;
    posId: string;
    credentials: {apiKey: string; apiSecret: string; endpointsKey: string};
  };
  close(): Promise<void>;
  readonly clock: {
    now(): Date;
    /** Moves the clock forward, running due subscription charges and expiries, and waits for their webhooks' first attempts. */
    advance(ms: number): Promise<void>;
  };
  /** Every primary payment (incl. subscription charges) with status and operations; never card numbers or CVVs. */
  payments(): readonly SandboxPayment[];
  /** Successful money movements: purchases (incl. subscription charges) and captures. */
  chargeCount(): number;
  /**
   * Requests the `live` profile accepted only thanks to a tolerance the `strict` profile
   * refuses, with the rule and field of each (never a value). Always empty under `strict`.
   */
  leniencies(): readonly LeniencyRecord[];
  clearLeniencies(): void;
  /** Every webhook delivery attempt. */
  webhookLog(): readonly WebhookDelivery[];
  /** Resolves once no webhook delivery is queued or in flight (scheduled retries not included). */
  webhooksIdle(): Promise<void>;
  /** Adds a fault rule (same body as `POST /sandbox/faults`); returns its id. */
  addFault(rule: z.input<typeof FaultRuleInput>): string;
  faults(): readonly FaultRule[];
  clearFaults(): void;
  /** The sandbox app without a socket (a `drop` fault answers `Response.error()`). */
  fetchHandler: (req: Request) => Promise<Response>;
}

function formatOptionIssues(error: z.ZodError): string {
  return error.issues
    .flatMap((i) => {
      const path = i.path.map(String).join('.');
      if (i.code === 'unrecognized_keys') {
        return i.keys.map((k) => `unknown option "${path ? `${path}.` : ''}${k}"`);
      }
      return [`option "${path}": ${i.message}`];
    })
    .join('; ');
}

/** Starts a sandbox on loopback. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const parsed = SandboxOptions.safeParse(options);
  if (!parsed.success) throw new TypeError(`startSandbox: ${formatOptionIssues(parsed.error)}`);
  const o = parsed.data;
  const credentials = {...DEFAULT_CREDENTIALS, ...o.credentials};
  const clock = new SandboxClock({start: o.clock.start, manual: o.clock.manual});
  const webhooks = new WebhookDispatcher(o.webhook, credentials.apiSecret, clock);
  const faults = new FaultRules();
  const leniencies = new LeniencyLog();
  let baseUrl = '';
  const publicUrl = () => o.publicUrl ?? baseUrl;
  const engine = new SandboxEngine({
    posId: credentials.posId,
    companyId: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c0c0de',
    clock,
    webhooks,
    faults,
    reportDelayMs: o.reportDelayMs,
    publicUrl,
    requests: profileRequests(o.profile),
  });
  const advance = async (ms: number) => {
    await clock.advance(ms);
    await webhooks.idle();
  };
  const app = createApp({
    engine,
    credentials,
    clock,
    webhooks,
    faults,
    returnMethod: o.returnMethod,
    webhookSchedule: o.webhook.retryDelaysMs,
    advance,
    profile: o.profile,
    leniencies,
    ...(o.faultDelay ? {delay: o.faultDelay} : {}),
  });
  const fetchHandler = async (req: Request): Promise<Response> => app.fetch(req);

  const server = http.createServer(nodeListener(fetchHandler));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url: baseUrl,
    profile: o.profile,
    credentials: {...credentials},
    clientOptions: () => ({
      baseUrl,
      posId: credentials.posId,
      credentials: {
        apiKey: credentials.apiKey,
        apiSecret: credentials.apiSecret,
        endpointsKey: credentials.endpointsKey,
      },
    }),
    close() {
      closing ??= (async () => {
        clock.close();
        webhooks.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
    clock: {now: () => clock.now(), advance},
    payments: () => engine.payments(),
    chargeCount: () => engine.chargeCount(),
    leniencies: () => leniencies.list(),
    clearLeniencies: () => leniencies.clear(),
    webhookLog: () => webhooks.log(),
    webhooksIdle: () => webhooks.idle(),
    addFault(rule) {
      const parsedRule = FaultRuleInput.safeParse(rule);
      if (!parsedRule.success) {
        throw new TypeError(
          `addFault: ${parsedRule.error.issues.map((i) => `${i.path.join('.') || '(rule)'}: ${i.message}`).join('; ')}`,
        );
      }
      return faults.add(parsedRule.data);
    },
    faults: () => faults.list(),
    clearFaults: () => faults.clear(),
    fetchHandler,
  };
}

/**
 * Serves the app on a node server through @hono/node-server (which avoids building a full
 * `Request` per call), leaving the global `Request`/`Response` alone. A `Response.error()`
 * (the `drop` faults) destroys the socket instead of answering.
 */
function nodeListener(handler: (req: Request) => Promise<Response>): http.RequestListener {
  return getRequestListener(
    async function sandboxRequest(req, env) {
      const res = await handler(req);
      if (res.type === 'error') {
        (env as {incoming: http.IncomingMessage}).incoming.socket.destroy();
        return new Response(null, {status: 204});
      }
      return res;
    },
    {overrideGlobalObjects: false},
  ) as http.RequestListener;
}
