/**
 * The background passes over open attempts: the periodic sweep (bounded concurrency,
 * backoff per attempt, written off once too old, never two passes at once; each pass also
 * delivers the outbox entries whose claims ran out) and start-up
 * recovery (what a crash left `creating` becomes `unknown`, every open attempt is looked
 * up, recent double charges are compensated, the outbox is delivered).
 */
import type {SecondaryOperations} from './operations/operations.js';
import {UNSETTLED_STATES, type AttemptRecord} from '../store/payment-store.js';
import {markUnknown, markWrittenOff} from './attempt-transitions.js';
import type {AttemptWrites} from './attempt-writes.js';
import {errorSummary, type Background} from './background.js';
import {ServicePart, type ServiceConfig, type SweepResult} from './service-config.js';
import type {CreatesInFlight} from './locks.js';
import type {Outbox} from './outbox.js';
import {isStaleChallenge, lookupBackoff} from './order-state.js';
import type {Reconciler} from './reconcile.js';

export type SweepConfig = Pick<
  ServiceConfig,
  'store' | 'attempts' | 'sweep' | 'statusCheck' | 'logger' | 'now'
>;

export interface SweeperDeps {
  cfg: SweepConfig;
  writes: AttemptWrites;
  reconciler: Reconciler;
  operations: SecondaryOperations;
  creates: CreatesInFlight;
  outbox: Outbox;
  background: Background;
  /** Compensates the order's double charges, if any. */
  checkDuplicates: (orderRef: string) => Promise<void>;
}

export class Sweeper extends ServicePart<SweeperDeps> {
  /** The running sweep (never two at once). */
  #running: Promise<SweepResult> | undefined;

  /** True while a sweep runs. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /**
   * One pass over the open attempts, never two at once: open attempts older than
   * `attempts.expireAfterMs` are not looked up any more (a 3-D Secure one is written off);
   * a 3-D Secure attempt without news for `abandonAfterMs` is written off; the others are
   * looked up when their backoff allows (`sweep.initialBackoffMs`, doubling with each
   * lookup up to `maxBackoffMs`), `sweep.concurrency` at a time. Then secondary operations
   * whose outcome is unknown are looked up. `force` ignores the backoff.
   */
  sweep(opts: {force?: boolean} = {}): Promise<SweepResult> {
    if (this.#running) return this.#running;
    const run = this.#sweepOnce(opts.force ?? false).finally(() => {
      this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  async #sweepOnce(force: boolean): Promise<SweepResult> {
    const {attempts: ages, sweep} = this.cfg;
    const {background, creates, writes} = this.d;
    // Outbox entries another instance claimed and never marked (it died) are claimable
    // once their claims run out; a kick is the only thing that claims, and with no payment
    // written after that, no write would kick one. Each pass kicks: one claim statement,
    // which takes them over within a lease and a sweep interval.
    this.d.outbox.kick();
    const now = this.cfg.now();
    const open = await this.cfg.store.listAttemptsInStates(UNSETTLED_STATES);
    const due: AttemptRecord[] = [];
    let expired = 0;
    for (const a of open) {
      if (background.closed) break;
      if (creates.has(a.gatewayOrderId)) continue;
      const threeDs = a.state === 'init' || a.state === 'pending';
      if (now - a.createdAt >= ages.expireAfterMs) {
        expired++;
        if (threeDs && !a.writtenOff) {
          await writes.update(a.attemptId, (c) => markWrittenOff(c, now, 'expired'));
        }
        continue;
      }
      if (isStaleChallenge(a, now, ages.abandonAfterMs)) {
        await writes.update(a.attemptId, (c) => markWrittenOff(c, now, 'expired'));
      }
      // An unknown create is looked up a bounded number of times (`unknownLookupDue`).
      if (a.state === 'unknown' && (a.checks ?? 0) >= this.cfg.statusCheck.maxUnknownLookups) {
        continue;
      }
      const backoff = lookupBackoff(a.checks ?? 0, sweep);
      if (force || a.lastCheckAt === undefined || now - a.lastCheckAt >= backoff) due.push(a);
    }
    let unknown = 0;
    await eachLimited(due, sweep.concurrency, async (a) => {
      if (background.closed) return;
      try {
        const settled = await this.d.reconciler.reconcileAttempt(a, {force: true});
        if (settled.state === 'creating' || settled.state === 'unknown') unknown++;
      } catch (error) {
        unknown++;
        this.log.warn(
          {gatewayOrderId: a.gatewayOrderId, error: errorSummary(error)},
          'reconcile failed',
        );
      }
    });
    const intents = background.closed ? 0 : await this.d.operations.settleUnknown(100);
    return {open: open.length, checked: due.length, unknown, expired, intents};
  }

  /**
   * After a restart: `creating` attempts left by a crash become `unknown`, every open
   * attempt is looked up (with bounded concurrency), recent double charges are
   * compensated, and the outbox is delivered.
   */
  async recover(): Promise<{checked: number; unknown: number}> {
    const {store} = this.cfg;
    const crashed = await store.listAttemptsInStates(['creating']);
    for (const a of crashed) {
      if (this.d.creates.has(a.gatewayOrderId)) continue;
      await this.d.writes.update(a.attemptId, (c) => markUnknown(c, this.cfg.now()));
    }
    const result = await this.sweep({force: true});
    // A crash between a second success and its compensation: look at recent successes.
    const since = this.cfg.now() - this.cfg.attempts.expireAfterMs;
    const orders = new Set(
      (await store.listAttemptsInStates(['success']))
        .filter((a) => a.updatedAt >= since)
        .map((a) => a.orderRef),
    );
    for (const orderRef of orders) await this.d.checkDuplicates(orderRef);
    await this.d.outbox.flush();
    this.log.info({...result, crashed: crashed.length}, 'recovery done');
    return {checked: result.checked, unknown: result.unknown};
  }
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker));
}
