/**
 * Bringing the stored attempts in line with the gateway: looking an attempt up by its
 * gateway `order_id` (single flight, rate-limited unless forced, never while this
 * process's create of it runs), the order's attempts settled before a new attempt may
 * start, the status route's checks, the return route's background check, the customer's
 * cancellation of a 3-D Secure challenge, and the order's `reconcile(orderRef)` (the app's `reconcile`).
 *
 * A 404 on a lookup never means "not created": a slow gateway may still create the
 * payment, so the attempt stays open and its `order_id` is reused by the next create.
 *
 * Several instances on one store: a lookup first takes the attempt's lease in the store
 * (`lookup:<order_id>`, expiring after `instance.leaseMs`); while another instance holds
 * it, this one answers from the store instead of asking the gateway too.
 */
import type {StatusResponse} from '../../protocol/checkout.js';
import {GatewayNotFoundError} from '../gateway/errors.js';
import type {TransactionRecord} from '../gateway/schemas.js';
import {CheckoutNotFoundError} from '../errors.js';
import type {AttemptRecord} from '../store/payment-store.js';
import {
  isFinal,
  markChecked,
  markUnknown,
  markWrittenOff,
  statusInfoFromRecord,
} from './attempt-transitions.js';
import type {AttemptWrites} from './attempt-writes.js';
import {errorSummary, type Background} from './background.js';
import {ServicePart, type ServiceConfig} from './service-config.js';
import {CreatesInFlight, OrderLocks, SingleFlight} from './locks.js';
import {
  isStaleChallenge,
  orderState,
  sinceNews,
  statusFor,
  unknownLookupDue,
  type OrderState,
} from './order-state.js';
import {telemetry} from '../telemetry/telemetry.js';

/**
 * How long another process's create may stay `creating` before a lookup that does not
 * find it makes it `unknown` (and so open to a re-send with the same `order_id`): longer
 * than a gateway client's timeout (30 s by default).
 */
const CREATE_GRACE_MS = 60_000;

export type ReconcileConfig = Pick<
  ServiceConfig,
  | 'store'
  | 'gateway'
  | 'resolveOrder'
  | 'statusCheck'
  | 'attempts'
  | 'sweep'
  | 'instance'
  | 'logger'
  | 'now'
>;

export interface ReconcilerDeps {
  cfg: ReconcileConfig;
  writes: AttemptWrites;
  locks: OrderLocks;
  creates: CreatesInFlight;
  background: Background;
}

export class Reconciler extends ServicePart<ReconcilerDeps> {
  /** Gateway order id → running lookup. */
  readonly #running = new SingleFlight<AttemptRecord>();

  /**
   * Asks the gateway for an attempt's state (operation lookup by its gateway `order_id`)
   * and stores the answer. `force` skips the `minIntervalMs` limit. Never reconciles an
   * attempt whose create call is still running in this process.
   */
  reconcileAttempt(attempt: AttemptRecord, opts: {force?: boolean} = {}): Promise<AttemptRecord> {
    if (this.d.creates.has(attempt.gatewayOrderId) || isFinal(attempt.state)) {
      return Promise.resolve(attempt);
    }
    const now = this.cfg.now();
    if (
      !opts.force &&
      attempt.lastCheckAt !== undefined &&
      now - attempt.lastCheckAt < this.cfg.statusCheck.minIntervalMs
    ) {
      return Promise.resolve(attempt);
    }
    return this.#running.run(attempt.gatewayOrderId, () => this.#lookup(attempt));
  }

  /** Reconciles an attempt whose creation is unsettled, now; returns its latest row. */
  settle(a: AttemptRecord): Promise<AttemptRecord> {
    if (a.state === 'creating' || a.state === 'unknown') {
      return this.reconcileAttempt(a, {force: true});
    }
    return Promise.resolve(a);
  }

  /**
   * The order's attempts after reconciling unknown ones, and its state. A 3-D Secure
   * attempt without news for `attempts.abandonAfterMs` is written off here (`expired`):
   * it no longer blocks the order. `listed`: the order's attempts, when just read.
   */
  async settledOrder(
    orderRef: string,
    listed?: AttemptRecord[],
  ): Promise<{attempts: AttemptRecord[]; state: OrderState}> {
    const {store} = this.cfg;
    let attempts = listed ?? (await store.listAttempts(orderRef));
    const now = this.cfg.now();
    const open = attempts.filter((a) => a.state === 'creating' || a.state === 'unknown');
    const stale = attempts.filter((a) =>
      isStaleChallenge(a, now, this.cfg.attempts.abandonAfterMs),
    );
    if (open.length > 0 || stale.length > 0) {
      for (const a of open) await this.reconcileAttempt(a, {force: true});
      for (const a of stale) {
        await this.d.writes.update(a.attemptId, (c) => markWrittenOff(c, now, 'expired'));
        this.log.info(
          {orderRef, gatewayOrderId: a.gatewayOrderId},
          '3-D Secure attempt without news for too long: the order may be paid again',
        );
      }
      attempts = await store.listAttempts(orderRef);
    }
    return {attempts, state: orderState(orderRef, attempts)};
  }

  /** The order's state from the store; asks the gateway about attempts that stay open too long. */
  async status(orderRef: string, request: Request): Promise<StatusResponse> {
    const {store} = this.cfg;
    let attempts = await store.listAttempts(orderRef);
    if (attempts.length === 0) {
      const order = await this.cfg.resolveOrder(orderRef, request);
      if (!order) throw new CheckoutNotFoundError('unknown order');
      return statusFor(orderRef, attempts);
    }
    const due = attempts.filter((a) => this.#checkDue(a));
    if (due.length > 0) {
      await Promise.all(due.map((a) => this.reconcileAttempt(a)));
      attempts = await store.listAttempts(orderRef);
    }
    return statusFor(orderRef, attempts);
  }

  /**
   * Asks the gateway now about every open attempt of the order (the rate limit and the
   * backoff do not apply) and answers the order's state: `none` for an order without
   * attempts. Attempts whose create call runs in this process are left to it.
   */
  async reconcile(orderRef: string): Promise<StatusResponse> {
    const {store} = this.cfg;
    const open = (await store.listAttempts(orderRef)).filter((a) => !isFinal(a.state));
    await Promise.all(open.map((a) => this.reconcileAttempt(a, {force: true})));
    return statusFor(orderRef, await store.listAttempts(orderRef));
  }

  /**
   * The customer came back from 3-D Secure: check the order's open attempts in the
   * background (rate-limited), so the return page's first status question finds news.
   */
  customerReturned(orderRef: string): void {
    if (this.d.background.closed) return;
    const task = (async () => {
      const attempts = await this.cfg.store.listAttempts(orderRef);
      await Promise.all(
        attempts.filter((a) => this.#checkDue(a, true)).map((a) => this.reconcileAttempt(a)),
      );
    })().catch((error: unknown) =>
      this.log.warn({orderRef, error: errorSummary(error)}, 'return check failed'),
    );
    this.d.background.run(task);
  }

  /**
   * The customer cancelled the 3-D Secure challenge of `attemptId`: its attempt no longer
   * blocks the order, so paying again (another card) starts a new attempt with a new
   * `order_id` at once. The abandoned one is still settled by lookups; if it succeeds
   * after all, the double charge is compensated. Answers the order's status.
   */
  abandon(orderRef: string, attemptId: string): Promise<StatusResponse> {
    return this.d.locks.run(orderRef, async () => {
      const {store} = this.cfg;
      const stored = await store.getAttempt(attemptId);
      if (!stored || stored.orderRef !== orderRef)
        throw new CheckoutNotFoundError('unknown attempt');
      // The customer may have finished the challenge just before cancelling: ask first.
      const a =
        stored.state === 'init' || stored.state === 'pending'
          ? await this.reconcileAttempt(stored, {force: true}).catch(() => stored)
          : stored;
      const now = this.cfg.now();
      const written = await this.d.writes.update(a.attemptId, (c) =>
        markWrittenOff(c, now, 'abandoned'),
      );
      if (written?.writtenOff === 'abandoned' && written.writtenOffAt === now) {
        telemetry.countThreeDs('abandoned');
        this.log.info(
          {orderRef, gatewayOrderId: a.gatewayOrderId},
          '3-D Secure abandoned by the customer: the order may be paid again',
        );
      }
      return statusFor(orderRef, await store.listAttempts(orderRef));
    });
  }

  /** True when an open attempt has gone without news long enough to ask the gateway. */
  #checkDue(a: AttemptRecord, ignoreAfter = false): boolean {
    if (isFinal(a.state) || this.d.creates.has(a.gatewayOrderId)) return false;
    const now = this.cfg.now();
    const {afterMs, minIntervalMs} = this.cfg.statusCheck;
    if (a.lastCheckAt !== undefined && now - a.lastCheckAt < minIntervalMs) return false;
    if (a.state === 'unknown') {
      return unknownLookupDue(a, now, this.cfg.sweep, this.cfg.statusCheck.maxUnknownLookups);
    }
    if (a.state === 'creating' || ignoreAfter) return true;
    return sinceNews(a, now) >= afterMs;
  }

  /** Looks the attempt up under its lease; without the lease, its stored row. */
  async #lookup(attempt: AttemptRecord): Promise<AttemptRecord> {
    const {store, instance} = this.cfg;
    const lease = `lookup:${attempt.gatewayOrderId}`;
    if (!(await store.acquireLease(lease, instance.id, this.cfg.now(), instance.leaseMs))) {
      this.log.info(
        {gatewayOrderId: attempt.gatewayOrderId},
        'another instance is looking this payment up: its answer is awaited in the store',
      );
      return (await store.getAttempt(attempt.attemptId)) ?? attempt;
    }
    // Renewed while the lookup runs (a slow gateway), so it never runs out under it.
    const renew = setInterval(
      () =>
        void store
          .acquireLease(lease, instance.id, this.cfg.now(), instance.leaseMs)
          .catch(() => undefined),
      Math.max(50, instance.leaseMs / 3),
    );
    renew.unref?.();
    try {
      return await this.#lookupLeased(attempt);
    } finally {
      clearInterval(renew);
      await store.releaseLease(lease, instance.id).catch(() => undefined);
    }
  }

  async #lookupLeased(attempt: AttemptRecord): Promise<AttemptRecord> {
    const {gateway} = this.cfg;
    const {writes} = this.d;
    const key = {attemptId: attempt.attemptId};
    const checkedAt = this.cfg.now();
    let current = (await writes.write(key, (c) => markChecked(c, checkedAt))).attempt ?? attempt;
    let record: TransactionRecord;
    try {
      record = await gateway.getOperation(attempt.gatewayOrderId, attempt.method);
    } catch (error) {
      const now = this.cfg.now();
      if (error instanceof GatewayNotFoundError) {
        // Never "not created": a slow gateway may still create it. The order id stays
        // this attempt's, so paying again re-sends it and cannot charge twice.
        this.log.info(
          {gatewayOrderId: current.gatewayOrderId, state: current.state},
          'the gateway does not know the order yet: still unknown',
        );
      } else {
        this.log.warn(
          {gatewayOrderId: current.gatewayOrderId, error: errorSummary(error)},
          'payment lookup failed',
        );
      }
      // A `creating` attempt here is another process's create in flight (this process's
      // are skipped, and a crash's were made `unknown` by recovery): leave it to that
      // process for a while, so paying again does not re-send what is still being sent.
      const sentAt = current.createSentAt ?? current.createdAt;
      if (current.state === 'creating' && now - sentAt >= CREATE_GRACE_MS) {
        current = (await writes.update(current.attemptId, (c) => markUnknown(c, now))) ?? current;
      }
      return current;
    }
    const r = await writes.applyStatus(key, statusInfoFromRecord(record), 'lookup');
    const next = r.attempt ?? current;
    if (r.changed) {
      this.log.info(
        {orderRef: next.orderRef, gatewayOrderId: next.gatewayOrderId, state: next.state},
        'payment reconciled',
      );
    }
    return next;
  }
}
