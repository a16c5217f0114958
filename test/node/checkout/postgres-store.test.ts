/**
 * What only the PostgreSQL store has (the contract it shares is in store.test.ts):
 * versioned migrations from an empty database, from every earlier version with its rows
 * kept, run by several processes at once (one at a time under the advisory lock), and
 * refused when the database is newer than the code; and a database that cannot be
 * reached (a closed port, a connection cut by `pg_terminate_backend`) as
 * `StoreUnavailableError`, after which the store serves again. Each test has a schema of
 * its own, dropped after the run; skipped without a server.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {PostgresPaymentStore, StoreUnavailableError} from '../../../src/server/index.js';
import {PG_MIGRATIONS} from '../../../src/server/checkout/postgres-schema.js';
import {storedAttempt as attempt} from './attempt-rows.js';
import {freePort} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, pgQuery, schemaName} from './postgres.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MIGRATE = path.join(ROOT, 'test/node/checkout/fixtures/pg-migrate-process.ts');
const LATEST = PG_MIGRATIONS.map((m) => m.version);

after(dropSchemas);

const open = (schema: string, extra: Record<string, unknown> = {}) =>
  new PostgresPaymentStore({connectionString: PG_TEST_URL, schema, ...extra});

/** A schema migrated by hand up to `version` (as an older pg-checkout left it), with rows. */
async function schemaAt(version: number): Promise<string> {
  const schema = schemaName(`v${version}`);
  await pgQuery(`CREATE SCHEMA ${schema}`);
  await pgQuery(`SET search_path TO ${schema};
    CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL);
    ${PG_MIGRATIONS.filter((m) => m.version <= version)
      .map((m) => `${m.sql}; INSERT INTO schema_migrations VALUES (${m.version}, 'old', 0);`)
      .join('\n')}
    INSERT INTO attempts (attempt_id, order_ref, gateway_order_id, seq, method, amount, currency, state, created_at, updated_at)
      VALUES ('old', 'o-old', 'o-old-1', 1, 'purchase', '1.20', 'XTS', 'pending', 1, 1);
    INSERT INTO outbox (created_at, payload) VALUES (1, '{"kind":"payment","orderRef":"o-old","state":"pending"}');
    INSERT INTO webhook_events (event_key, received_at, kind, data) VALUES ('k-old', 1, 'primary', 'd');`);
  return schema;
}

describe('PostgresPaymentStore migrations', {skip: PG_SKIP}, () => {
  test('from an empty database: every version, once; again on reopening', async () => {
    const schema = schemaName('empty');
    const s = open(schema);
    assert.deepEqual(await s.appliedMigrations(), LATEST);
    await s.close();
    const again = open(schema);
    assert.deepEqual(await again.appliedMigrations(), LATEST);
    await again.close();
    const n = (
      await pgQuery<{n: number}>(`SELECT COUNT(*)::int AS n FROM ${schema}.schema_migrations`)
    )[0]!.n;
    assert.equal(n, LATEST.length);
  });

  for (const from of LATEST.slice(0, -1)) {
    test(`from version ${from}, with its rows: upgraded in place, nothing lost`, async () => {
      const schema = await schemaAt(from);
      const s = open(schema);
      assert.deepEqual(await s.appliedMigrations(), LATEST);
      assert.equal((await s.getAttempt('old'))?.state, 'pending');
      assert.equal((await s.listEvents())[0]?.eventKey, 'k-old');
      // The old row still blocks its order, and the new claims work on the old entry.
      assert.equal((await s.insertAttempt(attempt('new', 'o-old'))).inserted, false);
      const claimed = await s.claimOutbox('i1', 10, 1000);
      assert.deepEqual(
        claimed.map((e) => e.update.orderRef),
        ['o-old'],
      );
      assert.equal(await s.acquireLease('lookup:o-old-1', 'i1', 10, 1000), true);
      await s.close();
    });
  }

  test('several processes migrating one empty schema at once: each version applied once', async () => {
    const schema = schemaName('race');
    const runs = await Promise.all(
      Array.from({length: 4}, async () => {
        const child = spawn(process.execPath, ['--import', 'tsx', MIGRATE], {
          cwd: ROOT,
          env: {...process.env, PG_URL: PG_TEST_URL, PG_SCHEMA: schema},
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c));
        child.stderr.on('data', (c: Buffer) => (err += c));
        const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
        return {code, out, err};
      }),
    );
    for (const r of runs) {
      assert.equal(r.code, 0, r.err);
      assert.deepEqual((JSON.parse(r.out) as {applied: number[]}).applied, LATEST);
    }
    const rows = await pgQuery<{version: number}>(
      `SELECT version FROM ${schema}.schema_migrations ORDER BY version`,
    );
    assert.deepEqual(
      rows.map((r) => r.version),
      LATEST,
    );
  });

  test('refuses a database whose schema is newer than the code', async () => {
    const schema = schemaName('newer');
    await open(schema).close();
    await pgQuery(`INSERT INTO ${schema}.schema_migrations VALUES (99, 'future', 0)`);
    const s = open(schema);
    await assert.rejects(() => s.ready(), /newer than this code/);
    await s.close();
  });

  test('bad options are named', () => {
    assert.throws(() => open('no spaces please'), /schema: must be a plain identifier/);
    assert.throws(() => open('ok', {poolSize: 0}), /poolSize: must be a positive whole number/);
    assert.throws(() => new PostgresPaymentStore({schema: 'x'}), /connectionString: is required/);
  });
});

describe('PostgresPaymentStore when the database cannot be reached', {skip: PG_SKIP}, () => {
  test('a closed port: StoreUnavailableError at once, ping false', async () => {
    const s = new PostgresPaymentStore({
      connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/test`,
      connectTimeoutMs: 1000,
    });
    await assert.rejects(() => s.insertAttempt(attempt('a', 'o')), StoreUnavailableError);
    await assert.rejects(() => s.getAttempt('a'), {code: 'store_unavailable'});
    assert.equal(await s.ping(), false);
    await s.close();
  });

  test('a connection cut mid-transaction (pg_terminate_backend): unavailable, then serving again', async () => {
    const app = `pgc-term-${process.pid}`;
    const s = open(schemaName('term'), {applicationName: app, poolSize: 2});
    await s.insertAttempt(attempt('a1', 'o1'));
    // Another session holds the row, so the store's update waits inside its transaction.
    const blocker = new (await import('pg')).default.Client({connectionString: PG_TEST_URL});
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(`SELECT * FROM ${s.schema}.attempts WHERE attempt_id = 'a1' FOR UPDATE`);
    // Settled into a value at once: it fails while this test awaits something else.
    const waiting = s
      .updateAttempt({attemptId: 'a1'}, () => ({patch: {state: 'unknown'}}))
      .then(
        () => 'resolved',
        (error: unknown) => error,
      );
    // Once it waits on the lock, cut every connection of the store.
    for (let i = 0; i < 100; i++) {
      const n = (
        await pgQuery<{n: number}>(
          `SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
          [app],
        )
      )[0]!.n;
      if (n > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const cut = await pgQuery(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [app],
    );
    assert.ok(cut.length >= 1);
    assert.ok((await waiting) instanceof StoreUnavailableError, String(await waiting));
    await blocker.query('ROLLBACK');
    await blocker.end();
    assert.equal((await s.getAttempt('a1'))?.state, 'creating', 'the cut transaction left nothing');
    const r = await s.updateAttempt({attemptId: 'a1'}, () => ({patch: {state: 'unknown'}}));
    assert.equal(r.attempt?.state, 'unknown', 'a new connection serves');
    await s.close();
  });
});
