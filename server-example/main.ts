/**
 * Starts the demo merchant app (`npm start`): reads and checks its configuration from the
 * environment (see `.env.example`), starts the embedded gateway sandbox when no
 * `GATEWAY_BASE_URL` is given, recovers what a previous run left open, and serves the
 * store, the checkout companion and the back office on http://localhost:8080 (`PORT`;
 * `0` picks a free port). It prints the address, the test cards and what to try.
 *
 * A request's head must arrive within `HEADERS_TIMEOUT_MS` (10 s) and the whole request
 * within `REQUEST_TIMEOUT_MS` (15 s), or it is answered 408 and its connection closed.
 *
 * On SIGTERM or SIGINT it shuts down gracefully (`drain.ts`): it closes its listener once
 * the connections the kernel already accepted are taken, lets the requests in flight
 * finish and answers what arrives meanwhile `503` with `Retry-After`, delivers the
 * payment updates those requests stored, then closes the companion and the store — all
 * within `SHUTDOWN_TIMEOUT_MS`. A second signal exits at once.
 */
import type {Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {createAdaptorServer, type ServerType} from '@hono/node-server';
import {randomBytes} from 'node:crypto';
import {readFileSync} from 'node:fs';
import {hostname} from 'node:os';
import path from 'node:path';
import {pino} from 'pino';
import * as z from 'zod';
import {
  INTERVAL_UNITS,
  createCheckoutLogger,
  type GatewayClientOptions,
} from '../src/server/index.js';
import {NO_STORE} from '../src/server/http/app-parts.js';
import {startSandbox, TEST_CARDS, type Sandbox} from '../sandbox/index.js';
import {createExampleApp, type ExampleApp} from './app.js';
import {answerClientErrors} from './client-errors.js';
import {Drain} from './drain.js';
import {forwardUpdates} from './update-forwarder.js';
import {startMetrics} from './metrics.js';

/** Connections the kernel may hold for the server before it accepts them. */
const LISTEN_BACKLOG = 4096;
/** How often the server cuts requests past HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS. */
const CONNECTIONS_CHECK_MS = 1000;

const optionalInt = (min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).optional();

const Env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    DATA_DIR: z.string().min(1).default('./data'),
    PUBLIC_URL: z.url().optional(),
    GATEWAY_BASE_URL: z.url().optional(),
    POS_ID: z.uuid().optional(),
    API_KEY: z.string().min(1).optional(),
    API_SECRET: z.string().min(1).optional(),
    ENDPOINTS_KEY: z.string().min(1).optional(),
    ADMIN_TOKEN: z
      .string()
      .min(16, {message: 'must be at least 16 random characters (openssl rand -base64 24)'})
      .optional(),
    VISITOR_SECRET: z
      .string()
      .min(32, {message: 'must be at least 32 random characters (openssl rand -base64 32)'})
      .optional(),
    SUBSCRIPTION_INTERVAL_UNIT: z.enum(INTERVAL_UNITS).default('month'),
    SUBSCRIPTION_INTERVAL_COUNT: z.coerce.number().int().min(1).max(30).default(1),
    HOSTED_ORDER_TIMEOUT_SECONDS: optionalInt(60, 7 * 24 * 3600),
    ORDER_LIMIT: optionalInt(1, 1_000_000),
    PAY_ATTEMPTS_PER_IP: optionalInt(1, 1_000_000),
    PAY_ATTEMPTS_PER_ORDER: optionalInt(1, 1_000_000),
    PAY_ATTEMPTS_PER_CARD: optionalInt(1, 1_000_000),
    TRUST_PROXY: optionalInt(0, 20),
    ORDER_LOOKUPS_PER_IP: optionalInt(1, 1_000_000),
    SANDBOX_REPORT_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(3000),
    SANDBOX_WEBHOOK_DUPLICATE_RATE: z.coerce.number().min(0).max(1).default(0.1),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, {message: 'must be a postgres:// URL'})
      .optional(),
    DATABASE_SCHEMA: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, {message: 'must be a plain identifier'})
      .optional(),
    DATABASE_POOL_SIZE: optionalInt(1, 1000),
    DATABASE_CONNECT_TIMEOUT_MS: optionalInt(1, 600_000),
    DATABASE_STATEMENT_TIMEOUT_MS: optionalInt(1, 600_000),
    DATABASE_CA_FILE: z.string().min(1).optional(),
    INSTANCE_ID: z
      .string()
      .regex(/^[\x21-\x7e]{1,100}$/, {message: 'must be printable, no spaces'})
      .optional(),
    LEASE_MS: optionalInt(100, 3_600_000),
    SWEEP_INTERVAL_MS: optionalInt(0, 3_600_000),
    PAYMENT_UPDATES_URL: z.url().optional(),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
    ADMISSION_MAX_IN_FLIGHT: optionalInt(1, 100_000),
    ADMISSION_QUEUE: optionalInt(0, 1_000_000),
    ADMISSION_QUEUE_TIMEOUT_MS: optionalInt(1, 600_000),
    KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(65_000),
    HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(15_000),
    METRICS_PORT: optionalInt(0, 65535),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    HEALTH_FLUSH_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  })
  .superRefine((env, ctx) => {
    if (env.REQUEST_TIMEOUT_MS < env.HEADERS_TIMEOUT_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['REQUEST_TIMEOUT_MS'],
        message: `must be at least HEADERS_TIMEOUT_MS (${env.HEADERS_TIMEOUT_MS}): the whole request includes its head`,
      });
    for (const key of [
      'DATABASE_SCHEMA',
      'DATABASE_POOL_SIZE',
      'DATABASE_CONNECT_TIMEOUT_MS',
      'DATABASE_STATEMENT_TIMEOUT_MS',
      'DATABASE_CA_FILE',
    ] as const) {
      if (env[key] !== undefined && !env.DATABASE_URL)
        ctx.addIssue({code: 'custom', path: [key], message: 'needs DATABASE_URL'});
    }
    if (!env.GATEWAY_BASE_URL) return;
    for (const key of ['POS_ID', 'API_KEY', 'API_SECRET'] as const) {
      if (!env[key])
        ctx.addIssue({code: 'custom', path: [key], message: 'is required with GATEWAY_BASE_URL'});
    }
  });

const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v);
const parsed = Env.safeParse(
  Object.fromEntries(Object.keys(Env.shape).map((k) => [k, blank(process.env[k])])),
);
if (!parsed.success) {
  for (const issue of parsed.error.issues) {
    console.error(`server-example: ${issue.path.join('.')}: ${issue.message}`);
  }
  console.error('server-example: see server-example/.env.example');
  process.exit(1);
}
const env = parsed.data;

let sandbox: Sandbox | undefined;
let gateway: GatewayClientOptions;
if (env.GATEWAY_BASE_URL) {
  gateway = {
    baseUrl: env.GATEWAY_BASE_URL,
    posId: env.POS_ID!,
    credentials: {
      apiKey: env.API_KEY!,
      apiSecret: env.API_SECRET!,
      ...(env.ENDPOINTS_KEY ? {endpointsKey: env.ENDPOINTS_KEY} : {}),
    },
  };
} else {
  sandbox = await startSandbox({
    port: 0,
    reportDelayMs: env.SANDBOX_REPORT_DELAY_MS,
    webhook: {duplicateRate: env.SANDBOX_WEBHOOK_DUPLICATE_RATE},
  });
  gateway = sandbox.clientOptions();
}

const instanceId = env.INSTANCE_ID ?? `${hostname()}-${process.pid}`;
// The demo with the embedded sandbox always has a back office: a random token is made up
// when none is set. With a real gateway, no token means no back office.
const adminToken = env.ADMIN_TOKEN ?? (sandbox ? randomBytes(24).toString('base64url') : undefined);

// The metrics for Prometheus, on an address of their own, and the back office's health
// page's recorder (metrics.ts), before any is recorded.
const metrics = await startMetrics({
  prometheus:
    env.METRICS_PORT === undefined ? undefined : {port: env.METRICS_PORT, host: env.METRICS_HOST},
  health: adminToken
    ? {
        instance: instanceId,
        intervalMs: env.HEALTH_FLUSH_MS,
        // Called from the recorder's timer, once the logger below exists.
        onError: (error) =>
          logger.warn(
            {error: (error as Error).message},
            "health page: this instance's counts since its last flush are lost",
          ),
      }
    : undefined,
});
const metricsEndpoint = metrics.endpoint;

// Listen first, so that PORT=0 can pick a free port and the public address can name it.
const serving: {example?: ExampleApp; drain?: Drain} = {};
const {server, port} = await new Promise<{server: ServerType; port: number}>((resolve) => {
  const listening: ServerType = createAdaptorServer({
    fetch: (req, bindings) =>
      serving.drain?.draining
        ? serving.drain.refusal()
        : serving.example
          ? serving.example.app.fetch(req, bindings)
          : new Response('starting', {status: 503, headers: NO_STORE}),
    serverOptions: {
      // An idle keep-alive connection is kept longer than a load balancer keeps it (60 s is
      // the common idle timeout), so that the balancer always closes first. Node's own 5 s
      // lost the race under load: the server closed a connection as the balancer sent a
      // request on it, and the customer was answered 502.
      keepAliveTimeout: env.KEEP_ALIVE_TIMEOUT_MS,
      // A request's head, then the whole request, must arrive within these deadlines, or
      // the client is answered 408 and its connection closed: Node's 300 s let a client
      // sending a byte now and then hold a socket and an admission place for five minutes.
      // Both count from the request's first byte (from the connection's, for its first
      // request), not while a keep-alive connection idles between requests, so they need
      // not exceed KEEP_ALIVE_TIMEOUT_MS. REQUEST_TIMEOUT_MS is the outer bound above the
      // companion's own body deadline, which answers first for a slow body.
      headersTimeout: env.HEADERS_TIMEOUT_MS,
      requestTimeout: env.REQUEST_TIMEOUT_MS,
      // How often Node looks for a request past those deadlines (its default, 30 s, would
      // let a 10 s deadline run to 40 s).
      connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
    },
  });
  // A long queue of connections not yet accepted (the kernel caps it at
  // net.core.somaxconn): with Node's 511, a rush on a saturated instance overflowed it, and
  // the kernel reset connections a load balancer had opened (502s in the rush benchmark).
  // Accepted, they meet the companion's admission: a quick `503 busy`, not a reset.
  listening.listen({port: env.PORT, backlog: LISTEN_BACKLOG}, () =>
    resolve({server: listening, port: (listening.address() as AddressInfo).port}),
  );
});
// Node's own answers (408 past those deadlines, 400, 431) with the app's headers.
answerClientErrors(server as Server, {
  headersMs: env.HEADERS_TIMEOUT_MS,
  requestMs: env.REQUEST_TIMEOUT_MS,
});
const drain = (serving.drain = new Drain(server as Server));
const publicUrl = env.PUBLIC_URL ?? `http://localhost:${port}`;

let ca: string | undefined;
if (env.DATABASE_CA_FILE) {
  try {
    ca = readFileSync(env.DATABASE_CA_FILE, 'utf8');
  } catch (error) {
    console.error(`server-example: DATABASE_CA_FILE: cannot be read (${(error as Error).message})`);
    process.exit(1);
  }
}

// The log goes to stdout a few kilobytes at a time, and at least every LOG_FLUSH_MS: a write
// per line (five per payment) cost more than the lines. pino writes what is buffered when the
// process exits (a crash too); a kill -9 loses at most that moment's lines (the payments are
// in the database, not in the log).
const LOG_FLUSH_MS = 200;
const logDestination = pino.destination({dest: 1, minLength: 4096, sync: false});
setInterval(() => logDestination.flush(), LOG_FLUSH_MS).unref();
const logger = createCheckoutLogger({}, logDestination);

const built = createExampleApp({
  logger,
  ...(env.DATABASE_URL
    ? {
        database: {
          connectionString: env.DATABASE_URL,
          ...(env.DATABASE_SCHEMA ? {schema: env.DATABASE_SCHEMA} : {}),
          ...(env.DATABASE_POOL_SIZE ? {poolSize: env.DATABASE_POOL_SIZE} : {}),
          ...(env.DATABASE_CONNECT_TIMEOUT_MS
            ? {connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS}
            : {}),
          ...(env.DATABASE_STATEMENT_TIMEOUT_MS
            ? {statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS}
            : {}),
          ...(ca ? {ssl: {ca, rejectUnauthorized: true}} : {}),
        },
      }
    : {}),
  instance: {id: instanceId, ...(env.LEASE_MS ? {leaseMs: env.LEASE_MS} : {})},
  ...(env.SWEEP_INTERVAL_MS !== undefined ? {sweep: {intervalMs: env.SWEEP_INTERVAL_MS}} : {}),
  admission: {
    ...(env.ADMISSION_MAX_IN_FLIGHT ? {maxInFlight: env.ADMISSION_MAX_IN_FLIGHT} : {}),
    ...(env.ADMISSION_QUEUE !== undefined ? {queue: env.ADMISSION_QUEUE} : {}),
    ...(env.ADMISSION_QUEUE_TIMEOUT_MS ? {queueTimeoutMs: env.ADMISSION_QUEUE_TIMEOUT_MS} : {}),
  },
  ...(env.PAYMENT_UPDATES_URL
    ? {onPaymentUpdate: forwardUpdates(env.PAYMENT_UPDATES_URL, instanceId)}
    : {}),
  publicUrl,
  extraOrigins: env.PUBLIC_URL ? [] : [`http://127.0.0.1:${port}`],
  dataDir: path.resolve(env.DATA_DIR),
  gateway,
  subscription: {
    interval_unit: env.SUBSCRIPTION_INTERVAL_UNIT,
    interval_count: env.SUBSCRIPTION_INTERVAL_COUNT,
  },
  ...(adminToken ? {adminToken} : {}),
  ...(metrics.healthRecorder ? {healthRecorder: metrics.healthRecorder} : {}),
  ...(env.VISITOR_SECRET ? {visitorSecret: env.VISITOR_SECRET} : {}),
  ...(env.HOSTED_ORDER_TIMEOUT_SECONDS
    ? {hostedOrderTimeoutSeconds: env.HOSTED_ORDER_TIMEOUT_SECONDS}
    : {}),
  ...(env.ORDER_LIMIT !== undefined ? {limits: {orders: env.ORDER_LIMIT}} : {}),
  ...(env.TRUST_PROXY ? {trustProxy: env.TRUST_PROXY} : {}),
  payAttempts: {
    ...(env.PAY_ATTEMPTS_PER_IP ? {maxAttemptsPerIp: env.PAY_ATTEMPTS_PER_IP} : {}),
    ...(env.PAY_ATTEMPTS_PER_ORDER ? {maxAttemptsPerOrder: env.PAY_ATTEMPTS_PER_ORDER} : {}),
    ...(env.PAY_ATTEMPTS_PER_CARD ? {maxAttemptsPerCard: env.PAY_ATTEMPTS_PER_CARD} : {}),
    ...(env.ORDER_LOOKUPS_PER_IP ? {maxOrderLookupsPerIp: env.ORDER_LOOKUPS_PER_IP} : {}),
  },
  ...(sandbox
    ? {
        sandbox: {
          url: sandbox.url,
          now: () => sandbox!.clock.now(),
          advance: (ms: number) => sandbox!.clock.advance(ms),
        },
      }
    : {}),
});
// Serve at once: recovery (which may wait on a slow gateway) runs in the background.
serving.example = built;
built.start();

const lines = [
  '',
  `Demo shop: ${publicUrl}`,
  `Back office: ${publicUrl}/admin${adminToken ? (env.ADMIN_TOKEN ? ' (token: your ADMIN_TOKEN)' : ` (token: ${adminToken})`) : ' (off: set ADMIN_TOKEN)'}`,
  `Payments database: ${env.DATABASE_URL ? `PostgreSQL ${redactedUrl(env.DATABASE_URL)} (schema ${env.DATABASE_SCHEMA ?? 'public'}), instance ${instanceId}` : path.resolve(env.DATA_DIR, 'payments.db')}`,
  `Metrics for Prometheus: ${metricsEndpoint ? metricsEndpoint.url : 'off (set METRICS_PORT)'}`,
];
if (sandbox) {
  lines.push(
    `Embedded gateway sandbox: ${sandbox.url} (inspect it at ${sandbox.url}/sandbox)`,
    '',
    'Test cards (any future expiry such as 12/34, any CVV such as 123):',
    ...TEST_CARDS.map((c) => `  ${c.number.replace(/(\d{4})(?=\d)/g, '$1 ')}  ${c.description}`),
    '',
    'What to try:',
    '  1. Buy the tea sampler with 4242 4242 4242 4242: paid at once.',
    '  2. Buy anything with 4000 0000 0000 3220: approve (or decline) on the 3-D Secure page;',
    '     tick "Show 3-D Secure in a window" on the checkout to see it in a modal instead.',
    '  3. "Pay on the gateway\'s page": the hosted checkout; or leave it unpaid and cancel it',
    '     in the back office.',
    '  4. The grinder rental is held (auth): capture or void it in the back office.',
    '  5. The coffee club is a subscription: advance the sandbox clock in the back office and',
    '     watch the charges arrive; filter them; cancel the subscription.',
    '  6. Refund a paid order (in part, too), resend a webhook, pull a register.',
    `  7. ${publicUrl}/cdn: the same checkout from one <script> tag with SRI, under a strict CSP.`,
    `  8. ${publicUrl}/admin/health: the last hour's payments, success rate and gateway latency.`,
  );
} else {
  lines.push(`Gateway: ${gateway.baseUrl}`);
}
console.log(lines.join('\n'));

/** The database URL without its password. */
function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unreadable URL)';
  }
}

let stopping = false;
/**
 * The graceful shutdown (see the module comment). What is not done by the deadline is
 * left as it would be after a crash, for another instance or the next start: a request
 * still running loses its connection (never an answer from a closed store), an update not
 * delivered stays in the outbox.
 */
async function shutdown(signal: string) {
  if (stopping) {
    console.log(`${signal} again: exiting now`);
    logDestination.flushSync();
    process.exit(1);
  }
  stopping = true;
  const deadline = Date.now() + env.SHUTDOWN_TIMEOUT_MS;
  console.log(`${signal}: shutting down (in flight: ${drain.inFlight} requests)`);
  const drained = await drain.stop(deadline);
  if (!drained) logger.warn({signal}, 'shutdown: requests still running at the deadline were cut');
  // The updates the last requests stored, delivered by this instance rather than left
  // for a claim to expire.
  const flushed = await Promise.race([
    built.checkout.flushOutbox().then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), deadline - Date.now())),
  ]).catch(() => false);
  if (!flushed) logger.warn({signal}, 'shutdown: payment updates left in the outbox for later');
  try {
    await built.close();
    await sandbox?.close();
    await metrics.close();
  } catch (error) {
    logger.error({error: (error as Error).message}, 'shutdown: closing failed');
  }
  await drain.ended(deadline);
  logger.info({signal, drained, flushed}, 'shut down');
  logDestination.flushSync();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
