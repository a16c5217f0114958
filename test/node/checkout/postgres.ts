/**
 * The PostgreSQL test database: `PG_TEST_URL` (default the machine's server,
 * postgres://postgres@127.0.0.1:5432/test). Each test run makes schemas of its own
 * (`schemaName`) and drops them after (`dropSchemas`), so runs never see each other's
 * rows. Without a server the PostgreSQL suites are skipped (`PG_SKIP` is the reason;
 * `scripts/run-node-tests.mjs` says so in one line), unless `PG_TEST_REQUIRED=1`
 * (`.ci/run`), where a missing database fails.
 *
 * The tier decides too (`TEST_TIER`, set by scripts/run-node-tests.mjs): the unit tier has
 * no PostgreSQL, so there `PG_SKIP` says the integration tier runs that half, and the server
 * is not asked; the integration tier runs the files of POSTGRES_HALVES again for their
 * PostgreSQL half alone, so there `IN_PROCESS_SKIP` skips the in-process half the unit tier
 * ran. A file run alone (`node --import tsx --test <file>`) runs both halves.
 */
import pg from 'pg';

export const PG_TEST_URL = process.env['PG_TEST_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The tier this file runs in: 'unit', 'integration', or 'all' (a file run alone). */
export const TEST_TIER = process.env['TEST_TIER'] ?? 'all';

async function probe(): Promise<string | false> {
  if (TEST_TIER === 'unit')
    return 'PostgreSQL: the integration tier runs this (npm run test:integration)';
  if (process.env['PG_TEST_SKIP']) return process.env['PG_TEST_SKIP'];
  const client = new pg.Client({connectionString: PG_TEST_URL, connectionTimeoutMillis: 3000});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return false;
  } catch (error) {
    const why = `no PostgreSQL at ${PG_TEST_URL}: ${(error as Error).message}`;
    if (process.env['PG_TEST_REQUIRED'] === '1') throw new Error(why);
    return why;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Why the PostgreSQL suites are skipped, or false when the server answers. */
export const PG_SKIP: string | false = await probe();

/**
 * Why an in-process (SQLite) half of a file with a PostgreSQL half is skipped here: in the
 * integration tier, which runs such a file for its PostgreSQL half (the unit tier ran the
 * rest); else false.
 */
export const IN_PROCESS_SKIP: string | false =
  TEST_TIER === 'integration' ? 'in-process: the unit tier runs this (npm run test:unit)' : false;

const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;
let n = 0;
const made: string[] = [];

/** A new schema name of this run (the store creates it); dropped by `dropSchemas`. */
export function schemaName(tag: string): string {
  const name = `t_${tag}_${run}_${n++}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  made.push(name);
  return name;
}

/** Runs `sql` on the test database with a connection of its own. */
export async function pgQuery<T = Record<string, unknown>>(
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({connectionString: PG_TEST_URL});
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Drops every schema this run made. */
export async function dropSchemas(): Promise<void> {
  if (PG_SKIP || made.length === 0) return;
  const names = made.splice(0);
  await pgQuery(`DROP SCHEMA IF EXISTS ${names.join(', ')} CASCADE`);
}
