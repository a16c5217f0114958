/**
 * The payment store: what the companion keeps durably so that no payment is lost or
 * charged twice, across crashes and restarts. One row per payment attempt (one gateway
 * `order_id`), every received webhook, the secondary operations of each order, rejected
 * webhooks, and an outbox of `onPaymentUpdate` notifications written in the same
 * transaction as the change they report.
 *
 * The interface is Promise-based; each method is atomic. Methods that change an attempt
 * take a synchronous `mutate` function that runs inside the store's transaction, so the
 * decision (for instance "an older status never overwrites a final one", see
 * `attempt-transitions.ts`) and the write cannot be separated by another writer.
 *
 * Card numbers and CVVs are never given to the store: there is no field for them. Card
 * tokens only in a saved card (`saved-cards.ts`), written in the same transaction as the
 * success of the payment whose customer consented: a gateway record or webhook is kept
 * without its `cc_token` (`stored-tokens.ts`), and updates carry the saved card's id.
 */
import type {SavedCardRecord, SavedCardStore} from './saved-card-records.js';
import type {
  NewPaymentUpdate,
  OutboxEntry,
  OutboxDelivery,
  WebhookEventInput,
  WebhookEventRecord,
  RejectedWebhookInput,
  RejectedWebhookRecord,
  StoredOperationInput,
  StoredOperation,
  IntentState,
  OperationIntent,
  CreateIntentResult,
  IntentMutation,
} from './records.js';

/** Internal attempt states: the gateway's statuses plus `creating` and `unknown`. */
export const ATTEMPT_STATES = [
  'creating',
  'unknown',
  'init',
  'pending',
  'success',
  'failure',
] as const;
/**
 * Where a payment attempt stands in the store: `creating` (the create is on its way to the
 * gateway), `unknown` (its outcome was not confirmed), `init` and `pending` (the gateway
 * has it, unfinished: 3-D Secure, processing), then `success` or `failure`.
 */
export type AttemptState = (typeof ATTEMPT_STATES)[number];

/** States whose outcome the gateway has not told us. */
export const UNSETTLED_STATES: readonly AttemptState[] = ['creating', 'unknown', 'init', 'pending'];

/**
 * States in which an attempt blocks a new attempt for the same order — unless it was
 * written off (abandoned or expired) and is not `success`: see {@link isLiveAttempt}.
 */
export const LIVE_STATES: readonly AttemptState[] = [...UNSETTLED_STATES, 'success'];

/** Why an open attempt no longer blocks its order. */
export type WriteOffReason =
  /** The customer cancelled the 3-D Secure challenge. */
  | 'abandoned'
  /** It stayed open longer than the configured age: no more lookups. */
  | 'expired';

/**
 * The one-live-attempt-per-order rule, stated here only (both stores' inserts ask it; the
 * PostgreSQL backstop index is built from {@link UNSETTLED_STATES}): true when the attempt
 * blocks a new attempt for its order — a success always, an unsettled attempt until it is
 * written off.
 */
export function isLiveAttempt(a: Pick<AttemptRecord, 'state' | 'writtenOff'>): boolean {
  if (a.state === 'success') return true;
  return UNSETTLED_STATES.includes(a.state) && a.writtenOff === undefined;
}

/** Why an attempt ended in `failure`. */
export type FailureReason =
  /** The gateway declined (or 3-D Secure failed). */
  | 'declined'
  /** The gateway never created the payment (refused, or not found after an unknown outcome). */
  | 'not_created';

/** One payment attempt: one gateway `order_id`. */
export interface AttemptRecord {
  /** The browser's attempt id (unique). */
  attemptId: string;
  orderRef: string;
  /** The gateway `order_id` of this attempt (unique). */
  gatewayOrderId: string;
  /** 1 for the first attempt of an order, then 2, 3, ... */
  seq: number;
  method: 'purchase' | 'auth';
  /** Exact decimal text, e.g. `"12.50"`. */
  amount: string;
  currency: string;
  state: AttemptState;
  failureReason?: FailureReason;
  statusCode?: string;
  statusDescription?: string;
  userActionUrl?: string;
  paymentId?: string;
  cardMask?: string;
  recurringId?: string;
  /**
   * The last payment record or webhook payload from the gateway, as JSON (unknown fields
   * kept, the card token left out).
   */
  raw?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** When the create request was (about to be) sent. */
  createSentAt?: number;
  /** When the gateway last told us anything about this attempt (response, webhook, lookup). */
  lastGatewayAt?: number;
  /** When we last asked the gateway (lookup). */
  lastCheckAt?: number;
  /** How many lookups were made (the sweep backs off with it). */
  checks?: number;
  /**
   * How many create requests were sent with this gateway `order_id`: more than 1 when the
   * customer paid again after an unknown outcome (the `order_id` is the idempotency key).
   */
  createCount?: number;
  /** Set when the attempt no longer blocks its order; it is still settled by lookups. */
  writtenOff?: WriteOffReason;
  writtenOffAt?: number;
  /**
   * The customer (as `resolveOrder` identified them) who asked to save this card: on
   * success, the payment's token is kept as their saved card (in the same transaction).
   */
  saveCardFor?: string;
}

export type {
  PaymentUpdateKind,
  PaymentUpdate,
  NewPaymentUpdate,
  OutboxEntry,
  OutboxDelivery,
  WebhookEventInput,
  WebhookEventRecord,
  RejectedWebhookInput,
  RejectedWebhookRecord,
  StoredOperationInput,
  StoredOperation,
  IntentKind,
  IntentReason,
  IntentState,
  OperationIntent,
  CreateIntentResult,
  IntentMutation,
} from './records.js';
/** One counted payment attempt for the card-testing limits. */
export interface VelocityKey {
  /** `ip`, `order` or `card`. */
  scope: string;
  /** The address (an IPv6 /64), the order ref, or a keyed hash of the card number. */
  key: string;
  max: number;
}

export type ReserveAttemptResult =
  | {ok: true}
  /** Over a limit: the scope that refused and when its oldest counted attempt leaves the window. */
  | {ok: false; scope: string; retryAfterMs: number};

/** What a `mutate` function returns: the fields to change and, optionally, the update to report. */
export interface AttemptMutation {
  patch: Partial<Omit<AttemptRecord, 'attemptId' | 'gatewayOrderId' | 'orderRef' | 'seq'>>;
  update?: NewPaymentUpdate;
  /**
   * A card to keep in the same transaction, as {@link SavedCardStore.saveCard} does (a live
   * card of the customer with the same token is kept instead); the update's `savedCardId`
   * is then the id of the card kept.
   */
  saveCard?: SavedCardRecord;
  /**
   * A count of the shop-wide guards (`pg_guard_counts`, the guard store beside this store
   * in the same database) added in the same transaction, as `GuardStore.add` adds it.
   */
  count?: GuardCount;
}

/** A guard count as `GuardStore.add` takes it: `n` more for `name` in `bucket`, pruned. */
export interface GuardCount {
  name: string;
  bucket: number;
  n: number;
  pruneBefore: number;
}

/**
 * Card-testing limits reserved in the same transaction as a new attempt (see
 * {@link PaymentStore.insertAttempt}): what {@link PaymentStore.reserveAttempt} takes.
 */
export interface AttemptReservation {
  keys: readonly VelocityKey[];
  now: number;
  windowMs: number;
}

export type InsertAttemptResult =
  /** Inserted (with the reservation's counts, when there was one). */
  | {inserted: true; attempt: AttemptRecord}
  /** Not inserted: `existing` is the row with the same attempt id, or the order's live attempt. */
  | {inserted: false; existing: AttemptRecord; reason: 'same_attempt' | 'order_has_live_attempt'}
  /**
   * Not inserted: a key of the reservation is at its limit (`scope`; a place frees in
   * `retryAfterMs`). Nothing was written, and nothing was counted.
   */
  | {inserted: false; reason: 'limited'; scope: string; retryAfterMs: number};

export interface UpdateAttemptResult {
  /** The event was already stored: nothing was changed. */
  duplicateEvent: boolean;
  /** The attempt after the change; `undefined` when no attempt has that gateway order id. */
  attempt: AttemptRecord | undefined;
  changed: boolean;
  /** The outbox entry written, if any. */
  outboxId?: number;
  /** The id of the card kept by the mutation's `saveCard`, if any. */
  savedCardId?: string;
}

export interface RecordOperationResult {
  duplicateEvent: boolean;
  /** False when the same operation with the same status was already recorded. */
  inserted: boolean;
  outboxId?: number;
}

/**
 * The store could not be reached or did not answer in time (a networked store: the
 * database is down, the connection was cut, a statement timed out). The companion
 * answers `503 store_unavailable` and asks the gateway nothing; a webhook is answered
 * with a 503, so the gateway sends it again. A write that failed this way may still have
 * been committed (the answer was lost); every write is safe to repeat.
 */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable';
  constructor(message: string, opts: {cause?: unknown} = {}) {
    super(message, opts.cause === undefined ? undefined : {cause: opts.cause});
    this.name = 'StoreUnavailableError';
  }
}

/** Where the companion keeps its state. Every method is atomic. */
export interface PaymentStore extends SavedCardStore {
  /**
   * Inserts a new attempt in state `creating`, unless an attempt with the same id exists
   * or the order already has a live attempt (creating, unknown, init, pending, success):
   * then nothing is written and that attempt is returned. The gateway order id is unique.
   * With a `reservation`, in the same transaction and after those checks, its card-testing
   * limits are taken as {@link reserveAttempt} takes them: when a key is at its limit,
   * nothing is written (`limited`); else the attempt and one count per key are written
   * together — an attempt is never stored without its counts, nor counted without being
   * stored.
   */
  insertAttempt(
    attempt: AttemptRecord,
    reservation?: AttemptReservation,
  ): Promise<InsertAttemptResult>;
  getAttempt(attemptId: string): Promise<AttemptRecord | undefined>;
  getAttemptByGatewayOrderId(gatewayOrderId: string): Promise<AttemptRecord | undefined>;
  /** The order's attempts, oldest first. */
  listAttempts(orderRef: string): Promise<AttemptRecord[]>;
  /** Every attempt in one of `states`, oldest first. */
  listAttemptsInStates(states: readonly AttemptState[]): Promise<AttemptRecord[]>;
  /**
   * In one transaction: stores `event` if given (a duplicate key stops here with
   * `duplicateEvent`), loads the attempt, calls `mutate` and writes its patch and its update
   * (to the outbox). `mutate` must be synchronous and free of side effects.
   */
  updateAttempt(
    key: {attemptId: string} | {gatewayOrderId: string},
    mutate: (current: AttemptRecord) => AttemptMutation | undefined,
    event?: WebhookEventInput,
  ): Promise<UpdateAttemptResult>;
  /** Stores a webhook that concerns no attempt (or could not be decoded). False when a duplicate. */
  recordEvent(event: WebhookEventInput): Promise<boolean>;
  listEvents(): Promise<WebhookEventRecord[]>;
  /**
   * In one transaction: stores `event` if given (duplicate → nothing), then the operation
   * (a repeat of the same operation id and status → nothing) and its update (outbox).
   */
  recordOperation(
    operation: StoredOperationInput,
    update: NewPaymentUpdate,
    event?: WebhookEventInput,
  ): Promise<RecordOperationResult>;
  listOperations(orderRef: string): Promise<StoredOperation[]>;
  recordRejectedWebhook(rejected: RejectedWebhookInput): Promise<void>;
  listRejectedWebhooks(): Promise<RejectedWebhookRecord[]>;
  /** Undelivered updates, oldest first. */
  pendingOutbox(limit?: number): Promise<OutboxEntry[]>;
  /**
   * Claims up to `limit` undelivered updates (default 100), oldest first, for `owner`
   * until `now + leaseMs`: the ones nobody holds, whose claim expired, or that `owner`
   * holds already. Several instances claiming at once never get the same entry while its
   * claim runs; an instance that died loses its entries when their claims expire.
   */
  claimOutbox(owner: string, now: number, leaseMs: number, limit?: number): Promise<OutboxEntry[]>;
  /**
   * Marks each of `delivered` delivered (as `markOutboxDelivered`), then claims as
   * `claimOutbox` does, in one commit where the store can: the outbox records a delivery
   * run's marks with the next run's claim, one write instead of two per run. The marks are
   * made before the claim, so it never returns them.
   */
  claimOutboxAfterDelivery(
    delivered: readonly OutboxDelivery[],
    owner: string,
    now: number,
    leaseMs: number,
    limit?: number,
  ): Promise<OutboxEntry[]>;
  /** Delivered: never claimed again. */
  markOutboxDelivered(id: number, at: number): Promise<void>;
  /** Delivery failed: counted; the entry stays claimed until its claim expires. */
  markOutboxFailed(id: number): Promise<void>;
  /**
   * Takes the lease `key` for `owner` until `now + leaseMs` when it is free, expired, or
   * already `owner`'s; false when another owner holds it (atomically, across instances).
   */
  acquireLease(key: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Gives up `owner`'s lease `key` (nothing when another owner holds it now). */
  releaseLease(key: string, owner: string): Promise<void>;
  /**
   * In one transaction: with `existing` under this order and key returned as is, or else
   * `decide(intents of the order, operations of the order)` either refuses or the intent
   * is inserted. `decide` must be synchronous and free of side effects.
   */
  createIntent(
    intent: OperationIntent,
    decide: (
      intents: readonly OperationIntent[],
      operations: readonly StoredOperation[],
    ) => {code: string; message: string} | undefined,
    /** Written to the outbox in the same transaction when the intent is created. */
    update?: NewPaymentUpdate,
  ): Promise<CreateIntentResult>;
  /** Changes an intent (and writes its update to the outbox) in one transaction. */
  updateIntent(
    orderRef: string,
    key: string,
    mutate: (current: OperationIntent) => IntentMutation | undefined,
  ): Promise<OperationIntent | undefined>;
  getIntent(orderRef: string, key: string): Promise<OperationIntent | undefined>;
  /** The order's intents, oldest first. */
  listIntents(orderRef: string): Promise<OperationIntent[]>;
  /** Every intent in one of `states`, oldest first. */
  listIntentsInStates(states: readonly IntentState[]): Promise<OperationIntent[]>;
  /**
   * Card-testing limits, atomically: counts the attempts of each key within `windowMs`
   * before `now`; when every count is under its `max`, records one attempt for each key.
   * Old rows are pruned.
   */
  reserveAttempt(
    keys: readonly VelocityKey[],
    now: number,
    windowMs: number,
  ): Promise<ReserveAttemptResult>;
  /** True when the store can serve (for health checks). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
