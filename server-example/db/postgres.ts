/**
 * The example's tables on PostgreSQL, beside the companion's (`DATABASE_URL`): on the
 * `pg` pool of the companion's `PostgresPaymentStore`, so an instance holds one pool with
 * one set of settings — its size, timeouts, TLS — and the shop's tables sit in the same
 * schema (`DATABASE_SCHEMA`, each transaction's `search_path`) as the payments. Each step awaits its statement; a transaction holds one pooled connection
 * from `BEGIN` to `COMMIT` and nothing else (no network call waits inside one). The
 * tables are created on first use, in one transaction under an advisory lock, so
 * instances starting together create them once. A database that cannot be reached is a
 * `StoreUnavailableError`, as the companion reports it (the app answers 503).
 */
import type {Pool, PoolClient} from 'pg';
import {StoreUnavailableError} from '../../src/server/index.js';
import {isUnavailable} from '../../src/server/store/postgres/postgres-store.js';
import {poolWaitAsBusy} from '../../src/server/store/store-busy.js';
import {hearErrors, transactionStart} from '../../src/server/store/postgres/pg-session.js';
import {TERMS, type ShopDb, type Step, type Work} from './work.js';

/** The advisory lock the example's table definitions are created under. */
const DEFINE_LOCK = 'pg-checkout example: define tables';

/** `?` placeholders as PostgreSQL's `$1, $2, …` (the example's SQL has no `?` in text). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function unavailable(error: unknown): unknown {
  const busy = poolWaitAsBusy(error, "the shop's database");
  if (busy !== error) return busy;
  if (!isUnavailable(error)) return error;
  const what = (error as Error).message || String((error as {code?: unknown}).code);
  return new StoreUnavailableError(`the shop's database cannot be reached: ${what}`, {
    cause: error,
  });
}

/**
 * The example's tables on `pool`, in `schema` (the one the pool's `search_path` names;
 * created when missing, as the companion's store does).
 */
export function postgresShopDb(pool: Pool, schema: string): ShopDb {
  const texts = new Map<string, string>();
  const text = (sql: string) => {
    let t = texts.get(sql);
    if (t === undefined) texts.set(sql, (t = numbered(sql)));
    return t;
  };
  // The schema is the transaction's (SET LOCAL), never the connection's: the pool may be
  // a transaction-mode PgBouncer's (src/server/store/postgres/pg-session.ts).
  const begin = transactionStart(schema, undefined);
  let pending: string[] = [];
  let defining: Promise<void> | undefined;

  const step = async (q: Pick<PoolClient, 'query'> | undefined, s: Step): Promise<unknown> => {
    if (s.kind === 'lock') {
      if (!q) throw new Error('shop database: a lock outside a transaction');
      await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [s.key]);
      return undefined;
    }
    const result = await (q ?? pool).query(text(s.sql), [...s.params]);
    return s.kind === 'all' ? result.rows : (result.rowCount ?? 0);
  };
  const drive = async (work: Work<unknown>, q?: PoolClient): Promise<unknown> => {
    for (let r = work.next(); ; r = work.next(await step(q, r.value))) if (r.done) return r.value;
  };

  /** `fn` in one transaction on one connection; a connection that broke is dropped. */
  const inTransaction = async <T>(fn: (c: PoolClient) => Promise<T>): Promise<T> => {
    let c: PoolClient;
    try {
      c = hearErrors(await pool.connect());
    } catch (error) {
      throw unavailable(error);
    }
    let broken: Error | undefined;
    try {
      await c.query(begin);
      const result = await fn(c);
      await c.query('COMMIT');
      return result;
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error;
      else await c.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      throw unavailable(error);
    } finally {
      c.release(broken);
    }
  };

  /** Creates the tables defined so far and not created yet (again after a failure). */
  const ready = (): Promise<void> => {
    if (pending.length === 0) return defining ?? Promise.resolve();
    const ddl = pending;
    pending = [];
    const previous = defining ?? Promise.resolve();
    const define = () =>
      inTransaction(async (c) => {
        await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [DEFINE_LOCK]);
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        for (const statement of ddl) await c.query(statement);
      });
    // The companion's store creates the schema too, under a lock of its own: when both do
    // at the same moment, one of them fails on the catalogue's unique index (not "already
    // exists") and tries again, when the schema is there.
    const run = previous.then(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await define();
        } catch (error) {
          const code = (error as {code?: unknown}).code;
          if (attempt >= 3 || (code !== '23505' && code !== '42P06')) throw error;
        }
      }
    });
    defining = run.catch((error: unknown) => {
      pending = [...ddl, ...pending];
      defining = undefined;
      throw error;
    });
    return defining;
  };

  return {
    dialect: 'postgres',
    terms: TERMS.postgres,
    define(ddl) {
      pending.push(ddl);
    },
    // A statement alone runs in a transaction too, for its search_path.
    async run<T>(work: Work<T>): Promise<T> {
      await ready();
      return (await inTransaction((c) => drive(work, c))) as T;
    },
    async transaction<T>(work: Work<T>): Promise<T> {
      await ready();
      return (await inTransaction((c) => drive(work, c))) as T;
    },
    // The pool is the companion store's: it ends it.
    close: () => Promise.resolve(),
  };
}
