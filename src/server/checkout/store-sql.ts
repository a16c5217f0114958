/**
 * The store's SQL, written once for both dialects: every statement the store core
 * (`store-core.ts`) runs, with `?` placeholders (the PostgreSQL port numbers them `$1`,
 * `$2`, …). What differs between SQLite and PostgreSQL is named here and nowhere else:
 * how a row is locked for the rest of the transaction (`FOR UPDATE`; SQLite's write
 * transaction holds the whole file), which column tells insertion order (`rowid`; a
 * `seq` column), and how a new id is read back (`lastInsertRowid`; `RETURNING id`).
 * The store's other dialect-specific steps (card-testing counts, outbox claims) are the
 * ports' own (`sqlite-store.ts`, `postgres-store.ts`).
 */
import {ATTEMPT_COLUMNS, ATTEMPT_KEYS, INTENT_COLUMNS, INTENT_KEYS} from './store-rows.js';
import {SAVED_CARD_COLUMNS} from './store-rows.js';
import type {AttemptKey} from './store-rows.js';

export type Dialect = 'sqlite' | 'postgres';

const marks = (n: number) => Array.from({length: n}, () => '?').join(', ');

/** The intent fields an {@link IntentMutation} may change, and their columns. */
export const INTENT_MUTABLE = [
  'state',
  'operationId',
  'statusCode',
  'statusDescription',
  'baseline',
  'updatedAt',
] as const;

/** Every statement of one dialect. */
export function statements(dialect: Dialect) {
  const locked = dialect === 'postgres' ? ' FOR UPDATE' : '';
  /** Insertion order, where two rows have the same time. */
  const inserted = dialect === 'postgres' ? 'seq' : 'rowid';
  const returningId = dialect === 'postgres' ? ' RETURNING id' : '';
  const attemptColumns = ATTEMPT_KEYS.map((k) => ATTEMPT_COLUMNS[k]);
  const intentColumns = INTENT_KEYS.map((k) => INTENT_COLUMNS[k]);
  const cardColumns = Object.values(SAVED_CARD_COLUMNS);
  const attemptById = 'SELECT * FROM attempts WHERE attempt_id = ?';
  const attemptByGatewayId = 'SELECT * FROM attempts WHERE gateway_order_id = ?';
  const attemptsOfOrder = 'SELECT * FROM attempts WHERE order_ref = ? ORDER BY seq';
  const intentByKey = 'SELECT * FROM operation_intents WHERE order_ref = ? AND key = ?';
  return {
    dialect,
    insertAttempt: `INSERT INTO attempts (${attemptColumns.join(', ')}) VALUES (${marks(attemptColumns.length)})`,
    attemptById,
    attemptByIdLocked: attemptById + locked,
    attemptByGatewayId,
    attemptByGatewayIdLocked: attemptByGatewayId + locked,
    attemptsOfOrder,
    attemptsOfOrderLocked: attemptsOfOrder + locked,
    /** An attempt's columns `keys` set, by attempt id. */
    updateAttempt: (keys: readonly AttemptKey[]) =>
      `UPDATE attempts SET ${keys.map((k) => `${ATTEMPT_COLUMNS[k]} = ?`).join(', ')} WHERE attempt_id = ?`,
    attemptsInStates: (n: number) =>
      `SELECT * FROM attempts WHERE state IN (${marks(n)}) ORDER BY created_at, seq, attempt_id`,
    insertEvent: `INSERT INTO webhook_events (event_key, received_at, kind, gateway_order_id, status, data, flag)
      VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_key) DO NOTHING`,
    events: 'SELECT * FROM webhook_events ORDER BY id',
    insertOperation: `INSERT INTO operations (gateway_order_id, order_ref, kind, operation_id, status,
        status_code, amount, currency, raw, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (gateway_order_id, kind, operation_id, status) DO NOTHING`,
    operationsOfOrder: 'SELECT * FROM operations WHERE order_ref = ? ORDER BY id',
    insertRejected: `INSERT INTO rejected_webhooks (received_at, ip, reason, body_sha256, size)
      VALUES (?, ?, ?, ?, ?)`,
    rejected: 'SELECT * FROM rejected_webhooks ORDER BY id',
    insertOutbox: `INSERT INTO outbox (created_at, payload) VALUES (?, ?)${returningId}`,
    pendingOutbox: 'SELECT * FROM outbox WHERE delivered_at IS NULL ORDER BY id LIMIT ?',
    outboxDelivered: 'UPDATE outbox SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL',
    outboxFailed: 'UPDATE outbox SET failures = failures + 1 WHERE id = ?',
    acquireLease: `INSERT INTO leases (key, owner, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE leases.expires_at <= ? OR leases.owner = excluded.owner`,
    releaseLease: 'DELETE FROM leases WHERE key = ? AND owner = ?',
    insertIntent: `INSERT INTO operation_intents (${intentColumns.join(', ')}) VALUES (${marks(intentColumns.length)})`,
    intentByKey,
    intentByKeyLocked: intentByKey + locked,
    intentsOfOrder: `SELECT * FROM operation_intents WHERE order_ref = ? ORDER BY created_at, ${inserted}`,
    intentsInStates: (n: number) =>
      `SELECT * FROM operation_intents WHERE state IN (${marks(n)}) ORDER BY created_at, ${inserted}`,
    updateIntent: `UPDATE operation_intents SET ${INTENT_MUTABLE.map((k) => `${INTENT_COLUMNS[k]} = ?`).join(', ')}
      WHERE order_ref = ? AND key = ?`,
    velocityPrune: 'DELETE FROM attempt_velocity WHERE at <= ?',
    insertSavedCard: `INSERT INTO saved_cards (${cardColumns.join(', ')}) VALUES (${marks(cardColumns.length)})
      ON CONFLICT DO NOTHING`,
    liveSavedCard:
      'SELECT * FROM saved_cards WHERE customer_id = ? AND token = ? AND deleted_at IS NULL',
    savedCardById: 'SELECT * FROM saved_cards WHERE id = ?',
    savedCardsOf: `SELECT * FROM saved_cards WHERE customer_id = ? AND deleted_at IS NULL ORDER BY created_at, ${inserted}`,
    allSavedCards: `SELECT * FROM saved_cards WHERE deleted_at IS NULL ORDER BY customer_id, created_at, ${inserted}`,
    deleteSavedCard: `UPDATE saved_cards SET deleted_at = ?, token = ''
      WHERE customer_id = ? AND id = ? AND deleted_at IS NULL`,
    appliedVersions: 'SELECT version FROM schema_migrations ORDER BY version',
    recordMigration: 'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    ping: 'SELECT 1 AS ok',
  };
}

export type Statements = ReturnType<typeof statements>;
