/**
 * Every change to a stored attempt goes through here: the mutation (a pure function of
 * `transition.ts`) runs in the store's transaction together with its outbox entry, the
 * outbox is kicked afterwards, and a new success starts the order's duplicate-charge
 * check and, when the customer asked, the keeping of its card. Without an `onPaymentUpdate` hook nobody is notified, so no outbox entry is
 * written at all.
 */
import type {
  AttemptRecord,
  PaymentStore,
  UpdateAttemptResult,
  WebhookEventInput,
} from '../store.js';
import {applyGatewayStatus, type GatewayStatusInfo} from '../transition.js';
import type {Outbox} from './outbox.js';

/** A mutation as the store runs it. */
export type Mutate = Parameters<PaymentStore['updateAttempt']>[1];
/** Which attempt: by the browser's attempt id or by the gateway's order id. */
export type AttemptKey = {attemptId: string} | {gatewayOrderId: string};
/** Who told us the status. */
export type StatusSource = 'create' | 'lookup' | 'webhook';

export interface AttemptWritesDeps {
  store: PaymentStore;
  /** True when an `onPaymentUpdate` hook listens (else no outbox entry is written). */
  notifies: boolean;
  outbox: Outbox;
  now: () => number;
  /** Called when an attempt of `orderRef` has just become `success`. */
  succeeded: (orderRef: string) => void;
  /** Keeps the card of a successful attempt whose customer asked to save it. */
  keepCard: (attempt: AttemptRecord, info: GatewayStatusInfo) => Promise<void>;
}

export class AttemptWrites {
  readonly #d: AttemptWritesDeps;

  constructor(deps: AttemptWritesDeps) {
    this.#d = deps;
  }

  /** Applies `mutate` to an attempt in one transaction (with `event` recorded in it). */
  async write(key: AttemptKey, mutate: Mutate, event?: WebhookEventInput) {
    const r = await this.#d.store.updateAttempt(key, this.#outboxed(mutate), event);
    if (r.outboxId !== undefined) this.#d.outbox.kick();
    return r;
  }

  /** Applies `mutate` to the attempt `attemptId`; resolves with its latest row. */
  async update(attemptId: string, mutate: Mutate): Promise<AttemptRecord | undefined> {
    return (await this.write({attemptId}, mutate)).attempt;
  }

  /**
   * Applies what the gateway said (create answer, lookup, webhook) in one store
   * transaction, and looks for a second success of the order when this one succeeded.
   */
  async applyStatus(
    key: AttemptKey,
    info: GatewayStatusInfo,
    source: StatusSource,
    event?: WebhookEventInput,
  ): Promise<UpdateAttemptResult> {
    let before: AttemptRecord['state'] | undefined;
    const r = await this.write(
      key,
      (c) => {
        before = c.state;
        return applyGatewayStatus(c, info, this.#d.now(), source);
      },
      event,
    );
    if (r.changed && r.attempt?.state === 'success') {
      this.#d.succeeded(r.attempt.orderRef);
      // Only as the attempt becomes a success: a later report of it (after the customer
      // removed the card) must not save the card again.
      if (before !== 'success' && r.attempt.saveCardFor !== undefined) {
        await this.#d.keepCard(r.attempt, info);
      }
    }
    return r;
  }

  /** Without a hook there is nobody to notify: the update is dropped, the patch kept. */
  #outboxed(mutate: Mutate): Mutate {
    if (this.#d.notifies) return mutate;
    return (current) => {
      const m = mutate(current);
      return m && {patch: m.patch};
    };
  }
}
