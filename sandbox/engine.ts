/**
 * The sandbox's state and behaviour, independent of HTTP: payments and their secondary
 * operations, card tokens, subscriptions and their scheduler, registers, and the status
 * changes that become webhooks. Requests arrive here already authenticated; they are
 * validated with the gateway core's schemas and answered with records those schemas
 * accept. Money is kept in integer minor units; no float arithmetic touches an amount.
 * Full card numbers and CVVs are never stored: a card is kept as its mask, last four
 * digits, network and test-card outcome.
 */
import {randomUUID} from 'node:crypto';
import type * as z from 'zod';
import {
  CaptureRequest,
  HostedPaymentRequest,
  PaymentRequest,
  PeriodQuery,
  REGISTER_FIELDS,
  RefundRequest,
  RegisterRequest,
  SubscriptionTransactionsQuery,
  VoidRequest,
  amountFromMinor,
  amountToMinor,
  describeIssues,
  formatGatewayTimestamp,
  formatIssues,
  luhnValid,
} from '../src/server/gateway/index.js';
import type {InitRecurring} from '../src/server/gateway/index.js';
import {SANDBOX_CODES, cardBrand, cardOutcome, maskCard} from './cards.js';
import type {CardOutcome} from './cards.js';
import type {SandboxClock, TaskHandle} from './clock.js';
import {SandboxError, notFound} from './errors.js';
import {splitFaults, webhookCopies} from './faults.js';
import type {Fault, FaultRules} from './faults.js';
import {anchorOf, occurrence, utcDate} from './schedule.js';
import type {ScheduleAnchor} from './schedule.js';
import type {WebhookDispatcher, WebhookEvent} from './webhooks.js';

type Status = 'init' | 'pending' | 'success' | 'failure';
interface Code {
  readonly code: string;
  readonly description: string;
}

/** A card as the sandbox keeps it: never the full number or the CVV. */
interface StoredCard {
  mask: string;
  last4: string;
  brand: string;
  outcome: CardOutcome;
  expMonth: number;
  expYear: number;
}

type RequestFields = Record<string, unknown>;

/** A primary transaction: a payment, or one charge of a subscription. */
interface Txn {
  paymentId: string;
  transactionId: string;
  orderId: string;
  seq: number;
  mode: 'direct' | 'hosted';
  method: 'purchase' | 'auth';
  amountMinor: number;
  currency: string;
  description: string;
  status: Status;
  code: Code;
  createdAt: number;
  processedAt: number;
  /** Non-card request fields echoed in records (customer data, URLs, payload...). */
  fields: RequestFields;
  card: StoredCard | undefined;
  token: string | undefined;
  threeDS: 'none' | 'challenge' | 'approved' | 'declined' | 'external';
  eci: string | undefined;
  heldMinor: number;
  capturedMinor: number;
  refundedMinor: number;
  voided: boolean;
  operations: Operation[];
  /** The subscription this payment created (initial payment). */
  subscription: Subscription | undefined;
  /** The subscription this transaction is a scheduled charge of. */
  chargeOf: Subscription | undefined;
  /** Webhook copies forced by a request fault (`no-webhook` → 0, `webhook-times=n`). */
  webhookCopies: number | undefined;
  lastEvent: WebhookEvent | undefined;
  expiry: TaskHandle | undefined;
  authCode: string;
  rrn: string;
}

/** A secondary operation: capture, void or refund. */
interface Operation {
  operationId: string;
  transactionId: string;
  payment: Txn;
  seq: number;
  method: 'capture' | 'void' | 'refund';
  amountMinor: number;
  status: Status;
  code: Code;
  createdAt: number;
  processedAt: number;
  serverUrl: string | undefined;
  webhookCopies: number | undefined;
  lastEvent: WebhookEvent | undefined;
}

interface Subscription {
  id: string;
  initial: Txn;
  config: InitRecurring;
  status: 'init' | 'active' | 'canceled';
  token: string | undefined;
  amountMinor: number;
  createdAt: number;
  updatedAt: number;
  anchor: ScheduleAnchor;
  /** Index of the next scheduled occurrence. */
  k: number;
  charges: Txn[];
  next: TaskHandle | undefined;
  retry: TaskHandle | undefined;
}

interface Register {
  id: string;
  lines: string[];
  readyAt: number;
}

/** A primary payment as `Sandbox.payments()` lists it: no card number, no CVV. */
export interface SandboxPayment {
  paymentId: string;
  transactionId: string;
  orderId: string;
  mode: 'direct' | 'hosted';
  method: 'purchase' | 'auth';
  amount: number;
  currency: string;
  status: Status;
  statusCode: string;
  statusDescription: string;
  ccMask: string | null;
  recurringId: string | null;
  subscriptionCharge: boolean;
  createdAt: string;
  processedAt: string;
  heldAmount: number;
  capturedAmount: number;
  refundedAmount: number;
  operations: readonly {
    operationId: string;
    method: 'capture' | 'void' | 'refund';
    amount: number;
    status: Status;
    statusCode: string;
    createdAt: string;
  }[];
}

/** Fields selected when a register request has no `transaction_details`. */
export const REGISTER_DEFAULT_FIELDS = [
  'projectId',
  'orderId',
  'paymentId',
  'amount',
  'currency',
  'method',
  'status',
  'dateTime',
  'cardMask',
  'description',
  'payload',
] as const;

/** Fields never echoed into records: card data and what only steers the payment. */
const NOT_ECHOED = new Set([
  'cc_number',
  'exp_month',
  'exp_year',
  'card_cvv',
  'cc_token',
  'browser_fingerprint',
  'three_d_secure',
  'cryptogram',
  'init_recurring',
  'products',
  'pos_id',
  'mode',
  'method',
  'amount',
  'currency',
  'description',
  'order_id',
]);

/** Customer fields of a payment record (null in the cancel response when absent). */
const CUSTOMER_FIELDS = [
  'customer_id',
  'customer_ip',
  'customer_fname',
  'customer_lname',
  'customer_patronym',
  'customer_email',
  'customer_phone',
  'customer_country',
  'customer_city',
  'customer_birthday',
] as const;

/** Minor units as decimal text with two fractional digits: 1040 → `10.40`. */
export function minorText(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Validates `input` with `schema`, or throws a V-400 naming every field and rule. */
export function validate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = formatIssues(parsed.error, input);
  throw new SandboxError('V-400', `${what}: ${describeIssues(issues)}`, {
    fields: issues.map((i) => i.field),
  });
}

export interface EngineOptions {
  posId: string;
  companyId: string;
  clock: SandboxClock;
  webhooks: WebhookDispatcher;
  faults: FaultRules;
  reportDelayMs: number;
  /** Base URL for links the customer follows (3DS and checkout pages). */
  publicUrl: () => string;
}

/** The rule of a create request's `order_id` (both modes share it). */
const CreateOrderId = HostedPaymentRequest.shape.order_id;

/**
 * A create request's hold on its `order_id`, from the request's arrival until it is
 * answered: the live gateway takes the id when the request arrives, so a second create
 * with the same id meanwhile is refused, however long the first one takes.
 */
export interface OrderClaim {
  readonly orderId: string;
  /** False when the id was already used or held at arrival: the create answers P-409. */
  readonly granted: boolean;
  /** Frees the id if no payment was created with it (a no-op otherwise); idempotent. */
  release(): void;
}

/** What creating a payment answered. */
export interface CreateResult {
  record: Record<string, unknown>;
  /** Hosted payments: the checkout page to redirect the customer to. */
  location: string | undefined;
}

export class SandboxEngine {
  readonly #o: EngineOptions;
  readonly #orders = new Map<string, Txn>();
  /** Order ids held by create requests in flight, not created yet. */
  readonly #held = new Map<string, OrderClaim>();
  readonly #byPaymentId = new Map<string, Txn>();
  readonly #ledger: (Txn | Operation)[] = [];
  readonly #primaries: Txn[] = [];
  readonly #tokens = new Map<string, StoredCard>();
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #registers = new Map<string, Register>();
  #seq = 0;
  #events = 0;
  #charges = 0;

  constructor(opts: EngineOptions) {
    this.#o = opts;
  }

  get posId(): string {
    return this.#o.posId;
  }

  #now(): number {
    return this.#o.clock.nowMs();
  }

  #ts(ms: number): string {
    return formatGatewayTimestamp(new Date(ms));
  }

  /** Successful money movements so far: purchases (incl. subscription charges) and captures. */
  chargeCount(): number {
    return this.#charges;
  }

  /**
   * What a money-moving request concerns, for matching fault rules before it is handled:
   * its order id and the last four digits of its card (or of its token's card).
   */
  faultSubject(body: unknown): {orderId?: string; cardLast4?: string} {
    if (typeof body !== 'object' || body === null) return {};
    const b = body as Record<string, unknown>;
    const out: {orderId?: string; cardLast4?: string} = {};
    if (typeof b['order_id'] === 'string') out.orderId = b['order_id'];
    if (typeof b['cc_number'] === 'string' && /^\d{12,19}$/.test(b['cc_number'])) {
      out.cardLast4 = b['cc_number'].slice(-4);
    } else if (typeof b['cc_token'] === 'string') {
      const card = this.#tokens.get(b['cc_token'].replace(/^rcr:/, ''));
      if (card) out.cardLast4 = card.last4;
    } else if (out.orderId !== undefined) {
      const card = this.#orders.get(out.orderId)?.card;
      if (card) out.cardLast4 = card.last4;
    }
    return out;
  }

  // -------------------------------------------------------------------------------------
  // Payment creation
  // -------------------------------------------------------------------------------------

  /**
   * Takes the `order_id` of a create request as it arrives, before any fault delay;
   * `undefined` when the body has no usable `order_id` (validation will refuse it). The
   * caller must `release()` the claim once the request is answered, whatever happened.
   * Lookups do not see a held id: the order does not exist until it is created.
   */
  claimOrderId(body: unknown): OrderClaim | undefined {
    const given =
      typeof body === 'object' && body !== null
        ? (body as Record<string, unknown>)['order_id']
        : undefined;
    const parsed = CreateOrderId.safeParse(given);
    if (!parsed.success) return undefined;
    const orderId = parsed.data;
    const granted = !this.#orders.has(orderId) && !this.#held.has(orderId);
    const claim: OrderClaim = {
      orderId,
      granted,
      release: () => {
        if (this.#held.get(orderId) === claim) this.#held.delete(orderId);
      },
    };
    if (granted) this.#held.set(orderId, claim);
    return claim;
  }

  /**
   * Creates a payment from a request body. `faults` are the request's `X-Sandbox-Fault`
   * faults (webhook and decline ones are used here; the HTTP layer handles the rest).
   * `claim` is the request's {@link claimOrderId}: without one, an id held by another
   * request in flight counts as used.
   */
  createPayment(body: unknown, faults: readonly Fault[], claim?: OrderClaim): CreateResult {
    const req = validate(PaymentRequest, body, 'payment request');
    // Decided as the request arrived: an id refused then stays refused, even if its holder
    // has since given it back.
    const mine = claim?.orderId === req.order_id ? claim : undefined;
    const holder = this.#held.get(req.order_id);
    if (
      this.#orders.has(req.order_id) ||
      mine?.granted === false ||
      (holder !== undefined && holder !== mine)
    ) {
      throw new SandboxError(
        'P-409',
        'order_id: was already used by an earlier payment; every payment attempt needs a fresh order_id',
      );
    }
    let card: StoredCard | undefined;
    let token: string | undefined;
    if (req.mode === 'direct') {
      if (req.cc_token !== undefined) {
        token = req.cc_token.replace(/^rcr:/, '');
        card = this.#tokens.get(token);
        if (!card) throw new SandboxError('P-470', 'cc_token: is not a card token of this project');
      } else if (req.cc_number !== undefined) {
        card = {
          mask: maskCard(req.cc_number),
          last4: req.cc_number.slice(-4),
          brand: cardBrand(req.cc_number),
          outcome: cardOutcome(req.cc_number),
          expMonth: req.exp_month ?? 12,
          expYear: req.exp_year ?? 2099,
        };
      }
    }
    const fields: RequestFields = {};
    for (const [k, v] of Object.entries(req))
      if (!NOT_ECHOED.has(k) && v !== undefined) fields[k] = v;
    const now = this.#now();
    const txn = this.#newTxn({
      orderId: req.order_id,
      mode: req.mode,
      method: req.method,
      amountMinor: amountToMinor(req.amount),
      currency: req.currency,
      description: req.description,
      fields,
      card,
      token,
      now,
    });
    const split = splitFaults(faults);
    txn.webhookCopies = webhookCopies(split.webhook);
    this.#orders.set(txn.orderId, txn);
    this.#held.delete(txn.orderId);
    this.#byPaymentId.set(txn.paymentId, txn);
    this.#primaries.push(txn);
    this.#ledger.push(txn);

    if (req.init_recurring) this.#createSubscription(txn, req.init_recurring, now);

    if (req.mode === 'hosted') {
      if (req.order_timeout !== undefined) {
        txn.expiry = this.#o.clock.schedule(now + req.order_timeout * 1000, () =>
          this.#expire(txn),
        );
      }
      return {
        record: this.paymentRecord(txn),
        location: `${this.#o.publicUrl()}/sandbox/checkout/${txn.paymentId}`,
      };
    }
    if (req.three_d_secure) {
      txn.threeDS = 'external';
      txn.eci = req.three_d_secure.eci;
    }
    const decline = [
      ...split.decline,
      ...this.#o.faults.take('decline', {orderId: txn.orderId, cardLast4: card?.last4}),
    ];
    this.#charge(txn, {viaToken: token !== undefined, decline});
    return {record: this.paymentRecord(txn), location: undefined};
  }

  #newTxn(p: {
    orderId: string;
    mode: 'direct' | 'hosted';
    method: 'purchase' | 'auth';
    amountMinor: number;
    currency: string;
    description: string;
    fields: RequestFields;
    card: StoredCard | undefined;
    token: string | undefined;
    now: number;
  }): Txn {
    const seq = ++this.#seq;
    return {
      paymentId: randomUUID(),
      transactionId: randomUUID(),
      orderId: p.orderId,
      seq,
      mode: p.mode,
      method: p.method,
      amountMinor: p.amountMinor,
      currency: p.currency,
      description: p.description,
      status: 'init',
      code: {code: '', description: 'Created, waiting for the customer'},
      createdAt: p.now,
      processedAt: p.now,
      fields: p.fields,
      card: p.card,
      token: p.token,
      threeDS: 'none',
      eci: undefined,
      heldMinor: 0,
      capturedMinor: 0,
      refundedMinor: 0,
      voided: false,
      operations: [],
      subscription: undefined,
      chargeOf: undefined,
      webhookCopies: undefined,
      lastEvent: undefined,
      expiry: undefined,
      authCode: String(100000 + ((seq * 7919) % 900000)),
      rrn: String(100000000000 + seq * 104729),
    };
  }

  /** Charges a card (directly or by token) and moves the transaction to its outcome. */
  #charge(txn: Txn, opts: {viaToken: boolean; decline: readonly Fault[]}): void {
    const card = txn.card;
    const decline = opts.decline.find((f) => f.kind === 'decline');
    if (decline?.kind === 'decline') {
      const known = Object.values(SANDBOX_CODES).find((c) => c.code === decline.code);
      this.#finish(
        txn,
        'failure',
        known ?? {code: decline.code, description: 'Declined (sandbox fault)'},
      );
      return;
    }
    switch (card?.outcome ?? 'success') {
      case 'three_ds':
        if (opts.viaToken || txn.threeDS === 'external') this.#succeed(txn);
        else this.#challenge(txn);
        return;
      case 'generic_decline':
        this.#finish(txn, 'failure', SANDBOX_CODES.issuerDecline);
        return;
      case 'insufficient_funds':
        this.#finish(txn, 'failure', SANDBOX_CODES.insufficientFunds);
        return;
      case 'wrong_cvv':
        if (opts.viaToken) this.#succeed(txn);
        else this.#finish(txn, 'failure', SANDBOX_CODES.wrongCvv);
        return;
      default:
        this.#succeed(txn);
    }
  }

  #challenge(txn: Txn): void {
    txn.threeDS = 'challenge';
    txn.status = 'pending';
    txn.code = SANDBOX_CODES.threeDSRequired;
    txn.processedAt = this.#now();
    this.#emitTxn(txn);
  }

  #succeed(txn: Txn): void {
    if (txn.method === 'auth') {
      txn.heldMinor = txn.amountMinor;
    } else {
      this.#charges++;
    }
    if (txn.card && txn.token === undefined) {
      txn.token = randomUUID().replace(/-/g, '');
      this.#tokens.set(txn.token, txn.card);
    }
    if (txn.eci === undefined) txn.eci = txn.threeDS === 'approved' ? '05' : '07';
    this.#finish(
      txn,
      'success',
      txn.method === 'auth' ? SANDBOX_CODES.authSuccess : SANDBOX_CODES.success,
    );
    const sub = txn.subscription;
    if (sub && sub.status === 'init') this.#activate(sub);
  }

  #finish(txn: Txn, status: Status, code: Code): void {
    txn.status = status;
    txn.code = code;
    txn.processedAt = this.#now();
    txn.expiry?.cancel();
    txn.expiry = undefined;
    this.#emitTxn(txn);
  }

  #expire(txn: Txn): void {
    if (txn.status === 'init' || txn.status === 'pending') {
      txn.threeDS = txn.threeDS === 'challenge' ? 'declined' : txn.threeDS;
      this.#finish(txn, 'failure', SANDBOX_CODES.expired);
    }
  }

  // -------------------------------------------------------------------------------------
  // 3-D Secure and hosted checkout (driven by the sandbox's pages)
  // -------------------------------------------------------------------------------------

  /** The payment behind a 3DS or checkout page; `undefined` when unknown. */
  pagePayment(paymentId: string):
    | Readonly<{
        paymentId: string;
        orderId: string;
        amount: string;
        currency: string;
        description: string;
        cardMask: string | null;
        status: Status;
        statusCode: string;
        statusDescription: string;
        mode: 'direct' | 'hosted';
        method: 'purchase' | 'auth';
        challenge: boolean;
        resultUrl: string | undefined;
      }>
    | undefined {
    const txn = this.#byPaymentId.get(paymentId);
    if (!txn) return undefined;
    return {
      paymentId: txn.paymentId,
      orderId: txn.orderId,
      amount: minorText(txn.amountMinor),
      currency: txn.currency,
      description: txn.description,
      cardMask: txn.card?.mask ?? null,
      status: txn.status,
      statusCode: txn.code.code,
      statusDescription: txn.code.description,
      mode: txn.mode,
      method: txn.method,
      challenge: txn.threeDS === 'challenge' && txn.status === 'pending',
      resultUrl:
        typeof txn.fields['result_url'] === 'string' ? txn.fields['result_url'] : undefined,
    };
  }

  /**
   * The cardholder's answer on the 3DS page. `changed` is false when the payment was no
   * longer waiting for it (opened twice, or already final): then nothing changes.
   */
  threeDSDecision(paymentId: string, approve: boolean): {changed: boolean} | undefined {
    const txn = this.#byPaymentId.get(paymentId);
    if (!txn) return undefined;
    if (txn.threeDS !== 'challenge' || txn.status !== 'pending') return {changed: false};
    if (approve) {
      txn.threeDS = 'approved';
      this.#succeed(txn);
    } else {
      txn.threeDS = 'declined';
      this.#finish(txn, 'failure', SANDBOX_CODES.threeDSFailed);
    }
    return {changed: true};
  }

  /**
   * The customer pays on the hosted checkout page. Returns `invalid` with a message for
   * bad card data (nothing changes), `final` when the payment was no longer payable.
   */
  checkoutPay(
    paymentId: string,
    form: {cc_number: string; exp_month: string; exp_year: string; card_cvv: string},
  ): {result: 'invalid'; message: string} | {result: 'final' | 'paid' | 'challenge'} | undefined {
    const txn = this.#byPaymentId.get(paymentId);
    if (!txn) return undefined;
    if (txn.mode !== 'hosted' || txn.status !== 'init') return {result: 'final'};
    const number = form.cc_number.replace(/[\s-]/g, '');
    const month = Number(form.exp_month);
    let year = Number(form.exp_year);
    if (year < 100) year += 2000;
    if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
      return {
        result: 'invalid',
        message: 'The card number is not valid (it fails the Luhn check).',
      };
    }
    if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year)) {
      return {result: 'invalid', message: 'The expiry date is not valid.'};
    }
    const now = new Date(this.#now());
    if (year * 12 + month - 1 < now.getUTCFullYear() * 12 + now.getUTCMonth()) {
      return {result: 'invalid', message: 'The card has expired.'};
    }
    if (!/^\d{3,4}$/.test(form.card_cvv)) {
      return {result: 'invalid', message: 'The CVV must be 3 or 4 digits.'};
    }
    txn.card = {
      mask: maskCard(number),
      last4: number.slice(-4),
      brand: cardBrand(number),
      outcome: cardOutcome(number),
      expMonth: month,
      expYear: year,
    };
    const decline = this.#o.faults.take('decline', {
      orderId: txn.orderId,
      cardLast4: txn.card.last4,
    });
    this.#charge(txn, {viaToken: false, decline});
    return {result: txn.threeDS === 'challenge' ? 'challenge' : 'paid'};
  }

  // -------------------------------------------------------------------------------------
  // Cancel, lookups, resend
  // -------------------------------------------------------------------------------------

  #order(orderId: string): Txn {
    const txn = this.#orders.get(orderId);
    if (!txn) throw notFound(`order ${JSON.stringify(orderId.slice(0, 64))}`);
    return txn;
  }

  cancelOrder(orderId: string): Record<string, unknown>[] {
    const txn = this.#order(orderId);
    if (txn.mode !== 'hosted' || txn.status !== 'init') {
      throw new SandboxError(
        'P-420',
        `order: cannot be cancelled: only an unpaid (init) hosted purchase or auth can be cancelled; this one is ${txn.mode} with status ${txn.status}`,
      );
    }
    this.#finish(txn, 'failure', SANDBOX_CODES.cancelled);
    return [this.paymentRecord(txn, 'cancel')];
  }

  /** The record of one operation of an order (`purchase`, `auth`, `capture`, `void`, `refund`). */
  getOperation(orderId: string, operation: string): Record<string, unknown> {
    const txn = this.#order(orderId);
    if (operation === txn.method) return this.paymentRecord(txn);
    const op = txn.operations.findLast((o) => o.method === operation);
    if (!op) throw notFound(`operation ${JSON.stringify(operation.slice(0, 32))} of this order`);
    return this.operationRecord(op);
  }

  /**
   * Resends the webhook of an operation (`callback=true`). For a subscription order,
   * `transactionId` picks one charge (by transaction or payment id); without it the
   * latest transaction of the subscription is used.
   */
  resend(
    orderId: string,
    operation: string,
    transactionId: string | undefined,
  ): Record<string, unknown> {
    const txn = this.#order(orderId);
    const sub = txn.subscription;
    if (sub && (operation === 'purchase' || operation === txn.method)) {
      const all = [sub.initial, ...sub.charges];
      const target = transactionId
        ? all.find((t) => t.transactionId === transactionId || t.paymentId === transactionId)
        : all[all.length - 1];
      if (!target)
        throw notFound(
          `transaction ${JSON.stringify(transactionId?.slice(0, 64))} of this subscription`,
        );
      this.#emitTxn(target, {resend: true});
      return this.paymentRecord(target);
    }
    if (transactionId !== undefined) {
      throw new SandboxError(
        'V-400',
        'transactionId: is only for the purchase of a subscription order',
      );
    }
    if (operation === txn.method) {
      this.#emitTxn(txn, {resend: true});
      return this.paymentRecord(txn);
    }
    const op = txn.operations.findLast((o) => o.method === operation);
    if (!op) throw notFound(`operation ${JSON.stringify(operation.slice(0, 32))} of this order`);
    this.#emitOp(op, {resend: true});
    return this.operationRecord(op);
  }

  /** The order's records: the primary record first, then its secondary operations. */
  getOrder(orderId: string): Record<string, unknown>[] {
    const txn = this.#order(orderId);
    return [this.paymentRecord(txn), ...txn.operations.map((o) => this.operationRecord(o))];
  }

  // -------------------------------------------------------------------------------------
  // Secondary operations
  // -------------------------------------------------------------------------------------

  #checkCurrency(txn: Txn, currency: string): void {
    if (currency !== txn.currency) {
      throw new SandboxError(
        'P-460',
        `order_currency: must be the order's currency ${txn.currency}`,
      );
    }
  }

  capture(body: unknown, faults: readonly Fault[]): Record<string, unknown> {
    const req = validate(CaptureRequest, body, 'capture request');
    const txn = this.#order(req.order_id);
    this.#checkCurrency(txn, req.order_currency);
    const captured = txn.operations.some((o) => o.method === 'capture');
    if (txn.method !== 'auth' || txn.status !== 'success' || txn.voided || captured) {
      throw new SandboxError(
        'P-430',
        'order_id: cannot be captured: only a successful auth (1002) that was not voided or captured yet can be captured',
      );
    }
    const amount = req.order_amount === undefined ? txn.heldMinor : amountToMinor(req.order_amount);
    if (amount > txn.heldMinor) {
      throw new SandboxError(
        'P-431',
        `order_amount: must be at most the held amount ${minorText(txn.heldMinor)}`,
      );
    }
    txn.capturedMinor = amount;
    txn.heldMinor = 0;
    this.#charges++;
    return this.#operation(txn, 'capture', amount, SANDBOX_CODES.success, req.server_url, faults);
  }

  void(body: unknown, faults: readonly Fault[]): Record<string, unknown> {
    const req = validate(VoidRequest, body, 'void request');
    const txn = this.#order(req.order_id);
    this.#checkCurrency(txn, req.order_currency);
    if (txn.method !== 'auth' || txn.status !== 'success' || txn.voided || txn.heldMinor === 0) {
      throw new SandboxError(
        'P-440',
        'order_id: cannot be voided: only a held auth (1002) that was not captured or voided yet can be voided',
      );
    }
    const amount = txn.heldMinor;
    txn.heldMinor = 0;
    txn.voided = true;
    return this.#operation(txn, 'void', amount, SANDBOX_CODES.success, req.server_url, faults);
  }

  refund(body: unknown, faults: readonly Fault[]): Record<string, unknown> {
    const req = validate(RefundRequest, body, 'refund request');
    const txn = this.#order(req.order_id);
    this.#checkCurrency(txn, req.order_currency);
    const base =
      txn.status !== 'success'
        ? 0
        : txn.method === 'purchase'
          ? txn.amountMinor
          : txn.capturedMinor;
    if (base === 0) {
      throw new SandboxError(
        'P-450',
        'order_id: cannot be refunded: only a successful purchase or a captured auth can be refunded',
      );
    }
    const left = base - txn.refundedMinor;
    const amount = req.refund_amount === undefined ? left : amountToMinor(req.refund_amount);
    if (left === 0 || amount > left) {
      throw new SandboxError(
        'P-451',
        `refund_amount: must be at most what is left to refund, ${minorText(left)}`,
      );
    }
    txn.refundedMinor += amount;
    return this.#operation(
      txn,
      'refund',
      amount,
      SANDBOX_CODES.refundSuccess,
      req.server_url,
      faults,
    );
  }

  #operation(
    txn: Txn,
    method: Operation['method'],
    amountMinor: number,
    code: Code,
    serverUrl: string | undefined,
    faults: readonly Fault[],
  ): Record<string, unknown> {
    const now = this.#now();
    const op: Operation = {
      operationId: randomUUID(),
      transactionId: randomUUID(),
      payment: txn,
      seq: ++this.#seq,
      method,
      amountMinor,
      status: 'success',
      code,
      createdAt: now,
      processedAt: now,
      serverUrl,
      webhookCopies: webhookCopies(splitFaults(faults).webhook),
      lastEvent: undefined,
    };
    txn.operations.push(op);
    this.#ledger.push(op);
    this.#emitOp(op);
    return this.operationRecord(op);
  }

  // -------------------------------------------------------------------------------------
  // Subscriptions
  // -------------------------------------------------------------------------------------

  #createSubscription(txn: Txn, config: InitRecurring, now: number): void {
    const sub: Subscription = {
      id: randomUUID(),
      initial: txn,
      config,
      status: 'init',
      token: undefined,
      amountMinor: config.amount === undefined ? txn.amountMinor : amountToMinor(config.amount),
      createdAt: now,
      updatedAt: now,
      anchor: anchorOf(new Date(now), config.start_date, config.time),
      k: config.start_date ? 0 : 1,
      charges: [],
      next: undefined,
      retry: undefined,
    };
    txn.subscription = sub;
    this.#subscriptions.set(sub.id, sub);
  }

  #activate(sub: Subscription): void {
    sub.status = 'active';
    sub.token = sub.initial.token;
    sub.updatedAt = this.#now();
    this.#scheduleNext(sub);
  }

  #scheduleNext(sub: Subscription): void {
    if (sub.status !== 'active') return;
    const {interval_unit: unit, interval_count: count, expiry_date: expiry} = sub.config;
    const now = this.#now();
    let at = occurrence(sub.anchor, unit, count, sub.k);
    while (at <= now) at = occurrence(sub.anchor, unit, count, ++sub.k);
    if (expiry !== undefined && utcDate(at) > expiry) {
      sub.next = undefined;
      return;
    }
    sub.next = this.#o.clock.schedule(at, () => {
      sub.k++;
      sub.next = undefined;
      if (sub.status !== 'active') return;
      sub.retry?.cancel();
      sub.retry = undefined;
      this.#chargeSubscription(sub, sub.config.retry_attempts);
      this.#scheduleNext(sub);
    });
  }

  #chargeSubscription(sub: Subscription, retriesLeft: number): void {
    if (sub.status !== 'active' || !sub.token) return;
    const card = this.#tokens.get(sub.token);
    const initial = sub.initial;
    const fields: RequestFields = {...initial.fields};
    delete fields['result_url'];
    const txn = this.#newTxn({
      orderId: initial.orderId,
      mode: 'direct',
      method: 'purchase',
      amountMinor: sub.amountMinor,
      currency: initial.currency,
      description: initial.description,
      fields,
      card,
      token: sub.token,
      now: this.#now(),
    });
    txn.chargeOf = sub;
    sub.charges.push(txn);
    this.#byPaymentId.set(txn.paymentId, txn);
    this.#primaries.push(txn);
    this.#ledger.push(txn);
    const decline = this.#o.faults.take('decline', {
      orderId: initial.orderId,
      cardLast4: card?.last4,
      recurringId: sub.id,
    });
    this.#charge(txn, {viaToken: true, decline});
    if (txn.status === 'failure' && retriesLeft > 0) {
      const at = this.#now() + sub.config.retry_interval_hours * 3600_000;
      sub.retry = this.#o.clock.schedule(at, () => {
        sub.retry = undefined;
        this.#chargeSubscription(sub, retriesLeft - 1);
      });
    }
  }

  /** Cancels a subscription: no further charges. */
  cancelSubscription(id: string): Record<string, unknown> {
    const sub = this.#subscriptions.get(id);
    if (!sub) throw notFound(`subscription ${JSON.stringify(id.slice(0, 64))}`);
    if (sub.status !== 'canceled') {
      sub.status = 'canceled';
      sub.updatedAt = this.#now();
      sub.next?.cancel();
      sub.retry?.cancel();
      sub.next = sub.retry = undefined;
    }
    return this.subscriptionRecord(sub);
  }

  /** Transactions of a subscription: its payments (initial and charges) and refunds. */
  subscriptionTransactions(id: string, query: Record<string, string>): Record<string, unknown>[] {
    const q = validate(SubscriptionTransactionsQuery, query, 'query');
    const sub = this.#subscriptions.get(id);
    if (!sub) throw notFound(`subscription ${JSON.stringify(id.slice(0, 64))}`);
    const out: Record<string, unknown>[] = [];
    for (const t of [sub.initial, ...sub.charges]) {
      if (
        (q.method === undefined || q.method === t.method) &&
        (q.status === undefined || q.status === t.status)
      ) {
        out.push(this.paymentRecord(t));
      }
      for (const op of t.operations) {
        if (
          (q.method === undefined || q.method === op.method) &&
          (q.status === undefined || q.status === op.status)
        ) {
          out.push(this.operationRecord(op));
        }
      }
    }
    return out;
  }

  // -------------------------------------------------------------------------------------
  // Reports
  // -------------------------------------------------------------------------------------

  /** Period query: one JSON line per transaction created within [startDate, enddate]. */
  periodTransactions(query: Record<string, string>): string[] {
    const numeric = Object.fromEntries(
      Object.entries(query).map(([k, v]) => [k, /^\d+$/.test(v) ? Number(v) : v]),
    );
    const q = validate(PeriodQuery, numeric, 'query');
    return this.#ledger
      .filter((e) => e.createdAt >= q.startDate && e.createdAt <= q.enddate)
      .map((e) => JSON.stringify(this.#periodEntry(e)));
  }

  #periodEntry(e: Txn | Operation): Record<string, unknown> {
    const t = 'payment' in e ? e.payment : e;
    const final = e.status === 'success' || e.status === 'failure';
    const ok = e.status === 'success';
    return {
      projectId: this.#o.posId,
      orderId: t.orderId,
      paymentId: t.paymentId,
      amount: minorText(e.amountMinor),
      currency: t.currency,
      method: this.#reportMethod(e),
      status: e.status,
      dateTime: final ? e.processedAt : '',
      authCode: ok ? t.authCode : '',
      rrnCode: ok ? t.rrn : '',
      description: t.description,
      payload: typeof t.fields['payload'] === 'string' ? t.fields['payload'] : '',
      customerFee: '0.00',
      merchantFee: '0.00',
      paymentSystem: t.card?.brand ?? '',
      recipientCardMask: '',
    };
  }

  /** Reports name a scheduled subscription charge `recurrent`; records call it `purchase`. */
  #reportMethod(e: Txn | Operation): string {
    if ('payment' in e) return e.method;
    return e.chargeOf ? 'recurrent' : e.method;
  }

  startRegister(body: unknown): {report_id: string; count: number} {
    const req = validate(RegisterRequest, body, 'register request');
    const start = Date.parse(req.start_date);
    const end = Date.parse(req.end_date);
    const fields: readonly string[] = req.transaction_details ?? REGISTER_DEFAULT_FIELDS;
    const lines = this.#ledger
      .filter((e) => e.createdAt >= start && e.createdAt <= end)
      .filter((e) => !req.statuses || (req.statuses as string[]).includes(e.status))
      .filter((e) => !req.methods || (req.methods as string[]).includes(this.#reportMethod(e)))
      .map((e) => {
        const full = this.#registerEntry(e);
        return JSON.stringify(Object.fromEntries(fields.map((f) => [f, full[f] ?? ''])));
      });
    const id = randomUUID();
    this.#registers.set(id, {id, lines, readyAt: Date.now() + this.#o.reportDelayMs});
    return {report_id: id, count: lines.length};
  }

  #registerEntry(e: Txn | Operation): Record<string, unknown> {
    const p = this.#periodEntry(e);
    const t = 'payment' in e ? e.payment : e;
    const amount = minorText(e.amountMinor);
    const entry: Record<string, unknown> = {
      ...p,
      dateTime: e.status === 'success' || e.status === 'failure' ? e.processedAt : e.createdAt,
      cardMask: t.card?.mask ?? '',
      payway: typeof t.fields['payway'] === 'string' ? t.fields['payway'] : 'card',
      entityName: 'Sandbox entity',
      projectName: 'pg-checkout sandbox project',
      originalAmount: amount,
      exchangeAmount: amount,
      exchangeCurrency: t.currency,
      exchangeRate: '1',
      tokenizationKind:
        t.token !== undefined && t.chargeOf ? 'recurring' : t.token ? 'cc_token' : '',
      reserveAmount: '0.00',
      receiverName: '',
      receiverAmount: '',
      receiverFee: '',
    };
    for (const f of REGISTER_FIELDS) if (!(f in entry)) entry[f] = '';
    return entry;
  }

  /** The register's lines, or `undefined` while it is being generated. */
  fetchRegister(id: string): string[] | undefined {
    const reg = this.#registers.get(id);
    if (!reg) throw notFound(`report ${JSON.stringify(id.slice(0, 64))}`);
    return Date.now() < reg.readyAt ? undefined : reg.lines;
  }

  // -------------------------------------------------------------------------------------
  // Records
  // -------------------------------------------------------------------------------------

  #recurring(t: Txn): {id: string; status: Subscription['status']} | undefined {
    const sub = t.subscription ?? t.chargeOf;
    return sub ? {id: sub.id, status: sub.status} : undefined;
  }

  #tokenExpiration(card: StoredCard): string {
    return formatGatewayTimestamp(
      new Date(Date.UTC(card.expYear, card.expMonth, 0, 23, 59, 59)),
      false,
    );
  }

  /**
   * A payment record. `api`: what creation and lookups answer (absent fields left out);
   * `cancel`: the cancel response, with null for absent fields and `processed_at`.
   */
  paymentRecord(t: Txn, style: 'api' | 'cancel' = 'api'): Record<string, unknown> {
    const ok = t.status === 'success';
    const pending3ds = t.status === 'pending' && t.threeDS === 'challenge';
    const f = t.fields;
    const rec: Record<string, unknown> = {
      payment_id: t.paymentId,
      order_id: t.orderId,
      gateway_order_id: t.status === 'init' ? null : `SBX${String(t.seq).padStart(9, '0')}`,
      billing_order_id: null,
      transaction_id: t.transactionId,
      pos_id: this.#o.posId,
      mode: t.mode,
      method: t.method,
      amount: amountFromMinor(t.amountMinor),
      currency: t.currency,
      description: t.description,
      payway: typeof f['payway'] === 'string' ? f['payway'] : 'card',
      status: t.status,
      status_code: t.code.code === '' ? null : t.code.code,
      status_description: t.code.description,
      user_action_required: pending3ds,
      user_action_url: pending3ds ? `${this.#o.publicUrl()}/sandbox/3ds/${t.paymentId}` : null,
      eci: t.eci ?? null,
      mcc: typeof f['merchant_mcc'] === 'string' ? f['merchant_mcc'] : '5999',
      options_3ds:
        t.threeDS === 'none' ? null : t.threeDS === 'external' ? 'external' : 'challenge',
      cc_mask: t.card?.mask ?? null,
      cc_token: ok && t.token ? t.token : null,
      cc_token_expiration: ok && t.token && t.card ? this.#tokenExpiration(t.card) : null,
    };
    for (const k of CUSTOMER_FIELDS) rec[k] = f[k] ?? null;
    rec['result_url'] = f['result_url'] ?? null;
    rec['created_at'] = this.#ts(t.createdAt);
    rec[style === 'cancel' ? 'processed_at' : 'processing_time'] = this.#ts(t.processedAt);
    rec['payload'] = f['payload'] ?? null;
    const recurring = this.#recurring(t);
    if (recurring) rec['recurring'] = recurring;
    if (style === 'api') {
      for (const [k, v] of Object.entries(rec)) if (v === null) delete rec[k];
    }
    return rec;
  }

  /** The webhook payload of a primary transaction (the spec's primary webhook fields). */
  #paymentWebhook(t: Txn): Record<string, unknown> {
    const r = this.paymentRecord(t);
    const out: Record<string, unknown> = {};
    for (const k of PRIMARY_WEBHOOK_FIELDS) if (r[k] !== undefined) out[k] = r[k];
    out['processed_at'] = r['processing_time'];
    return out;
  }

  operationRecord(op: Operation, style: 'api' | 'webhook' = 'api'): Record<string, unknown> {
    const t = op.payment;
    return {
      operation_id: op.operationId,
      payment_id: t.paymentId,
      order_id: t.orderId,
      transaction_id: op.transactionId,
      pos_id: this.#o.posId,
      mode: 'direct',
      method: op.method,
      amount: amountFromMinor(op.amountMinor),
      currency: t.currency,
      status: op.status,
      status_code: op.code.code,
      status_description: op.code.description,
      created_at: this.#ts(op.createdAt),
      [style === 'webhook' ? 'processed_at' : 'processing_time']: this.#ts(op.processedAt),
    };
  }

  subscriptionRecord(sub: Subscription): Record<string, unknown> {
    const t = sub.initial;
    const c = sub.config;
    return {
      recurring_payment: {
        pos_id: this.#o.posId,
        company_id: this.#o.companyId,
        order_id: t.orderId,
        amount: amountFromMinor(sub.amountMinor),
        currency: t.currency,
        cc_token: sub.token ? `rcr:${sub.token}` : null,
        description: t.description,
        payway: typeof t.fields['payway'] === 'string' ? t.fields['payway'] : 'card',
        server_url: t.fields['server_url'] ?? null,
      },
      recurring_config: {
        interval_unit: c.interval_unit,
        interval_count: c.interval_count,
        retry_attempts: c.retry_attempts,
        retry_interval_hours: c.retry_interval_hours,
        start_date: c.start_date ?? utcDate(sub.createdAt),
        expiry_date: c.expiry_date ?? null,
        time: c.time ?? new Date(sub.createdAt).toISOString().slice(11, 19),
      },
      recurring_status: sub.status,
      metadata: {
        id: sub.id,
        created_at: this.#ts(sub.createdAt),
        updated_at: this.#ts(sub.updatedAt),
      },
    };
  }

  // -------------------------------------------------------------------------------------
  // Webhooks
  // -------------------------------------------------------------------------------------

  #emitTxn(t: Txn, opts: {resend?: boolean} = {}): void {
    const url = t.chargeOf?.config.notification_url ?? t.fields['server_url'];
    if (typeof url !== 'string') return;
    const payload = this.#paymentWebhook(t);
    const recurring = this.#recurring(t);
    const event: WebhookEvent = {
      eventId: `evt_${++this.#events}`,
      url,
      payload,
      summary: {
        method: t.method,
        status: t.status,
        status_code: t.code.code || null,
        order_id: t.orderId,
        payment_id: t.paymentId,
        operation_id: null,
        recurring_id: recurring?.id ?? null,
      },
    };
    const ruled = this.#o.faults.take('webhook', {
      orderId: t.orderId,
      cardLast4: t.card?.last4,
      recurringId: recurring?.id,
    });
    const copies = webhookCopies(ruled) ?? (opts.resend ? 1 : t.webhookCopies);
    const previous = opts.resend ? undefined : t.lastEvent;
    if (!opts.resend) t.lastEvent = event;
    this.#o.webhooks.send(event, {copies, previous, resend: opts.resend ?? false});
  }

  #emitOp(op: Operation, opts: {resend?: boolean} = {}): void {
    const t = op.payment;
    const url = op.serverUrl ?? t.fields['server_url'];
    if (typeof url !== 'string') return;
    const event: WebhookEvent = {
      eventId: `evt_${++this.#events}`,
      url,
      payload: this.operationRecord(op, 'webhook'),
      summary: {
        method: op.method,
        status: op.status,
        status_code: op.code.code,
        order_id: t.orderId,
        payment_id: t.paymentId,
        operation_id: op.operationId,
        recurring_id: this.#recurring(t)?.id ?? null,
      },
    };
    const ruled = this.#o.faults.take('webhook', {orderId: t.orderId, cardLast4: t.card?.last4});
    const copies = webhookCopies(ruled) ?? (opts.resend ? 1 : op.webhookCopies);
    const previous = opts.resend ? undefined : op.lastEvent;
    if (!opts.resend) op.lastEvent = event;
    this.#o.webhooks.send(event, {copies, previous, resend: opts.resend ?? false});
  }

  // -------------------------------------------------------------------------------------
  // Inspection
  // -------------------------------------------------------------------------------------

  payments(): readonly SandboxPayment[] {
    return this.#primaries.map((t) =>
      Object.freeze({
        paymentId: t.paymentId,
        transactionId: t.transactionId,
        orderId: t.orderId,
        mode: t.mode,
        method: t.method,
        amount: amountFromMinor(t.amountMinor),
        currency: t.currency,
        status: t.status,
        statusCode: t.code.code,
        statusDescription: t.code.description,
        ccMask: t.card?.mask ?? null,
        recurringId: (t.subscription ?? t.chargeOf)?.id ?? null,
        subscriptionCharge: t.chargeOf !== undefined,
        createdAt: this.#ts(t.createdAt),
        processedAt: this.#ts(t.processedAt),
        heldAmount: t.heldMinor === 0 ? 0 : amountFromMinor(t.heldMinor),
        capturedAmount: t.capturedMinor === 0 ? 0 : amountFromMinor(t.capturedMinor),
        refundedAmount: t.refundedMinor === 0 ? 0 : amountFromMinor(t.refundedMinor),
        operations: Object.freeze(
          t.operations.map((o) =>
            Object.freeze({
              operationId: o.operationId,
              method: o.method,
              amount: amountFromMinor(o.amountMinor),
              status: o.status,
              statusCode: o.code.code,
              createdAt: this.#ts(o.createdAt),
            }),
          ),
        ),
      }),
    );
  }

  /** Subscriptions, for the inspection endpoint. */
  subscriptions(): Record<string, unknown>[] {
    return [...this.#subscriptions.values()].map((s) => ({
      ...this.subscriptionRecord(s),
      next_charge_at: s.next ? this.#ts(s.next.at) : null,
      charges: s.charges.length,
    }));
  }
}

/** Fields of the spec's primary webhook table (plus `recurring` for subscriptions). */
const PRIMARY_WEBHOOK_FIELDS = [
  'payment_id',
  'order_id',
  'gateway_order_id',
  'billing_order_id',
  'transaction_id',
  'pos_id',
  'mode',
  'method',
  'amount',
  'currency',
  'payway',
  'eci',
  'status',
  'status_code',
  'status_description',
  'cc_mask',
  'cc_token',
  'cc_token_expiration',
  'customer_id',
  'customer_phone',
  'created_at',
  'payload',
  'recurring',
] as const;
