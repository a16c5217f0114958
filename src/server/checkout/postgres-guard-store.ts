/**
 * `GuardStore` on PostgreSQL (node-postgres): the shop-wide defences' counters and flags in
 * two tables of their own in `schema` (the payment store's: `store.schema`), so every
 * instance on the database shares them — `pg_guard_counts` (a row per name and time bucket,
 * pruned as it is written) and `pg_guard_flags` (a row per flag). A count or a rate-limited
 * take is one statement; raising a flag runs under a transaction-scoped advisory lock of
 * its name. The tables are made on first use, under an advisory lock, as
 * postgres-security-reports.ts makes its own.
 */
import type {Pool, PoolClient} from 'pg';
import type {PgPool} from './drivers.js';
import {MIGRATION_LOCK} from './migrate.js';
import type {GuardFlag, GuardStore} from './guard-store.js';

/** Options of {@link PostgresGuardStore}: the pool and the schema of the payment store. */
export interface PostgresGuardStoreOptions {
  pool: PgPool;
  /** The schema of the tables (made when missing): the payment store's. Default `public`. */
  schema?: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/**
 * The advisory lock of the tables' creation: the payment store's migrations' own, so the
 * payment store, the guard store and the reports store of several instances starting
 * together make the schema one at a time (each `CREATE SCHEMA IF NOT EXISTS` under a lock
 * of its own raced the others: a duplicate key error in `pg_namespace`).
 */
const CREATE_LOCK = MIGRATION_LOCK.toString();

interface FlagRow {
  raised_at: string | number;
  until: string | number;
  info: string;
}

/**
 * The shop-wide guards (card-testing breaker, refused-webhook bound) in the payment
 * store's PostgreSQL schema, shared by every instance. `createCheckoutApp` makes one
 * beside a `PostgresPaymentStore` by itself; give one as `guardStore` to choose.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import {PostgresGuardStore, PostgresPaymentStore} from 'pg-checkout/server';
 *
 * const pool = new pg.Pool({connectionString: process.env.DATABASE_URL});
 * const payments = new PostgresPaymentStore({pool, schema: 'checkout'});
 * const guard = new PostgresGuardStore({pool, schema: 'checkout'});
 * ```
 */
export class PostgresGuardStore implements GuardStore {
  readonly #pool: Pool;
  readonly #schema: string;
  readonly #counts: string;
  readonly #flags: string;
  #ready: Promise<void> | undefined;
  /** Whether the payment store's `rejected_webhooks` is there (looked up until it is). */
  #hasRejected = false;

  constructor(options: PostgresGuardStoreOptions) {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) {
      throw new TypeError('PostgresGuardStore: schema: must be a plain identifier');
    }
    this.#pool = options.pool as Pool;
    this.#schema = schema;
    this.#counts = `"${schema}".pg_guard_counts`;
    this.#flags = `"${schema}".pg_guard_flags`;
  }

  #made(): Promise<void> {
    this.#ready ??= this.#tx(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [CREATE_LOCK]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#counts} (
        name TEXT NOT NULL,
        bucket BIGINT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (name, bucket)
      )`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#flags} (
        name TEXT PRIMARY KEY,
        raised_at BIGINT NOT NULL,
        until BIGINT NOT NULL,
        info TEXT NOT NULL
      )`);
    }).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #tx<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const out = await work(client);
      await client.query('COMMIT');
      return out;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async add(name: string, bucket: number, n: number, pruneBefore: number): Promise<number> {
    await this.#made();
    const {rows} = await this.#pool.query<{count: number}>(
      `WITH pruned AS (DELETE FROM ${this.#counts} WHERE name = $1 AND bucket < $4)
       INSERT INTO ${this.#counts} AS c (name, bucket, count) VALUES ($1, $2, $3)
       ON CONFLICT (name, bucket) DO UPDATE SET count = c.count + EXCLUDED.count
       RETURNING count`,
      [name, bucket, n, pruneBefore],
    );
    return rows[0]!.count;
  }

  async take(name: string, bucket: number, max: number, pruneBefore: number): Promise<boolean> {
    await this.#made();
    const {rows} = await this.#pool.query<{count: number}>(
      `WITH pruned AS (DELETE FROM ${this.#counts} WHERE name = $1 AND bucket < $4)
       INSERT INTO ${this.#counts} AS c (name, bucket, count) VALUES ($1, $2, 1)
       ON CONFLICT (name, bucket) DO UPDATE SET count = c.count + 1 WHERE c.count < $3
       RETURNING count`,
      [name, bucket, max, pruneBefore],
    );
    return rows.length === 1 && rows[0]!.count <= max;
  }

  async sums(names: readonly string[], since: number): Promise<Record<string, number>> {
    await this.#made();
    const {rows} = await this.#pool.query<{name: string; n: string}>(
      `SELECT name, SUM(count) AS n FROM ${this.#counts}
       WHERE name = ANY($1::text[]) AND bucket >= $2 GROUP BY name`,
      [names, since],
    );
    const out: Record<string, number> = {};
    for (const name of names) out[name] = 0;
    for (const r of rows) out[r.name] = Number(r.n);
    return out;
  }

  async raise(name: string, now: number, until: number, info: string, continueWithinMs: number) {
    await this.#made();
    return this.#tx(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pg_guard_flags:${name}`]);
      const {rows} = await client.query<FlagRow>(
        `SELECT raised_at, until, info FROM ${this.#flags} WHERE name = $1`,
        [name],
      );
      const old = rows[0];
      if (old && Number(old.until) >= now - continueWithinMs) {
        const end = Math.max(Number(old.until), until);
        await client.query(`UPDATE ${this.#flags} SET until = $2 WHERE name = $1`, [name, end]);
        return {raisedAt: Number(old.raised_at), until: end, info: old.info, raised: false};
      }
      await client.query(
        `INSERT INTO ${this.#flags} (name, raised_at, until, info) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET raised_at = EXCLUDED.raised_at,
           until = EXCLUDED.until, info = EXCLUDED.info`,
        [name, now, until, info],
      );
      return {raisedAt: now, until, info, raised: true};
    });
  }

  async flag(name: string): Promise<GuardFlag | undefined> {
    await this.#made();
    const {rows} = await this.#pool.query<FlagRow>(
      `SELECT raised_at, until, info FROM ${this.#flags} WHERE name = $1`,
      [name],
    );
    const r = rows[0];
    return r && {raisedAt: Number(r.raised_at), until: Number(r.until), info: r.info};
  }

  async clear(name: string, raisedAt: number): Promise<boolean> {
    await this.#made();
    const r = await this.#pool.query(
      `DELETE FROM ${this.#flags} WHERE name = $1 AND raised_at = $2`,
      [name, raisedAt],
    );
    return r.rowCount === 1;
  }

  async forget(prefix: string, before: number): Promise<number> {
    await this.#made();
    // Not a range of the key: under a database's linguistic collation, punctuation sorts
    // out of code point order. The table holds a row per name still counted: small.
    const r = await this.#pool.query(
      `DELETE FROM ${this.#counts} WHERE left(name, length($1)) = $1 AND bucket < $2`,
      [prefix, before],
    );
    return r.rowCount ?? 0;
  }

  async trimRejectedWebhooks(keep: number): Promise<number> {
    const table = `"${this.#schema}".rejected_webhooks`;
    if (!this.#hasRejected) {
      const {rows} = await this.#pool.query<{t: string | null}>('SELECT to_regclass($1) AS t', [
        table,
      ]);
      if (!rows[0]?.t) return 0;
      this.#hasRejected = true;
    }
    const r = await this.#pool.query(
      `DELETE FROM ${table} WHERE id < (
         SELECT id FROM ${table} ORDER BY id DESC OFFSET $1 LIMIT 1)`,
      [Math.max(0, keep - 1)],
    );
    return r.rowCount ?? 0;
  }
}
