/**
 * `GuardStore` on PostgreSQL (node-postgres): the shop-wide defences' counters and flags in
 * two tables of the store in `schema` (the payment store's: `store.schema`), so every
 * instance on the database shares them — `pg_guard_counts` (a row per name and time bucket,
 * pruned as it is written) and `pg_guard_flags` (a row per flag). The tables are the
 * store's migrations' (migrations.ts), run on first use by the session the payment store on
 * the same pool and schema uses (pg-session.ts: one migrator, one transaction helper, one
 * timeout and outage mapping). A count or a rate-limited take is one statement; raising a
 * flag is one transaction under an advisory lock of its name, sent with its `BEGIN`.
 */
import type {Pool} from 'pg';
import type {PgPool} from '../drivers.js';
import type {GuardFlag, GuardStore} from '../guard-store.js';
import {PgSession, checkedSchema} from './pg-session.js';

/** Options of {@link PostgresGuardStore}: the pool and the schema of the payment store. */
export interface PostgresGuardStoreOptions {
  pool: PgPool;
  /** The schema of the tables (made when missing): the payment store's. Default `public`. */
  schema?: string;
}

interface FlagRow {
  raised_at: string | number;
  until: string | number;
  info: string;
}

/** A flag as its row holds it. */
const flagOf = (r: FlagRow): GuardFlag => ({
  raisedAt: Number(r.raised_at),
  until: Number(r.until),
  info: r.info,
});

/** The sums of `names` from rows of a name and its sum: 0 for a name without a row. */
function sumsOf(
  names: readonly string[],
  rows: readonly {name: string | null; n: string | null}[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of names) out[name] = 0;
  for (const r of rows) if (r.name !== null) out[r.name] = Number(r.n);
  return out;
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
  readonly #session: PgSession;

  constructor(options: PostgresGuardStoreOptions) {
    const schema = checkedSchema(options.schema, 'PostgresGuardStore');
    this.#session = PgSession.of(options.pool as Pool, schema);
  }

  get #sql() {
    return this.#session.sql.guard;
  }

  async #rows<T>(sql: string, args: unknown[]): Promise<T[]> {
    return (await this.#session.alone.all(sql, args)) as T[];
  }

  async add(name: string, bucket: number, n: number, pruneBefore: number): Promise<number> {
    const [row] = await this.#rows<{count: number}>(
      `WITH pruned AS (${this.#sql.prune}) ${this.#sql.add}`,
      [name, pruneBefore, name, bucket, n],
    );
    return row!.count;
  }

  async take(name: string, bucket: number, max: number, pruneBefore: number): Promise<boolean> {
    const rows = await this.#rows<{count: number}>(
      `WITH pruned AS (${this.#sql.prune}) ${this.#sql.take}`,
      [name, pruneBefore, name, bucket, max],
    );
    return rows.length === 1 && rows[0]!.count <= max;
  }

  async sums(names: readonly string[], since: number): Promise<Record<string, number>> {
    return sumsOf(
      names,
      await this.#rows<{name: string; n: string}>(this.#sql.sums, [names, since]),
    );
  }

  async flagAndSums(flagName: string, names: readonly string[], since: number) {
    const rows = await this.#rows<FlagRow & {name: string | null; n: string | null}>(
      this.#sql.flagAndSums,
      [flagName, names, since],
    );
    // The flag's row is the one without a name.
    const row = rows.find((r) => r.name === null);
    return {flag: row && flagOf(row), sums: sumsOf(names, rows)};
  }

  async raise(name: string, now: number, until: number, info: string, continueWithinMs: number) {
    const sql = this.#sql;
    return this.#session.tx(async (d) => {
      await d.lock(`pg_guard_flags:${name}`);
      const old = (await d.get(sql.flag, [name])) as FlagRow | undefined;
      if (old && Number(old.until) >= now - continueWithinMs) {
        const end = Math.max(Number(old.until), until);
        await d.run(sql.extendFlag, [end, name]);
        return {raisedAt: Number(old.raised_at), until: end, info: old.info, raised: false};
      }
      await d.run(sql.setFlag, [name, now, until, info]);
      return {raisedAt: now, until, info, raised: true};
    });
  }

  async flag(name: string): Promise<GuardFlag | undefined> {
    const [r] = await this.#rows<FlagRow>(this.#sql.flag, [name]);
    return r && flagOf(r);
  }

  async clear(name: string, raisedAt: number): Promise<boolean> {
    return (await this.#session.alone.run(this.#sql.clear, [name, raisedAt])) === 1;
  }

  async forget(prefix: string, before: number): Promise<number> {
    return this.#session.alone.run(this.#sql.forgetPrefix, [prefix, prefix, before]);
  }

  /** The payment store's `rejected_webhooks` (a table of the same migrations). */
  async trimRejectedWebhooks(keep: number): Promise<number> {
    return this.#session.alone.run(this.#session.sql.trimRejected, [Math.max(0, keep - 1)]);
  }
}
