/**
 * The one attempt path every pay request runs (the caller holds the order's lock), top to
 * bottom over its plan (`plan.ts`, a value): settle the order's attempts (answering a known
 * attempt id, or the order's live attempt, with no create); guard (the card-testing breaker,
 * then the per-key limits); insert a new `creating` attempt — or, after an unknown outcome,
 * mark it for a re-send with the SAME gateway `order_id`; send the create to the gateway;
 * apply its answer (`attempt-writes.ts`, with its follow-ups as steps of that write).
 *
 * - The attempt is stored before the gateway is called, so a webhook that overtakes the
 *   create answer finds it; the store inserts it only when the order has no live attempt.
 * - The gateway `order_id` is the idempotency key: the gateway refuses a second payment
 *   for it (`P-409`). A create whose outcome is unknown (5xx, timeout, dropped connection,
 *   unreadable answer) leaves the attempt `unknown`: it is looked up, and paying again
 *   re-sends it with the same `order_id`, so at most one of them is charged. A fresh
 *   `order_id` is minted only once the previous attempt is final and failed, or written off.
 */
import type {PayFailure} from '../../protocol/checkout.js';
import type {CreatePaymentResult} from '../gateway/client/index.js';
import {
  GatewayConflictError,
  GatewayRateLimitError,
  GatewayUnavailableError,
  GatewayValidationError,
  isRefusal,
} from '../gateway/errors.js';
import {
  CheckoutGatewayUnavailableError,
  CheckoutInternalError,
  CheckoutInvalidRequestError,
  CheckoutNotFoundError,
} from '../errors.js';
import {newGatewayOrderId, type ResolvedOrder} from './gateway-request.js';
import type {SavedCardRecord} from '../store/saved-card-records.js';
import {rateLimited} from '../defences/velocity.js';
import {countedPayment} from './payment-telemetry.js';
import type {AttemptRecord} from '../store/payment-store.js';
import {markNotCreated, markRecreating, markUnknown} from './attempt-transitions.js';
import {refusedAnswer} from './answers.js';
import type {AttemptWrites} from './attempt-writes.js';
import {errorSummary} from './background.js';
import {ServicePart, type ServiceConfig} from './service-config.js';
import type {CreatesInFlight} from './locks.js';
import {
  MerchantRequestInvalid,
  modeOf,
  newAttemptId,
  prepareCreate,
  requestOf,
  reservationFor,
  statusInfoOf,
  type PayPlan,
  type PreparedCreate,
} from './plan.js';
import type {Reconciler} from './reconcile.js';

export type AttemptConfig = Pick<
  ServiceConfig,
  | 'store'
  | 'gateway'
  | 'resolveOrder'
  | 'serverUrl'
  | 'resultUrl'
  | 'order3dsBypass'
  | 'velocity'
  | 'cardTesting'
  | 'logger'
  | 'now'
>;

export interface AttemptsDeps {
  cfg: AttemptConfig;
  writes: AttemptWrites;
  reconciler: Reconciler;
  creates: CreatesInFlight;
}

/** How an attempt ended for this request. */
export type AttemptOutcome =
  /** The order's attempt as it stands, or as the gateway just answered its create. */
  | {kind: 'current'; attempt: AttemptRecord}
  /**
   * The order was paid before this request, by `attempt` (another attempt id): nothing
   * was sent to the gateway, and the answer must say so, not "Payment successful".
   */
  | {kind: 'paid'; attempt: AttemptRecord}
  /** No create was answered (outcome unknown, or the order changed): its stored state. */
  | {kind: 'settled'; attempt: AttemptRecord}
  /** The gateway refused the request's data: nothing was charged. */
  | {kind: 'refused'; response: PayFailure};

/** Runs attempts; see the module comment. */
export class Attempts extends ServicePart<AttemptsDeps> {
  /** The one attempt path (the caller holds the order's lock); see the module comment. */
  async run(plan: PayPlan): Promise<AttemptOutcome> {
    const {store} = this.cfg;
    const {orderRef} = plan;
    const mode = modeOf(plan);

    // Settle. One read of the order answers a repeat of a known attempt id too (an id of
    // another order is refused by the insert, which finds it).
    const listed = await store.listAttempts(orderRef);
    if (plan.kind !== 'hosted') {
      const known = listed.find((a) => a.attemptId === plan.body.attemptId);
      if (known) return {kind: 'current', attempt: await this.d.reconciler.settle(known)};
    }
    const {attempts: previous, state} = await this.d.reconciler.settledOrder(orderRef, listed);
    const live = state.current;
    // Paid already: this request pays nothing (its attempt id is not the paid one's).
    if (live?.state === 'success') return {kind: 'paid', attempt: live};
    // An unknown outcome is retried with the same order id; anything else live answers.
    if (live && live.state !== 'unknown') return {kind: 'current', attempt: live};

    // Plan: the order, and its create request.
    const order = await this.cfg.resolveOrder(orderRef, requestOf(plan));
    if (!order) throw new CheckoutNotFoundError('unknown order');
    const seq = live?.seq ?? (previous.at(-1)?.seq ?? 0) + 1;
    const gatewayOrderId = live?.gatewayOrderId ?? newGatewayOrderId(orderRef, seq);
    const savedCard =
      plan.kind === 'saved-card' ? await store.getSavedCard(plan.body.savedCardId) : undefined;
    const prepared = this.#prepare(plan, order, gatewayOrderId, savedCard);

    if (live) {
      // The earlier create's outcome is unknown: send this one with the SAME order id. The
      // gateway charges at most one of them (a second create gets P-409).
      if (
        live.method !== prepared.method ||
        live.amount !== prepared.amount ||
        live.currency !== prepared.currency
      ) {
        this.log.warn(
          {orderRef, gatewayOrderId, mode},
          'the order changed while its payment is unknown: not paying again until it is settled',
        );
        return {kind: 'settled', attempt: live};
      }
      // Guard, then mark the attempt for the re-send.
      const reservation = await this.#guard(plan, order, savedCard);
      if (reservation) {
        const {keys, now, windowMs} = reservation;
        const taken = await store.reserveAttempt(keys, now, windowMs);
        if (!taken.ok) throw rateLimited(taken.retryAfterMs);
      }
      const r = await this.d.writes.write({attemptId: live.attemptId}, (c) =>
        markRecreating(c, this.cfg.now()),
      );
      if (!r.changed || !r.attempt) return {kind: 'settled', attempt: r.attempt ?? live};
      this.log.warn(
        {orderRef, gatewayOrderId, mode, createCount: r.attempt.createCount},
        'paying again after an unknown outcome: the create is sent again with the same order_id',
      );
      return countedPayment(mode, orderRef, this.#send(r.attempt, prepared, mode, false));
    }

    // Guard, then insert: the attempt and its card-testing counts in one transaction.
    const now = this.cfg.now();
    const attempt: AttemptRecord = {
      attemptId: newAttemptId(plan, gatewayOrderId),
      orderRef,
      gatewayOrderId,
      seq,
      method: prepared.method,
      amount: prepared.amount,
      currency: prepared.currency,
      state: 'creating',
      createdAt: now,
      updatedAt: now,
      createSentAt: now,
      createCount: 1,
      ...(prepared.saveCardFor !== undefined ? {saveCardFor: prepared.saveCardFor} : {}),
    };
    const reservation = await this.#guard(plan, order, savedCard);
    const inserted = await store.insertAttempt(attempt, reservation);
    if (!inserted.inserted) {
      if (inserted.reason === 'limited') throw rateLimited(inserted.retryAfterMs);
      // Another process won the race for this order or this attempt id.
      if (inserted.existing.orderRef !== orderRef) throw attemptOfAnotherOrder();
      const existing = await this.d.reconciler.settle(inserted.existing);
      const paidBefore = existing.state === 'success' && existing.attemptId !== attempt.attemptId;
      return {kind: paidBefore ? 'paid' : 'current', attempt: existing};
    }
    this.log.info(
      {orderRef, attemptId: attempt.attemptId, gatewayOrderId, seq, mode},
      'payment attempt stored',
    );
    // Gateway, then apply. When every earlier attempt of the order was declined by the
    // gateway (a failure inferred here, `not_created`, may still turn out a success), none
    // can succeed any more, and none can start while this one is live: a success of this
    // one cannot be a second charge, so it needs no duplicate-charge check.
    const only = previous.every((a) => a.state === 'failure' && a.failureReason === 'declined');
    return countedPayment(mode, orderRef, this.#send(attempt, prepared, mode, only));
  }

  /** The create request of `plan`; a merchant's error is logged and answered as ours. */
  #prepare(
    plan: PayPlan,
    order: ResolvedOrder,
    gatewayOrderId: string,
    card: SavedCardRecord | undefined,
  ): PreparedCreate {
    try {
      return prepareCreate(
        plan,
        order,
        gatewayOrderId,
        {...this.cfg, posId: this.cfg.gateway.posId},
        plan.kind === 'saved-card' ? {card, now: this.cfg.now()} : undefined,
      );
    } catch (error) {
      if (!(error instanceof MerchantRequestInvalid)) throw error;
      this.log.error(
        {orderRef: plan.orderRef, issues: error.issues},
        'the order from resolveOrder or the configuration gives an invalid gateway request',
      );
      throw new CheckoutInternalError(
        'this order cannot be paid because of a server configuration error',
      );
    }
  }

  /**
   * The shop-wide card-testing breaker, the same for every plan (every create sends a card
   * towards the gateway; issue 35: `/hosted` was left out): throws `429` when it does not
   * admit the payment now. While it is open a guest takes one of a few places a minute, and
   * a customer the order names (`customer.id`; a saved card pays only for it) gets a budget
   * of their own, which the reservation answered takes with the attempt.
   */
  async #guard(plan: PayPlan, order: ResolvedOrder, card: SavedCardRecord | undefined) {
    const admitted = await this.cfg.cardTesting.admit({customerId: order.customer?.id});
    return reservationFor(plan, this.cfg.velocity, admitted, card);
  }

  /** Sends a stored (`creating`) attempt's create request and applies the answer. */
  async #send(
    attempt: AttemptRecord,
    prepared: PreparedCreate,
    mode: 'direct' | 'hosted',
    only: boolean,
  ): Promise<AttemptOutcome> {
    const {orderRef, gatewayOrderId} = attempt;
    let result: CreatePaymentResult;
    try {
      result = await this.d.creates.run(gatewayOrderId, () =>
        this.cfg.gateway.createPayment(prepared.request, prepared.checked),
      );
    } catch (error) {
      return this.#createFailed(attempt, error);
    }
    const info = statusInfoOf(result, gatewayOrderId);
    const current =
      (
        await this.d.writes.applyStatus(
          {attemptId: attempt.attemptId},
          info,
          'create',
          undefined,
          only,
        )
      ).attempt ?? attempt;
    this.log.info(
      {orderRef, gatewayOrderId, mode, state: current.state, statusCode: current.statusCode},
      'payment attempt answered',
    );
    return {kind: 'current', attempt: current};
  }

  /** A create call failed: decide between "not created" and "unknown". */
  async #createFailed(attempt: AttemptRecord, error: unknown): Promise<AttemptOutcome> {
    const {gatewayOrderId, orderRef} = attempt;
    const {writes} = this.d;
    // A refusal, or a connection the gateway never accepted (the request did not leave this
    // server): either way nothing was charged by this request.
    const unreachable = error instanceof GatewayUnavailableError;
    if (isRefusal(error) || unreachable) {
      const code = (error as {gatewayCode?: string}).gatewayCode ?? (error as {code: string}).code;
      const fields = {orderRef, gatewayOrderId, error: errorSummary(error)};
      // A refusal speaks for this request only: when an earlier create with this order id
      // had an unknown outcome, that one may still be charged, so the attempt stays open.
      const resent = (attempt.createCount ?? 1) > 1;
      await writes.update(attempt.attemptId, (c) =>
        resent
          ? markUnknown(c, this.cfg.now())
          : markNotCreated(
              c,
              this.cfg.now(),
              code,
              unreachable
                ? 'The payment gateway could not be reached; the request was not sent.'
                : 'The payment request was refused by the payment gateway.',
            ),
      );
      if (error instanceof GatewayValidationError) {
        this.log.warn(fields, 'the gateway refused the payment request');
        return {kind: 'refused', response: refusedAnswer(orderRef, code)};
      }
      this.log.error(
        fields,
        unreachable
          ? 'the gateway could not be reached: the payment request was not sent'
          : 'the gateway refused the payment request (configuration or rate limit)',
      );
      throw new CheckoutGatewayUnavailableError(
        'The payment service is not available right now. No money was taken; try again later.',
        error instanceof GatewayRateLimitError && error.retryAfterSeconds !== undefined
          ? {retryAfter: error.retryAfterSeconds}
          : {},
      );
    }
    // 5xx, timeout, dropped connection, unreadable answer: the outcome is unknown. P-409:
    // the order id exists at the gateway (an earlier create of it landed): look it up.
    const level =
      error instanceof GatewayConflictError && (attempt.createCount ?? 1) === 1 ? 'error' : 'warn';
    this.log[level](
      {orderRef, gatewayOrderId, error: errorSummary(error)},
      'payment creation outcome unknown: reconciling',
    );
    const unknown = await writes.update(attempt.attemptId, (c) => markUnknown(c, this.cfg.now()));
    const settled = await this.d.reconciler.reconcileAttempt(unknown ?? attempt, {force: true});
    return {kind: 'settled', attempt: settled};
  }
}

/** The answer to an attempt id that another order already uses. */
export function attemptOfAnotherOrder(): CheckoutInvalidRequestError {
  return new CheckoutInvalidRequestError('this attemptId belongs to another order', {
    field: 'attemptId',
  });
}
