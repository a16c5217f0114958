/**
 * What only the PostgreSQL store has (the contract it shares is in store.test.ts, the
 * migrations in migrations.test.ts): migrations run by several processes at once (one at
 * a time under the advisory lock), and a database that cannot be
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
import {MIGRATIONS} from '../../../src/server/store/migrations.js';
import {storedAttempt as attempt} from './attempt-rows.js';
import {freePort} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, pgQuery, schemaName} from './postgres.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MIGRATE = path.join(ROOT, 'test/node/checkout/fixtures/pg-migrate-process.ts');
const LATEST = MIGRATIONS.map((m) => m.version);

after(dropSchemas);

const open = (schema: string, extra: Record<string, unknown> = {}) =>
  new PostgresPaymentStore({connectionString: PG_TEST_URL, schema, ...extra});

describe('PostgresPaymentStore migrations', {skip: PG_SKIP}, () => {
  // From an empty database and from every earlier version: migrations.test.ts.

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
    // Once it waits on the lock, cut every connection of the store: the server says when it
    // does (each look a round trip, however long the store takes to get there).
    const waitingOnLock = async () =>
      (
        await pgQuery<{n: number}>(
          `SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
          [app],
        )
      )[0]!.n > 0;
    while (!(await waitingOnLock()));
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
