/**
 * The engine's data model and the ledger state every part of it shares: primary
 * transactions (payments and subscription charges), their secondary operations, card
 * tokens, subscriptions and registers. Money is kept in integer minor units; no float
 * arithmetic touches an amount. Full card numbers and CVVs are never stored: a card is
 * kept as its mask, last four digits, network and test-card outcome.
 */
import {randomUUID} from 'node:crypto';
import {
  WireAmount,
  formatGatewayTimestamp,
  requestSchemas,
} from '../../src/server/gateway/index.js';
import type {InitRecurring, RequestSchemas} from '../../src/server/gateway/index.js';
import type {CardOutcome} from '../cards.js';
import type {SandboxClock, TaskHandle} from '../clock.js';
import type {FaultRules} from '../faults.js';
import type {ScheduleAnchor} from '../schedule.js';
import type {WebhookDispatcher, WebhookEvent} from '../webhooks.js';

export type Status = 'init' | 'pending' | 'success' | 'failure';
export interface Code {
  readonly code: string;
  readonly description: string;
}

/** A card as the sandbox keeps it: never the full number or the CVV. */
export interface StoredCard {
  mask: string;
  last4: string;
  brand: string;
  outcome: CardOutcome;
  expMonth: number;
  expYear: number;
}

/**
 * The last second a token of `card` pays: the last second of the card's month in the
 * sandbox's local time (UTC, as every timestamp it writes). Its `cc_token_expiration` is
 * this second, and the token is valid through its end (`tokenExpiredAt`).
 */
export function tokenLastSecond(card: StoredCard): Date {
  return new Date(Date.UTC(card.expYear, card.expMonth, 0, 23, 59, 59));
}

export type RequestFields = Record<string, unknown>;

/** A primary transaction: a payment, or one charge of a subscription. */
export interface Txn {
  /** How a direct payment's card came: `cc_token` instead of card data (inspection). */
  paidByToken?: boolean;
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
export interface Operation {
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

export interface Subscription {
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

export interface Register {
  id: string;
  lines: string[];
  readyAt: number;
}

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

export interface EngineOptions {
  posId: string;
  companyId: string;
  clock: SandboxClock;
  webhooks: WebhookDispatcher;
  faults: FaultRules;
  reportDelayMs: number;
  /** Base URL for links the customer follows (3DS and checkout pages). */
  publicUrl: () => string;
  /**
   * The wire schemas requests are checked with: the sandbox profile's reading
   * (`profileRequests` in `../profiles.ts`); the spec's wire schemas when not given.
   */
  requests?: RequestSchemas;
}

/** Minor units as decimal text with two fractional digits: 1040 → `10.40`. */
export function minorText(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Everything the sandbox remembers, and the options it was started with. */
export class EngineState {
  readonly o: EngineOptions;
  /** The wire schemas requests are checked with (see {@link EngineOptions.requests}). */
  readonly requests: RequestSchemas;
  readonly orders = new Map<string, Txn>();
  /** Order ids held by create requests in flight, not created yet. */
  readonly held = new Map<string, OrderClaim>();
  readonly byPaymentId = new Map<string, Txn>();
  /** Every transaction and operation, in creation order (what reports read). */
  readonly ledger: (Txn | Operation)[] = [];
  readonly primaries: Txn[] = [];
  readonly tokens = new Map<string, StoredCard>();
  readonly subscriptions = new Map<string, Subscription>();
  readonly registers = new Map<string, Register>();
  seq = 0;
  events = 0;
  /** Successful money movements so far: purchases (incl. subscription charges) and captures. */
  charges = 0;

  constructor(opts: EngineOptions) {
    this.o = opts;
    this.requests = opts.requests ?? requestSchemas(WireAmount);
  }

  /** Sandbox-clock time in Unix ms. */
  now(): number {
    return this.o.clock.nowMs();
  }

  /** A time as the gateway writes it in records. */
  ts(ms: number): string {
    return formatGatewayTimestamp(new Date(ms));
  }
}

/** A new primary transaction in `init`, with its sequence number, auth code and RRN. */
export function newTxn(
  s: EngineState,
  p: {
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
  },
): Txn {
  const seq = ++s.seq;
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

/** Adds a primary transaction to the ledger (not to the order index: charges share it). */
export function record(s: EngineState, txn: Txn): void {
  s.byPaymentId.set(txn.paymentId, txn);
  s.primaries.push(txn);
  s.ledger.push(txn);
}
