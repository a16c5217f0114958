/**
 * Every change to a stored attempt goes through here: the mutation (a pure function of
 * `attempt-transitions.ts`) runs in the store's transaction together with its outbox entry (the
 * merchant's `onPaymentUpdate` is told from the outbox, never from memory), and the outbox
 * is kicked afterwards. When the customer asked, the card is kept in the same transaction
 * as the success (`cardToKeep`). Without an `onPaymentUpdate` hook nobody is notified, so
 * no outbox entry is written at all.
 *
 * What follows a status change is read off the committed change as data (`followUps`) and
 * run before the write resolves, as its last steps: the card-testing breaker's count of a
 * payment's outcome (awaited, so the next payment's admission sees it), the 3-D Secure
 * counter, the saved card's log line, and, for a new success, the order's duplicate-charge
 * check (in the background: it may refund; start-up recovery runs it again for recent
 * successes, so a crash before it loses nothing).
 */
import type {
  AttemptRecord,
  PaymentStore,
  UpdateAttemptResult,
  WebhookEventInput,
} from '../store/payment-store.js';
import {applyGatewayStatus, isFinal, type GatewayStatusInfo} from './attempt-transitions.js';
import type {CardTestingBreaker} from '../defences/card-testing.js';
import type {CheckoutLogger} from '../telemetry/logger.js';
import {errorSummary, type Background} from './background.js';
import {compensateDuplicates, type DuplicatesDeps} from './operations/duplicate-refunds.js';
import type {Outbox} from './outbox.js';
import {cardToKeep, logCardKept} from './saved-cards.js';
import {isThreeDsChallenge, telemetry} from '../telemetry/telemetry.js';

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
  logger: CheckoutLogger;
  /**
   * Counts each payment's outcome (a success or a decline): in the transaction that makes
   * it final when `outcomeCount` answers a count, else after it.
   */
  cardTesting: Pick<CardTestingBreaker, 'outcome'> &
    Partial<Pick<CardTestingBreaker, 'outcomeCount'>>;
  /** What the duplicate-charge check of an order needs (`duplicate-refunds.ts`). */
  duplicates: DuplicatesDeps;
  background: Background;
}

/** A step that follows a committed status change, as data. */
export type FollowUp =
  /** The attempt became final: the card-testing breaker counts its outcome. */
  | {step: 'count-outcome'; declined: boolean}
  /** A 3-D Secure challenge ended (telemetry). */
  | {step: 'count-three-ds'; approved: boolean}
  /** The success of a customer who asked to save the card: the card kept, or none to keep. */
  | {step: 'card-kept'; attempt: AttemptRecord; savedCardId: string | undefined}
  /** A new success: the order may now be charged twice. */
  | {step: 'check-duplicates'; orderRef: string};

/**
 * What follows a status change from `before` to the committed result `r`. `only`: the
 * attempt is the one attempt of its order that can ever succeed (see `Attempts.run`), so a
 * success of it needs no duplicate-charge check.
 */
export function followUps(
  r: UpdateAttemptResult,
  before: AttemptRecord['state'] | undefined,
  challenged: boolean,
  only: boolean,
  counted = false,
): FollowUp[] {
  const a = r.attempt;
  if (!r.changed || !a || before === undefined) return [];
  const steps: FollowUp[] = [];
  if (!isFinal(before) && isFinal(a.state)) {
    if (!counted) steps.push({step: 'count-outcome', declined: a.state === 'failure'});
    if (challenged) steps.push({step: 'count-three-ds', approved: a.state === 'success'});
  }
  if (a.state === 'success') {
    if (!only) steps.push({step: 'check-duplicates', orderRef: a.orderRef});
    if (before !== 'success' && a.saveCardFor !== undefined) {
      steps.push({step: 'card-kept', attempt: a, savedCardId: r.savedCardId});
    }
  }
  return steps;
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
   * succeeded (unless `only`: see `followUps`).
   */
  async applyStatus(
    key: AttemptKey,
    info: GatewayStatusInfo,
    source: StatusSource,
    event?: WebhookEventInput,
    only = false,
  ): Promise<UpdateAttemptResult> {
    let before: AttemptRecord['state'] | undefined;
    let challenged = false;
    let counted = false;
    const r = await this.write(
      key,
      (c) => {
        before = c.state;
        challenged = isThreeDsChallenge(c);
        counted = false;
        const now = this.#d.now();
        const m = applyGatewayStatus(c, info, now, source);
        if (!m) return m;
        const card = cardToKeep(c, m, info, now);
        // Made final here: the breaker's count of its outcome is a write of this transaction.
        const state = m.patch.state;
        const final = state !== undefined && !isFinal(c.state) && isFinal(state);
        const count = final ? this.#d.cardTesting.outcomeCount?.(state === 'failure') : undefined;
        counted = count !== undefined;
        return {...m, ...(card ? {saveCard: card} : {}), ...(count ? {count} : {})};
      },
      event,
    );
    for (const f of followUps(r, before, challenged, only, counted)) await this.#follow(f);
    return r;
  }

  /** Runs one follow-up step (see the module comment); none of them throws. */
  async #follow(f: FollowUp): Promise<void> {
    const d = this.#d;
    switch (f.step) {
      case 'count-outcome':
        await d.cardTesting.outcome(f.declined).catch((error: unknown) => {
          d.logger.warn({error: errorSummary(error)}, 'card-testing count failed');
        });
        return;
      case 'count-three-ds':
        telemetry.countThreeDs(f.approved ? 'approved' : 'failed');
        return;
      case 'card-kept':
        logCardKept(d.logger, f.attempt, f.savedCardId);
        return;
      case 'check-duplicates':
        d.background.run(compensateDuplicates(d.duplicates, f.orderRef));
        return;
    }
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
