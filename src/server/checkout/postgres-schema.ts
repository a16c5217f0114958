/**
 * The PostgreSQL store's schema: versioned, forward-only migrations, recorded in
 * `schema_migrations` and run by one instance at a time (`postgres-store.ts` takes a
 * transaction-scoped advisory lock, {@link MIGRATION_LOCK}, in each migration's transaction). Column names match
 * the SQLite schema, so `store-rows.ts` maps rows for both. Times are epoch milliseconds
 * in `BIGINT` columns (read back as numbers).
 *
 * The constraints several instances lean on: a primary key on the attempt id, a unique
 * gateway `order_id`, a unique partial index that allows one open, not written-off
 * attempt per order (the live-attempt rule's backstop; the insert itself runs under a
 * per-order transaction lock and `SELECT … FOR UPDATE`), a unique webhook event key,
 * a unique (order, operation, status) for secondary operations, and a primary key on
 * (order, key) for operation intents.
 */
import {TOKEN_FREE_MIGRATION, type Migration} from './sqlite-schema.js';

/** The key of the advisory lock held while migrating (any fixed 64-bit number). */
export const MIGRATION_LOCK = 0x70675f636b6f7574n; // "pg_ckout"

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'attempts, webhook events, operations, intents, outbox, attempt velocity',
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
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        create_sent_at BIGINT,
        last_gateway_at BIGINT,
        last_check_at BIGINT,
        checks INTEGER,
        create_count INTEGER,
        written_off TEXT,
        written_off_at BIGINT
      );
      CREATE INDEX attempts_by_order ON attempts (order_ref, seq);
      CREATE INDEX attempts_by_state ON attempts (state, created_at);
      CREATE UNIQUE INDEX attempts_one_open_per_order ON attempts (order_ref)
        WHERE state IN ('creating', 'unknown', 'init', 'pending') AND written_off IS NULL;
      CREATE TABLE webhook_events (
        id BIGSERIAL PRIMARY KEY,
        event_key TEXT NOT NULL UNIQUE,
        received_at BIGINT NOT NULL,
        kind TEXT NOT NULL,
        gateway_order_id TEXT,
        status TEXT,
        data TEXT NOT NULL,
        flag TEXT
      );
      CREATE TABLE operations (
        id BIGSERIAL PRIMARY KEY,
        gateway_order_id TEXT NOT NULL,
        order_ref TEXT NOT NULL,
        kind TEXT NOT NULL,
        operation_id TEXT NOT NULL,
        status TEXT NOT NULL,
        status_code TEXT,
        amount TEXT,
        currency TEXT,
        raw TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        UNIQUE (gateway_order_id, kind, operation_id, status)
      );
      CREATE INDEX operations_by_order ON operations (order_ref);
      CREATE TABLE rejected_webhooks (
        id BIGSERIAL PRIMARY KEY,
        received_at BIGINT NOT NULL,
        ip TEXT NOT NULL,
        reason TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        size INTEGER NOT NULL
      );
      CREATE TABLE outbox (
        id BIGSERIAL PRIMARY KEY,
        created_at BIGINT NOT NULL,
        payload TEXT NOT NULL,
        delivered_at BIGINT,
        failures INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX outbox_pending ON outbox (id) WHERE delivered_at IS NULL;
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
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        seq BIGSERIAL,
        PRIMARY KEY (order_ref, key)
      );
      CREATE INDEX operation_intents_by_state ON operation_intents (state, created_at);
      CREATE TABLE attempt_velocity (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE INDEX attempt_velocity_by_key ON attempt_velocity (scope, key, at);
      CREATE INDEX attempt_velocity_by_time ON attempt_velocity (at);
    `,
  },
  {
    version: 2,
    name: 'work claims: outbox delivery claims and leases that expire',
    sql: `
      ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
      ALTER TABLE outbox ADD COLUMN claimed_until BIGINT;
      CREATE TABLE leases (
        key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'saved cards (token, mask, token expiry; never the number or the code)',
    sql: `
      ALTER TABLE attempts ADD COLUMN save_card_for TEXT;
      CREATE TABLE saved_cards (
        seq BIGSERIAL,
        id TEXT PRIMARY KEY,
        customer_id TEXT NOT NULL,
        token TEXT NOT NULL,
        mask TEXT NOT NULL,
        token_expires_at TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        deleted_at BIGINT
      );
      CREATE INDEX saved_cards_by_customer ON saved_cards (customer_id, created_at, seq);
      CREATE UNIQUE INDEX saved_cards_live_token ON saved_cards (customer_id, token)
        WHERE deleted_at IS NULL;
    `,
  },
  {version: 4, ...TOKEN_FREE_MIGRATION},
];
