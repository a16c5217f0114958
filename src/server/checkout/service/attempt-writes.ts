/**
 * Every change to a stored attempt goes through here: the mutation (a pure function of
 * `transition.ts`) runs in the store's transaction together with its outbox entry, the
 * outbox is kicked afterwards, and a new success starts the order's duplicate-charge
 * check. When the customer asked, the card is kept in the same transaction as the success
 * (`cardToKeep`). Without an `onPaymentUpdate` hook nobody is notified, so no outbox entry
 * is written at all.
 */
import type {
  AttemptRecord,
  PaymentStore,
  UpdateAttemptResult,
  WebhookEventInput,
} from '../store.js';
import {applyGatewayStatus, isFinal, type GatewayStatusInfo} from '../transition.js';
import type {Outbox} from './outbox.js';
import {cardToKeep} from './saved-cards.js';
import {isThreeDsChallenge, telemetry} from '../../telemetry/telemetry.js';

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
  /**
   * Told when an attempt whose customer asked to save the card became a success: with the
   * id of the card kept, or without one when the gateway's report had no token to keep.
   */
  cardKept: (attempt: AttemptRecord, savedCardId: string | undefined) => void;
  /**
   * Told when the gateway's report made an attempt final (`success`, or `failure`: a
   * decline), once: the card-testing breaker counts it.
   */
  finished?: (attempt: AttemptRecord) => void;
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
   * transaction, with the card kept when the attempt becomes a success and its customer
   * asked (so the card is kept once, whichever report comes first, and no crash between
   * two writes can lose it), and looks for a second success of the order when this one
   * succeeded.
   */
  async applyStatus(
    key: AttemptKey,
    info: GatewayStatusInfo,
    source: StatusSource,
    event?: WebhookEventInput,
  ): Promise<UpdateAttemptResult> {
    let before: AttemptRecord['state'] | undefined;
    let challenged = false;
    const r = await this.write(
      key,
      (c) => {
        before = c.state;
        challenged = isThreeDsChallenge(c);
        const now = this.#d.now();
        const m = applyGatewayStatus(c, info, now, source);
        const card = m && cardToKeep(c, m, info, now);
        return card ? {...m, saveCard: card} : m;
      },
      event,
    );
    if (
      r.changed &&
      r.attempt &&
      before !== undefined &&
      !isFinal(before) &&
      isFinal(r.attempt.state)
    ) {
      this.#d.finished?.(r.attempt);
      if (challenged) telemetry.countThreeDs(r.attempt.state === 'success' ? 'approved' : 'failed');
    }
    if (r.changed && r.attempt?.state === 'success') {
      this.#d.succeeded(r.attempt.orderRef);
      if (before !== 'success' && r.attempt.saveCardFor !== undefined) {
        this.#d.cardKept(r.attempt, r.savedCardId);
      }
    }
    return r;
  }

  /** Without a hook there is nobody to notify: the update is dropped, the rest kept. */
  #outboxed(mutate: Mutate): Mutate {
    if (this.#d.notifies) return mutate;
    return (current) => {
      const m = mutate(current);
      if (!m) return m;
      const {update: _dropped, ...kept} = m;
      return kept;
    };
  }
}
