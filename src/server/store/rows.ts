/**
 * How stored rows map to table columns and back, shared by the SQLite and the PostgreSQL
 * store (same column names in both schemas): a table of field names to column names for
 * attempts and operation intents, and a reader for each other table. A `NULL` column
 * reads back as an absent field; numbers (PostgreSQL's BIGINT ids too) as numbers.
 */
import type {
  AttemptRecord,
  NewPaymentUpdate,
  OperationIntent,
  OutboxEntry,
  RejectedWebhookRecord,
  StoredOperation,
  WebhookEventRecord,
} from './payment-store.js';
import type {SavedCardRecord} from './saved-card-records.js';

/** Intent fields and their columns. */
export const INTENT_COLUMNS = {
  orderRef: 'order_ref',
  key: 'key',
  gatewayOrderId: 'gateway_order_id',
  kind: 'kind',
  reason: 'reason',
  amount: 'amount',
  currency: 'currency',
  state: 'state',
  operationId: 'operation_id',
  statusCode: 'status_code',
  statusDescription: 'status_description',
  baseline: 'baseline',
  fingerprint: 'fingerprint',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const satisfies Record<keyof OperationIntent, string>;
export type IntentKey = keyof typeof INTENT_COLUMNS;
export const INTENT_KEYS = Object.keys(INTENT_COLUMNS) as IntentKey[];

export function rowToIntent(row: Record<string, unknown>): OperationIntent {
  const out: Record<string, unknown> = {};
  for (const key of INTENT_KEYS) {
    const v = row[INTENT_COLUMNS[key]];
    if (v !== null && v !== undefined) out[key] = v;
  }
  return out as unknown as OperationIntent;
}

/** Attempt fields and their columns. */
export const ATTEMPT_COLUMNS = {
  attemptId: 'attempt_id',
  orderRef: 'order_ref',
  gatewayOrderId: 'gateway_order_id',
  seq: 'seq',
  method: 'method',
  amount: 'amount',
  currency: 'currency',
  state: 'state',
  failureReason: 'failure_reason',
  statusCode: 'status_code',
  statusDescription: 'status_description',
  userActionUrl: 'user_action_url',
  paymentId: 'payment_id',
  cardMask: 'card_mask',
  recurringId: 'recurring_id',
  raw: 'raw',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  createSentAt: 'create_sent_at',
  lastGatewayAt: 'last_gateway_at',
  lastCheckAt: 'last_check_at',
  checks: 'checks',
  createCount: 'create_count',
  writtenOff: 'written_off',
  writtenOffAt: 'written_off_at',
  saveCardFor: 'save_card_for',
} as const satisfies Record<keyof AttemptRecord, string>;

export type AttemptKey = keyof typeof ATTEMPT_COLUMNS;
export const ATTEMPT_KEYS = Object.keys(ATTEMPT_COLUMNS) as AttemptKey[];

export function rowToAttempt(row: Record<string, unknown>): AttemptRecord {
  const out: Record<string, unknown> = {};
  for (const key of ATTEMPT_KEYS) {
    const v = row[ATTEMPT_COLUMNS[key]];
    if (v !== null && v !== undefined) out[key] = v;
  }
  return out as unknown as AttemptRecord;
}

/** An outbox row (`id`, `payload` JSON, `created_at`, `failures`) as an entry. */
export function rowToOutbox(r: Record<string, unknown>): OutboxEntry {
  return {
    id: Number(r['id']),
    update: {
      ...(JSON.parse(r['payload'] as string) as NewPaymentUpdate),
      updateId: String(r['id']),
    },
    createdAt: Number(r['created_at']),
    failures: Number(r['failures']),
  };
}

/** A `webhook_events` row. */
export function rowToEvent(r: Record<string, unknown>): WebhookEventRecord {
  const e: WebhookEventRecord = {
    id: Number(r['id']),
    eventKey: r['event_key'] as string,
    receivedAt: Number(r['received_at']),
    kind: r['kind'] as string,
    data: r['data'] as string,
  };
  if (r['gateway_order_id'] != null) e.gatewayOrderId = r['gateway_order_id'] as string;
  if (r['status'] != null) e.status = r['status'] as string;
  if (r['flag'] != null) e.flag = r['flag'] as string;
  return e;
}

/** An `operations` row. */
export function rowToOperation(r: Record<string, unknown>): StoredOperation {
  const o: StoredOperation = {
    id: Number(r['id']),
    gatewayOrderId: r['gateway_order_id'] as string,
    orderRef: r['order_ref'] as string,
    kind: r['kind'] as StoredOperation['kind'],
    operationId: r['operation_id'] as string,
    status: r['status'] as string,
    raw: r['raw'] as string,
    createdAt: Number(r['created_at']),
  };
  if (r['status_code'] != null) o.statusCode = r['status_code'] as string;
  if (r['amount'] != null) o.amount = r['amount'] as string;
  if (r['currency'] != null) o.currency = r['currency'] as string;
  return o;
}

/** A `rejected_webhooks` row. */
export function rowToRejected(r: Record<string, unknown>): RejectedWebhookRecord {
  return {
    id: Number(r['id']),
    receivedAt: Number(r['received_at']),
    ip: r['ip'] as string,
    reason: r['reason'] as string,
    bodySha256: r['body_sha256'] as string,
    size: Number(r['size']),
  };
}

/** Saved-card fields and their columns. */
export const SAVED_CARD_COLUMNS = {
  id: 'id',
  customerId: 'customer_id',
  token: 'token',
  mask: 'mask',
  brand: 'brand',
  tokenExpiresAt: 'token_expires_at',
  createdAt: 'created_at',
  deletedAt: 'deleted_at',
} as const satisfies Record<keyof SavedCardRecord, string>;

export function rowToSavedCard(row: Record<string, unknown>): SavedCardRecord {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(SAVED_CARD_COLUMNS)) {
    const v = row[column];
    if (v !== null && v !== undefined) out[key] = v;
  }
  return out as unknown as SavedCardRecord;
}
