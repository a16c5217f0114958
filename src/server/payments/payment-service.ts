/**
 * `PaymentService`: the payment service behind the checkout routes, a small façade that
 * composes its parts and owns their lifecycle (start, health, close). It decides, for
 * each pay request, webhook and status question, what is stored, what is asked of the
 * gateway and what the browser is told — so that no payment is lost and none is charged
 * twice. The parts:
 *
 * - `pay.ts` — direct and hosted pay: each a plan (`plan.ts`) run by the one attempt path
 *   of `attempt.ts`;
 * - `reconcile.ts` — lookups, the status route, the return check, abandon, `reconcile`;
 * - `webhooks.ts` — verified, stored once, applied;
 * - `sweep.ts` — the periodic sweep and start-up recovery;
 * - `outbox.ts` — delivery to `onPaymentUpdate`; `attempt-writes.ts` — every attempt change;
 * - `duplicate-refunds.ts` — double charges compensated; `../operations.ts` — capture, void, refund;
 * - `order-state.ts` — an order's state, derived in one place; `answers.ts` — what the
 *   browser is told; `locks.ts` — per-order queues and single flight.
 */
import type {CheckoutLogger} from '../telemetry/logger.js';
import type {PayRequest, PayResponse, StatusResponse} from '../../protocol/checkout.js';
import {SecondaryOperations} from './operations/operations.js';
import type {OperationRequest, OperationResult, OperationsGateway} from './operations/types.js';
import type {AttemptRecord, IntentKind} from '../store/payment-store.js';
import type {AttemptVelocity} from '../defences/velocity.js';
import type {CardTestingState} from '../defences/card-testing.js';
import {Attempts} from './attempt.js';
import {AttemptWrites} from './attempt-writes.js';
import {Background, errorSummary} from './background.js';
import type {HostedResult, PayContext, ServiceConfig, SweepResult} from './service-config.js';
import {compensateDuplicates, type DuplicatesDeps} from './operations/duplicate-refunds.js';
import {CreatesInFlight, OrderLocks} from './locks.js';
import {Outbox} from './outbox.js';
import {Payments} from './pay.js';
import {Reconciler} from './reconcile.js';
import {SavedCards} from './saved-cards.js';
import {Sweeper} from './sweep.js';
import {Webhooks} from './webhooks.js';
import {telemetry} from '../telemetry/telemetry.js';

export class PaymentService {
  readonly #cfg: ServiceConfig;
  readonly #log: CheckoutLogger;
  readonly #background: Background;
  readonly #outbox: Outbox;
  readonly #operations: SecondaryOperations;
  /** What the duplicate-charge check needs (after a success, and at recovery). */
  readonly #duplicates: DuplicatesDeps;
  readonly #reconciler: Reconciler;
  readonly #payments: Payments;
  readonly #webhooks: Webhooks;
  readonly #sweeper: Sweeper;
  #sweepTimer: ReturnType<typeof setInterval> | undefined;
  /** Start-up recovery running in the background (`start()`). */
  #recovering: Promise<unknown> | undefined;
  #started = false;
  /** The card-testing limits (the pay route counts invalid card data with it too). */
  readonly velocity: AttemptVelocity;
  /** Saved cards: the order route, the saved-card check, keeping and removing cards. */
  readonly savedCards: SavedCards;

  constructor(config: ServiceConfig) {
    const cfg = config;
    this.#cfg = cfg;
    this.#log = cfg.logger;
    this.velocity = cfg.velocity;
    const background = new Background(cfg.logger);
    const outbox = new Outbox({
      store: cfg.store,
      onPaymentUpdate: cfg.onPaymentUpdate,
      logger: cfg.logger,
      now: cfg.now,
      instance: cfg.instance,
      closed: () => background.closed,
    });
    const savedCards = new SavedCards({cfg});
    this.savedCards = savedCards;
    const locks = new OrderLocks();
    const creates = new CreatesInFlight();
    const gateway = cfg.gateway;
    const operations = new SecondaryOperations({
      store: cfg.store,
      gateway:
        typeof gateway.capture === 'function' &&
        typeof gateway.void === 'function' &&
        typeof gateway.refund === 'function' &&
        typeof gateway.getOrder === 'function'
          ? (gateway as OperationsGateway)
          : undefined,
      logger: cfg.logger,
      now: cfg.now,
      withOrderLock: (orderRef, fn) => locks.run(orderRef, fn),
      notify: (update) => (cfg.onPaymentUpdate ? update : undefined),
      kickOutbox: () => outbox.kick(),
    });
    this.#duplicates = {
      store: cfg.store,
      policy: cfg.duplicateCharges,
      operations,
      logger: cfg.logger,
    };
    const writes = new AttemptWrites({
      store: cfg.store,
      notifies: cfg.onPaymentUpdate !== undefined,
      outbox,
      now: cfg.now,
      logger: cfg.logger,
      cardTesting: cfg.cardTesting,
      duplicates: this.#duplicates,
      background,
    });
    const reconciler = new Reconciler({cfg, writes, locks, creates, background});
    this.#background = background;
    this.#outbox = outbox;
    this.#operations = operations;
    this.#reconciler = reconciler;
    const attempts = new Attempts({cfg, writes, reconciler, creates});
    this.#payments = new Payments({cfg, attempts, reconciler, locks});
    this.#webhooks = new Webhooks({cfg, writes, outbox});
    this.#sweeper = new Sweeper({
      cfg,
      writes,
      reconciler,
      operations,
      creates,
      outbox,
      background,
      checkDuplicates: (orderRef) => this.checkDuplicates(orderRef),
    });
  }

  // Pay, status, return, abandon ---------------------------------------------------------

  /** Answers a pay request; repeats of the same attempt id share one gateway request. */
  pay(body: PayRequest, ctx: PayContext): Promise<PayResponse> {
    return this.#payments.pay(body, ctx);
  }

  /** Creates (or reuses) the order's hosted payment: see `Payments.payHosted`. */
  payHosted(
    orderRef: string,
    ctx: {
      request: Request;
      ip?: string | undefined;
      orderTimeout?: number | undefined;
      language?: string | undefined;
    },
  ): Promise<HostedResult> {
    return this.#payments.payHosted(orderRef, ctx);
  }

  /** The order's state from the store; asks the gateway about attempts that stay open too long. */
  status(orderRef: string, request: Request): Promise<StatusResponse> {
    return this.#reconciler.status(orderRef, request);
  }

  /** The customer came back from 3-D Secure: the order's open attempts are checked in the background. */
  customerReturned(orderRef: string): void {
    this.#reconciler.customerReturned(orderRef);
  }

  /** The customer cancelled the 3-D Secure challenge of `attemptId`; answers the order's status. */
  abandon(orderRef: string, attemptId: string): Promise<StatusResponse> {
    return this.#reconciler.abandon(orderRef, attemptId);
  }

  // Reconciliation --------------------------------------------------------------------------

  /** Asks the gateway now about every open attempt of the order; answers the order's state. */
  reconcile(orderRef: string): Promise<StatusResponse> {
    return this.#reconciler.reconcile(orderRef);
  }

  /**
   * Asks the gateway for one attempt's state and stores the answer. `force` skips the
   * `minIntervalMs` limit. Prefer `reconcile(orderRef)`.
   */
  reconcileAttempt(attempt: AttemptRecord, opts: {force?: boolean} = {}): Promise<AttemptRecord> {
    return this.#reconciler.reconcileAttempt(attempt, opts);
  }

  /** One pass over the open attempts (see `Sweeper.sweep`). `force` ignores the backoff. */
  sweep(opts: {force?: boolean} = {}): Promise<SweepResult> {
    return this.#sweeper.sweep(opts);
  }

  // Webhooks --------------------------------------------------------------------------------

  /** True when webhooks from `ip` are accepted (always, without an allow-list). */
  webhookSourceAllowed(ip: string | undefined): boolean {
    return this.#webhooks.sourceAllowed(ip);
  }

  /** Records a refused webhook (its body only as a hash), within `webhookRejections`. */
  rejectWebhook(ip: string | undefined, reason: string, body: string): Promise<void> {
    return this.#webhooks.reject(ip, reason, body);
  }

  /** The shop-wide card-testing breaker as it stands. */
  cardTestingState(): Promise<CardTestingState> {
    return this.#cfg.cardTesting.state();
  }

  /** Refused webhooks kept and only counted, over the minutes the counts are kept. */
  rejectedWebhookCounts(): Promise<{kept: number; counted: number}> {
    return this.#webhooks.rejectedCounts();
  }

  /**
   * Verifies a webhook on its raw `data`, stores it and applies it. Resolves once it is
   * durably stored; throws `CheckoutForbiddenError` for a bad signature (after recording it).
   */
  webhook(rawBody: string, ip: string | undefined): Promise<void> {
    return this.#webhooks.receive(rawBody, ip).then(() => telemetry.countWebhook('accepted'));
  }

  // Secondary operations and double charges ---------------------------------------------

  /** Captures, voids or refunds a payment, exactly once per `key` (see `operations.ts`). */
  operate(kind: IntentKind, request: OperationRequest): Promise<OperationResult> {
    return this.#operations.run(kind, request);
  }

  /** Compensates the order's double charges, if any (see `duplicate-refunds.ts`). */
  checkDuplicates(orderRef: string): Promise<void> {
    return compensateDuplicates(this.#duplicates, orderRef);
  }

  // Outbox ----------------------------------------------------------------------------------

  /** Starts delivering the outbox, unless a delivery run is already going. */
  kickOutbox(): void {
    this.#outbox.kick();
  }

  /** Resolves once the outbox is empty or a delivery failed (it is then retried later). */
  flushOutbox(): Promise<void> {
    return this.#outbox.flush();
  }

  // Start-up and shutdown -----------------------------------------------------------------

  /**
   * After a restart: `creating` attempts left by a crash become `unknown`, every open
   * attempt is looked up (with bounded concurrency), recent double charges are
   * compensated, and the outbox is delivered. Awaitable; `start()` runs it in the
   * background so the app serves meanwhile.
   */
  recover(): Promise<{checked: number; unknown: number}> {
    return this.#sweeper.recover();
  }

  /**
   * Starts the background work: recovery at once (the app answers meanwhile; see
   * `health()`), then a sweep every `sweep.intervalMs`. Idempotent.
   */
  start(): void {
    if (this.#started || this.#background.closed) return;
    this.#started = true;
    const recovering = this.recover()
      .catch((error: unknown) =>
        this.#log.error({error: errorSummary(error)}, 'recovery failed: the sweep goes on'),
      )
      .finally(() => {
        this.#recovering = undefined;
      });
    this.#recovering = recovering;
    this.#background.run(recovering);
    if (this.#cfg.sweep.intervalMs > 0) {
      this.#sweepTimer = setInterval(() => {
        if (this.#recovering || this.#sweeper.running) return;
        this.#background.run(this.sweep());
      }, this.#cfg.sweep.intervalMs);
      this.#sweepTimer.unref?.();
    }
  }

  /** `recovering` while start-up recovery runs, else `ready`; and whether the store answers. */
  async health(): Promise<{state: 'ready' | 'recovering'; store: boolean}> {
    const store = await this.#cfg.store.ping().catch(() => false);
    return {state: this.#recovering ? 'recovering' : 'ready', store};
  }

  /** Waits for in-flight work; afterwards nothing new is started. */
  async close(): Promise<void> {
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    this.#sweepTimer = undefined;
    await this.#payments.drain();
    await this.#background.close();
    await this.#outbox.close();
  }
}
