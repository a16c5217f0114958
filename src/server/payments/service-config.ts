/**
 * What the payment service is given and what it answers, shared by its parts: the
 * configuration `createCheckoutApp` resolves, the gateway calls it needs, the result
 * types of pay, hosted pay and the sweep, and `ServicePart`, what each part holds.
 */
import type {CheckoutLogger} from '../telemetry/logger.js';
import type {PayResponse} from '../../protocol/checkout.js';
import type {CheckedPaymentRequest, CreatePaymentResult} from '../gateway/client/index.js';
import type {
  DirectPaymentRequestInput,
  HostedPaymentRequestInput,
  TransactionRecord,
} from '../gateway/schemas.js';
import type {OperationsGateway} from './operations/types.js';
import type {ResolvedOrder} from './gateway-request.js';
import type {PaymentStore, PaymentUpdate} from '../store/payment-store.js';
import type {AttemptVelocity} from '../defences/velocity.js';
import type {CardTestingBreaker} from '../defences/card-testing.js';
import type {GuardStore} from '../store/guard-store.js';

/** The part of `GatewayClient` the companion uses. */
export interface CheckoutGateway {
  readonly posId: string;
  /** `checked` is the request's validation, already done before the attempt was stored. */
  createPayment(
    request: DirectPaymentRequestInput | HostedPaymentRequestInput,
    checked?: CheckedPaymentRequest,
  ): Promise<CreatePaymentResult>;
  getOperation(orderId: string, operation: string): Promise<TransactionRecord>;
}

/** What happens when an order is charged twice (see `duplicateCharges`). */
export const DUPLICATE_CHARGE_POLICIES = ['refund-later', 'refund-earlier', 'alert-only'] as const;
/**
 * What the companion does with an order charged twice (`duplicateCharges`): `refund-later`
 * refunds (for a hold, voids) the charge that succeeded last, `refund-earlier` the first,
 * `alert-only` only logs at error level.
 */
export type DuplicateChargePolicy = (typeof DUPLICATE_CHARGE_POLICIES)[number];

/** Looks up what is charged for an order; `null` when the order does not exist. */
export type ResolveOrder = (
  orderRef: string,
  request: Request,
) => ResolvedOrder | null | undefined | Promise<ResolvedOrder | null | undefined>;

export interface ServiceConfig {
  store: PaymentStore;
  gateway: CheckoutGateway & Partial<OperationsGateway>;
  webhookSecret: string;
  resolveOrder: ResolveOrder;
  onPaymentUpdate: ((update: PaymentUpdate) => void | Promise<void>) | undefined;
  serverUrl: string;
  resultUrl: (orderRef: string) => string;
  order3dsBypass: string;
  /**
   * `maxUnknownLookups`: an attempt whose create was never confirmed (`unknown`) is looked
   * up this many times at most, backing off as the sweep does (`unknownLookupDue`).
   */
  statusCheck: {afterMs: number; minIntervalMs: number; maxUnknownLookups: number};
  /**
   * `abandonAfterMs`: a 3-D Secure attempt with no news this long stops blocking its order;
   * `expireAfterMs`: an open attempt this old is no longer looked up.
   */
  attempts: {abandonAfterMs: number; expireAfterMs: number};
  /** Background lookups of open attempts: how many at once, and the backoff per attempt. */
  sweep: {intervalMs: number; concurrency: number; initialBackoffMs: number; maxBackoffMs: number};
  duplicateCharges: DuplicateChargePolicy;
  velocity: AttemptVelocity;
  /** The shop-wide card-testing breaker (`card-testing.ts`). */
  cardTesting: CardTestingBreaker;
  /** Shop-wide counters and flags (`guard-store.ts`). */
  guard: GuardStore;
  /**
   * Refused webhooks kept (`rejected_webhooks`): `perMinute` rows a minute shop-wide at
   * most, the newest `rows` kept; the others counted per minute for `countedMinutes`.
   */
  webhookRejections: {perMinute: number; rows: number; countedMinutes: number};
  webhookAllowedIps: readonly string[] | undefined;
  /**
   * This instance among several on one store: `id` names it in the claims and leases it
   * holds; `leaseMs` is how long one lasts (a crashed instance's work is taken over then).
   */
  instance: {id: string; leaseMs: number};
  logger: CheckoutLogger;
  now: () => number;
}

/** What the HTTP layer knows about a pay request. */
export interface PayContext {
  ip: string;
  accept: string | undefined;
  userAgent: string | undefined;
  request: Request;
}

/** Where a hosted payment request sends the customer. */
export type HostedResult =
  /** The gateway's checkout page (a new hosted payment, or the order's open one). */
  | {kind: 'redirect'; url: string}
  /** The order is already paid, or its payment is being settled: show the return page. */
  | {kind: 'settled'; response: PayResponse};

/** What one sweep did. */
export interface SweepResult {
  /** Open attempts seen. */
  open: number;
  /** Looked up this time. */
  checked: number;
  /** Still unknown after it. */
  unknown: number;
  /** Older than `attempts.expireAfterMs`: no longer looked up. */
  expired: number;
  /** Secondary operations with an unknown outcome looked up. */
  intents: number;
}

/** What every part of the service holds: its dependencies, its configuration and the logger. */
export class ServicePart<D extends {cfg: {logger: CheckoutLogger}}> {
  protected readonly d: D;
  protected readonly cfg: D['cfg'];
  protected readonly log: CheckoutLogger;

  constructor(deps: D) {
    this.d = deps;
    this.cfg = deps.cfg;
    this.log = deps.cfg.logger;
  }
}
