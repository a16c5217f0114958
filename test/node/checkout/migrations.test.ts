/**
 * One migration sequence, on SQLite and PostgreSQL alike: a new database gets every
 * version once; a database written by pg-checkout 0.1.0 (its own PostgreSQL numbering,
 * 1 to 4, renumbered once) and one left at each version of the current sequence open and
 * upgrade in place, their rows kept and served; a database newer than the code is
 * refused. The oracle for "one schema": the tables, columns and indexes each dialect ends
 * with, compared between a new database, a 0.1.0 one upgraded, and the other dialect.
 * PostgreSQL suites are skipped without a server.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  PostgresPaymentStore,
  SqlitePaymentStore,
  type PaymentStore,
} from '../../../src/server/index.js';
import {MIGRATIONS, OPEN_STATES_OF_MIGRATION_2} from '../../../src/server/store/migrations.js';
import {UNSETTLED_STATES} from '../../../src/server/store/payment-store.js';
import type {Dialect} from '../../../src/server/store/statements.js';
import {storedAttempt as attempt} from './attempt-rows.js';
import {
  IN_PROCESS_SKIP,
  PG_SKIP,
  PG_TEST_URL,
  dropSchemas,
  pgQuery,
  schemaName,
} from './postgres.js';
import {postgresAt, sqliteAt, versionsOf} from './schema-versions.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-migrations-'));
after(async () => {
  rmSync(tmp, {recursive: true, force: true});
  await dropSchemas();
});

const LATEST = MIGRATIONS.map((m) => m.version);

/** The rows every version has tables for: an open attempt, an undelivered update, an event. */
const ROWS = `
  INSERT INTO attempts (attempt_id, order_ref, gateway_order_id, seq, method, amount, currency, state, created_at, updated_at)
    VALUES ('old', 'o-old', 'o-old-1', 1, 'purchase', '1.20', 'XTS', 'pending', 1, 1);
  INSERT INTO outbox (created_at, payload) VALUES (1, '{"kind":"payment","orderRef":"o-old","state":"pending"}');
  INSERT INTO webhook_events (event_key, received_at, kind, data) VALUES ('k-old', 1, 'primary', 'd');`;

interface Side {
  dialect: Dialect;
  skip: string | false;
  /** A new place for a database (a file; a schema name). */
  place(tag: string): string;
  /** A database at `version` in `place`, with the rows. */
  write(place: string, version: number, released: boolean): Promise<void>;
  open(place: string): PaymentStore & {appliedMigrations(): number[] | Promise<number[]>};
  /** Adds a version newer than the code. */
  future(place: string): Promise<void>;
  /** Table → sorted "column" and "index:name" entries. */
  shape(place: string): Promise<Record<string, string[]>>;
}

let files = 0;
const sqlite: Side = {
  dialect: 'sqlite',
  skip: IN_PROCESS_SKIP,
  place: (tag) => path.join(tmp, `${tag}-${files++}.db`),
  write: async (file, version, released) => sqliteAt(file, version, released, ROWS),
  open: (file) => new SqlitePaymentStore(file),
  async future(file) {
    const db = new Database(file);
    db.prepare('INSERT INTO schema_migrations VALUES (99, ?, 0)').run('future');
    db.close();
  },
  async shape(file) {
    const db = new Database(file, {readonly: true});
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as {name: string}[];
    const out: Record<string, string[]> = {};
    for (const {name} of tables) {
      const columns = (db.pragma(`table_info(${name})`) as {name: string}[]).map((c) => c.name);
      const indexes = (
        db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
          )
          .all(name) as {name: string}[]
      ).map((i) => `index:${i.name}`);
      out[name] = [...columns, ...indexes].sort();
    }
    db.close();
    return out;
  },
};

const postgres: Side = {
  dialect: 'postgres',
  skip: PG_SKIP,
  place: (tag) => schemaName(`mig_${tag}`),
  write: (schema, version, released) => postgresAt(schema, version, released, ROWS),
  open: (schema) => new PostgresPaymentStore({connectionString: PG_TEST_URL, schema}),
  async future(schema) {
    await pgQuery(`INSERT INTO ${schema}.schema_migrations VALUES (99, 'future', 0)`);
  },
  async shape(schema) {
    const columns = await pgQuery<{t: string; c: string}>(
      'SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = $1',
      [schema],
    );
    const indexes = await pgQuery<{t: string; i: string}>(
      `SELECT tablename AS t, indexname AS i FROM pg_indexes WHERE schemaname = $1
         AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
      [schema],
    );
    const out: Record<string, string[]> = {};
    for (const {t, c} of columns) (out[t] ??= []).push(c);
    // Primary keys and UNIQUE constraints are indexes PostgreSQL names itself; SQLite lists
    // only the ones a migration made.
    for (const {t, i} of indexes) out[t]!.push(`index:${i}`);
    for (const t of Object.keys(out)) out[t]!.sort();
    return out;
  },
};

/** What an upgraded store must still hold and do with the rows written before. */
async function checkUpgraded(s: PaymentStore & {appliedMigrations(): unknown}) {
  assert.deepEqual(await s.appliedMigrations(), LATEST);
  assert.equal((await s.getAttempt('old'))?.state, 'pending');
  assert.equal((await s.listEvents())[0]?.eventKey, 'k-old');
  // The old row still blocks its order, and the newer tables work on the old rows.
  const again = await s.insertAttempt(attempt('new', 'o-old'));
  assert.equal(again.inserted ? 'inserted' : again.reason, 'order_has_live_attempt');
  assert.deepEqual(
    (await s.claimOutbox('i1', 10, 1000)).map((e) => e.update.orderRef),
    ['o-old'],
  );
  assert.equal(await s.acquireLease('lookup:o-old-1', 'i1', 10, 1000), true);
  assert.deepEqual(await s.reserveAttempt([{scope: 'ip', key: 'x', max: 1}], 10, 1000), {
    ok: true,
  });
}

for (const side of [sqlite, postgres]) {
  describe(`${side.dialect}: one migration sequence`, {skip: side.skip}, () => {
    test('from an empty database: every version, once; again on reopening', async () => {
      const place = side.place('empty');
      const s = side.open(place);
      assert.deepEqual(await s.appliedMigrations(), LATEST);
      await s.close();
      const again = side.open(place);
      assert.deepEqual(await again.appliedMigrations(), LATEST);
      await again.close();
    });

    for (const released of [true, false]) {
      const versions = versionsOf(side.dialect, released).filter(
        (v) => released || v < LATEST.at(-1)!,
      );
      for (const from of versions) {
        const what = released ? `pg-checkout 0.1.0's version ${from}` : `version ${from}`;
        test(`from ${what}, with its rows: upgraded in place, nothing lost`, async () => {
          const place = side.place(`${released ? 'r' : 'v'}${from}`);
          await side.write(place, from, released);
          const s = side.open(place);
          await checkUpgraded(s);
          await s.close();
        });
      }
    }

    test("0.1.0's newest database ends with the tables, columns and indexes of a new one", async () => {
      const fresh = side.place('fresh');
      await side.open(fresh).close();
      const old = side.place('old');
      await side.write(old, versionsOf(side.dialect, true).at(-1)!, true);
      await side.open(old).close();
      assert.deepEqual(await side.shape(old), await side.shape(fresh));
    });

    test('refuses a database whose schema is newer than the code', async () => {
      const place = side.place('newer');
      await side.open(place).close();
      await side.future(place);
      await assert.rejects(async () => {
        const s = side.open(place);
        try {
          await s.appliedMigrations();
        } finally {
          await s.close();
        }
      }, /newer than this code/);
    });
  });
}

describe('both dialects end with the same schema', {skip: PG_SKIP}, () => {
  test('the same tables, columns and indexes (PostgreSQL adds insertion-order columns)', async () => {
    const file = sqlite.place('same');
    await sqlite.open(file).close();
    const schema = postgres.place('same');
    const s = postgres.open(schema);
    await s.appliedMigrations();
    await s.close();
    const pg = await postgres.shape(schema);
    // SQLite tells insertion order by rowid; PostgreSQL by a `seq` column. Its backstop of
    // the live-attempt rule is an index of its own.
    pg['operation_intents'] = pg['operation_intents']!.filter((c) => c !== 'seq');
    pg['saved_cards'] = pg['saved_cards']!.filter((c) => c !== 'seq');
    pg['attempts'] = pg['attempts']!.filter((c) => c !== 'index:attempts_one_open_per_order');
    assert.deepEqual(pg, await sqlite.shape(file));
  });
});

describe('migration 2 is frozen', () => {
  test('its backstop index covers the unsettled states of today (a change needs a new migration)', () => {
    assert.equal(OPEN_STATES_OF_MIGRATION_2, UNSETTLED_STATES.map((s) => `'${s}'`).join(', '));
  });
});
