/**
 * The SQLite store's schema: the versioned, forward-only migrations (`schema_migrations`
 * records which ran) and how attempts and operation intents map to columns and back.
 * `sqlite-store.ts` runs the migrations and the queries.
 */
import type {SavedCardRecord} from './saved-cards.js';
import type {AttemptRecord, OperationIntent} from './store.js';

/** One schema migration. Versions only grow; an applied migration is never edited. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE attempts (
        attempt_id TEXT PRIMARY KEY,
        order_ref TEXT NOT NULL,
        gateway_order_id TEXT NOT NULL UNIQUE,
        seq INTEGER NOT NULL,
        method TEXT NOT NULL,
        amount TEXT NOT NULL,
        currency TEXT NOT NULL,
        state TEXT NOT NULL,
        failure_reason TEXT,
        status_code TEXT,
        status_description TEXT,
        user_action_url TEXT,
        payment_id TEXT,
        card_mask TEXT,
        card_token TEXT,
        recurring_id TEXT,
        raw TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        create_sent_at INTEGER,
        last_gateway_at INTEGER,
        last_check_at INTEGER
      );
      CREATE INDEX attempts_by_order ON attempts(order_ref, seq);
      CREATE INDEX attempts_by_state ON attempts(state, created_at);
      CREATE TABLE webhook_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        event_key TEXT NOT NULL UNIQUE,
        received_at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        gateway_order_id TEXT,
        status TEXT,
        data TEXT NOT NULL
      );
      CREATE TABLE operations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        gateway_order_id TEXT NOT NULL,
        order_ref TEXT NOT NULL,
        kind TEXT NOT NULL,
        operation_id TEXT NOT NULL,
        status TEXT NOT NULL,
        status_code TEXT,
        amount TEXT,
        currency TEXT,
        raw TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (gateway_order_id, kind, operation_id, status)
      );
      CREATE INDEX operations_by_order ON operations(order_ref);
      CREATE TABLE rejected_webhooks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        received_at INTEGER NOT NULL,
        ip TEXT NOT NULL,
        reason TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        size INTEGER NOT NULL
      );
      CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at INTEGER NOT NULL,
        payload TEXT NOT NULL,
        delivered_at INTEGER,
        failures INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX outbox_pending ON outbox(delivered_at, id);
    `,
  },
  {
    version: 2,
    name: 'exactly-once operations, written-off attempts, flagged webhooks, attempt velocity',
    sql: `
      ALTER TABLE attempts ADD COLUMN checks INTEGER;
      ALTER TABLE attempts ADD COLUMN create_count INTEGER;
      ALTER TABLE attempts ADD COLUMN written_off TEXT;
      ALTER TABLE attempts ADD COLUMN written_off_at INTEGER;
      ALTER TABLE webhook_events ADD COLUMN flag TEXT;
      CREATE TABLE operation_intents (
        order_ref TEXT NOT NULL,
        key TEXT NOT NULL,
        gateway_order_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        reason TEXT NOT NULL,
        amount TEXT NOT NULL,
        currency TEXT NOT NULL,
        state TEXT NOT NULL,
        operation_id TEXT,
        status_code TEXT,
        status_description TEXT,
        baseline TEXT,
        fingerprint TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (order_ref, key)
      );
      CREATE INDEX operation_intents_by_state ON operation_intents(state, created_at);
      CREATE TABLE attempt_velocity (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE INDEX attempt_velocity_by_key ON attempt_velocity(scope, key, at);
      CREATE INDEX attempt_velocity_by_time ON attempt_velocity(at);
    `,
  },
  {
    version: 3,
    name: 'saved cards (token, mask, token expiry; never the number or the code)',
    sql: `
      ALTER TABLE attempts ADD COLUMN save_card_for TEXT;
      CREATE TABLE saved_cards (
        id TEXT PRIMARY KEY,
        customer_id TEXT NOT NULL,
        token TEXT NOT NULL,
        mask TEXT NOT NULL,
        token_expires_at TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        deleted_at INTEGER
      );
      CREATE INDEX saved_cards_by_customer ON saved_cards(customer_id, created_at);
      CREATE UNIQUE INDEX saved_cards_live_token ON saved_cards(customer_id, token)
        WHERE deleted_at IS NULL;
    `,
  },
];

/** Saved-card fields and their columns. */
export const SAVED_CARD_COLUMNS = {
  id: 'id',
  customerId: 'customer_id',
  token: 'token',
  mask: 'mask',
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
