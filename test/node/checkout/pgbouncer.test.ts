/**
 * The PostgreSQL store through PgBouncer in transaction pooling mode (`pgbouncer.ts`) with
 * ONE server connection for every client: two stores on two schemas, each with a pool of
 * four, migrate at the same time and write and read their own rows at the same time, every
 * transaction of both on that one server connection in turn. A schema kept in the session
 * (a `search_path` startup parameter, which PgBouncer refuses, or a session `SET`) or a
 * session advisory lock would mix them or hang; here each sees exactly its own rows. The
 * migration's lock is released with its transaction: a third store migrates after them.
 * Skipped without PostgreSQL or PgBouncer.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {PostgresPaymentStore} from '../../../src/server/index.js';
import {storedAttempt} from './attempt-rows.js';
import {PGBOUNCER_SKIP, startPgBouncer, type PgBouncer} from './pgbouncer.js';
import {dropSchemas, pgQuery, schemaName} from './postgres.js';

let bouncer: PgBouncer | undefined;
before(async () => {
  if (!PGBOUNCER_SKIP) bouncer = await startPgBouncer({poolSize: 1});
});
after(async () => {
  await bouncer?.stop();
  await dropSchemas();
});

describe(
  'the store through PgBouncer, transaction pooling, one server connection',
  {skip: PGBOUNCER_SKIP},
  () => {
    test('two schemas at once: migrated, each sees its own rows only', async () => {
      const schemas = [schemaName('bouncer_a'), schemaName('bouncer_b')];
      const stores = schemas.map(
        (schema) => new PostgresPaymentStore({connectionString: bouncer!.url, schema, poolSize: 4}),
      );
      try {
        await Promise.all(stores.map((s) => s.ready()));
        await Promise.all(
          stores.flatMap((s, i) =>
            Array.from({length: 20}, (_, k) =>
              s.insertAttempt(storedAttempt(`att-${i}-${k}`, `order-${i}-${k}`)),
            ),
          ),
        );
        const seen = await Promise.all(
          stores.map(async (s, i) => {
            const own = await Promise.all(
              Array.from({length: 20}, (_, k) => s.getAttempt(`att-${i}-${k}`)),
            );
            const other = await s.getAttempt(`att-${1 - i}-0`);
            return {own: own.filter(Boolean).length, other: other?.attemptId};
          }),
        );
        assert.deepEqual(seen, [
          {own: 20, other: undefined},
          {own: 20, other: undefined},
        ]);
        // In the database itself: each schema's table holds its store's rows.
        for (const [i, schema] of schemas.entries()) {
          const rows = await pgQuery<{n: number}>(
            `SELECT COUNT(*)::int AS n FROM ${schema}.attempts WHERE order_ref LIKE $1`,
            [`order-${i}-%`],
          );
          assert.equal(rows[0]!.n, 20);
        }
        assert.deepEqual(
          await stores[0]!.appliedMigrations(),
          await stores[1]!.appliedMigrations(),
        );
        // No migration lock outlived its transaction: another store migrates at once.
        const third = new PostgresPaymentStore({
          connectionString: bouncer!.url,
          schema: schemaName('bouncer_c'),
        });
        await third.ready();
        await third.close();
        assert.equal(bouncer!.log.join('').match(/unsupported startup parameter/), null);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });
  },
);
