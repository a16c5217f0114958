/**
 * The one attempt path that direct and hosted pay share (the caller holds the order's
 * lock): settle the order's attempts; answer with its live attempt if it has one; else
 * store a new `creating` attempt — or, after an unknown outcome, re-send the create with
 * the SAME gateway `order_id` — then send the create and store its answer.
 *
 * - The attempt is stored before the gateway is called, so a webhook that overtakes the
 *   create answer finds it; the store inserts it only when the order has no live attempt.
 * - The gateway `order_id` is the idempotency key: the gateway refuses a second payment
 *   for it (`P-409`). A create whose outcome is unknown (5xx, timeout, dropped connection,
 *   unreadable answer) leaves the attempt `unknown`: it is looked up, and paying again
 *   re-sends it with the same `order_id`, so at most one of them is charged. A fresh
 *   `order_id` is minted only once the previous attempt is final and failed, or written off.
 */
import type {PayFailure} from '../../../protocol/checkout.js';
import type {CardTestingAdmission} from '../card-testing.js';
import type {CheckedPaymentRequest, CreatePaymentResult} from '../../gateway/client/index.js';
import {
  GatewayConflictError,
  GatewayRateLimitError,
  GatewayUnavailableError,
  GatewayValidationError,
  isRefusal,
} from '../../gateway/errors.js';
import type {DirectPaymentRequestInput, HostedPaymentRequestInput} from '../../gateway/schemas.js';
import {
  CheckoutGatewayUnavailableError,
  CheckoutInvalidRequestError,
  CheckoutNotFoundError,
} from '../errors.js';
import {newGatewayOrderId, type ResolvedOrder} from '../request.js';
import {rateLimited} from '../velocity.js';
import {countedPayment} from '../../telemetry/payments.js';
import type {AttemptRecord, AttemptReservation} from '../store.js';
import {
  markNotCreated,
  markRecreating,
  markUnknown,
  type GatewayStatusInfo,
} from '../transition.js';
import {refusedAnswer} from './answers.js';
import type {AttemptWrites} from './attempt-writes.js';
import {errorSummary} from './background.js';
import {ServicePart, type ServiceConfig} from './config.js';
import type {CreatesInFlight} from './locks.js';
import type {Reconciler} from './reconcile.js';

export type AttemptConfig = Pick<
  ServiceConfig,
  'store' | 'gateway' | 'resolveOrder' | 'logger' | 'now'
>;

export interface AttemptsDeps {
  cfg: AttemptConfig;
  writes: AttemptWrites;
  reconciler: Reconciler;
  creates: CreatesInFlight;
}

/** A create request, built and checked, and what the attempt stores of it. */
export interface PreparedCreate {
  request: DirectPaymentRequestInput | HostedPaymentRequestInput;
  checked: CheckedPaymentRequest;
  method: AttemptRecord['method'];
  amount: string;
  currency: string;
  /** The customer who asked to save the card (see `saved-cards.ts`). */
  saveCardFor?: string | undefined;
}

/** What differs between a direct and a hosted attempt. */
export interface AttemptSpec {
  mode: 'direct' | 'hosted';
  orderRef: string;
  /** The HTTP request, for `resolveOrder`. */
  request: Request;
  /** The attempt id of a new attempt that gets `gatewayOrderId`. */
  newAttemptId(gatewayOrderId: string): string;
  /** Builds and checks the create request; throws the error to answer when it cannot. */
  prepare(order: ResolvedOrder, gatewayOrderId: string): PreparedCreate;
  /**
   * The card-testing limits each create takes (taken with a new attempt in one store
   * transaction; before a create sent again, on their own), with what the breaker's
   * admission asks (a named customer's budget while it is open); `undefined`: none.
   */
  reservation?(admitted: CardTestingAdmission): AttemptReservation | undefined;
  /**
   * Before the create is sent (a new attempt, or one sent again): throws the error to
   * answer when the shop-wide card-testing breaker does not admit it now; else answers
   * what the reservation must take besides. Required: every create sends a card towards
   * the gateway, so no path may leave the breaker out (issue 35: `/hosted` did).
   */
  admit(order: ResolvedOrder): Promise<CardTestingAdmission>;
  /** What the gateway's answer says; `undefined` when it is the other mode's answer. */
  statusInfo(result: CreatePaymentResult, gatewayOrderId: string): GatewayStatusInfo | undefined;
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
  async run(spec: AttemptSpec): Promise<AttemptOutcome> {
    const {store} = this.cfg;
    const {orderRef, mode} = spec;
    const {attempts: previous, state} = await this.d.reconciler.settledOrder(orderRef);
    const live = state.current;
    // Paid already: this request pays nothing (its attempt id is not the paid one's: the
    // callers answer a known attempt id before they get here).
    if (live?.state === 'success') return {kind: 'paid', attempt: live};
    // An unknown outcome is retried with the same order id; anything else live answers.
    if (live && live.state !== 'unknown') return {kind: 'current', attempt: live};

    const order = await this.cfg.resolveOrder(orderRef, spec.request);
    if (!order) throw new CheckoutNotFoundError('unknown order');
    const seq = live?.seq ?? (previous.at(-1)?.seq ?? 0) + 1;
    const gatewayOrderId = live?.gatewayOrderId ?? newGatewayOrderId(orderRef, seq);
    const prepared = spec.prepare(order, gatewayOrderId);

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
      const admitted = await spec.admit(order);
      const reservation = spec.reservation?.(admitted);
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
      return countedPayment(mode, orderRef, this.#send(r.attempt, prepared, spec));
    }

    const now = this.cfg.now();
    const attempt: AttemptRecord = {
      attemptId: spec.newAttemptId(gatewayOrderId),
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
    const admitted = await spec.admit(order);
    // The attempt and its card-testing counts in one transaction: both or neither.
    const reservation = spec.reservation?.(admitted);
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
    return countedPayment(mode, orderRef, this.#send(attempt, prepared, spec));
  }

  /** Sends a stored (`creating`) attempt's create request and stores the answer. */
  async #send(
    attempt: AttemptRecord,
    prepared: PreparedCreate,
    spec: AttemptSpec,
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
    const info = spec.statusInfo(result, gatewayOrderId);
    if (!info) {
      // Cannot happen; keep the attempt open for reconciliation.
      this.log.error(
        {gatewayOrderId},
        `the gateway answered a ${spec.mode} payment as ${result.kind}`,
      );
      const unknown = await this.d.writes.update(attempt.attemptId, (c) =>
        markUnknown(c, this.cfg.now()),
      );
      return {kind: 'settled', attempt: unknown ?? attempt};
    }
    const current =
      (await this.d.writes.applyStatus({attemptId: attempt.attemptId}, info, 'create')).attempt ??
      attempt;
    this.log.info(
      {
        orderRef,
        gatewayOrderId,
        mode: spec.mode,
        state: current.state,
        statusCode: current.statusCode,
      },
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
