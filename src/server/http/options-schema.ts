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
import {ADMISSION_DEFAULTS} from './admission.js';
import {BODY_TIMEOUT_MS} from './ingress.js';
import {CheckoutConfigError} from '../errors.js';
import {isCheckoutLogger, type CheckoutLogger} from '../telemetry/logger.js';
import {
  DUPLICATE_CHARGE_POLICIES,
  type CheckoutGateway,
  type ResolveOrder,
} from '../payments/index.js';
import type {PaymentStore} from '../store/payment-store.js';
import {normaliseIp} from '../defences/client-address.js';
import {SecurityReportOptionsSchema} from './security-report-route.js';
import {CARD_TESTING_DEFAULTS, type CardTestingOptions} from '../defences/card-testing.js';
import type {GuardStore} from '../store/guard-store.js';
import type {CheckoutAppOptions} from './options.js';

export type {CheckoutAppOptions} from './options.js';

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
      perCustomer: positiveInt('payments per customer').default(CARD_TESTING_DEFAULTS.perCustomer),
      allCustomers: positiveInt('payments of all named customers').default(
        CARD_TESTING_DEFAULTS.allCustomers,
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
  bodyTimeoutMs: positiveInt('milliseconds')
    .max(300_000, {message: "must be at most 300000 (Node's own request timeout)"})
    .default(BODY_TIMEOUT_MS),
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
      retryAfterMaxSeconds: positiveInt('seconds')
        .max(3600, {message: 'must be at most 3600'})
        .default(ADMISSION_DEFAULTS.retryAfterMaxSeconds),
      notReadyAfterMs: positiveInt('milliseconds').default(ADMISSION_DEFAULTS.notReadyAfterMs),
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
  /** Development: see {@link isDevelopment}. */
  development: boolean;
};

/**
 * True in development: `NODE_ENV=development`, or a `publicUrl` on a loopback host
 * (`localhost`, `127.x.x.x`, `[::1]`) unless `NODE_ENV=production`. Then answers name
 * their cause for the developer too (a refused origin and `allowedOrigins`), not only
 * the log. Nobody's customer pays on a loopback address.
 */
export function isDevelopment(
  publicUrl: string,
  // Read through globalThis: a worker without Node's compatibility has no `process`.
  nodeEnv = (globalThis as {process?: {env?: Record<string, string | undefined>}}).process?.env?.[
    'NODE_ENV'
  ],
): boolean {
  if (nodeEnv === 'development') return true;
  if (nodeEnv === 'production') return false;
  const host = new URL(publicUrl).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

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
    development: isDevelopment(base),
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
