/**
 * Pay: direct (card data from the card form, or a saved card) and hosted (the customer
 * pays on the gateway's page). Each request becomes a plan (`plan.ts`, a value) that the
 * one attempt path of `attempt.ts` runs under the order's lock; this answers its outcome
 * as the route tells it (a protocol answer; a redirect to the gateway's page or to the
 * return page).
 *
 * - One attempt id → one gateway request: repeats of a running pay call join it
 *   (single flight); the store's primary key joins repeats from other processes.
 * - One order → at most one live attempt: an order's attempts run one at a time in this
 *   process, and the store inserts a new attempt only when the order has no live one.
 */
import type {PayRequest, PayResponse} from '../../protocol/checkout.js';
import type {AttemptRecord} from '../store/payment-store.js';
import {alreadyPaidAnswer, answerFor, hostedAnswer} from './answers.js';
import {attemptOfAnotherOrder, type Attempts, type AttemptOutcome} from './attempt.js';
import {
  ServicePart,
  type HostedResult,
  type PayContext,
  type ServiceConfig,
} from './service-config.js';
import {SingleFlight, type OrderLocks} from './locks.js';
import {directPlan, type HostedPlan} from './plan.js';
import type {Reconciler} from './reconcile.js';
import {SavedCardRefused, savedCardRefusedAnswer} from './saved-cards.js';

export type PayConfig = Pick<ServiceConfig, 'store' | 'logger'>;

export interface PaymentsDeps {
  cfg: PayConfig;
  attempts: Attempts;
  reconciler: Reconciler;
  locks: OrderLocks;
}

export class Payments extends ServicePart<PaymentsDeps> {
  /** Attempt id → the running pay call (tagged with its order). */
  readonly #inflight = new SingleFlight<PayResponse, string>();

  /** Answers a pay request; repeats of the same attempt id share one gateway request. */
  pay(body: PayRequest, ctx: PayContext): Promise<PayResponse> {
    const running = this.#inflight.get(body.attemptId);
    if (running && running.tag !== body.orderRef) return Promise.reject(attemptOfAnotherOrder());
    return this.#inflight.run(body.attemptId, () => this.#payOnce(body, ctx), body.orderRef);
  }

  /**
   * Creates a hosted payment for an order (the customer pays on the gateway's page) and
   * answers where to send the customer: the gateway's checkout page, or — when the order
   * is paid or its payment is still being settled — the return page. An order's open
   * hosted payment is reused, so a double click or a second tab makes no second payment;
   * after an unknown outcome the create is sent again with the same `order_id`. Counted
   * like a card payment, per address and order; the open hosted payment reused is not.
   */
  payHosted(orderRef: string, ctx: Omit<HostedPlan, 'kind' | 'orderRef'>): Promise<HostedResult> {
    return this.d.locks.run(orderRef, async () => {
      const outcome = await this.d.attempts.run({kind: 'hosted', orderRef, ...ctx});
      switch (outcome.kind) {
        case 'refused':
          return {kind: 'settled', response: outcome.response};
        case 'paid':
          this.#logPaidBefore(outcome.attempt, {mode: 'hosted'});
          return {kind: 'settled', response: alreadyPaidAnswer(outcome.attempt, false)};
        case 'settled':
          return {kind: 'settled', response: answerFor(outcome.attempt)};
        case 'current':
          return hostedAnswer(outcome.attempt);
      }
    });
  }

  async #payOnce(body: PayRequest, ctx: PayContext): Promise<PayResponse> {
    // A known attempt is answered without waiting behind the order's other attempts. When
    // nothing holds the order's lock, the attempt path's read of the order finds it.
    if (this.d.locks.busy(body.orderRef)) {
      const known = await this.cfg.store.getAttempt(body.attemptId);
      if (known) {
        if (known.orderRef !== body.orderRef) throw attemptOfAnotherOrder();
        return answerFor(await this.d.reconciler.settle(known));
      }
    }
    return this.d.locks.run(body.orderRef, () => this.#payDirect(body, ctx));
  }

  async #payDirect(body: PayRequest, ctx: PayContext): Promise<PayResponse> {
    let outcome: AttemptOutcome;
    try {
      outcome = await this.d.attempts.run(directPlan(body, ctx));
    } catch (error) {
      if (error instanceof SavedCardRefused) {
        this.log.warn({orderRef: body.orderRef, reason: error.reason}, 'saved card refused');
        return savedCardRefusedAnswer(body.orderRef, error);
      }
      throw error;
    }
    if (outcome.kind === 'paid') {
      const saveCard = body.saveCard === true;
      this.#logPaidBefore(outcome.attempt, {mode: 'direct', attemptId: body.attemptId, saveCard});
      return alreadyPaidAnswer(outcome.attempt, saveCard);
    }
    return outcome.kind === 'refused' ? outcome.response : answerFor(outcome.attempt);
  }

  /**
   * Tells the merchant's log that a pay request found its order paid by an earlier attempt
   * (`paid`): nothing was charged, and a card the customer asked to save was not saved.
   */
  #logPaidBefore(
    paid: AttemptRecord,
    request: {mode: 'direct' | 'hosted'; attemptId?: string; saveCard?: boolean},
  ): void {
    const {saveCard, ...fields} = request;
    this.log.warn(
      {
        orderRef: paid.orderRef,
        ...fields,
        paidAttemptId: paid.attemptId,
        paidGatewayOrderId: paid.gatewayOrderId,
        ...(saveCard ? {cardSaved: false} : {}),
      },
      saveCard
        ? 'the order was already paid: nothing was charged, and the card was not saved'
        : 'the order was already paid: nothing was charged',
    );
  }

  /** Waits for the running pay calls (shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled(this.#inflight.all());
  }
}
