/**
 * The payment service behind the checkout routes: it decides, for each pay request,
 * webhook and status question, what is stored, what is asked of the gateway and what the
 * browser is told — so that no payment is lost and none is charged twice.
 *
 * - One attempt id → one gateway request: an in-process single-flight map joins repeats,
 *   and the store's primary key joins repeats from other processes.
 * - One order → at most one live attempt (creating, unknown, init, pending, success):
 *   attempts of an order are serialised in-process, and the store inserts a new attempt
 *   only when the order has no live one, atomically.
 * - The attempt row is stored (`creating`) before the gateway is called; a webhook that
 *   overtakes the create response finds it.
 * - A create whose outcome is unknown (5xx, timeout, dropped connection, unreadable
 *   answer) leaves the attempt `unknown`; it is reconciled by looking its `order_id` up.
 *   A 404 counts as "never created" only once `notFoundAfterMs` has passed since the
 *   request was sent, because a slow gateway may still create it.
 * - Every status change is written with an outbox entry in one transaction; the outbox
 *   is delivered to `onPaymentUpdate` in order, after the write, and again after a crash.
 */
import {createHash} from 'node:crypto';
import type {Logger} from 'pino';
import type {PayRequest, PayResponse, StatusResponse} from '../../protocol/checkout.js';
import {
  GatewayAuthenticationError,
  GatewayConflictError,
  GatewayMethodError,
  GatewayNotFoundError,
  GatewayRateLimitError,
  GatewayValidationError,
  RequestValidationError,
  WebhookDecodeError,
  WebhookSignatureError,
} from '../gateway/errors.js';
import type {CheckedPaymentRequest, CreatePaymentResult} from '../gateway/client.js';
import type {
  DirectPaymentRequestInput,
  HostedPaymentRequestInput,
  TransactionRecord,
  WebhookPayload,
} from '../gateway/schemas.js';
import {parseWebhookForm, verifyWebhookText} from '../gateway/webhook.js';
import {
  ForbiddenError,
  GatewayUnavailableCheckoutError,
  InternalCheckoutError,
  InvalidRequestError,
  NotFoundError,
} from './errors.js';
import {
  buildDirectRequest,
  buildHostedRequest,
  newGatewayOrderId,
  validateDirectRequest,
  validateHostedRequest,
  type ResolvedOrder,
} from './request.js';
import {
  LIVE_STATES,
  UNSETTLED_STATES,
  type AttemptRecord,
  type NewPaymentUpdate,
  type PaymentStore,
  type PaymentUpdate,
  type WebhookEventInput,
} from './store.js';
import {
  applyGatewayStatus,
  isFinal,
  markChecked,
  markNotCreated,
  markUnknown,
  type GatewayStatusInfo,
} from './transition.js';

/** The part of `GatewayClient` the companion uses. */
export interface CheckoutGateway {
  readonly posId: string;
  /** `checked` is the request's validation, already done before the attempt was stored. */
  createPayment(
    request: DirectPaymentRequestInput | HostedPaymentRequestInput,
    checked?: CheckedPaymentRequest,
  ): Promise<CreatePaymentResult>;
  getOperation(orderId: string, operation: string): Promise<TransactionRecord>;
}

/** Looks up what is charged for an order; `null` when the order does not exist. */
export type ResolveOrder = (
  orderRef: string,
  request: Request,
) => ResolvedOrder | null | undefined | Promise<ResolvedOrder | null | undefined>;

export interface ServiceConfig {
  store: PaymentStore;
  gateway: CheckoutGateway;
  webhookSecret: string;
  resolveOrder: ResolveOrder;
  onPaymentUpdate: ((update: PaymentUpdate) => void | Promise<void>) | undefined;
  serverUrl: string;
  resultUrl: (orderRef: string) => string;
  order3dsBypass: string;
  statusCheck: {afterMs: number; minIntervalMs: number};
  notFoundAfterMs: number;
  webhookAllowedIps: readonly string[] | undefined;
  logger: Logger;
  now: () => number;
}

/** What the HTTP layer knows about a pay request. */
export interface PayContext {
  ip: string;
  accept: string | undefined;
  userAgent: string | undefined;
  request: Request;
}

/** Where a hosted payment request sends the customer. */
export type HostedResult =
  /** The gateway's checkout page (a new hosted payment, or the order's open one). */
  | {kind: 'redirect'; url: string}
  /** The order is already paid, or its payment is being settled: show the return page. */
  | {kind: 'settled'; response: PayResponse};

/** A pay answer, and whether this request produced a new failure (for the card-testing limiter). */
export interface PayResult {
  response: PayResponse;
  newFailure: boolean;
}

const PROCESSING_UNKNOWN =
  'We could not confirm the payment with the bank yet. Do not pay again: the status will be updated shortly.';
const PROCESSING_PENDING = 'The payment is being processed.';
const NOT_CREATED_CODE = 'not_created';
const NOT_CREATED_MESSAGE = 'The payment was not made and no money was taken. You can try again.';

function infoFromRecord(
  record: TransactionRecord | WebhookPayload,
  raw: string,
): GatewayStatusInfo {
  const r = record as Record<string, unknown>;
  const str = (k: string) =>
    typeof r[k] === 'string' && r[k] !== '' ? (r[k] as string) : undefined;
  const recurring = r['recurring'] as {id?: unknown} | null | undefined;
  const info: GatewayStatusInfo = {status: record.status, raw};
  const fields: [keyof GatewayStatusInfo, string | undefined][] = [
    ['statusCode', str('status_code')],
    ['statusDescription', str('status_description')],
    ['userActionUrl', str('user_action_url')],
    ['paymentId', str('payment_id')],
    ['cardMask', str('cc_mask')],
    ['cardToken', str('cc_token')],
    ['recurringId', typeof recurring?.id === 'string' ? recurring.id : undefined],
  ];
  for (const [k, v] of fields)
    if (v !== undefined) (info as unknown as Record<string, string>)[k] = v;
  return info;
}

/** The protocol answer for an attempt's current state. */
export function answerFor(a: AttemptRecord): PayResponse {
  switch (a.state) {
    case 'success':
      return {
        outcome: 'success',
        orderRef: a.orderRef,
        code: a.statusCode ?? '1000',
        message: a.statusDescription ?? 'Payment successful',
        ...(a.cardMask ? {cardMask: a.cardMask} : {}),
      };
    case 'failure':
      return a.failureReason === 'not_created'
        ? {
            outcome: 'failure',
            orderRef: a.orderRef,
            code: NOT_CREATED_CODE,
            message: NOT_CREATED_MESSAGE,
          }
        : {
            outcome: 'failure',
            orderRef: a.orderRef,
            code: a.statusCode ?? 'declined',
            message: a.statusDescription ?? 'The payment was declined.',
          };
    case 'init':
    case 'pending':
      return a.userActionUrl
        ? {outcome: '3ds_required', orderRef: a.orderRef, userActionUrl: a.userActionUrl}
        : {outcome: 'processing', orderRef: a.orderRef, message: PROCESSING_PENDING};
    default:
      return {outcome: 'processing', orderRef: a.orderRef, message: PROCESSING_UNKNOWN};
  }
}

/** The order's state for the status route, from its attempts. */
export function statusFor(orderRef: string, attempts: readonly AttemptRecord[]): StatusResponse {
  const pick = (...states: AttemptRecord['state'][]) =>
    attempts.filter((a) => states.includes(a.state)).at(-1);
  const success = pick('success');
  if (success) {
    return {
      orderRef,
      state: 'success',
      final: true,
      code: success.statusCode ?? '1000',
      message: success.statusDescription ?? 'Payment successful',
    };
  }
  const pending = pick('pending', 'init');
  if (pending) {
    return {
      orderRef,
      state: 'pending',
      final: false,
      message: PROCESSING_PENDING,
      ...(pending.userActionUrl ? {userActionUrl: pending.userActionUrl} : {}),
    };
  }
  if (pick('creating', 'unknown')) {
    return {orderRef, state: 'processing', final: false, message: PROCESSING_UNKNOWN};
  }
  const last = attempts.at(-1);
  if (last) {
    const answer = answerFor(last) as {code: string; message: string};
    return {orderRef, state: 'failure', final: true, code: answer.code, message: answer.message};
  }
  return {orderRef, state: 'none', final: false};
}

type Mutate = Parameters<PaymentStore['updateAttempt']>[1];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class PaymentService {
  private readonly cfg: ServiceConfig;
  private readonly log: Logger;
  /** Attempt id → the running pay call (single flight). */
  private readonly inflight = new Map<string, {orderRef: string; promise: Promise<PayResult>}>();
  /** Order ref → tail of the per-order queue. */
  private readonly orderLocks = new Map<string, Promise<void>>();
  /** Gateway order ids whose create call is in flight in this process. */
  private readonly creating = new Set<string>();
  /** Gateway order id → running reconciliation (single flight). */
  private readonly reconciling = new Map<string, Promise<AttemptRecord>>();
  /** Background work (return-route checks), awaited by `close()`. */
  private readonly background = new Set<Promise<unknown>>();
  private outboxRun: Promise<void> | undefined;
  private outboxAgain = false;
  private outboxTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(config: ServiceConfig) {
    this.cfg = config;
    this.log = config.logger;
  }

  // -------------------------------------------------------------------------------------
  // Pay
  // -------------------------------------------------------------------------------------

  /** Answers a pay request; repeats of the same attempt id share one gateway request. */
  pay(body: PayRequest, ctx: PayContext): Promise<PayResult> {
    const running = this.inflight.get(body.attemptId);
    if (running) {
      if (running.orderRef !== body.orderRef) return Promise.reject(this.attemptOfAnotherOrder());
      return running.promise.then((r) => ({response: r.response, newFailure: false}));
    }
    const promise = this.payOnce(body, ctx).finally(() => this.inflight.delete(body.attemptId));
    this.inflight.set(body.attemptId, {orderRef: body.orderRef, promise});
    return promise;
  }

  private attemptOfAnotherOrder(): InvalidRequestError {
    return new InvalidRequestError('this attemptId belongs to another order', {field: 'attemptId'});
  }

  private async payOnce(body: PayRequest, ctx: PayContext): Promise<PayResult> {
    // A known attempt is answered without waiting behind the order's other attempts. When
    // nothing holds the order's lock, the look-up under the lock is the only one needed.
    if (this.orderLocks.has(body.orderRef)) {
      const known = await this.cfg.store.getAttempt(body.attemptId);
      if (known) return this.answerKnown(known, body);
    }
    return this.withOrderLock(body.orderRef, () => this.startAttempt(body, ctx));
  }

  /** The answer for a pay request whose attempt is already stored. */
  private async answerKnown(known: AttemptRecord, body: PayRequest): Promise<PayResult> {
    if (known.orderRef !== body.orderRef) throw this.attemptOfAnotherOrder();
    const settled = await this.settle(known, true);
    return {response: answerFor(settled), newFailure: false};
  }

  private async withOrderLock<T>(orderRef: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.orderLocks.get(orderRef) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.orderLocks.set(orderRef, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.orderLocks.get(orderRef) === tail) this.orderLocks.delete(orderRef);
    }
  }

  /** Reconciles an unsettled attempt when needed, and returns its latest row. */
  private async settle(a: AttemptRecord, eager: boolean): Promise<AttemptRecord> {
    if (a.state === 'creating' || a.state === 'unknown') {
      return this.reconcile(a, {force: eager});
    }
    return a;
  }

  /**
   * The order's attempts after reconciling unknown ones, and the live attempt that
   * answers for the order, if any.
   */
  private async orderAttempts(
    orderRef: string,
  ): Promise<{attempts: AttemptRecord[]; live: AttemptRecord | undefined}> {
    let attempts = await this.cfg.store.listAttempts(orderRef);
    const open = attempts.filter((a) => a.state === 'creating' || a.state === 'unknown');
    if (open.length > 0) {
      for (const a of open) await this.reconcile(a, {force: true});
      attempts = await this.cfg.store.listAttempts(orderRef);
    }
    const live =
      attempts.find((a) => a.state === 'success') ??
      attempts.find((a) => LIVE_STATES.includes(a.state));
    return {attempts, live};
  }

  private async startAttempt(body: PayRequest, ctx: PayContext): Promise<PayResult> {
    const {store} = this.cfg;
    const {orderRef} = body;
    // Under the order lock: another attempt may have settled the order meanwhile.
    const again = await store.getAttempt(body.attemptId);
    if (again) return this.answerKnown(again, body);
    const {attempts: previous, live} = await this.orderAttempts(orderRef);
    if (live) return {response: answerFor(live), newFailure: false};

    const order = await this.cfg.resolveOrder(orderRef, ctx.request);
    if (!order) throw new NotFoundError('unknown order');

    const seq = (previous.at(-1)?.seq ?? 0) + 1;
    const gatewayOrderId = newGatewayOrderId(orderRef, seq);
    const built = buildDirectRequest(body, order, {
      posId: this.cfg.gateway.posId,
      gatewayOrderId,
      customerIp: ctx.ip,
      acceptHeader: ctx.accept,
      userAgent: ctx.userAgent,
      serverUrl: this.cfg.serverUrl,
      resultUrl: this.cfg.resultUrl(orderRef),
      order3dsBypass: this.cfg.order3dsBypass,
    });
    const valid = validateDirectRequest(built);
    if (!valid.ok) {
      if (valid.blame === 'browser') {
        throw new InvalidRequestError(`${valid.field}: ${valid.message}`, {field: valid.field});
      }
      this.log.error(
        {orderRef, issues: valid.issues},
        'the order from resolveOrder or the configuration gives an invalid gateway request',
      );
      throw new InternalCheckoutError(
        'this order cannot be paid because of a server configuration error',
      );
    }

    const now = this.cfg.now();
    const attempt: AttemptRecord = {
      attemptId: body.attemptId,
      orderRef,
      gatewayOrderId,
      seq,
      method: built.request.method,
      amount: valid.amountText,
      currency: built.request.currency,
      state: 'creating',
      createdAt: now,
      updatedAt: now,
      createSentAt: now,
    };
    const inserted = await store.insertAttempt(attempt);
    if (!inserted.inserted) {
      // Another process won the race for this order or this attempt id.
      if (inserted.existing.orderRef !== orderRef) throw this.attemptOfAnotherOrder();
      const settled = await this.settle(inserted.existing, true);
      return {response: answerFor(settled), newFailure: false};
    }
    this.log.info(
      {orderRef, attemptId: body.attemptId, gatewayOrderId, seq},
      'payment attempt stored',
    );

    let result: CreatePaymentResult;
    this.creating.add(gatewayOrderId);
    try {
      result = await this.cfg.gateway.createPayment(built.request, valid.checked);
    } catch (error) {
      this.creating.delete(gatewayOrderId);
      return this.createFailed(attempt, error);
    } finally {
      this.creating.delete(gatewayOrderId);
    }
    if (result.kind !== 'direct') {
      // Cannot happen for a direct request; keep the attempt open for reconciliation.
      this.log.error({gatewayOrderId}, 'the gateway answered a direct payment as hosted');
      const unknown = await this.updateAttempt(attempt.attemptId, (c) =>
        markUnknown(c, this.cfg.now()),
      );
      return {response: answerFor(unknown ?? attempt), newFailure: false};
    }
    const record = result.record;
    const updated = await store.updateAttempt(
      {attemptId: attempt.attemptId},
      this.outboxed((c) =>
        applyGatewayStatus(
          c,
          infoFromRecord(record, JSON.stringify(record)),
          this.cfg.now(),
          'create',
        ),
      ),
    );
    if (updated.outboxId !== undefined) this.kickOutbox();
    const final = updated.attempt ?? attempt;
    this.log.info(
      {orderRef, gatewayOrderId, state: final.state, statusCode: final.statusCode},
      'payment attempt answered',
    );
    return {
      response: answerFor(final),
      newFailure: final.state === 'failure' && final.failureReason === 'declined',
    };
  }

  /**
   * Creates a hosted payment for an order (the customer pays on the gateway's page) and
   * answers where to send the customer: the gateway's checkout page, or — when the order
   * is paid or its payment is still being settled — the return page. An order's open
   * hosted payment is reused, so a double click or a second tab makes no second payment.
   */
  payHosted(
    orderRef: string,
    ctx: {request: Request; orderTimeout?: number | undefined; language?: string | undefined},
  ): Promise<HostedResult> {
    return this.withOrderLock(orderRef, async () => {
      const {attempts: previous, live} = await this.orderAttempts(orderRef);
      if (live) {
        if ((live.state === 'init' || live.state === 'pending') && live.userActionUrl) {
          return {kind: 'redirect', url: live.userActionUrl};
        }
        return {kind: 'settled', response: answerFor(live)};
      }
      const order = await this.cfg.resolveOrder(orderRef, ctx.request);
      if (!order) throw new NotFoundError('unknown order');
      const seq = (previous.at(-1)?.seq ?? 0) + 1;
      const gatewayOrderId = newGatewayOrderId(orderRef, seq);
      const request = buildHostedRequest(order, {
        posId: this.cfg.gateway.posId,
        gatewayOrderId,
        serverUrl: this.cfg.serverUrl,
        resultUrl: this.cfg.resultUrl(orderRef),
        order3dsBypass: this.cfg.order3dsBypass,
        orderTimeout: ctx.orderTimeout,
        language: ctx.language,
      });
      const valid = validateHostedRequest(request);
      if (!valid.ok) {
        this.log.error(
          {orderRef, issues: valid.issues},
          'the order from resolveOrder or the configuration gives an invalid hosted request',
        );
        throw new InternalCheckoutError(
          'this order cannot be paid because of a server configuration error',
        );
      }
      const now = this.cfg.now();
      const attempt: AttemptRecord = {
        attemptId: `hosted-${gatewayOrderId}`,
        orderRef,
        gatewayOrderId,
        seq,
        method: request.method,
        amount: valid.amountText,
        currency: request.currency,
        state: 'creating',
        createdAt: now,
        updatedAt: now,
        createSentAt: now,
      };
      const inserted = await this.cfg.store.insertAttempt(attempt);
      if (!inserted.inserted) {
        const existing = await this.settle(inserted.existing, true);
        return existing.userActionUrl && !isFinal(existing.state)
          ? {kind: 'redirect', url: existing.userActionUrl}
          : {kind: 'settled', response: answerFor(existing)};
      }
      this.log.info({orderRef, gatewayOrderId, seq}, 'hosted payment attempt stored');
      let result: CreatePaymentResult;
      this.creating.add(gatewayOrderId);
      try {
        result = await this.cfg.gateway.createPayment(request, valid.checked);
      } catch (error) {
        this.creating.delete(gatewayOrderId);
        const failed = await this.createFailed(attempt, error);
        return {kind: 'settled', response: failed.response};
      } finally {
        this.creating.delete(gatewayOrderId);
      }
      if (result.kind !== 'hosted') {
        this.log.error({gatewayOrderId}, 'the gateway answered a hosted payment as direct');
        const unknown = await this.updateAttempt(attempt.attemptId, (c) =>
          markUnknown(c, this.cfg.now()),
        );
        return {kind: 'settled', response: answerFor(unknown ?? attempt)};
      }
      const record = result.record;
      const info: GatewayStatusInfo = record
        ? {...infoFromRecord(record, JSON.stringify(record)), userActionUrl: result.checkoutUrl}
        : {
            status: 'init',
            userActionUrl: result.checkoutUrl,
            raw: JSON.stringify({mode: 'hosted', order_id: gatewayOrderId, status: 'init'}),
          };
      const updated = await this.cfg.store.updateAttempt(
        {attemptId: attempt.attemptId},
        this.outboxed((c) => applyGatewayStatus(c, info, this.cfg.now(), 'create')),
      );
      if (updated.outboxId !== undefined) this.kickOutbox();
      const current = updated.attempt ?? attempt;
      this.log.info(
        {orderRef, gatewayOrderId, state: current.state},
        'hosted payment created: customer sent to the gateway',
      );
      return current.userActionUrl && !isFinal(current.state)
        ? {kind: 'redirect', url: current.userActionUrl}
        : {kind: 'settled', response: answerFor(current)};
    });
  }

  /**
   * Without an `onPaymentUpdate` hook there is nobody to notify: drop the update so no
   * outbox row is written for it.
   */
  private outboxed(mutate: Mutate): Mutate {
    if (this.cfg.onPaymentUpdate) return mutate;
    return (current) => {
      const m = mutate(current);
      return m && {patch: m.patch};
    };
  }

  private async updateAttempt(
    attemptId: string,
    mutate: Mutate,
  ): Promise<AttemptRecord | undefined> {
    const r = await this.cfg.store.updateAttempt({attemptId}, this.outboxed(mutate));
    if (r.outboxId !== undefined) this.kickOutbox();
    return r.attempt;
  }

  /** A create call failed: decide between "not created" and "unknown", and answer. */
  private async createFailed(attempt: AttemptRecord, error: unknown): Promise<PayResult> {
    const {gatewayOrderId, orderRef} = attempt;
    const refused =
      error instanceof GatewayValidationError ||
      error instanceof GatewayAuthenticationError ||
      error instanceof GatewayMethodError ||
      error instanceof GatewayRateLimitError ||
      error instanceof RequestValidationError;
    if (refused) {
      const code = (error as {gatewayCode?: string}).gatewayCode ?? (error as {code: string}).code;
      const fields = {orderRef, gatewayOrderId, error: errorSummary(error)};
      await this.updateAttempt(attempt.attemptId, (c) =>
        markNotCreated(
          c,
          this.cfg.now(),
          code,
          'The payment request was refused by the payment gateway.',
        ),
      );
      if (error instanceof GatewayValidationError) {
        this.log.warn(fields, 'the gateway refused the payment request');
        return {
          response: {
            outcome: 'failure',
            orderRef,
            code,
            message:
              'The payment was refused. No money was taken; check the card details and try again.',
          },
          newFailure: true,
        };
      }
      this.log.error(
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
    // 5xx, timeout, dropped connection, unreadable answer, P-409: the outcome is unknown.
    const level = error instanceof GatewayConflictError ? 'error' : 'warn';
    this.log[level](
      {orderRef, gatewayOrderId, error: errorSummary(error)},
      'payment creation outcome unknown: reconciling',
    );
    const unknown = await this.updateAttempt(attempt.attemptId, (c) =>
      markUnknown(c, this.cfg.now()),
    );
    const settled = await this.reconcile(unknown ?? attempt, {force: true});
    return {
      response: answerFor(settled),
      newFailure: settled.state === 'failure' && settled.failureReason === 'declined',
    };
  }

  // -------------------------------------------------------------------------------------
  // Reconciliation
  // -------------------------------------------------------------------------------------

  /**
   * Asks the gateway for an attempt's state (operation lookup by its gateway `order_id`)
   * and stores the answer. `force` skips the `minIntervalMs` limit. Never reconciles an
   * attempt whose create call is still running in this process.
   */
  reconcile(attempt: AttemptRecord, opts: {force?: boolean} = {}): Promise<AttemptRecord> {
    if (this.creating.has(attempt.gatewayOrderId) || isFinal(attempt.state)) {
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
    const running = this.reconciling.get(attempt.gatewayOrderId);
    if (running) return running;
    const promise = this.reconcileOnce(attempt).finally(() =>
      this.reconciling.delete(attempt.gatewayOrderId),
    );
    this.reconciling.set(attempt.gatewayOrderId, promise);
    return promise;
  }

  private async reconcileOnce(attempt: AttemptRecord): Promise<AttemptRecord> {
    const {store, gateway} = this.cfg;
    const key = {attemptId: attempt.attemptId};
    const checkedAt = this.cfg.now();
    let current =
      (await store.updateAttempt(key, (c) => markChecked(c, checkedAt))).attempt ?? attempt;
    let record: TransactionRecord;
    try {
      record = await gateway.getOperation(attempt.gatewayOrderId, attempt.method);
    } catch (error) {
      const now = this.cfg.now();
      if (error instanceof GatewayNotFoundError) {
        const sentAt = current.createSentAt ?? current.createdAt;
        if (
          (current.state === 'creating' || current.state === 'unknown') &&
          now - sentAt >= this.cfg.notFoundAfterMs
        ) {
          this.log.info(
            {orderRef: current.orderRef, gatewayOrderId: current.gatewayOrderId},
            'the gateway does not know the order: the payment was not created',
          );
          return (
            (await this.updateAttempt(current.attemptId, (c) =>
              markNotCreated(c, now, NOT_CREATED_CODE, NOT_CREATED_MESSAGE),
            )) ?? current
          );
        }
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
      if (current.state === 'creating') {
        current =
          (await this.updateAttempt(current.attemptId, (c) => markUnknown(c, now))) ?? current;
      }
      return current;
    }
    const r = await store.updateAttempt(
      key,
      this.outboxed((c) =>
        applyGatewayStatus(
          c,
          infoFromRecord(record, JSON.stringify(record)),
          this.cfg.now(),
          'lookup',
        ),
      ),
    );
    if (r.outboxId !== undefined) this.kickOutbox();
    const next = r.attempt ?? current;
    if (r.changed) {
      this.log.info(
        {orderRef: next.orderRef, gatewayOrderId: next.gatewayOrderId, state: next.state},
        'payment reconciled',
      );
    }
    return next;
  }

  // -------------------------------------------------------------------------------------
  // Status and return
  // -------------------------------------------------------------------------------------

  /** The order's state from the store; asks the gateway about attempts that stay open too long. */
  async status(orderRef: string, request: Request): Promise<StatusResponse> {
    const {store} = this.cfg;
    let attempts = await store.listAttempts(orderRef);
    if (attempts.length === 0) {
      const order = await this.cfg.resolveOrder(orderRef, request);
      if (!order) throw new NotFoundError('unknown order');
      return statusFor(orderRef, attempts);
    }
    const due = attempts.filter((a) => this.checkDue(a));
    if (due.length > 0) {
      await Promise.all(due.map((a) => this.reconcile(a)));
      attempts = await store.listAttempts(orderRef);
    }
    return statusFor(orderRef, attempts);
  }

  /** True when an open attempt has gone without news long enough to ask the gateway. */
  private checkDue(a: AttemptRecord, ignoreAfter = false): boolean {
    if (isFinal(a.state) || this.creating.has(a.gatewayOrderId)) return false;
    const now = this.cfg.now();
    const {afterMs, minIntervalMs} = this.cfg.statusCheck;
    if (a.lastCheckAt !== undefined && now - a.lastCheckAt < minIntervalMs) return false;
    if (a.state === 'creating' || a.state === 'unknown' || ignoreAfter) return true;
    return now - Math.max(a.createdAt, a.lastGatewayAt ?? 0) >= afterMs;
  }

  /**
   * The customer came back from 3-D Secure: check the order's open attempts in the
   * background (rate-limited), so the return page's first status question finds news.
   */
  customerReturned(orderRef: string): void {
    if (this.closed) return;
    const task = (async () => {
      const attempts = await this.cfg.store.listAttempts(orderRef);
      await Promise.all(
        attempts.filter((a) => this.checkDue(a, true)).map((a) => this.reconcile(a)),
      );
    })().catch((error: unknown) =>
      this.log.warn({orderRef, error: errorSummary(error)}, 'return check failed'),
    );
    this.background.add(task);
    void task.finally(() => this.background.delete(task));
  }

  // -------------------------------------------------------------------------------------
  // Webhooks
  // -------------------------------------------------------------------------------------

  /** True when webhooks from `ip` are accepted (always, without an allow-list). */
  webhookSourceAllowed(ip: string | undefined): boolean {
    const list = this.cfg.webhookAllowedIps;
    return !list || (ip !== undefined && list.includes(ip));
  }

  /** Records a refused webhook (its body only as a hash). */
  async rejectWebhook(ip: string | undefined, reason: string, body: string): Promise<void> {
    await this.cfg.store.recordRejectedWebhook({
      receivedAt: this.cfg.now(),
      ip: ip ?? 'unknown',
      reason,
      bodySha256: sha256(body),
      size: Buffer.byteLength(body),
    });
    this.log.warn({ip, reason, size: Buffer.byteLength(body)}, 'webhook refused');
  }

  /**
   * Verifies a webhook on its raw `data`, stores it and applies it. Resolves once it is
   * durably stored (then the route acknowledges it); throws `ForbiddenError` for a bad
   * signature (after recording it).
   */
  async webhook(rawBody: string, ip: string | undefined): Promise<void> {
    const form = parseWebhookForm(rawBody);
    let payload: WebhookPayload;
    let raw: string;
    const now = this.cfg.now();
    const base = {eventKey: sha256(form.data), receivedAt: now, data: form.data};
    try {
      ({payload, json: raw} = verifyWebhookText(form, this.cfg.webhookSecret));
    } catch (error) {
      if (error instanceof WebhookSignatureError) {
        await this.rejectWebhook(ip, 'bad_signature', rawBody);
        throw new ForbiddenError('the webhook signature is not valid');
      }
      if (error instanceof WebhookDecodeError) {
        // Signed by the gateway but not a payload we know: keep it, acknowledge it.
        const stored = await this.cfg.store.recordEvent({...base, kind: 'undecodable'});
        this.log.warn(
          {stored, error: error.message},
          'signed webhook with an unknown payload kept',
        );
        return;
      }
      throw error;
    }
    const event: WebhookEventInput = {
      ...base,
      kind: payload.kind,
      gatewayOrderId: payload.order_id,
      status: payload.status,
    };
    const logFields = {
      gatewayOrderId: payload.order_id,
      kind: payload.kind,
      status: payload.status,
    };

    if (payload.kind === 'primary' || payload.kind === 'subscription_charge') {
      // Only a subscription charge needs the attempt to tell a first charge from a renewal.
      const attempt =
        payload.kind === 'primary'
          ? undefined
          : await this.cfg.store.getAttemptByGatewayOrderId(payload.order_id);
      const isInitial =
        payload.kind === 'primary' ||
        !attempt ||
        attempt.paymentId === payload.payment_id ||
        (attempt.paymentId === undefined && !isFinal(attempt.state));
      if (isInitial) {
        const info = infoFromRecord(payload, raw);
        const r = await this.cfg.store.updateAttempt(
          {gatewayOrderId: payload.order_id},
          this.outboxed((c) => applyGatewayStatus(c, info, now, 'webhook')),
          event,
        );
        if (r.outboxId !== undefined) this.kickOutbox();
        if (r.duplicateEvent) this.log.info(logFields, 'duplicate webhook ignored');
        else if (!r.attempt)
          this.log.warn(logFields, 'webhook for an order this app did not create');
        else
          this.log.info(
            {...logFields, state: r.attempt.state, changed: r.changed},
            'webhook applied',
          );
        return;
      }
      await this.recordOperation(attempt, payload, raw, event, 'subscription_charge');
      return;
    }
    const attempt = await this.cfg.store.getAttemptByGatewayOrderId(payload.order_id);
    if (!attempt) {
      await this.cfg.store.recordEvent(event);
      this.log.warn(logFields, 'operation webhook for an order this app did not create');
      return;
    }
    await this.recordOperation(attempt, payload, raw, event, payload.kind);
  }

  private async recordOperation(
    attempt: AttemptRecord,
    payload: WebhookPayload,
    raw: string,
    event: WebhookEventInput,
    kind: 'capture' | 'void' | 'refund' | 'subscription_charge',
  ): Promise<void> {
    const p = payload as Record<string, unknown>;
    const operationId = String(
      p['operation_id'] ??
        p['transaction_id'] ??
        `${String(p['payment_id'])}:${String(p['created_at'])}`,
    );
    const now = this.cfg.now();
    const statusCode = typeof p['status_code'] === 'string' ? p['status_code'] : undefined;
    const amount =
      p['amount'] === undefined || p['amount'] === null ? undefined : String(p['amount']);
    const currency = typeof p['currency'] === 'string' ? p['currency'] : undefined;
    const recurring = p['recurring'] as {id?: string} | undefined;
    const update: NewPaymentUpdate = {
      kind,
      orderRef: attempt.orderRef,
      attemptId: attempt.attemptId,
      gatewayOrderId: attempt.gatewayOrderId,
      state: payload.status,
      operationId,
      source: 'webhook',
      at: new Date(now).toISOString(),
      ...(statusCode ? {statusCode} : {}),
      ...(typeof p['status_description'] === 'string'
        ? {statusDescription: p['status_description']}
        : {}),
      ...(typeof p['payment_id'] === 'string' ? {paymentId: p['payment_id']} : {}),
      ...(amount ? {amount} : {}),
      ...(currency ? {currency} : {}),
      ...(recurring?.id ? {recurringId: recurring.id} : {}),
    };
    const r = await this.cfg.store.recordOperation(
      {
        gatewayOrderId: attempt.gatewayOrderId,
        orderRef: attempt.orderRef,
        kind,
        operationId,
        status: payload.status,
        ...(statusCode ? {statusCode} : {}),
        ...(amount ? {amount} : {}),
        ...(currency ? {currency} : {}),
        raw,
        createdAt: now,
      },
      update,
      event,
    );
    if (r.outboxId !== undefined) this.kickOutbox();
    this.log.info(
      {
        gatewayOrderId: attempt.gatewayOrderId,
        kind,
        status: payload.status,
        duplicate: !r.inserted,
      },
      'operation webhook recorded',
    );
  }

  // -------------------------------------------------------------------------------------
  // Outbox
  // -------------------------------------------------------------------------------------

  /** Starts delivering the outbox, unless a delivery run is already going. */
  kickOutbox(): void {
    if (this.closed) return;
    if (this.outboxRun) {
      this.outboxAgain = true;
      return;
    }
    this.outboxRun = this.drainOutbox().finally(() => {
      this.outboxRun = undefined;
    });
  }

  private async drainOutbox(): Promise<void> {
    const {store, onPaymentUpdate} = this.cfg;
    for (;;) {
      this.outboxAgain = false;
      let entries;
      try {
        entries = await store.pendingOutbox(100);
      } catch (error) {
        this.log.error({error: errorSummary(error)}, 'reading the outbox failed');
        return;
      }
      for (const entry of entries) {
        if (this.closed) return;
        try {
          if (onPaymentUpdate) await onPaymentUpdate(entry.update);
        } catch (error) {
          await store.markOutboxFailed(entry.id).catch(() => undefined);
          const delay = Math.min(60_000, 1000 * 2 ** Math.min(entry.failures, 6));
          this.log.error(
            {
              updateId: entry.update.updateId,
              orderRef: entry.update.orderRef,
              retryInMs: delay,
              error: errorSummary(error),
            },
            'onPaymentUpdate failed: will retry',
          );
          this.scheduleOutboxRetry(delay);
          return;
        }
        await store.markOutboxDelivered(entry.id, this.cfg.now());
      }
      if (entries.length === 0 && !this.outboxAgain) return;
    }
  }

  private scheduleOutboxRetry(delay: number): void {
    if (this.outboxTimer || this.closed) return;
    this.outboxTimer = setTimeout(() => {
      this.outboxTimer = undefined;
      this.kickOutbox();
    }, delay);
    this.outboxTimer.unref?.();
  }

  /** Resolves once the outbox is empty or a delivery failed (it is then retried later). */
  async flushOutbox(): Promise<void> {
    this.kickOutbox();
    while (this.outboxRun) await this.outboxRun;
  }

  // -------------------------------------------------------------------------------------
  // Start-up and shutdown
  // -------------------------------------------------------------------------------------

  /**
   * Reconciles every attempt that is not settled: `creating` ones left by a crash become
   * `unknown` and are looked up, open ones are looked up, and the outbox is delivered.
   */
  async reconcileOpen(opts: {force?: boolean} = {}): Promise<{checked: number; unknown: number}> {
    const open = await this.cfg.store.listAttemptsInStates(UNSETTLED_STATES);
    let unknown = 0;
    for (const a of open) {
      if (this.creating.has(a.gatewayOrderId)) continue;
      try {
        const settled = await this.reconcile(a, {force: opts.force ?? true});
        if (settled.state === 'creating' || settled.state === 'unknown') unknown++;
      } catch (error) {
        unknown++;
        this.log.warn(
          {gatewayOrderId: a.gatewayOrderId, error: errorSummary(error)},
          'reconcile failed',
        );
      }
    }
    return {checked: open.length, unknown};
  }

  async recover(): Promise<{checked: number; unknown: number}> {
    const crashed = await this.cfg.store.listAttemptsInStates(['creating']);
    for (const a of crashed) {
      if (this.creating.has(a.gatewayOrderId)) continue;
      await this.updateAttempt(a.attemptId, (c) => markUnknown(c, this.cfg.now()));
    }
    const result = await this.reconcileOpen({force: true});
    await this.flushOutbox();
    this.log.info({...result, crashed: crashed.length}, 'recovery done');
    return result;
  }

  /** Waits for in-flight work; afterwards nothing new is started. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.inflight.values()].map((f) => f.promise));
    await Promise.allSettled([...this.background]);
    while (this.outboxRun) await this.outboxRun.catch(() => undefined);
    this.closed = true;
    if (this.outboxTimer) clearTimeout(this.outboxTimer);
  }
}

/** An error reduced to what is safe to log: its class, code and message. */
export function errorSummary(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const e = error as Error & {code?: unknown; status?: unknown};
    return {
      type: e.name,
      ...(typeof e.code === 'string' ? {code: e.code} : {}),
      ...(typeof e.status === 'number' ? {status: e.status} : {}),
      message: e.message,
    };
  }
  return {type: typeof error};
}
