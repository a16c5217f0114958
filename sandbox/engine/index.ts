/**
 * The sandbox's state and behaviour, independent of HTTP: `SandboxEngine` is a thin
 * façade over the jobs in this folder, which share one `EngineState`:
 * - `model.ts`: the data model (transactions, operations, subscriptions) and the state;
 * - `payments.ts`: creating payments and moving them to their outcome;
 * - `checkout.ts`: the 3DS challenge and hosted checkout pages' actions;
 * - `orders.ts`: lookups, cancel and webhook resends of an order;
 * - `operations.ts`: capture, void and refund;
 * - `subscriptions.ts`: subscriptions and their scheduled charges;
 * - `reports.ts`: the period query and registers;
 * - `wire.ts`: how records are written on the wire; `events.ts`: the webhooks they become;
 * - `inspection.ts`: the inspection views; `validate.ts`: request validation (V-400).
 * Requests arrive here already authenticated; they are validated with the gateway core's
 * schemas and answered with records those schemas accept.
 */
import type {Fault} from '../faults.js';
import {checkoutPay, pagePayment, threeDSDecision} from './checkout.js';
import type {PagePayment} from './checkout.js';
import {listPayments, listSubscriptions} from './inspection.js';
import type {SandboxPayment} from './inspection.js';
import {EngineState} from './model.js';
import type {EngineOptions, Operation, OrderClaim, Subscription, Txn} from './model.js';
import {capture, refund, voidAuth} from './operations.js';
import {cancelOrder, getOperation, getOrder, resend} from './orders.js';
import {claimOrderId, createPayment, faultSubject} from './payments.js';
import type {CreateResult} from './payments.js';
import {fetchRegister, periodTransactions, startRegister} from './reports.js';
import {cancelSubscription, subscriptionTransactions} from './subscriptions.js';
import {operationRecord, paymentRecord, subscriptionRecord} from './wire.js';

export type {PageInfo, PagePayment} from './checkout.js';
export type {SandboxPayment} from './inspection.js';
export type {EngineOptions, OrderClaim} from './model.js';
export {minorText} from './model.js';
export type {CreateResult} from './payments.js';
export {REGISTER_DEFAULT_FIELDS} from './reports.js';
export {validate} from './validate.js';

export class SandboxEngine {
  readonly #s: EngineState;

  constructor(opts: EngineOptions) {
    this.#s = new EngineState(opts);
  }

  get posId(): string {
    return this.#s.o.posId;
  }

  /** Successful money movements so far: purchases (incl. subscription charges) and captures. */
  chargeCount(): number {
    return this.#s.charges;
  }

  /** What a money-moving request concerns, for matching fault rules: order id, card's last 4. */
  faultSubject(body: unknown): {orderId?: string; cardLast4?: string} {
    return faultSubject(this.#s, body);
  }

  /** Takes a create request's `order_id` as it arrives; see `payments.ts`. */
  claimOrderId(body: unknown): OrderClaim | undefined {
    return claimOrderId(this.#s, body);
  }

  createPayment(body: unknown, faults: readonly Fault[], claim?: OrderClaim): CreateResult {
    return createPayment(this.#s, body, faults, claim);
  }

  pagePayment(paymentId: string): PagePayment | undefined {
    return pagePayment(this.#s, paymentId);
  }

  threeDSDecision(paymentId: string, approve: boolean): {changed: boolean} | undefined {
    return threeDSDecision(this.#s, paymentId, approve);
  }

  checkoutPay(
    paymentId: string,
    form: {cc_number: string; exp_month: string; exp_year: string; card_cvv: string},
  ): ReturnType<typeof checkoutPay> {
    return checkoutPay(this.#s, paymentId, form);
  }

  cancelOrder(orderId: string): Record<string, unknown>[] {
    return cancelOrder(this.#s, orderId);
  }

  getOperation(orderId: string, operation: string): Record<string, unknown> {
    return getOperation(this.#s, orderId, operation);
  }

  resend(
    orderId: string,
    operation: string,
    transactionId: string | undefined,
  ): Record<string, unknown> {
    return resend(this.#s, orderId, operation, transactionId);
  }

  getOrder(orderId: string): Record<string, unknown>[] {
    return getOrder(this.#s, orderId);
  }

  capture(body: unknown, faults: readonly Fault[]): Record<string, unknown> {
    return capture(this.#s, body, faults);
  }

  void(body: unknown, faults: readonly Fault[]): Record<string, unknown> {
    return voidAuth(this.#s, body, faults);
  }

  refund(body: unknown, faults: readonly Fault[]): Record<string, unknown> {
    return refund(this.#s, body, faults);
  }

  cancelSubscription(id: string): Record<string, unknown> {
    return cancelSubscription(this.#s, id);
  }

  subscriptionTransactions(id: string, query: Record<string, string>): Record<string, unknown>[] {
    return subscriptionTransactions(this.#s, id, query);
  }

  periodTransactions(query: Record<string, string>): string[] {
    return periodTransactions(this.#s, query);
  }

  startRegister(body: unknown): {report_id: string; count: number} {
    return startRegister(this.#s, body);
  }

  fetchRegister(id: string): string[] | undefined {
    return fetchRegister(this.#s, id);
  }

  paymentRecord(t: Txn, style: 'api' | 'cancel' = 'api'): Record<string, unknown> {
    return paymentRecord(this.#s, t, style);
  }

  operationRecord(op: Operation, style: 'api' | 'webhook' = 'api'): Record<string, unknown> {
    return operationRecord(this.#s, op, style);
  }

  subscriptionRecord(sub: Subscription): Record<string, unknown> {
    return subscriptionRecord(this.#s, sub);
  }

  payments(): readonly SandboxPayment[] {
    return listPayments(this.#s);
  }

  /** Subscriptions, for the inspection endpoint. */
  subscriptions(): Record<string, unknown>[] {
    return listSubscriptions(this.#s);
  }
}
