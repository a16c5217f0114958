/**
 * How attempts and operation intents map to table columns and back: one table of field
 * names to column names for each, shared by the SQLite and the PostgreSQL store (same
 * column names in both schemas). A `NULL` column reads back as an absent field.
 */
import type {AttemptRecord, NewPaymentUpdate, OperationIntent, OutboxEntry} from './store.js';

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
  cardToken: 'card_token',
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
