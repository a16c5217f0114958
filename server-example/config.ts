/**
 * What the example app is configured with (`ExampleConfig`), and its limits — the
 * throttles and the back office's sessions — each with a default; an unknown or bad limit
 * is an error at start-up that names it.
 */
import * as z from 'zod';
import type {
  CheckoutAppOptions,
  GatewayClientOptions,
  PostgresPaymentStoreOptions,
  InitRecurringInput,
  CheckoutLogger,
  PaymentUpdate,
} from '../src/server/index.js';
import type {SandboxControl} from './admin/index.js';
import type {HealthLog} from './health/log.js';

export interface ExampleConfig {
  /** Where the app is reachable, e.g. `http://localhost:8080`. */
  publicUrl: string;
  /** Extra origins allowed to post payments (e.g. `http://127.0.0.1:8080`). */
  extraOrigins?: string[];
  /**
   * The folder of the SQLite file (`payments.db`) that holds the payments and the shop's
   * own tables; required, and the only thing written there, without `database`.
   */
  dataDir?: string;
  /**
   * The payments and the shop's own tables (orders, throttles, sessions, webhook log) on
   * PostgreSQL instead of SQLite in `dataDir`, which is then not used: several instances,
   * on as many machines, share nothing else (see docs/guides/several-instances.md).
   */
  database?: PostgresPaymentStoreOptions;
  /** This instance among several (the companion's `instance` option). */
  instance?: CheckoutAppOptions['instance'];
  /** The companion's background lookups (`sweep`). */
  sweep?: CheckoutAppOptions['sweep'];
  /** The companion's backpressure: requests at once, queued, and how long one may wait. */
  admission?: CheckoutAppOptions['admission'];
  /**
   * The longest a request's whole body may take to arrive, in ms (default 10000): then
   * `408` and the connection is closed, before the request holds anything (every route).
   */
  bodyTimeoutMs?: number;
  gateway: GatewayClientOptions;
  /**
   * Signs the visitors' session cookies (HMAC-SHA256, `visitor.ts`): a cookie it did not
   * sign is a guest's. Default: random at start — every visitor is then a new customer after
   * a restart, and on another instance; set the same one on every instance of a shop
   * (`VISITOR_SECRET`). Never logged.
   */
  visitorSecret?: string;
  /** Token of the back office (`/admin`); without it the back office is off. */
  adminToken?: string;
  logger?: CheckoutLogger;
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
  /**
   * How many reverse proxies in front of the app the companion believes (its `trustProxy`):
   * the client address of a payment is then the one that many hops back in
   * `X-Forwarded-For`; the shop's own limits (new orders, wrong back-office tokens) and
   * its webhook log read the address the same way. Default 0: the socket's peer, and no
   * header is believed — set it only when every request reaches the app through that
   * many proxies that append to the header, or any client can claim any address and slip
   * past the limits.
   */
  trustProxy?: number;
  onPaymentUpdate?: (update: PaymentUpdate) => void | Promise<void>;
  /** Hears each CSP violation report the pages' browsers send (the companion's hook). */
  onSecurityReport?: NonNullable<CheckoutAppOptions['securityReports']>['onSecurityReport'];
  /**
   * This instance's writer of the health page's table (`health/recorder.ts`, a reader of
   * the process's OpenTelemetry MeterProvider); without it the page shows what other
   * instances wrote, if any.
   */
  healthRecorder?: {
    attach(log: HealthLog): void;
    flush(): Promise<void>;
    detach(): Promise<void>;
  };
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
  /**
   * Wrong admin tokens from one client address per `loginWindowMs`; past it, its wrong
   * tokens are answered 429 (the right token is never refused).
   */
  loginFailures: positive.default(5),
  loginWindowMs: positive.default(15 * 60_000),
  /** A back-office session ends this long after its sign-in... */
  sessionMaxAgeMs: positive.default(8 * 3600_000),
  /** ...or after this long without a request. */
  sessionIdleMs: positive.default(3600_000),
});
export type ExampleLimits = z.input<typeof Limits>;

export function parseLimits(input: ExampleLimits | undefined): z.output<typeof Limits> {
  const parsed = Limits.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new TypeError(
    `ExampleConfig.limits${issue.path.map((p) => `.${String(p)}`).join('')}: ${issue.message}`,
  );
}
