/**
 * Pay: direct (card data from the card form, or a saved card) and hosted (the customer
 * pays on the gateway's page). Both run the one attempt path of `attempt.ts` under the
 * order's lock, both pass the shop-wide card-testing breaker (`card-testing.ts`) before a
 * create is sent, and they differ only in how the request is built, which per-key limits
 * apply, and how the answer is told (a protocol answer; a redirect to the gateway's page or
 * to the return page).
 *
 * - One attempt id → one gateway request: repeats of a running pay call join it
 *   (single flight); the store's primary key joins repeats from other processes.
 * - One order → at most one live attempt: an order's attempts run one at a time in this
 *   process, and the store inserts a new attempt only when the order has no live one.
 */
import type {PayRequest, PayResponse} from '../../../protocol/checkout.js';
import {CheckoutInternalError, CheckoutInvalidRequestError} from '../errors.js';
import type {CardTestingAdmission} from '../card-testing.js';
import {
  buildDirectRequest,
  buildHostedRequest,
  validateDirectRequest,
  validateHostedRequest,
  type ResolvedOrder,
} from '../request.js';
import type {SavedCardRecord} from '../saved-cards.js';
import type {AttemptRecord} from '../store.js';
import {statusInfoFromRecord} from '../transition.js';
import {alreadyPaidAnswer, answerFor, hostedAnswer} from './answers.js';
import {attemptOfAnotherOrder, type Attempts} from './attempt.js';
import {ServicePart, type HostedResult, type PayContext, type ServiceConfig} from './config.js';
import {SingleFlight, type OrderLocks} from './locks.js';
import type {Reconciler} from './reconcile.js';
import {
  SavedCardRefused,
  saveCardFor,
  savedCardRefusedAnswer,
  savedCardToken,
} from './saved-cards.js';

export type PayConfig = Pick<
  ServiceConfig,
  | 'store'
  | 'gateway'
  | 'serverUrl'
  | 'resultUrl'
  | 'order3dsBypass'
  | 'velocity'
  | 'cardTesting'
  | 'logger'
  | 'now'
>;

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
   * after an unknown outcome the create is sent again with the same `order_id`.
   */
  payHosted(
    orderRef: string,
    ctx: {
      request: Request;
      /** The client's address: each new hosted create counts against the payment limits. */
      ip?: string | undefined;
      orderTimeout?: number | undefined;
      language?: string | undefined;
    },
  ): Promise<HostedResult> {
    const {ip} = ctx;
    return this.d.locks.run(orderRef, async () => {
      const outcome = await this.d.attempts.run({
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
        // Counted like a card payment, per address and order (a script that posts the
        // form with the shop's own Origin meets the same limits); not per card: the card
        // is typed on the gateway's page. The open hosted payment reused is not counted.
        // The card-testing breaker admits it as it admits a card typed in: a hosted create
        // sends a card towards the gateway too (issue 35).
        admit: (order) => this.#admit(order),
        reservation: (breaker) =>
          ip === undefined && !breaker.customer
            ? undefined
            : this.cfg.velocity.reservation({ip, orderRef, breaker}),
        statusInfo: (result, gatewayOrderId) => {
          if (result.kind !== 'hosted') return undefined;
          const url = result.checkoutUrl;
          return result.record
            ? {
                ...statusInfoFromRecord(result.record),
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
      if (outcome.kind === 'paid') {
        this.#logPaidBefore(outcome.attempt, {mode: 'hosted'});
        return {kind: 'settled', response: alreadyPaidAnswer(outcome.attempt, false)};
      }
      if (outcome.kind === 'settled')
        return {kind: 'settled', response: answerFor(outcome.attempt)};
      return hostedAnswer(outcome.attempt);
    });
  }

  async #payOnce(body: PayRequest, ctx: PayContext): Promise<PayResponse> {
    // A known attempt is answered without waiting behind the order's other attempts. When
    // nothing holds the order's lock, the look-up under the lock is the only one needed.
    if (this.d.locks.busy(body.orderRef)) {
      const known = await this.cfg.store.getAttempt(body.attemptId);
      if (known) return this.#answerKnown(known, body);
    }
    return this.d.locks.run(body.orderRef, () => this.#payDirect(body, ctx));
  }

  /** The answer for a pay request whose attempt is already stored. */
  async #answerKnown(known: AttemptRecord, body: PayRequest): Promise<PayResponse> {
    if (known.orderRef !== body.orderRef) throw attemptOfAnotherOrder();
    return answerFor(await this.d.reconciler.settle(known));
  }

  async #payDirect(body: PayRequest, ctx: PayContext): Promise<PayResponse> {
    const {orderRef} = body;
    // Under the order lock: another attempt may have settled the order meanwhile.
    const again = await this.cfg.store.getAttempt(body.attemptId);
    if (again) return this.#answerKnown(again, body);
    const saved =
      body.savedCardId === undefined
        ? undefined
        : await this.cfg.store.getSavedCard(body.savedCardId);
    try {
      return await this.#payDirectWith(body, ctx, saved);
    } catch (error) {
      if (error instanceof SavedCardRefused) {
        this.log.warn({orderRef, reason: error.reason}, 'saved card refused');
        return savedCardRefusedAnswer(orderRef, error);
      }
      throw error;
    }
  }

  async #payDirectWith(
    body: PayRequest,
    ctx: PayContext,
    saved: SavedCardRecord | undefined,
  ): Promise<PayResponse> {
    const {orderRef} = body;
    const outcome = await this.d.attempts.run({
      mode: 'direct',
      orderRef,
      request: ctx.request,
      newAttemptId: () => body.attemptId,
      prepare: (order, gatewayOrderId) => {
        // A saved card pays only for the order's own customer (from resolveOrder).
        const token =
          body.savedCardId === undefined ? undefined : savedCardToken(saved, order, this.cfg.now());
        const built = buildDirectRequest(
          body,
          order,
          {
            ...this.#orderContext(orderRef, gatewayOrderId),
            customerIp: ctx.ip,
            acceptHeader: ctx.accept,
            userAgent: ctx.userAgent,
          },
          token,
        );
        const valid = validateDirectRequest(built);
        if (!valid.ok) {
          if (valid.blame === 'browser') {
            throw new CheckoutInvalidRequestError(`${valid.field}: ${valid.message}`, {
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
          saveCardFor: saveCardFor(body, order),
        };
      },
      // The per-card limit applies to a saved card too, keyed by its token's hash (by now
      // `prepare` has checked the card is this customer's and can pay).
      reservation: (breaker) =>
        this.cfg.velocity.reservation({
          ip: ctx.ip,
          orderRef,
          ...(body.card ? {cardNumber: body.card.number} : {}),
          ...(!body.card && saved?.token ? {cardToken: saved.token} : {}),
          breaker,
        }),
      admit: (order) => this.#admit(order),
      statusInfo: (result) =>
        result.kind === 'direct' ? statusInfoFromRecord(result.record) : undefined,
    });
    if (outcome.kind === 'paid') {
      const saveCard = body.saveCard === true;
      this.#logPaidBefore(outcome.attempt, {mode: 'direct', attemptId: body.attemptId, saveCard});
      return alreadyPaidAnswer(outcome.attempt, saveCard);
    }
    return outcome.kind === 'refused' ? outcome.response : answerFor(outcome.attempt);
  }

  /**
   * The shop-wide card-testing breaker (card-testing.ts), the same for every path: while it
   * is open a guest takes one of a few places a minute, and a customer the order names
   * (`customer.id`; a saved card pays only for it) gets a budget of their own, which the
   * reservation takes with the attempt. No one passes unlimited.
   */
  #admit(order: ResolvedOrder): Promise<CardTestingAdmission> {
    return this.cfg.cardTesting.admit({customerId: order.customer?.id});
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

  /** What both modes take from the app for a create. */
  #orderContext(orderRef: string, gatewayOrderId: string) {
    return {
      posId: this.cfg.gateway.posId,
      gatewayOrderId,
      serverUrl: this.cfg.serverUrl,
      resultUrl: this.cfg.resultUrl(orderRef),
      order3dsBypass: this.cfg.order3dsBypass,
    };
  }

  /** The order from `resolveOrder` or the configuration makes an invalid gateway request. */
  #merchantError(orderRef: string, issues: unknown): CheckoutInternalError {
    this.log.error(
      {orderRef, issues},
      'the order from resolveOrder or the configuration gives an invalid gateway request',
    );
    return new CheckoutInternalError(
      'this order cannot be paid because of a server configuration error',
    );
  }

  /** Waits for the running pay calls (shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled(this.#inflight.all());
  }
}
