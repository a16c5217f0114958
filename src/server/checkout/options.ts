/**
 * The options of `createCheckoutApp`, validated with zod at start-up: a missing required
 * option or an unknown key (a typo such as `onPaymentUpdated`) is an error that names it,
 * before the app serves a single request. Defaults are filled in here, in one place.
 */
import {randomBytes} from 'node:crypto';
import {hostname} from 'node:os';
import * as z from 'zod';
import {GatewayClient, type GatewayClientOptions} from '../gateway/client/index.js';
import {formatIssues, ORDER_3DS_BYPASS_VALUES} from '../gateway/schemas.js';
import {ADMISSION_DEFAULTS} from './backpressure.js';
import {CheckoutConfigError} from './errors.js';
import {isCheckoutLogger, type CheckoutLogger} from './logger.js';
import {
  DUPLICATE_CHARGE_POLICIES,
  type CheckoutGateway,
  type DuplicateChargePolicy,
  type ResolveOrder,
} from './service/index.js';
import type {PaymentStore, PaymentUpdate} from './store.js';
import {normaliseIp} from './security.js';
import {SecurityReportOptionsSchema, type SecurityReportOptions} from './security-report-route.js';
import {CARD_TESTING_DEFAULTS, type CardTestingOptions} from './card-testing.js';
import type {GuardStore} from './guard-store.js';

/** Options of {@link createCheckoutApp}. */
export interface CheckoutAppOptions {
  /** A `GatewayClient` (or anything with its `posId`, `createPayment` and `getOperation`), or its options. */
  gateway: CheckoutGateway | GatewayClientOptions;
  /** The API secret that signs webhooks. Taken from `gateway` when that is client options. */
  webhookSecret?: string;
  store: PaymentStore;
  /** Where this app is reachable from the internet, e.g. `https://shop.example/checkout`. */
  publicUrl: string;
  /** The merchant page with `<pg-3ds-redirect>`; an absolute URL or a path on `publicUrl`'s origin. */
  returnPage: string;
  resolveOrder: ResolveOrder;
  /** Called once per status change, after it is stored (again after a crash, same `updateId`). */
  onPaymentUpdate?: (update: PaymentUpdate) => void | Promise<void>;
  /** The gateway's `order_3ds_bypass`. Default `supported`. */
  order3dsBypass?: (typeof ORDER_3DS_BYPASS_VALUES)[number];
  /** Trust `X-Forwarded-For`: `true` = one proxy in front, a number = that many. Default false. */
  trustProxy?: boolean | number;
  /** Overrides how the client address is found (e.g. a platform header in a worker). */
  clientIp?: (request: Request, env: unknown) => string | undefined;
  /** Origins allowed to call the pay route. Default: `publicUrl`'s origin. */
  allowedOrigins?: string[];
  /**
   * Card-testing defence: payment attempts (every one, declined or not, counted before
   * the gateway is called) per client address (IPv6: per /64), per order and per card in
   * a sliding window, kept in the store. Default 10, 5 and 5 per 15 minutes. A saved card
   * counts as a card (by its token). Order look-ups (`POST /order` and saved-card removal,
   * which answer the order's total and the customer's saved cards) are counted per client
   * address apart from payments: `maxOrderLookupsPerIp`, default 60 in the same window.
   */
  rateLimit?: {
    maxAttemptsPerIp?: number;
    maxAttemptsPerOrder?: number;
    maxAttemptsPerCard?: number;
    maxOrderLookupsPerIp?: number;
    windowMs?: number;
  };
  /**
   * The status route asks the gateway about an open attempt without news for `afterMs`
   * (default 15 s), at most every `minIntervalMs` (5 s). An attempt whose create the
   * gateway never confirmed (`unknown`: the customer is told `not_confirmed` and may pay
   * again) is looked up with the sweep's backoff (5 s doubling to 30 minutes) and at most
   * `maxUnknownLookups` times (default 10: about 43 minutes with the default backoff);
   * paying again and a webhook still settle it.
   */
  statusCheck?: {afterMs?: number; minIntervalMs?: number; maxUnknownLookups?: number};
  /**
   * Open attempts: a 3-D Secure challenge without news for `abandonAfterMs` (default 15
   * minutes) no longer blocks its order; attempts older than `expireAfterMs` (default 24
   * hours) are no longer looked up.
   */
  attempts?: {abandonAfterMs?: number; expireAfterMs?: number};
  /**
   * Background lookups of open attempts (`start()`): every `intervalMs` (default 30 s; 0:
   * off), `concurrency` at a time (default 4), each attempt backing off from
   * `initialBackoffMs` (5 s), doubling per lookup, to `maxBackoffMs` (30 minutes).
   */
  sweep?: {
    intervalMs?: number;
    concurrency?: number;
    initialBackoffMs?: number;
    maxBackoffMs?: number;
  };
  /**
   * An order paid twice (an abandoned challenge completed later): `refund-later` (default)
   * refunds — for a hold, voids — the payment that succeeded last; `refund-earlier` the
   * first one; `alert-only` only logs at error level.
   */
  duplicateCharges?: DuplicateChargePolicy;
  /** Accept webhooks only from these addresses (the gateway's is 35.187.74.148). */
  webhookAllowedIps?: string[];
  /**
   * Refused webhooks (bad signature, address not allowed) kept in `rejected_webhooks`:
   * anyone can post them, so at most `perMinute` a minute shop-wide (default 60) are kept
   * one by one, and only the newest `rows` (default 1,000); past the rate they are only
   * counted, per minute, for `countedMinutes` (default 1,440: a day). So a flood of forged
   * posts leaves at most 1,000 rows there (about 150 kB) and 1,440 rows of counts.
   */
  webhookRejections?: {perMinute?: number; rows?: number; countedMinutes?: number};
  /**
   * The shop-wide card-testing breaker (card-testing.ts): when the decline rate of the
   * shop's payments over `windowMs` (default 10 minutes; at least `minDecided`, 20, with an
   * outcome) passes `maxDeclineRate` (0.5), new card payments of customers the shop does
   * not know are admitted at `admitPerMinute` (5) shop-wide for at least `openMs` (5
   * minutes), the others refused with 429 and `Retry-After`; a saved card or an order
   * whose customer `resolveOrder` names (`customer.id`) passes. `onChange` hears it open
   * and close; `app.cardTesting()` tells its state. `enabled: false` turns it off.
   */
  cardTesting?: Partial<Omit<CardTestingOptions, 'onChange'>> & {
    onChange?: CardTestingOptions['onChange'];
  };
  /**
   * Where the shop-wide defences (the card-testing breaker, the bound on refused webhooks)
   * keep their counts. Default: beside the payment store — a `SqliteGuardStore` on a
   * `SqlitePaymentStore`'s file, a `PostgresGuardStore` on a `PostgresPaymentStore`'s pool
   * and schema, else this process's memory.
   */
  guardStore?: GuardStore;
  /** Largest request body accepted, in bytes. Default 32768. */
  bodyLimitBytes?: number;
  /**
   * The CSP report endpoint (`POST /security-report`): where its reports are kept, the hook
   * that hears them, and its limits. The route is always there; without a store, reports
   * are logged and handed to the hook only.
   */
  securityReports?: SecurityReportOptions;
  /**
   * Hosted payments (`POST /hosted`): how long the gateway's page stays payable
   * (`order_timeout`, seconds; default: the gateway's) and its language (`customer_lang`).
   */
  hosted?: {orderTimeoutSeconds?: number; language?: string};
  /**
   * Where the companion logs (`CheckoutLogger`: pino, `console` or your own); default: pino
   * to stdout with the companion's redaction (`createCheckoutLogger`).
   */
  logger?: CheckoutLogger;
  /**
   * Several instances on one store (PostgreSQL): `id` names this one in the work it
   * claims (default: host name, process id and a random part); `leaseMs` is how long a
   * claim on an outbox entry or a lookup lasts (default 60 s, longer than a gateway call
   * with its retries): a crashed instance's claims are taken over once they expire.
   */
  instance?: {id?: string; leaseMs?: number};
  /**
   * Backpressure (see `backpressure.ts`): at most `maxInFlight` requests (default 64) are
   * worked on at once; up to `queue` more (default 256) wait for a place, each at most
   * `queueTimeoutMs` (default 5000). A request past that — the queue full, the wait over,
   * or the app closing — is answered `503 busy` with `Retry-After: retryAfterSeconds`
   * (default 2) at once. Size `maxInFlight` to the store's pool (docs: several instances).
   */
  admission?: {
    maxInFlight?: number;
    queue?: number;
    queueTimeoutMs?: number;
    retryAfterSeconds?: number;
  };
  /** Time source in epoch ms (tests). Default `Date.now`. */
  clock?: () => number;
}

const fn = <T>(what: string) =>
  z.custom<T>((v) => typeof v === 'function', {message: `must be a function (${what})`});

const positiveInt = (what: string) =>
  z
    .number({error: `must be a positive whole number (${what})`})
    .int({message: `must be a positive whole number (${what})`})
    .positive({message: `must be a positive whole number (${what})`});

const nonNegativeInt = (what: string) =>
  z
    .number({error: `must be a whole number (${what})`})
    .int({message: `must be a whole number (${what})`})
    .nonnegative({message: `must be a whole number (${what})`});

const GatewayLike = z.custom<CheckoutGateway>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as CheckoutGateway).createPayment === 'function' &&
    typeof (v as CheckoutGateway).getOperation === 'function',
);

const httpUrl = (what: string) =>
  z
    .string({error: `must be an absolute http(s) URL (${what})`})
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
      message: `must be an absolute http(s) URL (${what})`,
    });

const OptionsSchema = z.strictObject({
  gateway: z.union([GatewayLike, z.looseObject({baseUrl: z.string(), posId: z.string()})], {
    error: 'must be a GatewayClient or its options ({baseUrl, posId, credentials, ...})',
  }),
  webhookSecret: z.string().min(1, {message: 'must not be empty'}).optional(),
  store: z.custom<PaymentStore>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      typeof (v as PaymentStore).insertAttempt === 'function' &&
      typeof (v as PaymentStore).updateAttempt === 'function',
    {message: 'must be a PaymentStore (SqlitePaymentStore, PostgresPaymentStore, ...)'},
  ),
  publicUrl: httpUrl('where this app is reachable, e.g. https://shop.example/checkout').refine(
    (u) => !URL.canParse(u) || (new URL(u).search === '' && new URL(u).hash === ''),
    {message: 'must not have a query or fragment'},
  ),
  returnPage: z
    .string({error: 'must be a URL or a path starting with /'})
    .refine((u) => u.startsWith('/') || URL.canParse(u), {
      message: 'must be a URL or a path starting with /',
    }),
  resolveOrder: fn<ResolveOrder>('orderRef, request → order | null'),
  onPaymentUpdate:
    fn<NonNullable<CheckoutAppOptions['onPaymentUpdate']>>('update → void').optional(),
  order3dsBypass: z
    .enum(ORDER_3DS_BYPASS_VALUES, {error: `must be one of ${ORDER_3DS_BYPASS_VALUES.join(', ')}`})
    .default('supported'),
  trustProxy: z
    .union([z.boolean(), z.number().int().min(0).max(20)], {
      error: 'must be a boolean or the number of trusted proxies',
    })
    .default(false),
  clientIp: fn<NonNullable<CheckoutAppOptions['clientIp']>>('request, env → address').optional(),
  allowedOrigins: z
    .array(
      z.string().refine((o) => URL.canParse(o) && new URL(o).origin === o, {
        message: 'must be an origin such as https://shop.example (no path, no trailing slash)',
      }),
    )
    .optional(),
  rateLimit: z
    .strictObject({
      maxAttemptsPerIp: positiveInt('payment attempts per client address').default(10),
      maxAttemptsPerOrder: positiveInt('payment attempts per order').default(5),
      maxAttemptsPerCard: positiveInt('payment attempts per card').default(5),
      maxOrderLookupsPerIp: positiveInt('order look-ups per client address').default(60),
      windowMs: positiveInt('milliseconds').default(15 * 60_000),
    })
    .prefault({}),
  statusCheck: z
    .strictObject({
      afterMs: nonNegativeInt('milliseconds').default(15_000),
      minIntervalMs: nonNegativeInt('milliseconds').default(5_000),
      maxUnknownLookups: positiveInt('lookups of an unconfirmed create').default(10),
    })
    .prefault({}),
  attempts: z
    .strictObject({
      abandonAfterMs: positiveInt('milliseconds').default(15 * 60_000),
      expireAfterMs: positiveInt('milliseconds').default(24 * 3600_000),
    })
    .prefault({}),
  sweep: z
    .strictObject({
      intervalMs: nonNegativeInt('milliseconds; 0 turns the sweep off').default(30_000),
      concurrency: positiveInt('lookups at once')
        .max(64, {message: 'must be at most 64'})
        .default(4),
      initialBackoffMs: positiveInt('milliseconds').default(5_000),
      maxBackoffMs: positiveInt('milliseconds').default(30 * 60_000),
    })
    .prefault({}),
  duplicateCharges: z
    .enum(DUPLICATE_CHARGE_POLICIES, {
      error: `must be one of ${DUPLICATE_CHARGE_POLICIES.join(', ')}`,
    })
    .default('refund-later'),
  webhookAllowedIps: z
    .array(
      z.string().refine((ip) => normaliseIp(ip) !== undefined, {message: 'must be an IP address'}),
    )
    .optional(),
  webhookRejections: z
    .strictObject({
      perMinute: positiveInt('refused webhooks kept a minute').default(60),
      rows: positiveInt('refused webhooks kept').default(1000),
      countedMinutes: positiveInt('minutes').default(24 * 60),
    })
    .prefault({}),
  cardTesting: z
    .strictObject({
      enabled: z.boolean({error: 'must be true or false'}).default(CARD_TESTING_DEFAULTS.enabled),
      windowMs: positiveInt('milliseconds').default(CARD_TESTING_DEFAULTS.windowMs),
      minDecided: positiveInt('payments with an outcome').default(CARD_TESTING_DEFAULTS.minDecided),
      maxDeclineRate: z
        .number({error: 'must be a share between 0 and 1'})
        .min(0, {message: 'must be a share between 0 and 1'})
        .max(1, {message: 'must be a share between 0 and 1'})
        .default(CARD_TESTING_DEFAULTS.maxDeclineRate),
      openMs: positiveInt('milliseconds').default(CARD_TESTING_DEFAULTS.openMs),
      admitPerMinute: nonNegativeInt('payments a minute').default(
        CARD_TESTING_DEFAULTS.admitPerMinute,
      ),
      onChange: fn<NonNullable<CardTestingOptions['onChange']>>('state → void').optional(),
    })
    .prefault({}),
  guardStore: z
    .custom<GuardStore>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof (v as GuardStore).take === 'function' &&
        typeof (v as GuardStore).raise === 'function',
      {message: 'must be a GuardStore (SqliteGuardStore, PostgresGuardStore, MemoryGuardStore)'},
    )
    .optional(),
  bodyLimitBytes: positiveInt('bytes').default(32 * 1024),
  securityReports: SecurityReportOptionsSchema,
  hosted: z
    .strictObject({
      orderTimeoutSeconds: positiveInt('seconds').optional(),
      language: z.string().min(1, {message: 'must not be empty'}).optional(),
    })
    .prefault({}),
  logger: z
    .custom<CheckoutLogger>(isCheckoutLogger, {
      message: 'must have info, warn and error methods (pino, console or your own)',
    })
    .optional(),
  instance: z
    .strictObject({
      id: z
        .string()
        .regex(/^[\x21-\x7e]{1,100}$/, {
          message: 'must be 1 to 100 printable ASCII characters without spaces',
        })
        .default(() => `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`),
      leaseMs: positiveInt('milliseconds').default(60_000),
    })
    .prefault({}),
  admission: z
    .strictObject({
      maxInFlight: positiveInt('requests at once').default(ADMISSION_DEFAULTS.maxInFlight),
      queue: nonNegativeInt('requests waiting').default(ADMISSION_DEFAULTS.queue),
      queueTimeoutMs: positiveInt('milliseconds').default(ADMISSION_DEFAULTS.queueTimeoutMs),
      retryAfterSeconds: positiveInt('seconds')
        .max(3600, {message: 'must be at most 3600'})
        .default(ADMISSION_DEFAULTS.retryAfterSeconds),
    })
    .prefault({}),
  clock: fn<() => number>('() → epoch milliseconds').optional(),
});

export type ResolvedCheckoutOptions = z.output<typeof OptionsSchema> & {
  gatewayClient: CheckoutGateway;
  webhookSecretValue: string;
  allowedOriginList: string[];
  /** `publicUrl` without a trailing slash. */
  base: string;
};

/** Validates the options and fills in defaults. Throws {@link CheckoutConfigError}. */
export function resolveCheckoutOptions(options: CheckoutAppOptions): ResolvedCheckoutOptions {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const given = (options ?? {}) as unknown as Record<string, unknown>;
    throw new CheckoutConfigError(
      formatIssues(parsed.error, options).map((i) =>
        !i.field.includes('.') && i.field in OptionsSchema.shape && given[i.field] === undefined
          ? {field: i.field, message: 'is required'}
          : i,
      ),
    );
  }
  const o = parsed.data;
  let gatewayClient: CheckoutGateway;
  let secret = o.webhookSecret;
  if (GatewayLike.safeParse(o.gateway).success) {
    gatewayClient = o.gateway as CheckoutGateway;
    if (typeof gatewayClient.posId !== 'string' || gatewayClient.posId === '') {
      throw new CheckoutConfigError([{field: 'gateway.posId', message: 'is required'}]);
    }
  } else {
    const config = o.gateway as unknown as GatewayClientOptions;
    try {
      gatewayClient = new GatewayClient(config);
    } catch (error) {
      throw new CheckoutConfigError([
        {field: 'gateway', message: error instanceof Error ? error.message : String(error)},
      ]);
    }
    secret ??= config.credentials?.apiSecret;
  }
  if (!secret) {
    throw new CheckoutConfigError([
      {
        field: 'webhookSecret',
        message: 'is required when gateway is a client instance (the API secret)',
      },
    ]);
  }
  const base = o.publicUrl.replace(/\/+$/, '');
  return {
    ...o,
    gatewayClient,
    webhookSecretValue: secret,
    allowedOriginList: o.allowedOrigins ?? [new URL(base).origin],
    base,
  };
}

// Each option is stated once for the merchant (`CheckoutAppOptions`, with its docs) and once
// as its rule (`OptionsSchema`); the compiler holds the two to each other, both ways, so an
// option added, removed or retyped in one and not the other fails `tsc` (as the protocol's
// schemas are held to its types). `gateway` alone is left out: the schema takes any object
// with `baseUrl` and `posId` there, and `GatewayClient`'s own schema checks the rest.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaIsTheOptions: Same<
  Omit<z.input<typeof OptionsSchema>, 'gateway'>,
  Omit<CheckoutAppOptions, 'gateway'>
> = true;
void schemaIsTheOptions;
