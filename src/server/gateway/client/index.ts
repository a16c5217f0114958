/**
 * `GatewayClient`: the merchant server's typed client for every endpoint of the gateway
 * (`gateway-spec.md`), plus capture, void and refund from `gateway-facts.md`. This file is
 * the façade; the work is done by one module per job:
 *
 * - `options.ts` — the options, checked at construction, and their defaults;
 * - `transport.ts` — one call: signing, the timeout, retries of reads with backoff;
 * - `error-mapping.ts` — every failure to its typed error, in one function;
 * - `redaction.ts` — no card data or secret in anything the client throws;
 * - `answers.ts` — reading JSON, list and newline-delimited answers;
 * - `requests.ts`, `checked-payment.ts` — what callers pass in, checked before it is sent;
 * - `payments.ts`, `operations.ts`, `subscriptions.ts`, `reports.ts` — the endpoints.
 *
 * Every request is validated with the gateway schemas before it leaves, and its exact JSON
 * text is what the authentication strategy signs and what goes on the wire; every answer
 * is validated when it arrives. A payment creation (or capture, void, refund, cancel) that
 * ends in a 5xx, a timeout or a dropped connection is `GatewayOutcomeUnknownError` and is
 * never retried, because the money may have moved; reads are retried with backoff.
 */
import type * as z from 'zod';
import type {
  OperationRecord,
  PaymentRecord,
  PeriodTransaction,
  RegisterRecord,
  RegisterStarted,
  SubscriptionRecord,
  SubscriptionTransactionsQuery,
  TransactionRecord,
} from '../schemas.js';
import type {CheckedPaymentRequest, CreatePaymentInput} from './checked-payment.js';
import {resolveOptions, type GatewayClientOptions} from './options.js';
import {cancelOrder, createPayment, type CreatePaymentResult} from './payments.js';
import {getOperation, getOrder, resendWebhook, secondary} from './operations.js';
import {
  fetchRegister,
  getPeriodTransactions,
  startRegister,
  waitForRegister,
  type RegisterResult,
  type WaitForRegisterOptions,
} from './reports.js';
import type * as Inputs from './requests.js';
import {cancelSubscription, getSubscriptionTransactions} from './subscriptions.js';
import {Transport, type ClientContext} from './transport.js';

export {
  CheckedPaymentRequest,
  checkPaymentRequest,
  type CheckedPaymentData,
  type CheckPaymentOptions,
  type CreatePaymentInput,
} from './checked-payment.js';
export {
  systemClock,
  type FetchLike,
  type GatewayClientOptions,
  type GatewayClock,
  type HostedContacts,
} from './options.js';
export type {CreatePaymentResult} from './payments.js';
export type {RegisterResult, WaitForRegisterOptions} from './reports.js';
export type {
  CaptureInput,
  RefundInput,
  RegisterInput,
  VoidInput,
  WithOptionalPosId,
} from './requests.js';
export {parseRetryAfter} from './transport.js';

/**
 * The merchant server's client for the gateway. Construct it once per project.
 *
 * @example
 * ```ts
 * import {GatewayClient} from 'pg-checkout/server';
 *
 * const gateway = new GatewayClient({
 *   baseUrl: 'http://127.0.0.1:4010', // npx pg-checkout-sandbox; live: https://cpay.tranzzo.com
 *   posId: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001',
 *   credentials: {
 *     apiKey: 'sandbox-api-key',
 *     apiSecret: 'sandbox-api-secret',
 *     endpointsKey: 'sandbox-endpoints-key',
 *   },
 * });
 * const [payment] = await gateway.getOrder('ORDER-1001-1');
 * console.log(payment?.status);
 * ```
 */
export class GatewayClient {
  readonly baseUrl: string;
  readonly posId: string;
  readonly #ctx: ClientContext;

  /** Checks the options: an unknown one or a bad value is a `TypeError` naming it. */
  constructor(options: GatewayClientOptions) {
    const settings = resolveOptions(options);
    this.baseUrl = settings.baseUrl;
    this.posId = settings.posId;
    this.#ctx = {settings, transport: new Transport(settings)};
  }

  /**
   * Creates a payment (`POST /api/v1/payment`). A direct payment answers with its record;
   * a hosted one with the checkout address (the 303 `location`, or a JSON `redirect_url`).
   * Never retried: on a 5xx, a timeout or a dropped connection the outcome is unknown
   * (`GatewayOutcomeUnknownError`); look the order up by `order_id` before anything else,
   * and use a fresh `order_id` for a new attempt (a reused one is `P-409`).
   */
  createPayment(
    request: CreatePaymentInput,
    checked?: CheckedPaymentRequest,
  ): Promise<CreatePaymentResult> {
    return createPayment(this.#ctx, request, checked);
  }

  /**
   * Cancels a created, unpaid hosted payment (`POST .../order/{order_id}/cancel`) and
   * returns its record (`status` `failure`, `status_code` `6007`).
   */
  cancelOrder(orderId: string): Promise<PaymentRecord> {
    return cancelOrder(this.#ctx, orderId);
  }

  /**
   * The record of one operation of an order (`GET .../orders/{order_id}/{operation}`):
   * an operation record for `capture`, `void` and `refund`, a payment record otherwise.
   */
  getOperation(orderId: string, operation: string): Promise<TransactionRecord> {
    return getOperation(this.#ctx, orderId, operation);
  }

  /**
   * Asks the gateway to send an operation's webhook again (`...?callback=true`); for a
   * subscription, `transactionId` picks one of its charges (default: the latest). Returns
   * the record when the gateway answers with one (the spec shows one only for
   * subscriptions), else `undefined`.
   */
  resendWebhook(
    orderId: string,
    operation: string,
    options: {transactionId?: string} = {},
  ): Promise<TransactionRecord | undefined> {
    return resendWebhook(this.#ctx, orderId, operation, options);
  }

  /** Every transaction of an order: the primary record first, then secondary operations. */
  getOrder(orderId: string): Promise<TransactionRecord[]> {
    return getOrder(this.#ctx, orderId);
  }

  /**
   * The transactions of a subscription (`GET .../recurring/{recurringId}`), optionally
   * filtered by `method` (`purchase` or `refund` only) and `status`. The spec does not
   * show the body, so a JSON array, an object holding an array, or one record per line
   * are all read.
   */
  getSubscriptionTransactions(
    recurringId: string,
    filter: z.input<typeof SubscriptionTransactionsQuery> = {},
  ): Promise<TransactionRecord[]> {
    return getSubscriptionTransactions(this.#ctx, recurringId, filter);
  }

  /**
   * Transactions over a period (`GET .../transactions?startDate=&enddate=`, Unix ms). The
   * body holds one JSON object per line.
   */
  getPeriodTransactions(period: {
    start: Date | number;
    end: Date | number;
  }): Promise<PeriodTransaction[]> {
    return getPeriodTransactions(this.#ctx, period);
  }

  /** Starts generating a register (`POST /streaming-report/start`); the period is ≤ 31 days. */
  startRegister(request: Inputs.RegisterInput): Promise<RegisterStarted> {
    return startRegister(this.#ctx, request);
  }

  /**
   * Fetches a register (`GET /streaming-report/fetch/{report_id}`): `{ready: false}` while
   * it is being generated (`report_not_ready`), else its records.
   */
  fetchRegister(reportId: string): Promise<RegisterResult> {
    return fetchRegister(this.#ctx, reportId);
  }

  /**
   * Fetches a register until it is ready, waiting with exponential backoff between
   * fetches. Throws `GatewayUnavailableError` when it is not ready by the deadline, and
   * the signal's reason when aborted.
   */
  waitForRegister(
    reportId: string,
    options: WaitForRegisterOptions = {},
  ): Promise<RegisterRecord[]> {
    return waitForRegister(this.#ctx, reportId, options);
  }

  /** Cancels a subscription (`PUT /api/v1/recurring/{recurringId}/cancel`); no more debits. */
  cancelSubscription(recurringId: string): Promise<SubscriptionRecord> {
    return cancelSubscription(this.#ctx, recurringId);
  }

  /**
   * Captures a held (`auth`) payment, fully or partly (`order_amount`).
   * Beyond the spec (gateway-facts.md): `POST /api/v1/capture`. Never retried.
   */
  capture(request: Inputs.CaptureInput): Promise<OperationRecord> {
    return secondary(this.#ctx, 'capture', request);
  }

  /**
   * Voids a held payment. Beyond the spec (gateway-facts.md): `POST /api/v1/void`.
   * Never retried.
   */
  void(request: Inputs.VoidInput): Promise<OperationRecord> {
    return secondary(this.#ctx, 'void', request);
  }

  /**
   * Refunds a successful purchase or capture, fully or partly (`refund_amount`); several
   * partial refunds may follow each other up to the original amount.
   * Beyond the spec (gateway-facts.md): `POST /api/v1/refund`. Never retried.
   */
  refund(request: Inputs.RefundInput): Promise<OperationRecord> {
    return secondary(this.#ctx, 'refund', request);
  }
}
