/**
 * Delivery of the outbox to `onPaymentUpdate`: every status change is stored with an
 * outbox entry in one transaction (see `attempt-writes.ts`); this delivers the entries in
 * order, after the write, one run at a time, and again after a failure (with backoff) or
 * a crash (recovery flushes it). Entries are claimed in the store before delivery
 * (`claimOutbox`, a claim that expires after `instance.leaseMs`), so several instances on
 * one store never deliver the same entry at once, and a crashed instance's entries are
 * delivered by another once its claims expire.
 *
 * A kick starts delivery on the next turn of the event loop (`setImmediate`), not inside
 * the write that stored the entry: the request that wrote it answers first (its claim,
 * hook call and delivery mark are no longer on its path), and the entries written in one
 * turn are claimed and delivered in one run.
 *
 * A run's deliveries are marked with the next run's claim (`claimOutboxAfterDelivery`), in
 * one write, instead of one write each: under load every payment's
 * update costs one outbox write, not two. A run that leaves marks behind writes them at
 * the latest `MARK_DELAY_MS` later (a run of its own when nothing kicked one before);
 * `flush` and `close` write them before they resolve. A crash before they are written
 * delivers those entries again once their claims expire (the hook sees the same
 * `updateId`), as a mark that fails does: at least once, never lost.
 */
import type {CheckoutLogger} from '../telemetry/logger.js';
import type {OutboxDelivery, PaymentStore, PaymentUpdate} from '../store/payment-store.js';
import {errorSummary} from './background.js';

/** Entries claimed at a time. */
const CLAIM_LIMIT = 100;

/** How long deliveries may wait for the next claim to be marked delivered. */
const MARK_DELAY_MS = 100;

/** How soon delivery is tried again after the store failed (unreachable, timed out). */
const STORE_RETRY_MS = 5000;

export interface OutboxDeps {
  store: PaymentStore;
  onPaymentUpdate: ((update: PaymentUpdate) => void | Promise<void>) | undefined;
  logger: CheckoutLogger;
  now: () => number;
  /** Who claims the entries, and for how long. */
  instance: {id: string; leaseMs: number};
  /** True once the service is closed: nothing more is delivered. */
  closed: () => boolean;
}

export class Outbox {
  readonly #d: OutboxDeps;
  #run: Promise<void> | undefined;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** A delivery run asked for and not started yet (it starts on the next turn). */
  #soon: ReturnType<typeof setImmediate> | undefined;
  /** Delivered, not marked yet: marked with the next claim. */
  #delivered: OutboxDelivery[] = [];
  /** The run that marks what the last run left, unless another starts first. */
  #markTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set while `flush`/`close` wait: a run does not end with marks unwritten. */
  #eager = false;

  constructor(deps: OutboxDeps) {
    this.#d = deps;
  }

  /**
   * Starts delivering the outbox on the next turn of the event loop, unless a delivery
   * run is already going (it then claims again when it is done) or about to start.
   */
  kick(): void {
    if (this.#d.closed()) return;
    if (this.#run) {
      this.#again = true;
      return;
    }
    this.#soon ??= setImmediate(() => {
      this.#soon = undefined;
      this.#start();
    });
  }

  /** Starts a delivery run now, unless one is going. */
  #start(): void {
    if (this.#soon) {
      clearImmediate(this.#soon);
      this.#soon = undefined;
    }
    if (this.#d.closed()) return;
    if (this.#run) {
      this.#again = true;
      return;
    }
    this.#run = this.#drain()
      // #drain handles the store's failures itself; this only keeps a bug in it from
      // becoming an unhandled rejection, which would end the process.
      .catch((error: unknown) => {
        this.#d.logger.error({error: errorSummary(error)}, 'outbox delivery stopped: will retry');
        this.#retryIn(STORE_RETRY_MS);
      })
      .finally(() => {
        this.#run = undefined;
        // A kick that landed after the run's last look at `#again` (it ended with nothing
        // left, so no timer of its own would start another): a run now, or it is lost.
        if (this.#again) {
          this.#again = false;
          this.kick();
        }
      });
  }

  /**
   * Resolves once the outbox is empty, every delivery marked, or a delivery failed (it is
   * then retried later).
   */
  async flush(): Promise<void> {
    this.#eager = true;
    try {
      // A run going now may have passed its last claim: one more writes what it leaves.
      while (this.#run) await this.#run;
      this.#start();
      while (this.#run) await this.#run;
    } finally {
      this.#eager = false;
    }
  }

  /** Waits for the running delivery, marks what it delivered and cancels the timers. */
  async close(): Promise<void> {
    // A run that was about to start does (the closed check in #start/#drain decides).
    if (this.#soon) this.#start();
    while (this.#run) await this.#run.catch(() => undefined);
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#markTimer) clearTimeout(this.#markTimer);
    await this.#markEach();
  }

  /**
   * Marks what waits for the next claim, each on its own: when no claim is coming soon
   * (closing; a failed hook, whose entry waits out its backoff). One that fails is
   * delivered again once its claim runs out.
   */
  async #markEach(): Promise<void> {
    for (const d of this.#delivered.splice(0)) {
      await this.#d.store.markOutboxDelivered(d.id, d.at).catch((error: unknown) => {
        this.#d.logger.error(
          {error: errorSummary(error)},
          'marking an update delivered failed: it may be delivered again',
        );
      });
    }
  }

  /** Claims, with the marks of what was delivered since the last claim. */
  async #claim(claimedAt: number): Promise<Awaited<ReturnType<PaymentStore['claimOutbox']>>> {
    const {store, instance} = this.#d;
    if (this.#markTimer) {
      clearTimeout(this.#markTimer);
      this.#markTimer = undefined;
    }
    const delivered = this.#delivered.splice(0);
    if (delivered.length === 0) {
      return store.claimOutbox(instance.id, claimedAt, instance.leaseMs, CLAIM_LIMIT);
    }
    try {
      return await store.claimOutboxAfterDelivery(
        delivered,
        instance.id,
        claimedAt,
        instance.leaseMs,
        CLAIM_LIMIT,
      );
    } catch (error) {
      // Not marked: kept for the next claim (a mark is idempotent).
      this.#delivered.unshift(...delivered);
      throw error;
    }
  }

  /** Marks `id` delivered, with the next claim. */
  #markDelivered(id: number): void {
    this.#delivered.push({id, at: this.#d.now()});
  }

  /** A run of its own, `MARK_DELAY_MS` from now, for marks no claim took meanwhile. */
  #markSoon(): void {
    if (this.#delivered.length === 0 || this.#markTimer || this.#d.closed()) return;
    this.#markTimer = setTimeout(() => {
      this.#markTimer = undefined;
      if (this.#delivered.length > 0) this.kick();
    }, MARK_DELAY_MS);
    this.#markTimer.unref?.();
  }

  async #drain(): Promise<void> {
    const {store, onPaymentUpdate, logger, instance} = this.#d;
    for (;;) {
      this.#again = false;
      let entries;
      const claimedAt = this.#d.now();
      try {
        entries = await this.#claim(claimedAt);
      } catch (error) {
        logger.error({error: errorSummary(error)}, 'reading the outbox failed: will retry');
        this.#retryIn(STORE_RETRY_MS);
        return;
      }
      for (const entry of entries) {
        if (this.#d.closed()) return;
        // Half the claim gone: claim again (renewing what is still this instance's) rather
        // than deliver an entry whose claim may run out, and be taken over, meanwhile.
        if (this.#d.now() - claimedAt > instance.leaseMs / 2) {
          this.#again = true;
          break;
        }
        try {
          if (onPaymentUpdate) await onPaymentUpdate(entry.update);
        } catch (error) {
          await store.markOutboxFailed(entry.id).catch(() => undefined);
          const delay = Math.min(60_000, 1000 * 2 ** Math.min(entry.failures, 6));
          logger.error(
            {
              updateId: entry.update.updateId,
              orderRef: entry.update.orderRef,
              retryInMs: delay,
              error: errorSummary(error),
            },
            'onPaymentUpdate failed: will retry',
          );
          await this.#markEach();
          this.#retryIn(delay);
          return;
        }
        try {
          this.#markDelivered(entry.id);
        } catch (error) {
          // Delivered but not marked: once the claim runs out it is delivered again (the
          // hook sees the same updateId), never lost.
          logger.error(
            {updateId: entry.update.updateId, error: errorSummary(error)},
            'marking an update delivered failed: it may be delivered again',
          );
          this.#retryIn(STORE_RETRY_MS);
          return;
        }
      }
      // A claim short of its limit took every entry there was: one written since was kicked
      // (`#again`); one of another instance is that instance's to deliver, or recovery's
      // once its claim runs out. Claiming again only to find nothing would cost a write
      // transaction per run (per payment, on the pay route). Its marks wait for the next
      // claim, or a run of their own a little later (at once for `flush`).
      if (entries.length < CLAIM_LIMIT && !this.#again) {
        if (this.#delivered.length === 0) return;
        if (!this.#eager) {
          this.#markSoon();
          return;
        }
      }
    }
  }

  #retryIn(delay: number): void {
    if (this.#timer || this.#d.closed()) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.kick();
    }, delay);
    this.#timer.unref?.();
  }
}
