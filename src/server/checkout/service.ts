/**
 * The payment service behind the checkout routes: it decides, for each pay request,
 * webhook and status question, what is stored, what is asked of the gateway and what the
 * browser is told — so that no payment is lost and none is charged twice.
 *
 * - One attempt id → one gateway request: an in-process single-flight map joins repeats,
 *   and the store's primary key joins repeats from other processes.
 * - One order → at most one live attempt (creating, unknown, init, pending, success; not
 *   written off): attempts of an order are serialised in-process, and the store inserts a
 *   new attempt only when the order has no live one, atomically.
 * - The attempt row is stored (`creating`) before the gateway is called; a webhook that
 *   overtakes the create response finds it.
 * - The gateway `order_id` is the idempotency key: the gateway refuses a second payment
 *   for it (`P-409`). A create whose outcome is unknown (5xx, timeout, dropped connection,
 *   unreadable answer) leaves the attempt `unknown`: it is looked up, and when the customer
 *   pays again the create is re-sent with the SAME `order_id`, so at most one of them is
 *   charged. A 404 on the lookup never means "not created" (a slow gateway may still create
 *   it); a fresh `order_id` is minted only once the previous attempt is final and failed,
 *   or written off (a 3-D Secure challenge the customer abandoned, or one too old).
 * - Second line: an order whose second attempt succeeds anyway (an abandoned challenge
 *   completed later) is compensated — the later (or, by policy, the earlier) payment is
 *   refunded or voided exactly once, logged at error level and reported.
 * - Every status change is written with an outbox entry in one transaction; the outbox
 *   is delivered to `onPaymentUpdate` in order, after the write, and again after a crash.
 * - Card-testing limits are reserved in the store before each create (`velocity.ts`).
 */
import {createHash} from 'node:crypto';
import type {Logger} from 'pino';
import type {PayFailure, PayRequest, PayResponse, StatusResponse} from '../../protocol/checkout.js';
import {
  GatewayConflictError,
  GatewayNotFoundError,
  GatewayRateLimitError,
  GatewayValidationError,
  WebhookDecodeError,
  WebhookSignatureError,
  isRefusal,
} from '../gateway/errors.js';
import type {CheckedPaymentRequest, CreatePaymentResult} from '../gateway/client/index.js';
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
  SecondaryOperations,
  type OperationRequest,
  type OperationResult,
  type OperationsGateway,
} from './operations.js';
import {
  buildDirectRequest,
  buildHostedRequest,
  newGatewayOrderId,
  validateDirectRequest,
  validateHostedRequest,
  type ResolvedOrder,
} from './request.js';
import {
  UNSETTLED_STATES,
  isLiveAttempt,
  type AttemptRecord,
  type IntentKind,
  type NewPaymentUpdate,
  type PaymentStore,
  type PaymentUpdate,
  type UpdateAttemptResult,
  type WebhookEventInput,
} from './store.js';
import {
  applyGatewayStatus,
  isFinal,
  markChecked,
  markNotCreated,
  markRecreating,
  markUnknown,
  markWrittenOff,
  type GatewayStatusInfo,
} from './transition.js';
import type {AttemptVelocity} from './velocity.js';
import {amountToMinor, amountText} from '../gateway/primitives.js';

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

/** What happens when an order is charged twice (see `duplicateCharges`). */
export const DUPLICATE_CHARGE_POLICIES = ['refund-later', 'refund-earlier', 'alert-only'] as const;
export type DuplicateChargePolicy = (typeof DUPLICATE_CHARGE_POLICIES)[number];

/** Looks up what is charged for an order; `null` when the order does not exist. */
export type ResolveOrder = (
  orderRef: string,
  request: Request,
) => ResolvedOrder | null | undefined | Promise<ResolvedOrder | null | undefined>;

export interface ServiceConfig {
  store: PaymentStore;
  gateway: CheckoutGateway & Partial<OperationsGateway>;
  webhookSecret: string;
  resolveOrder: ResolveOrder;
  onPaymentUpdate: ((update: PaymentUpdate) => void | Promise<void>) | undefined;
  serverUrl: string;
  resultUrl: (orderRef: string) => string;
  order3dsBypass: string;
  statusCheck: {afterMs: number; minIntervalMs: number};
  /**
   * `abandonAfterMs`: a 3-D Secure attempt with no news this long stops blocking its order;
   * `expireAfterMs`: an open attempt this old is no longer looked up.
   */
  attempts: {abandonAfterMs: number; expireAfterMs: number};
  /** Background lookups of open attempts: how many at once, and the backoff per attempt. */
  sweep: {intervalMs: number; concurrency: number; initialBackoffMs: number; maxBackoffMs: number};
  duplicateCharges: DuplicateChargePolicy;
  velocity: AttemptVelocity;
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

/** A pay answer. (Card-testing limits are reserved before the gateway call: `velocity.ts`.) */
export interface PayResult {
  response: PayResponse;
}

const PROCESSING_UNKNOWN =
  'We could not confirm the payment with the bank yet: the status will be updated shortly.';
const PROCESSING_PENDING = 'The payment is being processed.';
const NOT_CREATED_CODE = 'not_created';
const NOT_CONFIRMED_CODE = 'not_confirmed';
const NOT_CONFIRMED_MESSAGE =
  'The bank did not confirm the payment in time. You can try again: this order cannot be charged twice.';
/**
 * How long another process's create may stay `creating` before a lookup that does not
 * find it makes it `unknown` (and so open to a re-send with the same `order_id`): longer
 * than a gateway client's timeout (30 s by default).
 */
const CREATE_GRACE_MS = 60_000;
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
      if (a.writtenOff) return writtenOffAnswer(a);
      return a.userActionUrl
        ? {outcome: '3ds_required', orderRef: a.orderRef, userActionUrl: a.userActionUrl}
        : {outcome: 'processing', orderRef: a.orderRef, message: PROCESSING_PENDING};
    case 'unknown':
      // Safe to retry: paying again re-sends the create with this attempt's order id, and
      // the gateway charges at most one of them. (Not "no money was taken": it may be.)
      return {
        outcome: 'failure',
        orderRef: a.orderRef,
        code: NOT_CONFIRMED_CODE,
        message: NOT_CONFIRMED_MESSAGE,
      };
    default:
      return {outcome: 'processing', orderRef: a.orderRef, message: PROCESSING_UNKNOWN};
  }
}

/** An open attempt that no longer blocks its order: the customer may pay again. */
function writtenOffAnswer(a: AttemptRecord): PayFailure {
  return {
    outcome: 'failure',
    orderRef: a.orderRef,
    code: a.writtenOff === 'abandoned' ? 'abandoned' : 'expired',
    message:
      a.writtenOff === 'abandoned'
        ? 'The payment was cancelled. You can try again.'
        : 'The payment was not completed in time. You can try again.',
  };
}

/** The order's state for the status route, from its attempts. */
export function statusFor(orderRef: string, attempts: readonly AttemptRecord[]): StatusResponse {
  const pick = (...states: AttemptRecord['state'][]) =>
    attempts
      .filter((a) => states.includes(a.state) && (a.state === 'success' || !a.writtenOff))
      .at(-1);
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
  /** The running sweep (never two at once). */
  private sweeping: Promise<SweepResult> | undefined;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  /** Start-up recovery running in the background (`start()`). */
  private recovering: Promise<unknown> | undefined;
  private started = false;
  private readonly operations: SecondaryOperations;
  /** The card-testing limits (the pay route counts invalid card data with it too). */
  readonly velocity: AttemptVelocity;

  constructor(config: ServiceConfig) {
    this.cfg = config;
    this.log = config.logger;
    this.velocity = config.velocity;
    const gateway = config.gateway;
    this.operations = new SecondaryOperations({
      store: config.store,
      gateway:
        typeof gateway.capture === 'function' &&
        typeof gateway.void === 'function' &&
        typeof gateway.refund === 'function' &&
        typeof gateway.getOrder === 'function'
          ? (gateway as OperationsGateway)
          : undefined,
      logger: config.logger,
      now: config.now,
      withOrderLock: (orderRef, fn) => this.withOrderLock(orderRef, fn),
      notify: (update) => (this.cfg.onPaymentUpdate ? update : undefined),
      kickOutbox: () => this.kickOutbox(),
    });
  }

  /** Runs `task` without awaiting it; `close()` waits for it. Failures are logged. */
  private inBackground(task: Promise<unknown>): void {
    const tracked = task.catch((error: unknown) =>
      this.log.error({error: errorSummary(error)}, 'background task failed'),
    );
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  // -------------------------------------------------------------------------------------
  // Secondary operations and double charges
  // -------------------------------------------------------------------------------------

  /** Captures a held payment, exactly once per `key` (see `operations.ts`). */
  operate(kind: IntentKind, request: OperationRequest): Promise<OperationResult> {
    return this.operations.run(kind, request);
  }

  /**
   * The order-level invariant's second line: when an order has more than one successful
   * payment (a challenge the customer abandoned and completed later, say), every one but
   * the kept one is refunded (a hold: voided), exactly once, by the `duplicateCharges`
   * policy. Each is logged at error level and reported to `onPaymentUpdate`.
   */
  async checkDuplicates(orderRef: string): Promise<void> {
    const successes = (await this.cfg.store.listAttempts(orderRef))
      .filter((a) => a.state === 'success')
      .sort((a, b) => a.updatedAt - b.updatedAt || a.seq - b.seq);
    if (successes.length < 2) return;
    const policy = this.cfg.duplicateCharges;
    const keep = policy === 'refund-earlier' ? successes.at(-1)! : successes[0]!;
    for (const a of successes) {
      if (a === keep) continue;
      this.log.error(
        {orderRef, kept: keep.gatewayOrderId, duplicate: a.gatewayOrderId, policy},
        'order charged twice',
      );
      if (policy === 'alert-only') continue;
      try {
        const r = await this.operations.compensate(a, keep);
        if (!r.repeated) {
          this.log.error(
            {orderRef, gatewayOrderId: a.gatewayOrderId, kind: r.kind, state: r.state},
            'double charge compensated automatically',
          );
        }
      } catch (error) {
        this.log.error(
          {orderRef, gatewayOrderId: a.gatewayOrderId, error: errorSummary(error)},
          'compensating a double charge failed: it is tried again by the next sweep',
        );
      }
    }
  }

  // -------------------------------------------------------------------------------------
  // Abandoned 3-D Secure
  // -------------------------------------------------------------------------------------

  /**
   * The customer cancelled the 3-D Secure challenge of `attemptId`: its attempt no longer
   * blocks the order, so paying again (another card) starts a new attempt with a new
   * `order_id` at once. The abandoned one is still settled by lookups; if it succeeds
   * after all, the double charge is compensated. Answers the order's status.
   */
  abandon(orderRef: string, attemptId: string): Promise<StatusResponse> {
    return this.withOrderLock(orderRef, async () => {
      const stored = await this.cfg.store.getAttempt(attemptId);
      if (!stored || stored.orderRef !== orderRef) throw new NotFoundError('unknown attempt');
      // The customer may have finished the challenge just before cancelling: ask first.
      const a =
        stored.state === 'init' || stored.state === 'pending'
          ? await this.reconcile(stored, {force: true}).catch(() => stored)
          : stored;
      const now = this.cfg.now();
      const written = await this.updateAttempt(a.attemptId, (c) =>
        markWrittenOff(c, now, 'abandoned'),
      );
      if (written?.writtenOff === 'abandoned' && written.writtenOffAt === now) {
        this.log.info(
          {orderRef, gatewayOrderId: a.gatewayOrderId},
          '3-D Secure abandoned by the customer: the order may be paid again',
        );
      }
      return statusFor(orderRef, await this.cfg.store.listAttempts(orderRef));
    });
  }

  // -------------------------------------------------------------------------------------
  // Pay
  // -------------------------------------------------------------------------------------

  /** Answers a pay request; repeats of the same attempt id share one gateway request. */
  pay(body: PayRequest, ctx: PayContext): Promise<PayResult> {
    const running = this.inflight.get(body.attemptId);
    if (running) {
      if (running.orderRef !== body.orderRef) return Promise.reject(this.attemptOfAnotherOrder());
      return running.promise;
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
    return {response: answerFor(settled)};
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
   * answers for the order, if any. A 3-D Secure attempt without news for
   * `attempts.abandonAfterMs` is written off here (`expired`): it no longer blocks the order.
   */
  private async orderAttempts(
    orderRef: string,
  ): Promise<{attempts: AttemptRecord[]; live: AttemptRecord | undefined}> {
    let attempts = await this.cfg.store.listAttempts(orderRef);
    const now = this.cfg.now();
    const open = attempts.filter((a) => a.state === 'creating' || a.state === 'unknown');
    const stale = attempts.filter(
      (a) =>
        (a.state === 'init' || a.state === 'pending') &&
        !a.writtenOff &&
        now - Math.max(a.createdAt, a.lastGatewayAt ?? 0) >= this.cfg.attempts.abandonAfterMs,
    );
    if (open.length > 0 || stale.length > 0) {
      for (const a of open) await this.reconcile(a, {force: true});
      for (const a of stale) {
        await this.updateAttempt(a.attemptId, (c) => markWrittenOff(c, now, 'expired'));
        this.log.info(
          {orderRef, gatewayOrderId: a.gatewayOrderId},
          '3-D Secure attempt without news for too long: the order may be paid again',
        );
      }
      attempts = await this.cfg.store.listAttempts(orderRef);
    }
    const live = attempts.find((a) => a.state === 'success') ?? attempts.find(isLiveAttempt);
    return {attempts, live};
  }

  private async startAttempt(body: PayRequest, ctx: PayContext): Promise<PayResult> {
    const {store} = this.cfg;
    const {orderRef} = body;
    // Under the order lock: another attempt may have settled the order meanwhile.
    const again = await store.getAttempt(body.attemptId);
    if (again) return this.answerKnown(again, body);
    const {attempts: previous, live} = await this.orderAttempts(orderRef);
    // An unknown outcome is retried with the same order id; anything else live answers.
    if (live && live.state !== 'unknown') return {response: answerFor(live)};

    const order = await this.cfg.resolveOrder(orderRef, ctx.request);
    if (!order) throw new NotFoundError('unknown order');

    const seq = live?.seq ?? (previous.at(-1)?.seq ?? 0) + 1;
    const gatewayOrderId = live?.gatewayOrderId ?? newGatewayOrderId(orderRef, seq);
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
    const subject = {ip: ctx.ip, orderRef, cardNumber: body.card.number};

    if (live) {
      // The earlier create's outcome is unknown: send this one with the SAME order id. The
      // gateway charges at most one of them (a second create gets P-409).
      if (
        live.method !== built.request.method ||
        live.amount !== valid.amountText ||
        live.currency !== built.request.currency
      ) {
        this.log.warn(
          {orderRef, gatewayOrderId},
          'the order changed while its payment is unknown: not paying again until it is settled',
        );
        return {response: answerFor(live)};
      }
      await this.cfg.velocity.reserve(subject);
      const r = await store.updateAttempt({attemptId: live.attemptId}, (c) =>
        markRecreating(c, this.cfg.now()),
      );
      if (!r.changed || !r.attempt) return {response: answerFor(r.attempt ?? live)};
      this.log.warn(
        {orderRef, gatewayOrderId, createCount: r.attempt.createCount},
        'paying again after an unknown outcome: the create is sent again with the same order_id',
      );
      return this.sendCreate(r.attempt, built.request, valid.checked);
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
      createCount: 1,
    };
    await this.cfg.velocity.reserve(subject);
    const inserted = await store.insertAttempt(attempt);
    if (!inserted.inserted) {
      // Another process won the race for this order or this attempt id.
      if (inserted.existing.orderRef !== orderRef) throw this.attemptOfAnotherOrder();
      const settled = await this.settle(inserted.existing, true);
      return {response: answerFor(settled)};
    }
    this.log.info(
      {orderRef, attemptId: body.attemptId, gatewayOrderId, seq},
      'payment attempt stored',
    );
    return this.sendCreate(attempt, built.request, valid.checked);
  }

  /** Sends a stored (`creating`) attempt's create request and stores the answer. */
  private async sendCreate(
    attempt: AttemptRecord,
    request: DirectPaymentRequestInput,
    checked: CheckedPaymentRequest,
  ): Promise<PayResult> {
    const {orderRef, gatewayOrderId} = attempt;
    let result: CreatePaymentResult;
    this.creating.add(gatewayOrderId);
    try {
      result = await this.cfg.gateway.createPayment(request, checked);
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
      return {response: answerFor(unknown ?? attempt)};
    }
    const record = result.record;
    const final =
      (await this.applyStatus(
        {attemptId: attempt.attemptId},
        infoFromRecord(record, JSON.stringify(record)),
        'create',
      )) ?? attempt;
    this.log.info(
      {orderRef, gatewayOrderId, state: final.state, statusCode: final.statusCode},
      'payment attempt answered',
    );
    return {
      response: answerFor(final),
    };
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
    return this.withOrderLock(orderRef, async () => {
      const {attempts: previous, live} = await this.orderAttempts(orderRef);
      if (live && live.state !== 'unknown') {
        if ((live.state === 'init' || live.state === 'pending') && live.userActionUrl) {
          return {kind: 'redirect', url: live.userActionUrl};
        }
        return {kind: 'settled', response: answerFor(live)};
      }
      const order = await this.cfg.resolveOrder(orderRef, ctx.request);
      if (!order) throw new NotFoundError('unknown order');
      const seq = live?.seq ?? (previous.at(-1)?.seq ?? 0) + 1;
      const gatewayOrderId = live?.gatewayOrderId ?? newGatewayOrderId(orderRef, seq);
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
      let attempt: AttemptRecord;
      if (live) {
        if (live.amount !== valid.amountText || live.currency !== request.currency) {
          return {kind: 'settled', response: answerFor(live)};
        }
        const r = await this.cfg.store.updateAttempt({attemptId: live.attemptId}, (c) =>
          markRecreating(c, this.cfg.now()),
        );
        if (!r.changed || !r.attempt) {
          return {kind: 'settled', response: answerFor(r.attempt ?? live)};
        }
        attempt = r.attempt;
        this.log.warn(
          {orderRef, gatewayOrderId},
          'hosted payment after an unknown outcome: sent again with the same order_id',
        );
      } else {
        const now = this.cfg.now();
        attempt = {
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
          createCount: 1,
        };
        const inserted = await this.cfg.store.insertAttempt(attempt);
        if (!inserted.inserted) {
          const existing = await this.settle(inserted.existing, true);
          return existing.userActionUrl && !isFinal(existing.state)
            ? {kind: 'redirect', url: existing.userActionUrl}
            : {kind: 'settled', response: answerFor(existing)};
        }
        this.log.info({orderRef, gatewayOrderId, seq}, 'hosted payment attempt stored');
      }
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
      const current =
        (await this.applyStatus({attemptId: attempt.attemptId}, info, 'create')) ?? attempt;
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

  /**
   * Applies what the gateway said (create answer, lookup, webhook) in one store
   * transaction, and looks for a second success of the order when this one succeeded.
   */
  private async applyStatusResult(
    key: {attemptId: string} | {gatewayOrderId: string},
    info: GatewayStatusInfo,
    source: 'create' | 'lookup' | 'webhook',
    event?: WebhookEventInput,
  ): Promise<UpdateAttemptResult> {
    const r = await this.cfg.store.updateAttempt(
      key,
      this.outboxed((c) => applyGatewayStatus(c, info, this.cfg.now(), source)),
      event,
    );
    if (r.outboxId !== undefined) this.kickOutbox();
    if (r.changed && r.attempt?.state === 'success')
      this.inBackground(this.checkDuplicates(r.attempt.orderRef));
    return r;
  }

  private async applyStatus(
    key: {attemptId: string} | {gatewayOrderId: string},
    info: GatewayStatusInfo,
    source: 'create' | 'lookup' | 'webhook',
  ): Promise<AttemptRecord | undefined> {
    return (await this.applyStatusResult(key, info, source)).attempt;
  }

  /** A create call failed: decide between "not created" and "unknown", and answer. */
  private async createFailed(attempt: AttemptRecord, error: unknown): Promise<PayResult> {
    const {gatewayOrderId, orderRef} = attempt;
    if (isRefusal(error)) {
      const code = (error as {gatewayCode?: string}).gatewayCode ?? (error as {code: string}).code;
      const fields = {orderRef, gatewayOrderId, error: errorSummary(error)};
      // A refusal speaks for this request only: when an earlier create with this order id
      // had an unknown outcome, that one may still be charged, so the attempt stays open.
      const resent = (attempt.createCount ?? 1) > 1;
      await this.updateAttempt(attempt.attemptId, (c) =>
        resent
          ? markUnknown(c, this.cfg.now())
          : markNotCreated(
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
    // 5xx, timeout, dropped connection, unreadable answer: the outcome is unknown. P-409:
    // the order id exists at the gateway (an earlier create of it landed): look it up.
    const level =
      error instanceof GatewayConflictError && (attempt.createCount ?? 1) === 1 ? 'error' : 'warn';
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
        // Never "not created": a slow gateway may still create it. The order id stays
        // this attempt's, so paying again re-sends it and cannot charge twice.
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
      // A `creating` attempt here is another process's create in flight (this process's
      // are skipped, and a crash's were made `unknown` by recovery): leave it to that
      // process for a while, so paying again does not re-send what is still being sent.
      const sentAt = current.createSentAt ?? current.createdAt;
      if (current.state === 'creating' && now - sentAt >= CREATE_GRACE_MS) {
        current =
          (await this.updateAttempt(current.attemptId, (c) => markUnknown(c, now))) ?? current;
      }
      return current;
    }
    const r = await this.applyStatusResult(
      key,
      infoFromRecord(record, JSON.stringify(record)),
      'lookup',
    );
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
    this.inBackground(task);
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

    const attempt = await this.cfg.store.getAttemptByGatewayOrderId(payload.order_id);
    const mismatch = attempt && this.webhookMismatch(payload, attempt);
    if (mismatch) {
      // Signed, so it is the gateway's, but it does not describe the payment we stored:
      // keep it for a person to look at, and change nothing.
      const stored = await this.cfg.store.recordEvent({...event, flag: mismatch});
      this.log.error(
        {...logFields, orderRef: attempt.orderRef, mismatch, duplicate: !stored},
        'signed webhook does not match the stored payment: kept, flagged, not applied',
      );
      return;
    }
    if (payload.kind === 'primary' || payload.kind === 'subscription_charge') {
      // Only a subscription charge needs the attempt to tell a first charge from a renewal.
      const isInitial =
        payload.kind === 'primary' ||
        !attempt ||
        attempt.paymentId === payload.payment_id ||
        (attempt.paymentId === undefined && !isFinal(attempt.state));
      if (isInitial) {
        const info = infoFromRecord(payload, raw);
        const r = await this.applyStatusResult(
          {gatewayOrderId: payload.order_id},
          info,
          'webhook',
          event,
        );
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
    if (!attempt) {
      await this.cfg.store.recordEvent(event);
      this.log.warn(logFields, 'operation webhook for an order this app did not create');
      return;
    }
    await this.recordOperation(attempt, payload, raw, event, payload.kind);
  }

  /**
   * What in a signed webhook contradicts the stored attempt: another point of sale, or —
   * for the payment itself — another currency or amount. `undefined` when it agrees.
   */
  private webhookMismatch(payload: WebhookPayload, attempt: AttemptRecord): string | undefined {
    const p = payload as Record<string, unknown>;
    const posId = p['pos_id'];
    if (typeof posId === 'string' && posId !== this.cfg.gateway.posId) return 'pos_id';
    const currency = p['currency'];
    if (typeof currency === 'string' && currency !== attempt.currency) return 'currency';
    if (payload.kind === 'primary') {
      const amount = p['amount'];
      const given =
        typeof amount === 'number' || typeof amount === 'string' ? amountText(amount) : undefined;
      if (amount !== undefined && amount !== null) {
        if (given === undefined || amountToMinor(given) !== amountToMinor(attempt.amount)) {
          return 'amount';
        }
      }
    }
    return undefined;
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
   * One pass over the open attempts, never two at once: open attempts older than
   * `attempts.expireAfterMs` are not looked up any more (a 3-D Secure one is written off);
   * a 3-D Secure attempt without news for `abandonAfterMs` is written off; the others are
   * looked up when their backoff allows (`sweep.initialBackoffMs`, doubling with each
   * lookup up to `maxBackoffMs`), `sweep.concurrency` at a time. Then secondary operations
   * whose outcome is unknown are looked up. `force` ignores the backoff.
   */
  sweep(opts: {force?: boolean} = {}): Promise<SweepResult> {
    if (this.sweeping) return this.sweeping;
    const run = this.sweepOnce(opts.force ?? false).finally(() => {
      this.sweeping = undefined;
    });
    this.sweeping = run;
    return run;
  }

  private async sweepOnce(force: boolean): Promise<SweepResult> {
    const {attempts: ages, sweep} = this.cfg;
    const now = this.cfg.now();
    const open = await this.cfg.store.listAttemptsInStates(UNSETTLED_STATES);
    const due: AttemptRecord[] = [];
    let expired = 0;
    for (const a of open) {
      if (this.closed) break;
      if (this.creating.has(a.gatewayOrderId)) continue;
      const threeDs = a.state === 'init' || a.state === 'pending';
      if (now - a.createdAt >= ages.expireAfterMs) {
        expired++;
        if (threeDs && !a.writtenOff) {
          await this.updateAttempt(a.attemptId, (c) => markWrittenOff(c, now, 'expired'));
        }
        continue;
      }
      if (
        threeDs &&
        !a.writtenOff &&
        now - Math.max(a.createdAt, a.lastGatewayAt ?? 0) >= ages.abandonAfterMs
      ) {
        await this.updateAttempt(a.attemptId, (c) => markWrittenOff(c, now, 'expired'));
      }
      const backoff = Math.min(
        sweep.maxBackoffMs,
        sweep.initialBackoffMs * 2 ** Math.min(30, Math.max(0, (a.checks ?? 0) - 1)),
      );
      if (force || a.lastCheckAt === undefined || now - a.lastCheckAt >= backoff) due.push(a);
    }
    let unknown = 0;
    await eachLimited(due, sweep.concurrency, async (a) => {
      if (this.closed) return;
      try {
        const settled = await this.reconcile(a, {force: true});
        if (settled.state === 'creating' || settled.state === 'unknown') unknown++;
      } catch (error) {
        unknown++;
        this.log.warn(
          {gatewayOrderId: a.gatewayOrderId, error: errorSummary(error)},
          'reconcile failed',
        );
      }
    });
    const intents = this.closed ? 0 : await this.operations.settleUnknown(100);
    return {open: open.length, checked: due.length, unknown, expired, intents};
  }

  /** @deprecated Use `sweep()`: the same pass, with backoff unless `force`. */
  async reconcileOpen(opts: {force?: boolean} = {}): Promise<{checked: number; unknown: number}> {
    const r = await this.sweep(opts);
    return {checked: r.checked, unknown: r.unknown};
  }

  /**
   * After a restart: `creating` attempts left by a crash become `unknown`, every open
   * attempt is looked up (with bounded concurrency), recent double charges are
   * compensated, and the outbox is delivered. Awaitable; `start()` runs it in the
   * background so the app serves meanwhile.
   */
  async recover(): Promise<{checked: number; unknown: number}> {
    const crashed = await this.cfg.store.listAttemptsInStates(['creating']);
    for (const a of crashed) {
      if (this.creating.has(a.gatewayOrderId)) continue;
      await this.updateAttempt(a.attemptId, (c) => markUnknown(c, this.cfg.now()));
    }
    const result = await this.sweep({force: true});
    // A crash between a second success and its compensation: look at recent successes.
    const since = this.cfg.now() - this.cfg.attempts.expireAfterMs;
    const orders = new Set(
      (await this.cfg.store.listAttemptsInStates(['success']))
        .filter((a) => a.updatedAt >= since)
        .map((a) => a.orderRef),
    );
    for (const orderRef of orders) await this.checkDuplicates(orderRef);
    await this.flushOutbox();
    this.log.info({...result, crashed: crashed.length}, 'recovery done');
    return {checked: result.checked, unknown: result.unknown};
  }

  /**
   * Starts the background work: recovery at once (the app answers meanwhile; see
   * `health()`), then a sweep every `sweep.intervalMs`. Idempotent.
   */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    const recovering = this.recover()
      .catch((error: unknown) =>
        this.log.error({error: errorSummary(error)}, 'recovery failed: the sweep goes on'),
      )
      .finally(() => {
        this.recovering = undefined;
      });
    this.recovering = recovering;
    this.inBackground(recovering);
    if (this.cfg.sweep.intervalMs > 0) {
      this.sweepTimer = setInterval(() => {
        if (this.recovering || this.sweeping) return;
        this.inBackground(this.sweep());
      }, this.cfg.sweep.intervalMs);
      this.sweepTimer.unref?.();
    }
  }

  /** `recovering` while start-up recovery runs, else `ready`; and whether the store answers. */
  async health(): Promise<{state: 'ready' | 'recovering'; store: boolean}> {
    const store = await this.cfg.store.ping().catch(() => false);
    return {state: this.recovering ? 'recovering' : 'ready', store};
  }

  /** Waits for in-flight work; afterwards nothing new is started. */
  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    await Promise.allSettled([...this.inflight.values()].map((f) => f.promise));
    this.closed = true;
    await Promise.allSettled([...this.background]);
    while (this.outboxRun) await this.outboxRun.catch(() => undefined);
    if (this.outboxTimer) clearTimeout(this.outboxTimer);
  }
}

/** What one sweep did. */
export interface SweepResult {
  /** Open attempts seen. */
  open: number;
  /** Looked up this time. */
  checked: number;
  /** Still unknown after it. */
  unknown: number;
  /** Older than `attempts.expireAfterMs`: no longer looked up. */
  expired: number;
  /** Secondary operations with an unknown outcome looked up. */
  intents: number;
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
