/**
 * The records the payment store keeps beside attempts, as the store gives them back:
 * `onPaymentUpdate` notifications and their outbox entries, received and refused
 * webhooks, secondary operations, and the operation intents (captures, voids, refunds the
 * companion makes, stored before the gateway is called). `store.ts` re-exports them with
 * the store's interface.
 */
import type {AttemptState, FailureReason} from './payment-store.js';

/** Kinds of change reported through `onPaymentUpdate`. */
export type PaymentUpdateKind =
  | 'payment'
  | 'capture'
  | 'void'
  | 'refund'
  | 'subscription_charge'
  /** An order was charged twice: `attemptId` is the payment being compensated. */
  | 'duplicate_charge';

/** One status change, as given to `onPaymentUpdate`. */
export interface PaymentUpdate {
  /** Stable id of this notification (the outbox row): use it to deduplicate after a crash. */
  updateId: string;
  kind: PaymentUpdateKind;
  orderRef: string;
  attemptId: string;
  gatewayOrderId: string;
  /** New state (for `payment`: of the attempt; otherwise: of the operation). */
  state: AttemptState;
  previousState?: AttemptState;
  failureReason?: FailureReason;
  statusCode?: string;
  statusDescription?: string;
  paymentId?: string;
  /** For secondary operations and subscription charges: the operation's own id. */
  operationId?: string;
  /** For secondary operations the companion made: the intent's key. */
  intentKey?: string;
  /** Why a secondary operation was made: by the merchant, or to undo a double charge. */
  reason?: IntentReason;
  amount?: string;
  currency?: string;
  cardMask?: string;
  /**
   * The saved card this payment kept (its customer consented, see `listSavedCards`); an
   * update never carries the card token itself.
   */
  savedCardId?: string;
  recurringId?: string;
  /** Where the change came from. */
  source: 'create' | 'webhook' | 'lookup' | 'reconcile' | 'operation';
  /** ISO time the change was stored. */
  at: string;
}

/** A payment update before the store gives it an id. */
export type NewPaymentUpdate = Omit<PaymentUpdate, 'updateId'>;

/** A stored `onPaymentUpdate` notification. */
export interface OutboxEntry {
  id: number;
  update: PaymentUpdate;
  createdAt: number;
  /** How many delivery attempts failed so far. */
  failures: number;
}

/** An outbox entry delivered at `at`, to be marked delivered. */
export interface OutboxDelivery {
  id: number;
  at: number;
}

/** A received, signature-checked webhook. */
export interface WebhookEventInput {
  /** Deduplication key derived from the raw `data` (SHA-256 hex). */
  eventKey: string;
  receivedAt: number;
  /** `primary`, `capture`, ..., or `undecodable` for signed data that is not a known payload. */
  kind: string;
  gatewayOrderId?: string;
  status?: string;
  /**
   * The `data` field as received (Base64Url JSON), re-encoded without the card token when
   * the payload has one (`cc_token`): kept for the record, never verified again.
   */
  data: string;
  /**
   * Set when a signed webhook contradicts the stored attempt (another `pos_id`, amount or
   * currency): it is kept but changed nothing.
   */
  flag?: string;
}

export interface WebhookEventRecord extends WebhookEventInput {
  id: number;
}

/** A refused webhook (bad signature, address not allowed). Its data is not kept, only a hash. */
export interface RejectedWebhookInput {
  receivedAt: number;
  ip: string;
  reason: string;
  /** SHA-256 hex of the body, to correlate without keeping attacker-chosen content. */
  bodySha256: string;
  size: number;
}

export interface RejectedWebhookRecord extends RejectedWebhookInput {
  id: number;
}

/** A secondary operation (capture, void, refund) or a subscription charge of an order. */
export interface StoredOperationInput {
  gatewayOrderId: string;
  orderRef: string;
  kind: Exclude<PaymentUpdateKind, 'payment'>;
  /** `operation_id`, or for subscription charges the transaction/payment id. */
  operationId: string;
  status: string;
  statusCode?: string;
  amount?: string;
  currency?: string;
  /** The payload as JSON, unknown fields kept. */
  raw: string;
  createdAt: number;
}

export interface StoredOperation extends StoredOperationInput {
  id: number;
}

/** Secondary operations the companion makes itself. */
export type IntentKind = 'capture' | 'void' | 'refund';
/** Who asked for a secondary operation. */
export type IntentReason = 'merchant' | 'duplicate_charge';
/**
 * An intent's state: `pending` while its gateway call runs, `unknown` when the call's
 * outcome is not known (it is then settled through the order lookup), then final.
 */
export type IntentState = 'pending' | 'unknown' | 'success' | 'failure';

/**
 * A capture, void or refund, stored with its key before the gateway is called: a repeat
 * with the same key is the same operation, and the amounts of every intent that is not
 * `failure` count against what the order may still capture or refund.
 */
export interface OperationIntent {
  orderRef: string;
  /** The caller's idempotency key (unique per order). */
  key: string;
  gatewayOrderId: string;
  kind: IntentKind;
  reason: IntentReason;
  /** Exact decimal text; always set (a full refund stores what was left). */
  amount: string;
  currency: string;
  state: IntentState;
  /** The gateway's `operation_id` once known. */
  operationId?: string;
  statusCode?: string;
  statusDescription?: string;
  /** The order's secondary operation ids at the gateway before the call (JSON array). */
  baseline?: string;
  /** The request as the key first saw it, to refuse a key reused for another request. */
  fingerprint: string;
  createdAt: number;
  updatedAt: number;
}

export type CreateIntentResult =
  | {created: true; intent: OperationIntent}
  /** The key was used before: this is that operation (compare the fingerprint). */
  | {created: false; existing: OperationIntent}
  /** `decide` refused: a reason code and a message naming the rule. */
  | {created: false; refused: {code: string; message: string}};

/** What an intent's `mutate` returns. */
export interface IntentMutation {
  patch: Partial<
    Pick<
      OperationIntent,
      'state' | 'operationId' | 'statusCode' | 'statusDescription' | 'baseline' | 'updatedAt'
    >
  >;
  update?: NewPaymentUpdate;
}
