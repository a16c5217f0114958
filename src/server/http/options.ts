/**
 * `CheckoutAppOptions`, what a merchant gives `createCheckoutApp`, each option with its
 * docs. Its rule is `OptionsSchema` (options.ts), which the compiler holds to this type.
 */
import type {GatewayClientOptions} from '../gateway/client/index.js';
import type {ORDER_3DS_BYPASS_VALUES} from '../gateway/schemas.js';
import type {CheckoutLogger} from '../telemetry/logger.js';
import type {CheckoutGateway, DuplicateChargePolicy, ResolveOrder} from '../payments/index.js';
import type {PaymentStore, PaymentUpdate} from '../store/payment-store.js';
import type {SecurityReportOptions} from './security-report-route.js';
import type {CardTestingOptions} from '../defences/card-testing.js';
import type {GuardStore} from '../store/guard-store.js';

/** Options of `createCheckoutApp`. */
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
   * `initialBackoffMs` (5 s), doubling per lookup, to `maxBackoffMs` (30 minutes). Each
   * pass also delivers the outbox entries whose claims ran out (another instance died).
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
   * The shop-wide card-testing breaker (card-testing.ts), before every path that sends a
   * card towards the gateway (a card typed in, a saved card, `/hosted`): when the decline
   * rate of the shop's payments over `windowMs` (default 10 minutes; at least `minDecided`,
   * 20, with an outcome) passes `maxDeclineRate` (0.5), it opens for at least `openMs` (5
   * minutes): new card payments of guests are admitted at `admitPerMinute` (5) shop-wide,
   * the others refused with 429 and `Retry-After`; a customer `resolveOrder` names
   * (`customer.id`, from your authenticated session only) may start `perCustomer` (3)
   * within `rateLimit.windowMs` (15 minutes), all named customers together `allCustomers`
   * (60). `onChange` hears it open and close; `app.cardTesting()` tells its state.
   * `enabled: false` turns it off.
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
   * The longest a request's whole body may take to arrive, in ms (default 10000, at most
   * 300000). It is read before the request takes an admission place; a body still arriving
   * then is answered `408` and its connection closed, so slow senders hold no place.
   */
  bodyTimeoutMs?: number;
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
   * with its retries): a crashed instance's claims are taken over once they expire, by
   * the next write or sweep pass (`sweep.intervalMs`) of another instance.
   */
  instance?: {id?: string; leaseMs?: number};
  /**
   * Backpressure (see `admission.ts`): at most `maxInFlight` requests (default 64) are
   * worked on at once; up to `queue` more (default 512) wait for a place, each at most
   * `queueTimeoutMs` (default 5000). A request past that — the queue full, the wait over,
   * or the app closing — is answered `503 busy` at once, with a `Retry-After` of
   * `retryAfterSeconds` (default 2) while few are refused, spread at random up to
   * `retryAfterMaxSeconds` (default 10; never below `retryAfterSeconds`) as more are
   * refused per request answered. Size `maxInFlight` to the store's pool and `queue` to
   * what one instance answers within `queueTimeoutMs` (docs: several instances). Once every
   * place has been taken, and none given back, for `notReadyAfterMs` (default 5000),
   * `app.ready()` says the instance is not ready.
   */
  admission?: {
    maxInFlight?: number;
    queue?: number;
    queueTimeoutMs?: number;
    retryAfterSeconds?: number;
    retryAfterMaxSeconds?: number;
    notReadyAfterMs?: number;
  };
  /** Time source in epoch ms (tests). Default `Date.now`. */
  clock?: () => number;
}
