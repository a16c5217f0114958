/**
 * A database made by the version before the guard and report tables joined the migration
 * sequence (migration 7): the payment tables at version 6, and `pg_guard_counts`,
 * `pg_guard_flags` and `pg_security_reports` made by the guard and report stores
 * themselves, with the text those stores ran (copied here from that version's
 * `sqlite-guard-store.ts`, `sqlite-security-reports.ts`, `postgres-guard-store.ts` and
 * `postgres-security-reports.ts`, as it was, so the test does not follow the code). The
 * stores of this version open it: migration 7 is applied, the rows are kept, and the
 * guard and report stores count on where the old ones left off. The oracle is the old
 * text, not this version's migration.
 */
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, describe, test} from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  PostgresGuardStore,
  PostgresPaymentStore,
  PostgresSecurityReportStore,
  SqliteGuardStore,
  SqlitePaymentStore,
  SqliteSecurityReportStore,
} from '../../../src/server/index.js';
import {
  IN_PROCESS_SKIP,
  PG_SKIP,
  PG_TEST_URL,
  dropSchemas,
  pgQuery,
  schemaName,
} from './postgres.js';
import {postgresAt, sqliteAt} from './schema-versions.js';

const OLD_SQLITE = `
  CREATE TABLE IF NOT EXISTS pg_guard_counts (
    name TEXT NOT NULL, bucket INTEGER NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY (name, bucket)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS pg_guard_flags (
    name TEXT PRIMARY KEY, raised_at INTEGER NOT NULL, until INTEGER NOT NULL, info TEXT NOT NULL
  ) STRICT;
  CREATE TABLE IF NOT EXISTS pg_security_reports (
    key TEXT PRIMARY KEY, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
    count INTEGER NOT NULL, report TEXT NOT NULL
  ) STRICT;`;

const oldPostgres = (schema: string) => `
  CREATE TABLE IF NOT EXISTS "${schema}".pg_guard_counts (
    name TEXT NOT NULL, bucket BIGINT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (name, bucket)
  );
  CREATE TABLE IF NOT EXISTS "${schema}".pg_guard_flags (
    name TEXT PRIMARY KEY, raised_at BIGINT NOT NULL, until BIGINT NOT NULL, info TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS "${schema}".pg_security_reports (
    key TEXT PRIMARY KEY, first_seen BIGINT NOT NULL, last_seen BIGINT NOT NULL,
    count INTEGER NOT NULL, report JSONB NOT NULL
  );`;

const ROWS = (prefix: string) => `
  INSERT INTO ${prefix}pg_guard_counts VALUES ('declines', 100, 3);
  INSERT INTO ${prefix}pg_guard_flags VALUES ('breaker', 1, 5000, 'old flag');
  INSERT INTO ${prefix}pg_security_reports VALUES ('k1', 1, 2, 2,
    '{"documentUrl":"https://shop.example/pay","blockedUrl":"inline","directive":"script-src-elem","disposition":"enforce"}');`;

const REPORT = {
  documentUrl: 'https://shop.example/pay',
  blockedUrl: 'inline',
  directive: 'script-src-elem',
  disposition: 'enforce' as const,
};

const tmp = mkdtempSync(path.join(tmpdir(), 'guard-upgrade-'));
after(async () => {
  rmSync(tmp, {recursive: true, force: true});
  await dropSchemas();
});

describe(
  'guard and report tables of the previous version, on SQLite',
  {skip: IN_PROCESS_SKIP},
  () => {
    test('migration 7 keeps them and their rows; the stores go on counting', async () => {
      const file = path.join(tmp, 'old.db');
      sqliteAt(file, 6, false);
      const old = new Database(file);
      old.exec(OLD_SQLITE + ROWS(''));
      old.close();

      const payments = new SqlitePaymentStore(file);
      assert.deepEqual(payments.appliedMigrations(), [1, 2, 3, 4, 5, 6, 7]);
      const guard = new SqliteGuardStore({connection: payments.connection});
      assert.equal(await guard.add('declines', 100, 1, 0), 4);
      assert.deepEqual(await guard.flag('breaker'), {raisedAt: 1, until: 5000, info: 'old flag'});
      const reports = new SqliteSecurityReportStore({connection: payments.connection});
      assert.deepEqual(await reports.record('k1', REPORT, new Date(3)), {isNew: false, count: 3});
      await payments.close();
    });
  },
);

describe('guard and report tables of the previous version, on PostgreSQL', {skip: PG_SKIP}, () => {
  test('migration 7 keeps them and their rows; the stores go on counting', async () => {
    const schema = schemaName('guardup');
    await postgresAt(schema, 6, false);
    await pgQuery(oldPostgres(schema) + ROWS(`${schema}.`));

    const pool = new pg.Pool({connectionString: PG_TEST_URL, max: 2});
    try {
      const payments = new PostgresPaymentStore({pool, schema});
      assert.deepEqual(await payments.appliedMigrations(), [1, 2, 3, 4, 5, 6, 7]);
      const guard = new PostgresGuardStore({pool, schema});
      assert.equal(await guard.add('declines', 100, 1, 0), 4);
      assert.deepEqual(await guard.flag('breaker'), {raisedAt: 1, until: 5000, info: 'old flag'});
      const reports = new PostgresSecurityReportStore({pool, schema});
      assert.deepEqual(await reports.record('k1', REPORT, new Date(3)), {isNew: false, count: 3});
      await payments.close();
    } finally {
      await pool.end();
    }
  });

  test('a guard store alone on a new schema makes every table, by the one migration run', async () => {
    const schema = schemaName('guardalone');
    const pool = new pg.Pool({connectionString: PG_TEST_URL, max: 2});
    try {
      const guard = new PostgresGuardStore({pool, schema});
      assert.equal(await guard.add('n', 1, 2, 0), 2);
      const rows = await pgQuery<{version: number}>(
        `SELECT version FROM ${schema}.schema_migrations ORDER BY version`,
      );
      assert.deepEqual(
        rows.map((r) => r.version),
        [1, 2, 3, 4, 5, 6, 7],
      );
    } finally {
      await pool.end();
    }
  });
});
