/**
 * The store's SQL, written once for both dialects: every statement the store core
 * (`algorithms.ts`) runs, with `?` placeholders (the PostgreSQL port numbers them `$1`,
 * `$2`, …). What differs between SQLite and PostgreSQL is named here and nowhere else:
 * how a row is locked for the rest of the transaction (`FOR UPDATE`; SQLite's write
 * transaction holds the whole file), which column tells insertion order (`rowid`; a
 * `seq` column), and how a new id is read back (`lastInsertRowid`; `RETURNING id`).
 * PostgreSQL takes arrays (`unnest`) where SQLite runs a statement per item (card-testing
 * counts, delivery marks) and claims outbox rows with `FOR UPDATE SKIP LOCKED`; those
 * statements come in both forms here, and the core (`algorithms.ts`) picks by `batched`.
 * The guards' counters and flags and the security reports are tables of the same store
 * (one migration sequence, `migrations.ts`): their statements are here too.
 */
import {ATTEMPT_COLUMNS, ATTEMPT_KEYS, INTENT_COLUMNS, INTENT_KEYS} from './rows.js';
import {SAVED_CARD_COLUMNS} from './rows.js';
import type {AttemptKey} from './rows.js';

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

/** The tables of the store (every one: payments, guards, reports). */
const TABLES = [
  'attempts',
  'webhook_events',
  'operations',
  'rejected_webhooks',
  'outbox',
  'leases',
  'operation_intents',
  'attempt_velocity',
  'saved_cards',
  'schema_migrations',
  'pg_guard_counts',
  'pg_guard_flags',
  'pg_security_reports',
] as const;
type Table = (typeof TABLES)[number];

/**
 * The tables whose values are secrets (a saved card's token): a statement on one sends its
 * values as parameters, never written into its text (`sendsValuesApart`), as a failing
 * statement's text is what PostgreSQL logs (`log_min_error_statement`) and shows in
 * `pg_stat_activity`, and its parameters are not.
 */
const SECRET_TABLES: readonly Table[] = ['saved_cards'];
/** A table of SECRET_TABLES named in a statement, qualified by its schema or not. */
const SECRET_TABLE_NAMES = new RegExp(`\\b(?:${SECRET_TABLES.join('|')})\\b`);

/**
 * Every statement of one dialect, its tables in `schema` (PostgreSQL: a name checked by
 * `checkedSchema`, written into the text once, here, so a statement needs no `search_path`
 * and stands alone in one round trip; SQLite: the file's, unqualified).
 */
export function statements(dialect: Dialect, schema?: string) {
  const pg = dialect === 'postgres';
  const t = Object.fromEntries(
    TABLES.map((name) => [name, pg && schema ? `${schema}.${name}` : name]),
  ) as Record<Table, string>;
  const locked = pg ? ' FOR UPDATE' : '';
  /** Insertion order, where two rows have the same time. */
  const inserted = pg ? 'seq' : 'rowid';
  const returningId = pg ? ' RETURNING id' : '';
  const attemptColumns = ATTEMPT_KEYS.map((k) => ATTEMPT_COLUMNS[k]);
  const intentColumns = INTENT_KEYS.map((k) => INTENT_COLUMNS[k]);
  const cardColumns = Object.values(SAVED_CARD_COLUMNS);
  const attemptById = `SELECT * FROM ${t.attempts} WHERE attempt_id = ?`;
  const attemptByGatewayId = `SELECT * FROM ${t.attempts} WHERE gateway_order_id = ?`;
  const attemptsOfOrder = `SELECT * FROM ${t.attempts} WHERE order_ref = ? ORDER BY seq`;
  const intentByKey = `SELECT * FROM ${t.operation_intents} WHERE order_ref = ? AND key = ?`;
  const insertEventText = `INSERT INTO ${t.webhook_events} (event_key, received_at, kind, gateway_order_id, status, data, flag)
      VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_key) DO NOTHING`;
  return {
    dialect,
    /** Arrays as parameters: one statement for many items (PostgreSQL). */
    batched: pg,
    tables: t,
    insertAttempt: `INSERT INTO ${t.attempts} (${attemptColumns.join(', ')}) VALUES (${marks(attemptColumns.length)})`,
    attemptById,
    attemptByIdLocked: attemptById + locked,
    attemptByGatewayId,
    attemptByGatewayIdLocked: attemptByGatewayId + locked,
    attemptsOfOrder,
    /** The attempt of this id, and every attempt of this order, in one read. */
    attemptOrOrder: `SELECT * FROM ${t.attempts} WHERE attempt_id = ? OR order_ref = ? ORDER BY seq`,
    /** An attempt's columns `keys` set, by attempt id. */
    updateAttempt: (keys: readonly AttemptKey[]) =>
      `UPDATE ${t.attempts} SET ${keys.map((k) => `${ATTEMPT_COLUMNS[k]} = ?`).join(', ')} WHERE attempt_id = ?`,
    attemptsInStates: (n: number) =>
      `SELECT * FROM ${t.attempts} WHERE state IN (${marks(n)}) ORDER BY created_at, seq, attempt_id`,
    insertEvent: insertEventText,
    events: `SELECT * FROM ${t.webhook_events} ORDER BY id`,
    /**
     * PostgreSQL: an event stored (as `insertEvent`), then the row of `read` (a locked read
     * of one attempt), in one statement: one row, `recorded_event` 1 when the event is new,
     * the attempt's columns null when there is none. Arguments: the event's, then `read`'s.
     */
    eventThen: (read: string) => `WITH e AS (${insertEventText} RETURNING 1)
      SELECT (SELECT count(*) FROM e) AS recorded_event, a.*
      FROM (SELECT 1) AS one LEFT JOIN LATERAL (${read}) AS a ON true`,
    insertOperation: `INSERT INTO ${t.operations} (gateway_order_id, order_ref, kind, operation_id, status,
        status_code, amount, currency, raw, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (gateway_order_id, kind, operation_id, status) DO NOTHING`,
    operationsOfOrder: `SELECT * FROM ${t.operations} WHERE order_ref = ? ORDER BY id`,
    insertRejected: `INSERT INTO ${t.rejected_webhooks} (received_at, ip, reason, body_sha256, size)
      VALUES (?, ?, ?, ?, ?)`,
    rejected: `SELECT * FROM ${t.rejected_webhooks} ORDER BY id`,
    /** Keeps the newest `?` + 1 refused webhooks. */
    trimRejected: `DELETE FROM ${t.rejected_webhooks} WHERE id < (
      SELECT id FROM ${t.rejected_webhooks} ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    insertOutbox: `INSERT INTO ${t.outbox} (created_at, payload) VALUES (?, ?)${returningId}`,
    pendingOutbox: `SELECT * FROM ${t.outbox} WHERE delivered_at IS NULL ORDER BY id LIMIT ?`,
    outboxDelivered: `UPDATE ${t.outbox} SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL`,
    outboxFailed: `UPDATE ${t.outbox} SET failures = failures + 1 WHERE id = ?`,
    /** PostgreSQL: every delivery mark in one statement (ids, times as arrays). */
    outboxDeliveredAll: `UPDATE ${t.outbox} o SET delivered_at = d.at
      FROM unnest(?::bigint[], ?::bigint[]) AS d(id, at)
      WHERE o.id = d.id AND o.delivered_at IS NULL`,
    /**
     * PostgreSQL: the claim in one statement, `FOR UPDATE SKIP LOCKED` (concurrent
     * claimers pass over each other's rows). Arguments: owner, until, now, owner, limit.
     */
    claimOutbox: `UPDATE ${t.outbox} SET claimed_by = ?, claimed_until = ?
      WHERE id IN (
        SELECT id FROM ${t.outbox} WHERE delivered_at IS NULL
          AND (claimed_until IS NULL OR claimed_until <= ? OR claimed_by = ?)
        ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    /**
     * PostgreSQL: the delivery marks (as `outboxDeliveredAll`), then the claim (as
     * `claimOutbox`), in one statement. Both see the rows as they were before it, so the
     * claim passes over the ids it marks. Arguments: ids, times, owner, until, now, owner,
     * ids, limit.
     */
    markThenClaimOutbox: `WITH marked AS (UPDATE ${t.outbox} o SET delivered_at = d.at
        FROM unnest(?::bigint[], ?::bigint[]) AS d(id, at)
        WHERE o.id = d.id AND o.delivered_at IS NULL)
      UPDATE ${t.outbox} SET claimed_by = ?, claimed_until = ?
      WHERE id IN (
        SELECT id FROM ${t.outbox} WHERE delivered_at IS NULL
          AND (claimed_until IS NULL OR claimed_until <= ? OR claimed_by = ?)
          AND id <> ALL(?::bigint[])
        ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    /**
     * SQLite: the claimable entries (then one UPDATE each, in the write transaction: an
     * UPDATE … WHERE id IN (SELECT … LIMIT) RETURNING * builds two ephemeral tables and cost
     * ~10 times as much). The limit is written into the text: a bound `LIMIT ?` makes
     * SQLite prepare it again at every run.
     */
    claimableOutbox: (limit: number) => `SELECT * FROM ${t.outbox} WHERE delivered_at IS NULL
        AND (claimed_until IS NULL OR claimed_until <= ? OR claimed_by = ?)
      ORDER BY id LIMIT ${Math.trunc(limit)}`,
    claimOutboxEntry: `UPDATE ${t.outbox} SET claimed_by = ?, claimed_until = ? WHERE id = ?`,
    acquireLease: `INSERT INTO ${t.leases} (key, owner, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE leases.expires_at <= ? OR leases.owner = excluded.owner`,
    releaseLease: `DELETE FROM ${t.leases} WHERE key = ? AND owner = ?`,
    insertIntent: `INSERT INTO ${t.operation_intents} (${intentColumns.join(', ')}) VALUES (${marks(intentColumns.length)})`,
    intentByKey,
    intentByKeyLocked: intentByKey + locked,
    intentsOfOrder: `SELECT * FROM ${t.operation_intents} WHERE order_ref = ? ORDER BY created_at, ${inserted}`,
    intentsInStates: (n: number) =>
      `SELECT * FROM ${t.operation_intents} WHERE state IN (${marks(n)}) ORDER BY created_at, ${inserted}`,
    updateIntent: `UPDATE ${t.operation_intents} SET ${INTENT_MUTABLE.map((k) => `${INTENT_COLUMNS[k]} = ?`).join(', ')}
      WHERE order_ref = ? AND key = ?`,
    /** SQLite: a key's `max`-th newest count after a time (scope, key, since, max - 1). */
    velocityNth: `SELECT at FROM ${t.attempt_velocity} WHERE scope = ? AND key = ? AND at > ?
      ORDER BY at DESC LIMIT 1 OFFSET ?`,
    /**
     * PostgreSQL: per key, in order, the max-th newest count in the window, if there is one
     * — one row per key, however many the window holds (scopes, keys, maxes, since).
     */
    velocityNthAll: `SELECT (SELECT a.at FROM ${t.attempt_velocity} a
        WHERE a.scope = v.scope AND a.key = v.key AND a.at > ?
        ORDER BY a.at DESC OFFSET v.max - 1 LIMIT 1) AS at
      FROM unnest(?::text[], ?::text[], ?::int[]) WITH ORDINALITY AS v(scope, key, max, i)
      ORDER BY v.i`,
    velocityCount: `INSERT INTO ${t.attempt_velocity} (scope, key, at) VALUES (?, ?, ?)`,
    /** PostgreSQL: one count per key in one statement (scopes, keys, at). */
    velocityCountAll: `INSERT INTO ${t.attempt_velocity} (scope, key, at)
      SELECT v.scope, v.key, ?::bigint FROM unnest(?::text[], ?::text[]) AS v(scope, key)`,
    velocityPrune: `DELETE FROM ${t.attempt_velocity} WHERE at <= ?`,
    insertSavedCard: `INSERT INTO ${t.saved_cards} (${cardColumns.join(', ')}) VALUES (${marks(cardColumns.length)})
      ON CONFLICT DO NOTHING`,
    liveSavedCard: `SELECT * FROM ${t.saved_cards} WHERE customer_id = ? AND token = ? AND deleted_at IS NULL`,
    savedCardById: `SELECT * FROM ${t.saved_cards} WHERE id = ?`,
    savedCardsOf: `SELECT * FROM ${t.saved_cards} WHERE customer_id = ? AND deleted_at IS NULL ORDER BY created_at, ${inserted}`,
    allSavedCards: `SELECT * FROM ${t.saved_cards} WHERE deleted_at IS NULL ORDER BY customer_id, created_at, ${inserted}`,
    deleteSavedCard: `UPDATE ${t.saved_cards} SET deleted_at = ?, token = ''
      WHERE customer_id = ? AND id = ? AND deleted_at IS NULL`,
    createMigrations: `CREATE TABLE IF NOT EXISTS ${t.schema_migrations} (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at BIGINT NOT NULL
    )`,
    appliedVersions: `SELECT version FROM ${t.schema_migrations} ORDER BY version`,
    migrationRows: `SELECT version, name, applied_at FROM ${t.schema_migrations}`,
    forgetMigrations: `DELETE FROM ${t.schema_migrations}`,
    recordMigration: `INSERT INTO ${t.schema_migrations} (version, name, applied_at) VALUES (?, ?, ?)`,
    ping: 'SELECT 1 AS ok',
    /**
     * PostgreSQL: `writes`, then `last`, in one statement (one round trip), each write a
     * data-modifying `WITH`; their `?` in that order.
     */
    chain: (writes: readonly string[], last: string) =>
      `WITH ${writes.map((w, i) => `w${i} AS (${w})`).join(', ')} ${last}`,
    guard: guardStatements(t),
    reports: reportStatements(t, pg),
    /** True for a statement on a table of SECRET_TABLES: its values go as parameters. */
    sendsValuesApart: (text: string) => SECRET_TABLE_NAMES.test(text),
  };
}

/** The shop-wide guards' counters and flags (guard-store.ts). */
function guardStatements(t: Record<Table, string>) {
  return {
    prune: `DELETE FROM ${t.pg_guard_counts} WHERE name = ? AND bucket < ?`,
    /** name, bucket, n: the bucket's new count. */
    add: `INSERT INTO ${t.pg_guard_counts} AS c (name, bucket, count) VALUES (?, ?, ?)
      ON CONFLICT (name, bucket) DO UPDATE SET count = c.count + excluded.count
      RETURNING count`,
    /** name, bucket, max: a row when it was under `max` (a rate limit's take). */
    take: `INSERT INTO ${t.pg_guard_counts} AS c (name, bucket, count) VALUES (?, ?, 1)
      ON CONFLICT (name, bucket) DO UPDATE SET count = c.count + 1 WHERE c.count < ?
      RETURNING count`,
    sum: `SELECT SUM(count) AS n FROM ${t.pg_guard_counts} WHERE name = ? AND bucket >= ?`,
    /** PostgreSQL: the sums of several names in one statement (names, since). */
    sums: `SELECT name, SUM(count) AS n FROM ${t.pg_guard_counts}
      WHERE name = ANY(?::text[]) AND bucket >= ? GROUP BY name`,
    flag: `SELECT raised_at, until, info FROM ${t.pg_guard_flags} WHERE name = ?`,
    /**
     * PostgreSQL: a flag and the sums of several names in one read (flag name, names,
     * since): the flag's row (`name` null), then a row per name counted.
     */
    flagAndSums: `SELECT NULL::text AS name, NULL::numeric AS n, raised_at, until, info
      FROM ${t.pg_guard_flags} WHERE name = ?
      UNION ALL
      SELECT name, SUM(count)::numeric, NULL, NULL, NULL FROM ${t.pg_guard_counts}
      WHERE name = ANY(?::text[]) AND bucket >= ? GROUP BY name`,
    setFlag: `INSERT INTO ${t.pg_guard_flags} (name, raised_at, until, info) VALUES (?, ?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET raised_at = excluded.raised_at, until = excluded.until,
        info = excluded.info`,
    extendFlag: `UPDATE ${t.pg_guard_flags} SET until = ? WHERE name = ?`,
    clear: `DELETE FROM ${t.pg_guard_flags} WHERE name = ? AND raised_at = ?`,
    /** SQLite: a range of the primary key (prefix, its end, before), read from the index. */
    forgetRange: `DELETE FROM ${t.pg_guard_counts} WHERE name >= ? AND name < ? AND bucket < ?`,
    /**
     * PostgreSQL: not a range of the key: under a database's linguistic collation,
     * punctuation sorts out of code point order (prefix, prefix, before).
     */
    forgetPrefix: `DELETE FROM ${t.pg_guard_counts} WHERE left(name, length(?)) = ? AND bucket < ?`,
  };
}

/** The payment page's CSP violation reports (security-report-records.ts). */
function reportStatements(t: Record<Table, string>, pg: boolean) {
  const size = pg
    ? 'octet_length(report::text) + octet_length(key)'
    : 'length(CAST(report AS BLOB)) + length(key)';
  return {
    /** key, at, at, report (JSON text): the key's count. */
    record: `INSERT INTO ${t.pg_security_reports} AS r (key, first_seen, last_seen, count, report)
      VALUES (?, ?, ?, 1, ?)
      ON CONFLICT (key) DO UPDATE SET count = r.count + 1,
        last_seen = ${pg ? 'GREATEST' : 'max'}(r.last_seen, excluded.last_seen)
      RETURNING count`,
    list: `SELECT key, first_seen, last_seen, count, report${pg ? '::text AS report' : ''}
      FROM ${t.pg_security_reports} ORDER BY last_seen DESC, key LIMIT ?`,
    /** The rows past the newest `rows`, or past `bytes` counted from the newest down. */
    trim: `DELETE FROM ${t.pg_security_reports} WHERE key IN (
      SELECT key FROM (
        SELECT key, row_number() OVER w AS n, sum(${size}) OVER w AS total
        FROM ${t.pg_security_reports}
        WINDOW w AS (ORDER BY last_seen DESC, key ROWS UNBOUNDED PRECEDING)
      ) AS ranked WHERE n > ? OR total > ?)`,
    all: `SELECT key, report${pg ? '::text AS report' : ''} FROM ${t.pg_security_reports}${pg ? ' FOR UPDATE' : ''}`,
    rewrite: `UPDATE ${t.pg_security_reports} SET report = ? WHERE key = ?`,
  };
}

export type Statements = ReturnType<typeof statements>;
