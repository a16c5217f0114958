/**
 * The store's schema: one sequence of versioned, forward-only migrations for both
 * dialects, numbered alike (`schema_migrations` records which ran; `migrate.ts` runs
 * them). Each is written once: where the dialects' types differ (SQLite's `INTEGER` and
 * `INTEGER PRIMARY KEY AUTOINCREMENT`, PostgreSQL's `BIGINT` and `BIGSERIAL`), the text
 * names them and `bothDialects` puts them in; migration 7 keeps a text per dialect for
 * SQLite's `STRICT` tables. An applied migration is never edited, and builds nothing from
 * a live constant: its text is what databases already hold.
 *
 * PostgreSQL databases written before the sequence was one (pg-checkout 0.1.0 numbered
 * them 1 to 4: its version 1 was this version 1 and 2, then 3 to 5 one higher) are
 * renumbered once, in the migration run ({@link LEGACY_POSTGRES}).
 *
 * The constraints the never-double guarantee leans on: a primary key on the attempt id, a
 * unique gateway `order_id`, a unique webhook event key, a unique (order, operation,
 * status) for secondary operations, a primary key on (order, key) for intents, and on
 * PostgreSQL a unique partial index that allows one open, not written-off attempt per
 * order — the backstop of `isLiveAttempt`, the rule itself (`store.ts`).
 *
 * Every table of the store is made here, the shop-wide guards' counters and flags and the
 * security reports too (migration 7; before it, their stores made them on first use, so
 * that migration makes them only when missing).
 */
import {brandOfMask} from '../card-brand.js';
import type {Dialect} from './statements.js';
import {TOKEN_REWRITES, type RowRewrite} from './stored-tokens.js';

/**
 * One schema migration. Versions only grow; an applied migration is never edited. Its
 * `rewrites` run after its `sql`, in the same transaction.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string | Readonly<Record<Dialect, string>>;
  rewrites?: readonly RowRewrite[];
}

/** A migration's text in `dialect`. */
export function migrationSql(m: Migration, dialect: Dialect): string {
  return typeof m.sql === 'string' ? m.sql : m.sql[dialect];
}

/**
 * The open states the PostgreSQL backstop index of migration 2 covers (a success may be a
 * double charge), frozen as that migration wrote them: `UNSETTLED_STATES` (store.ts) may
 * change, an applied migration may not (migrations.test.ts holds the two equal today).
 */
export const OPEN_STATES_OF_MIGRATION_2 = `'creating', 'unknown', 'init', 'pending'`;

/**
 * A text written once for both dialects, with the types that differ put in for `dialect`
 * (the same words in every migration that uses them, so nothing here follows a live
 * constant): `time` an epoch-milliseconds column, `id` an increasing primary key, and
 * `pg(text)` / `sqlite(text)` a part only that dialect has (PostgreSQL's insertion-order
 * `seq` columns, where SQLite's `rowid` serves; its partial indexes).
 */
interface Types {
  time: string;
  id: string;
  pg(text: string): string;
  sqlite(text: string): string;
}

function bothDialects(write: (t: Types) => string): Readonly<Record<Dialect, string>> {
  const none = () => '';
  const same = (text: string) => text;
  return {
    sqlite: write({
      time: 'INTEGER',
      id: 'INTEGER PRIMARY KEY AUTOINCREMENT',
      pg: none,
      sqlite: same,
    }),
    postgres: write({time: 'BIGINT', id: 'BIGSERIAL PRIMARY KEY', pg: same, sqlite: none}),
  };
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: bothDialects(
      (t) => `
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
        created_at ${t.time} NOT NULL,
        updated_at ${t.time} NOT NULL,
        create_sent_at ${t.time},
        last_gateway_at ${t.time},
        last_check_at ${t.time}
      );
      CREATE INDEX attempts_by_order ON attempts (order_ref, seq);
      CREATE INDEX attempts_by_state ON attempts (state, created_at);
      CREATE TABLE webhook_events (
        id ${t.id},
        event_key TEXT NOT NULL UNIQUE,
        received_at ${t.time} NOT NULL,
        kind TEXT NOT NULL,
        gateway_order_id TEXT,
        status TEXT,
        data TEXT NOT NULL
      );
      CREATE TABLE operations (
        id ${t.id},
        gateway_order_id TEXT NOT NULL,
        order_ref TEXT NOT NULL,
        kind TEXT NOT NULL,
        operation_id TEXT NOT NULL,
        status TEXT NOT NULL,
        status_code TEXT,
        amount TEXT,
        currency TEXT,
        raw TEXT NOT NULL,
        created_at ${t.time} NOT NULL,
        UNIQUE (gateway_order_id, kind, operation_id, status)
      );
      CREATE INDEX operations_by_order ON operations (order_ref);
      CREATE TABLE rejected_webhooks (
        id ${t.id},
        received_at ${t.time} NOT NULL,
        ip TEXT NOT NULL,
        reason TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        size INTEGER NOT NULL
      );
      CREATE TABLE outbox (
        id ${t.id},
        created_at ${t.time} NOT NULL,
        payload TEXT NOT NULL,
        delivered_at ${t.time},
        failures INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX outbox_pending ON outbox ${t.sqlite('(delivered_at, id)')}${t.pg(
        '(id) WHERE delivered_at IS NULL',
      )};
    `,
    ),
  },
  {
    version: 2,
    name: 'exactly-once operations, written-off attempts, flagged webhooks, attempt velocity',
    sql: bothDialects(
      (t) => `
      ALTER TABLE attempts ADD COLUMN checks INTEGER;
      ALTER TABLE attempts ADD COLUMN create_count INTEGER;
      ALTER TABLE attempts ADD COLUMN written_off TEXT;
      ALTER TABLE attempts ADD COLUMN written_off_at ${t.time};
      ALTER TABLE webhook_events ADD COLUMN flag TEXT;
      ${t.pg(`CREATE UNIQUE INDEX attempts_one_open_per_order ON attempts (order_ref)
        WHERE state IN (${OPEN_STATES_OF_MIGRATION_2}) AND written_off IS NULL;`)}
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
        created_at ${t.time} NOT NULL,
        updated_at ${t.time} NOT NULL,
        ${t.pg('seq BIGSERIAL,')}
        PRIMARY KEY (order_ref, key)
      );
      CREATE INDEX operation_intents_by_state ON operation_intents (state, created_at);
      CREATE TABLE attempt_velocity (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        at ${t.time} NOT NULL
      );
      CREATE INDEX attempt_velocity_by_key ON attempt_velocity (scope, key, at);
      CREATE INDEX attempt_velocity_by_time ON attempt_velocity (at);
    `,
    ),
  },
  {
    version: 3,
    name: 'work claims: outbox delivery claims and leases that expire',
    sql: bothDialects(
      (t) => `
      ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
      ALTER TABLE outbox ADD COLUMN claimed_until ${t.time};
      CREATE TABLE leases (
        key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at ${t.time} NOT NULL
      );
    `,
    ),
  },
  {
    version: 4,
    name: 'saved cards (token, mask, token expiry; never the number or the code)',
    sql: bothDialects(
      (t) => `
      ALTER TABLE attempts ADD COLUMN save_card_for TEXT;
      CREATE TABLE saved_cards (
        ${t.pg('seq BIGSERIAL,')}
        id TEXT PRIMARY KEY,
        customer_id TEXT NOT NULL,
        token TEXT NOT NULL,
        mask TEXT NOT NULL,
        token_expires_at TEXT NOT NULL,
        created_at ${t.time} NOT NULL,
        deleted_at ${t.time}
      );
      CREATE INDEX saved_cards_by_customer ON saved_cards (customer_id, created_at${t.pg(', seq')});
      CREATE UNIQUE INDEX saved_cards_live_token ON saved_cards (customer_id, token)
        WHERE deleted_at IS NULL;
    `,
    ),
  },
  {
    version: 5,
    name: 'card tokens only in saved cards (none on attempts, records, webhooks, updates); saved-card brand',
    sql: `
    -- The column stays (an instance of the previous version may still write it) but
    -- this code never does: the token is kept only in a saved card.
    UPDATE attempts SET card_token = NULL WHERE card_token IS NOT NULL;
    ALTER TABLE saved_cards ADD COLUMN brand TEXT;
  `,
    // Rows stored before card tokens were kept out of records, webhooks and updates lose
    // theirs (`stored-tokens.ts`); saved cards get their brand from their mask.
    rewrites: [
      ...TOKEN_REWRITES,
      {table: 'saved_cards', key: 'id', read: 'mask', write: 'brand', rewrite: brandOfMask},
    ],
  },
  {
    version: 6,
    // The index of every row, delivered or not, took each delivery mark as an entry moved
    // from its NULL end to the other, and grew with the table.
    name: 'outbox index of the undelivered entries only',
    sql: `
      DROP INDEX outbox_pending;
      CREATE INDEX outbox_undelivered ON outbox(id) WHERE delivered_at IS NULL;
    `,
  },
  {
    version: 7,
    // Made on first use by the guard and report stores of earlier versions (the same
    // tables): `IF NOT EXISTS` takes those as they are.
    name: 'shop-wide guard counts and flags, security reports (in the one sequence)',
    sql: {
      sqlite: `
      CREATE TABLE IF NOT EXISTS pg_guard_counts (
        name TEXT NOT NULL,
        bucket INTEGER NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (name, bucket)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS pg_guard_flags (
        name TEXT PRIMARY KEY,
        raised_at INTEGER NOT NULL,
        until INTEGER NOT NULL,
        info TEXT NOT NULL
      ) STRICT;
      CREATE TABLE IF NOT EXISTS pg_security_reports (
        key TEXT PRIMARY KEY,
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        count INTEGER NOT NULL,
        report TEXT NOT NULL
      ) STRICT;
    `,
      postgres: `
      CREATE TABLE IF NOT EXISTS pg_guard_counts (
        name TEXT NOT NULL,
        bucket BIGINT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (name, bucket)
      );
      CREATE TABLE IF NOT EXISTS pg_guard_flags (
        name TEXT PRIMARY KEY,
        raised_at BIGINT NOT NULL,
        until BIGINT NOT NULL,
        info TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS pg_security_reports (
        key TEXT PRIMARY KEY,
        first_seen BIGINT NOT NULL,
        last_seen BIGINT NOT NULL,
        count INTEGER NOT NULL,
        report JSONB NOT NULL
      );
    `,
    },
  },
];

/**
 * How pg-checkout 0.1.0 numbered PostgreSQL's migrations: its version 1 (named so) is
 * versions 1 and 2 here, and its versions 2 to 4 are 3 to 5.
 */
export const LEGACY_POSTGRES = {
  firstName: 'attempts, webhook events, operations, intents, outbox, attempt velocity',
  newest: 4,
  renumbered: (version: number): number[] => (version === 1 ? [1, 2] : [version + 1]),
};
