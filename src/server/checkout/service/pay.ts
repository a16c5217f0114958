/**
 * Pay: direct (card data from the card form) and hosted (the customer pays on the
 * gateway's page) share ONE attempt path — settle the order's attempts, answer with its
 * live one, or store a new `creating` attempt (or re-send an unknown one with the SAME
 * gateway `order_id`), send the create, store its answer — and differ only in how the
 * request is built, whether card-testing limits apply, and how the answer is told.
 *
 * - One attempt id → one gateway request: repeats of a running pay call join it
 *   (single flight); the store's primary key joins repeats from other processes.
 * - One order → at most one live attempt: an order's attempts run one at a time in this
 *   process, and the store inserts a new attempt only when the order has no live one.
 * - The attempt is stored before the gateway is called, so a webhook that overtakes the
 *   create answer finds it; a create whose outcome is unknown leaves it `unknown`, looked
 *   up, and re-sent with the same `order_id` when the customer pays again.
 */
import type {Logger} from 'pino';
import type {PayFailure, PayRequest} from '../../../protocol/checkout.js';
import type {CheckedPaymentRequest, CreatePaymentResult} from '../../gateway/client.js';
import {
  GatewayConflictError,
  GatewayRateLimitError,
  GatewayValidationError,
  isRefusal,
} from '../../gateway/errors.js';
import type {DirectPaymentRequestInput, HostedPaymentRequestInput} from '../../gateway/schemas.js';
import {
  GatewayUnavailableCheckoutError,
  InternalCheckoutError,
  InvalidRequestError,
  NotFoundError,
} from '../errors.js';
import {
  buildDirectRequest,
  buildHostedRequest,
  newGatewayOrderId,
  validateDirectRequest,
  validateHostedRequest,
  type ResolvedOrder,
} from '../request.js';
import type {AttemptRecord} from '../store.js';
import {
  markNotCreated,
  markRecreating,
  markUnknown,
  statusInfoFromRecord,
  type GatewayStatusInfo,
} from '../transition.js';
import {answerFor, hostedAnswer, refusedAnswer} from './answers.js';
import type {AttemptWrites} from './attempt-writes.js';
import {errorSummary} from './background.js';
import type {HostedResult, PayContext, PayResult, ServiceConfig} from './config.js';
import {CreatesInFlight, OrderLocks, SingleFlight} from './locks.js';
import type {Reconciler} from './reconcile.js';

export type PayConfig = Pick<
  ServiceConfig,
  | 'store'
  | 'gateway'
  | 'resolveOrder'
  | 'serverUrl'
  | 'resultUrl'
  | 'order3dsBypass'
  | 'velocity'
  | 'logger'
  | 'now'
>;

export interface PaymentsDeps {
  cfg: PayConfig;
  writes: AttemptWrites;
  reconciler: Reconciler;
  locks: OrderLocks;
  creates: CreatesInFlight;
}

/** A create request, built and checked, and what the attempt stores of it. */
interface PreparedCreate {
  request: DirectPaymentRequestInput | HostedPaymentRequestInput;
  checked: CheckedPaymentRequest;
  method: AttemptRecord['method'];
  amount: string;
  currency: string;
}

/** What differs between a direct and a hosted attempt. */
interface AttemptSpec {
  mode: 'direct' | 'hosted';
  orderRef: string;
  /** The HTTP request, for `resolveOrder`. */
  request: Request;
  /** The attempt id of a new attempt that gets `gatewayOrderId`. */
  newAttemptId(gatewayOrderId: string): string;
  /** Builds and checks the create request; throws the error to answer when it cannot. */
  prepare(order: ResolvedOrder, gatewayOrderId: string): PreparedCreate;
  /** Runs before each create is sent (card-testing limits). */
  beforeCreate?(): Promise<void>;
  /** What the gateway's answer says; `undefined` when it is the other mode's answer. */
  statusInfo(result: CreatePaymentResult, gatewayOrderId: string): GatewayStatusInfo | undefined;
}

/** How an attempt ended for this request. */
type AttemptOutcome =
  /** The order's attempt as it stands, or as the gateway just answered its create. */
  | {kind: 'current'; attempt: AttemptRecord}
  /** No create was answered (outcome unknown, or the order changed): its stored state. */
  | {kind: 'settled'; attempt: AttemptRecord}
  /** The gateway refused the request's data: nothing was charged. */
  | {kind: 'refused'; response: PayFailure};

export class Payments {
  readonly #d: PaymentsDeps;
  readonly #cfg: PayConfig;
  readonly #log: Logger;
  /** Attempt id → the running pay call (tagged with its order). */
  readonly #inflight = new SingleFlight<PayResult, string>();

  constructor(deps: PaymentsDeps) {
    this.#d = deps;
    this.#cfg = deps.cfg;
    this.#log = deps.cfg.logger;
  }

  /** Answers a pay request; repeats of the same attempt id share one gateway request. */
  pay(body: PayRequest, ctx: PayContext): Promise<PayResult> {
    const running = this.#inflight.get(body.attemptId);
    if (running && running.tag !== body.orderRef) return Promise.reject(attemptOfAnotherOrder());
    return this.#inflight.run(body.attemptId, () => this.#payOnce(body, ctx), body.orderRef);
  }

  /**
   * Creates a hosted payment for an order (the customer pays on the gateway's page) and
   * answers where to send the customer: the gateway's checkout page, or — when the order
   * is paid or its payment is still being settled — the return page. An order's open
   * hosted payment is reused, so a double click or a second tab makes no second payment;
   * after an unknown outcome the create is sent again with the same `order_id`.
   */
  payHosted(
    orderRef: string,
    ctx: {request: Request; orderTimeout?: number | undefined; language?: string | undefined},
  ): Promise<HostedResult> {
    return this.#d.locks.run(orderRef, async () => {
      const outcome = await this.#attempt({
        mode: 'hosted',
        orderRef,
        request: ctx.request,
        newAttemptId: (gatewayOrderId) => `hosted-${gatewayOrderId}`,
        prepare: (order, gatewayOrderId) => {
          const request = buildHostedRequest(order, {
            ...this.#orderContext(orderRef, gatewayOrderId),
            orderTimeout: ctx.orderTimeout,
            language: ctx.language,
          });
          const valid = validateHostedRequest(request);
          if (!valid.ok) throw this.#merchantError(orderRef, valid.issues);
          return {
            request,
            checked: valid.checked,
            method: request.method,
            amount: valid.amountText,
            currency: request.currency,
          };
        },
        statusInfo: (result, gatewayOrderId) => {
          if (result.kind !== 'hosted') return undefined;
          const url = result.checkoutUrl;
          return result.record
            ? {
                ...statusInfoFromRecord(result.record, JSON.stringify(result.record)),
                userActionUrl: url,
              }
            : {
                status: 'init',
                userActionUrl: url,
                raw: JSON.stringify({mode: 'hosted', order_id: gatewayOrderId, status: 'init'}),
              };
        },
      });
      if (outcome.kind === 'refused') return {kind: 'settled', response: outcome.response};
      if (outcome.kind === 'settled')
        return {kind: 'settled', response: answerFor(outcome.attempt)};
      return hostedAnswer(outcome.attempt);
    });
  }

  async #payOnce(body: PayRequest, ctx: PayContext): Promise<PayResult> {
    // A known attempt is answered without waiting behind the order's other attempts. When
    // nothing holds the order's lock, the look-up under the lock is the only one needed.
    if (this.#d.locks.busy(body.orderRef)) {
      const known = await this.#cfg.store.getAttempt(body.attemptId);
      if (known) return this.#answerKnown(known, body);
    }
    return this.#d.locks.run(body.orderRef, () => this.#payDirect(body, ctx));
  }

  /** The answer for a pay request whose attempt is already stored. */
  async #answerKnown(known: AttemptRecord, body: PayRequest): Promise<PayResult> {
    if (known.orderRef !== body.orderRef) throw attemptOfAnotherOrder();
    return {response: answerFor(await this.#d.reconciler.settle(known, true))};
  }

  async #payDirect(body: PayRequest, ctx: PayContext): Promise<PayResult> {
    const {orderRef} = body;
    // Under the order lock: another attempt may have settled the order meanwhile.
    const again = await this.#cfg.store.getAttempt(body.attemptId);
    if (again) return this.#answerKnown(again, body);
    const outcome = await this.#attempt({
      mode: 'direct',
      orderRef,
      request: ctx.request,
      newAttemptId: () => body.attemptId,
      prepare: (order, gatewayOrderId) => {
        const built = buildDirectRequest(body, order, {
          ...this.#orderContext(orderRef, gatewayOrderId),
          customerIp: ctx.ip,
          acceptHeader: ctx.accept,
          userAgent: ctx.userAgent,
        });
        const valid = validateDirectRequest(built);
        if (!valid.ok) {
          if (valid.blame === 'browser') {
            throw new InvalidRequestError(`${valid.field}: ${valid.message}`, {
              field: valid.field,
            });
          }
          throw this.#merchantError(orderRef, valid.issues);
        }
        return {
          request: built.request,
          checked: valid.checked,
          method: built.request.method,
          amount: valid.amountText,
          currency: built.request.currency,
        };
      },
      beforeCreate: () =>
        this.#cfg.velocity.reserve({ip: ctx.ip, orderRef, cardNumber: body.card.number}),
      statusInfo: (result) =>
        result.kind === 'direct'
          ? statusInfoFromRecord(result.record, JSON.stringify(result.record))
          : undefined,
    });
    return {response: outcome.kind === 'refused' ? outcome.response : answerFor(outcome.attempt)};
  }

  /** What both modes take from the app for a create. */
  #orderContext(orderRef: string, gatewayOrderId: string) {
    return {
      posId: this.#cfg.gateway.posId,
      gatewayOrderId,
      serverUrl: this.#cfg.serverUrl,
      resultUrl: this.#cfg.resultUrl(orderRef),
      order3dsBypass: this.#cfg.order3dsBypass,
    };
  }

  /** The order from `resolveOrder` or the configuration makes an invalid gateway request. */
  #merchantError(orderRef: string, issues: unknown): InternalCheckoutError {
    this.#log.error(
      {orderRef, issues},
      'the order from resolveOrder or the configuration gives an invalid gateway request',
    );
    return new InternalCheckoutError(
      'this order cannot be paid because of a server configuration error',
    );
  }

  /** The one attempt path (the caller holds the order's lock); see the module comment. */
  async #attempt(spec: AttemptSpec): Promise<AttemptOutcome> {
    const {store} = this.#cfg;
    const {orderRef, mode} = spec;
    const {attempts: previous, state} = await this.#d.reconciler.settledOrder(orderRef);
    const live = state.current;
    // An unknown outcome is retried with the same order id; anything else live answers.
    if (live && live.state !== 'unknown') return {kind: 'current', attempt: live};

    const order = await this.#cfg.resolveOrder(orderRef, spec.request);
    if (!order) throw new NotFoundError('unknown order');
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
        this.#log.warn(
          {orderRef, gatewayOrderId, mode},
          'the order changed while its payment is unknown: not paying again until it is settled',
        );
        return {kind: 'settled', attempt: live};
      }
      await spec.beforeCreate?.();
      const r = await this.#d.writes.write({attemptId: live.attemptId}, (c) =>
        markRecreating(c, this.#cfg.now()),
      );
      if (!r.changed || !r.attempt) return {kind: 'settled', attempt: r.attempt ?? live};
      this.#log.warn(
        {orderRef, gatewayOrderId, mode, createCount: r.attempt.createCount},
        'paying again after an unknown outcome: the create is sent again with the same order_id',
      );
      return this.#send(r.attempt, prepared, spec);
    }

    const now = this.#cfg.now();
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
    };
    await spec.beforeCreate?.();
    const inserted = await store.insertAttempt(attempt);
    if (!inserted.inserted) {
      // Another process won the race for this order or this attempt id.
      if (inserted.existing.orderRef !== orderRef) throw attemptOfAnotherOrder();
      return {kind: 'current', attempt: await this.#d.reconciler.settle(inserted.existing, true)};
    }
    this.#log.info(
      {orderRef, attemptId: attempt.attemptId, gatewayOrderId, seq, mode},
      'payment attempt stored',
    );
    return this.#send(attempt, prepared, spec);
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
      result = await this.#d.creates.run(gatewayOrderId, () =>
        this.#cfg.gateway.createPayment(prepared.request, prepared.checked),
      );
    } catch (error) {
      return this.#createFailed(attempt, error);
    }
    const info = spec.statusInfo(result, gatewayOrderId);
    if (!info) {
      // Cannot happen; keep the attempt open for reconciliation.
      this.#log.error(
        {gatewayOrderId},
        `the gateway answered a ${spec.mode} payment as ${result.kind}`,
      );
      const unknown = await this.#d.writes.update(attempt.attemptId, (c) =>
        markUnknown(c, this.#cfg.now()),
      );
      return {kind: 'settled', attempt: unknown ?? attempt};
    }
    const current =
      (await this.#d.writes.applyStatus({attemptId: attempt.attemptId}, info, 'create')).attempt ??
      attempt;
    this.#log.info(
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
    const {writes} = this.#d;
    if (isRefusal(error)) {
      const code = (error as {gatewayCode?: string}).gatewayCode ?? (error as {code: string}).code;
      const fields = {orderRef, gatewayOrderId, error: errorSummary(error)};
      // A refusal speaks for this request only: when an earlier create with this order id
      // had an unknown outcome, that one may still be charged, so the attempt stays open.
      const resent = (attempt.createCount ?? 1) > 1;
      await writes.update(attempt.attemptId, (c) =>
        resent
          ? markUnknown(c, this.#cfg.now())
          : markNotCreated(
              c,
              this.#cfg.now(),
              code,
              'The payment request was refused by the payment gateway.',
            ),
      );
      if (error instanceof GatewayValidationError) {
        this.#log.warn(fields, 'the gateway refused the payment request');
        return {kind: 'refused', response: refusedAnswer(orderRef, code)};
      }
      this.#log.error(
        fields,
        'the gateway refused the payment request (configuration or rate limit)',
      );
      throw new GatewayUnavailableCheckoutError(
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
    this.#log[level](
      {orderRef, gatewayOrderId, error: errorSummary(error)},
      'payment creation outcome unknown: reconciling',
    );
    const unknown = await writes.update(attempt.attemptId, (c) => markUnknown(c, this.#cfg.now()));
    const settled = await this.#d.reconciler.reconcile(unknown ?? attempt, {force: true});
    return {kind: 'settled', attempt: settled};
  }

  /** Waits for the running pay calls (shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled(this.#inflight.all());
  }
}

function attemptOfAnotherOrder(): InvalidRequestError {
  return new InvalidRequestError('this attemptId belongs to another order', {field: 'attemptId'});
}
