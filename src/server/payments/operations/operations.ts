/**
 * Capture, void and refund, exactly once. The gateway gives secondary operations no
 * idempotency key, so the companion keeps one: each operation is stored as an intent
 * under the caller's key — durably, before the gateway is called — together with the
 * order's operations the gateway already had (the baseline). A repeat of the key (a double
 * click, a retried request, another process) is that same operation, never a second one.
 * The amounts of every intent that has not failed count against what the order may still
 * capture or refund, checked in the store's transaction, so two requests at once cannot
 * both pass. After an unknown outcome (5xx, timeout, dropped connection) nothing is sent
 * again: the order lookup tells whether the operation happened (an operation of that kind
 * and amount that is in neither the baseline nor another intent). What an order still
 * allows is computed in `limits.ts`; what it takes and answers, `types.ts`.
 */
import {isRefusal} from '../../gateway/errors.js';
import {amountText} from '../../gateway/primitives.js';
import {
  isOperationRecord,
  type OperationRecord,
  type TransactionRecord,
} from '../../gateway/schemas.js';
import {
  CheckoutGatewayUnavailableError,
  CheckoutInvalidRequestError,
  CheckoutNotFoundError,
  CheckoutOperationRefusedError,
} from '../../errors.js';
import {allowance, fingerprint, minor} from './limits.js';
import {
  publicResult,
  type OperationRequest,
  type OperationResult,
  type OperationsDeps,
  type OperationsGateway,
} from './types.js';
import {SingleFlight} from '../locks.js';
import {paidAttempt} from '../order-state.js';
import type {
  AttemptRecord,
  IntentKind,
  IntentReason,
  NewPaymentUpdate,
  OperationIntent,
} from '../../store/payment-store.js';

const KEY = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Secondary operations of the companion; see the module comment. */
export class SecondaryOperations {
  readonly #d: OperationsDeps;
  /** `orderRef key` → the running gateway call or settlement. */
  readonly #running = new SingleFlight<OperationIntent>();

  constructor(deps: OperationsDeps) {
    this.#d = deps;
  }

  #gateway(): OperationsGateway {
    const g = this.#d.gateway;
    if (!g) {
      throw new CheckoutOperationRefusedError(
        'not_supported',
        'the gateway client given to createCheckoutApp has no capture/void/refund/getOrder',
      );
    }
    return g;
  }

  /** Runs a merchant's capture, void or refund exactly once per key. */
  async run(kind: IntentKind, request: OperationRequest): Promise<OperationResult> {
    if (typeof request?.key !== 'string' || !KEY.test(request.key)) {
      throw new CheckoutInvalidRequestError(
        'key: must be 1-100 characters of A-Z a-z 0-9 _ . : - (an idempotency key)',
        {field: 'key'},
      );
    }
    if (typeof request.orderRef !== 'string' || request.orderRef === '') {
      throw new CheckoutInvalidRequestError('orderRef: is required', {field: 'orderRef'});
    }
    let requested: string | undefined;
    if (request.amount !== undefined) {
      if (kind === 'void') {
        throw new CheckoutInvalidRequestError(
          'amount: a void releases the whole hold; leave it out',
          {
            field: 'amount',
          },
        );
      }
      requested = amountText(request.amount);
      if (requested === undefined) {
        throw new CheckoutInvalidRequestError(
          'amount: must be a positive amount with at most 2 decimal places',
          {field: 'amount'},
        );
      }
    }
    return this.#d.withOrderLock(request.orderRef, async () => {
      const known = await this.#d.store.getIntent(request.orderRef, request.key);
      if (known) return this.#repeat(known, kind, request.gatewayOrderId, requested);
      const attempts = await this.#d.store.listAttempts(request.orderRef);
      if (attempts.length === 0) throw new CheckoutNotFoundError('unknown order or no payment');
      const attempt = request.gatewayOrderId
        ? attempts.find((a) => a.gatewayOrderId === request.gatewayOrderId)
        : paidAttempt(attempts);
      if (!attempt) {
        throw request.gatewayOrderId
          ? new CheckoutNotFoundError('gatewayOrderId: is not a payment of this order')
          : new CheckoutOperationRefusedError('not_paid', 'the order has no successful payment');
      }
      return this.#start(attempt, kind, 'merchant', request.key, requested);
    });
  }

  /** A key seen before: the same request joins that operation; another request is refused. */
  async #repeat(
    known: OperationIntent,
    kind: IntentKind,
    gatewayOrderId: string | undefined,
    requested: string | undefined,
  ): Promise<OperationResult> {
    const same =
      known.kind === kind &&
      (gatewayOrderId === undefined || gatewayOrderId === known.gatewayOrderId) &&
      known.fingerprint === fingerprint(kind, known.gatewayOrderId, requested);
    if (!same) {
      throw new CheckoutInvalidRequestError('key: was already used for another operation', {
        field: 'key',
      });
    }
    const settled = await this.#settle(known);
    return publicResult(settled, true);
  }

  /**
   * Stores the intent (refused when the order's limits do not allow it) and calls the
   * gateway. Used by merchants and by the duplicate-charge compensation.
   */
  async #start(
    attempt: AttemptRecord,
    kind: IntentKind,
    reason: IntentReason,
    key: string,
    requested: string | undefined,
    update?: NewPaymentUpdate,
  ): Promise<OperationResult> {
    const gateway = this.#gateway();
    const {store} = this.#d;
    // What the gateway already has for this order, so an unknown outcome can be told apart
    // from operations that were there before. Nothing is stored if it cannot be read.
    let baseline: string[];
    try {
      baseline = (await gateway.getOrder(attempt.gatewayOrderId))
        .filter(isOperationRecord)
        .map((r) => String(r.operation_id));
    } catch (error) {
      this.#d.logger.warn(
        {gatewayOrderId: attempt.gatewayOrderId, kind, error: (error as Error).message},
        'secondary operation not started: the order lookup failed',
      );
      throw new CheckoutGatewayUnavailableError(
        'The payment gateway cannot be reached: nothing was done. Try again later.',
      );
    }
    const now = this.#d.now();
    const intent: OperationIntent = {
      orderRef: attempt.orderRef,
      key,
      gatewayOrderId: attempt.gatewayOrderId,
      kind,
      reason,
      amount: '',
      currency: attempt.currency,
      state: 'pending',
      baseline: JSON.stringify(baseline),
      fingerprint: fingerprint(kind, attempt.gatewayOrderId, requested),
      createdAt: now,
      updatedAt: now,
    };
    const created = await store.createIntent(
      intent,
      (intents, operations) => {
        const allowed = allowance(attempt, kind, requested, intents, operations);
        if ('refused' in allowed) return allowed.refused;
        intent.amount = allowed.amount;
        return undefined;
      },
      update ? this.#d.notify(update) : undefined,
    );
    if (!created.created && 'refused' in created) {
      throw new CheckoutOperationRefusedError(created.refused.code, created.refused.message);
    }
    if (!created.created) {
      return this.#repeat(created.existing, kind, attempt.gatewayOrderId, requested);
    }
    if (update) this.#d.kickOutbox();
    this.#d.logger.info(
      {
        orderRef: attempt.orderRef,
        gatewayOrderId: attempt.gatewayOrderId,
        kind,
        reason,
        key,
        amount: intent.amount,
      },
      'secondary operation stored: calling the gateway',
    );
    const done = await this.#single(created.intent, () => this.#call(created.intent));
    return publicResult(done, false);
  }

  /** Compensation of a double charge: voids (a hold) or refunds `attempt`, exactly once. */
  async compensate(attempt: AttemptRecord, keep: AttemptRecord): Promise<OperationResult> {
    const kind: IntentKind = attempt.method === 'auth' ? 'void' : 'refund';
    const update: NewPaymentUpdate = {
      kind: 'duplicate_charge',
      orderRef: attempt.orderRef,
      attemptId: attempt.attemptId,
      gatewayOrderId: attempt.gatewayOrderId,
      state: 'success',
      amount: attempt.amount,
      currency: attempt.currency,
      reason: 'duplicate_charge',
      intentKey: `duplicate:${attempt.gatewayOrderId}`,
      statusDescription: `charged twice: kept ${keep.gatewayOrderId}, ${kind === 'void' ? 'voiding' : 'refunding'} this one`,
      source: 'reconcile',
      at: new Date(this.#d.now()).toISOString(),
    };
    return this.#d.withOrderLock(attempt.orderRef, async () => {
      const key = `duplicate:${attempt.gatewayOrderId}`;
      const known = await this.#d.store.getIntent(attempt.orderRef, key);
      if (known) return publicResult(await this.#settle(known), true);
      return this.#start(attempt, kind, 'duplicate_charge', key, undefined, update);
    });
  }

  #single(intent: OperationIntent, fn: () => Promise<OperationIntent>): Promise<OperationIntent> {
    return this.#running.run(`${intent.orderRef}\u0000${intent.key}`, fn);
  }

  /** The gateway call of a stored intent; its answer (or its absence) is stored. */
  async #call(intent: OperationIntent): Promise<OperationIntent> {
    const gateway = this.#gateway();
    const order = {order_id: intent.gatewayOrderId, order_currency: intent.currency};
    let record: OperationRecord;
    try {
      if (intent.kind === 'capture')
        record = await gateway.capture({...order, order_amount: Number(intent.amount)});
      else if (intent.kind === 'void') record = await gateway.void(order);
      else record = await gateway.refund({...order, refund_amount: Number(intent.amount)});
    } catch (error) {
      const e = error as Error & {gatewayCode?: string; code?: string};
      if (isRefusal(error)) {
        this.#d.logger.warn(
          {orderRef: intent.orderRef, kind: intent.kind, key: intent.key, error: e.message},
          'the gateway refused the secondary operation',
        );
        return this.#finish(intent, {
          status: 'failure',
          statusCode: e.gatewayCode ?? e.code ?? 'refused',
          statusDescription: e.message,
        });
      }
      this.#d.logger.warn(
        {orderRef: intent.orderRef, kind: intent.kind, key: intent.key, error: e.message},
        'secondary operation outcome unknown: settling it through the order lookup',
      );
      await this.#d.store.updateIntent(intent.orderRef, intent.key, (c) =>
        c.state === 'pending' ? {patch: {state: 'unknown', updatedAt: this.#d.now()}} : undefined,
      );
      return this.#lookup({...intent, state: 'unknown'});
    }
    return this.#finish(intent, {
      status: record.status,
      operationId: String(record.operation_id),
      ...(record.status_code != null ? {statusCode: String(record.status_code)} : {}),
      ...(record.status_description ? {statusDescription: record.status_description} : {}),
    });
  }

  /** Settles an intent that is not final (a repeat, or the sweep): looks it up. */
  #settle(intent: OperationIntent): Promise<OperationIntent> {
    if (intent.state === 'success' || intent.state === 'failure') return Promise.resolve(intent);
    return this.#single(intent, async () => {
      const current = (await this.#d.store.getIntent(intent.orderRef, intent.key)) ?? intent;
      if (current.state !== 'unknown') return current; // pending: another process calls
      return this.#lookup(current);
    });
  }

  /** Settles every `unknown` intent once (the sweep). */
  async settleUnknown(limit: number): Promise<number> {
    const open = (await this.#d.store.listIntentsInStates(['unknown'])).slice(0, limit);
    for (const i of open) {
      await this.#settle(i).catch((error: unknown) =>
        this.#d.logger.warn({key: i.key, error: (error as Error).message}, 'intent lookup failed'),
      );
    }
    return open.length;
  }

  /**
   * After an unknown outcome: the operation happened when the order lookup shows one of
   * its kind and amount that was not in the baseline and that no other intent claims.
   */
  async #lookup(intent: OperationIntent): Promise<OperationIntent> {
    const gateway = this.#gateway();
    let records: TransactionRecord[];
    try {
      records = await gateway.getOrder(intent.gatewayOrderId);
    } catch (error) {
      this.#d.logger.warn(
        {orderRef: intent.orderRef, key: intent.key, error: (error as Error).message},
        'order lookup failed: the operation stays unknown',
      );
      return intent;
    }
    const baseline = new Set(JSON.parse(intent.baseline ?? '[]') as string[]);
    const others = await this.#d.store.listIntents(intent.orderRef);
    const claimed = new Set(
      others.filter((o) => o.key !== intent.key && o.operationId).map((o) => o.operationId),
    );
    const found = records
      .filter(isOperationRecord)
      .find(
        (r) =>
          r.method === intent.kind &&
          !baseline.has(String(r.operation_id)) &&
          !claimed.has(String(r.operation_id)) &&
          (intent.kind === 'void' || minor(r.amount ?? undefined) === minor(intent.amount)),
      );
    if (!found) {
      this.#d.logger.info(
        {orderRef: intent.orderRef, key: intent.key},
        'the gateway shows no such operation yet: it stays unknown (it is never sent twice)',
      );
      return intent;
    }
    return this.#finish(intent, {
      status: found.status,
      operationId: String(found.operation_id),
      ...(found.status_code != null ? {statusCode: String(found.status_code)} : {}),
      ...(found.status_description ? {statusDescription: found.status_description} : {}),
    });
  }

  async #finish(
    intent: OperationIntent,
    answer: {status: string; operationId?: string; statusCode?: string; statusDescription?: string},
  ): Promise<OperationIntent> {
    const state =
      answer.status === 'success' ? 'success' : answer.status === 'failure' ? 'failure' : 'unknown';
    const now = this.#d.now();
    const attempt = await this.#d.store.getAttemptByGatewayOrderId(intent.gatewayOrderId);
    const update = this.#d.notify({
      kind: intent.kind,
      orderRef: intent.orderRef,
      attemptId: attempt?.attemptId ?? '',
      gatewayOrderId: intent.gatewayOrderId,
      state: state === 'unknown' ? 'pending' : state,
      amount: intent.amount,
      currency: intent.currency,
      intentKey: intent.key,
      reason: intent.reason,
      source: 'operation',
      at: new Date(now).toISOString(),
      ...(answer.operationId ? {operationId: answer.operationId} : {}),
      ...(answer.statusCode ? {statusCode: answer.statusCode} : {}),
      ...(answer.statusDescription ? {statusDescription: answer.statusDescription} : {}),
    });
    const next = await this.#d.store.updateIntent(intent.orderRef, intent.key, (c) => {
      if (c.state === 'success' || c.state === 'failure') return undefined;
      return {
        patch: {
          state,
          updatedAt: now,
          ...(answer.operationId ? {operationId: answer.operationId} : {}),
          ...(answer.statusCode ? {statusCode: answer.statusCode} : {}),
          ...(answer.statusDescription ? {statusDescription: answer.statusDescription} : {}),
        },
        ...(update && state !== 'unknown' ? {update} : {}),
      };
    });
    if (update) this.#d.kickOutbox();
    const level = intent.reason === 'duplicate_charge' ? 'error' : 'info';
    this.#d.logger[level](
      {
        orderRef: intent.orderRef,
        gatewayOrderId: intent.gatewayOrderId,
        kind: intent.kind,
        key: intent.key,
        state,
        reason: intent.reason,
      },
      'secondary operation settled',
    );
    return next ?? intent;
  }
}
