/**
 * `GuardStore` on SQLite (better-sqlite3): the shop-wide defences' counters and flags in
 * two tables of the store (its migrations make them, migrations.ts, run here when the file
 * lacks them), `pg_guard_counts` (a row per name and time bucket, pruned as it
 * is written) and `pg_guard_flags` (a row per flag), beside the payment store's tables in
 * the same file, so that every process on the file shares them. Each method is one
 * statement or one immediate transaction. Give it the file (a connection of its own, as
 * `createCheckoutApp` does for a `SqlitePaymentStore`) or an open connection.
 */
import type Database from 'better-sqlite3';
import {loadBetterSqlite3} from '../../optional-peers.js';
import type {SqliteConnection} from '../drivers.js';
import type {GuardFlag, GuardStore} from '../guard-store.js';
import {migrateSqlite} from './sqlite-store.js';
import {statements} from '../statements.js';

const SQL = statements('sqlite');
const G = SQL.guard;

/** Options of {@link SqliteGuardStore}: an open connection or a file (one of them). */
export interface SqliteGuardStoreOptions {
  /** An open better-sqlite3 connection (its owner closes it). */
  connection?: SqliteConnection;
  /** Or a database file, opened (and closed by `close()`) here. */
  filename?: string;
}

interface FlagRow {
  raised_at: number;
  until: number;
  info: string;
}

/**
 * The shop-wide guards (card-testing breaker, refused-webhook bound) in the payment
 * store's SQLite file, shared by every process on it. `createCheckoutApp` makes one beside
 * a `SqlitePaymentStore` by itself; give one as `guardStore` to choose.
 *
 * @example
 * ```ts
 * import {SqliteGuardStore} from 'pg-checkout/server';
 *
 * const guard = new SqliteGuardStore({filename: 'data/payments.db'});
 * await guard.close?.();
 * ```
 */
export class SqliteGuardStore implements GuardStore {
  readonly #db: Database.Database;
  readonly #own: boolean;
  readonly #add: (name: string, bucket: number, n: number, pruneBefore: number) => number;
  readonly #take: (name: string, bucket: number, max: number, pruneBefore: number) => boolean;
  readonly #sum: Database.Statement<[string, number], {n: number | null}>;
  readonly #flag: Database.Statement<[string], FlagRow>;
  readonly #raise: (
    name: string,
    now: number,
    until: number,
    info: string,
    within: number,
  ) => GuardFlag & {raised: boolean};
  readonly #clear: Database.Statement<[string, number]>;
  readonly #forget: Database.Statement<[string, string, number]>;
  #trim: Database.Statement<[number]> | undefined;

  constructor(options: SqliteGuardStoreOptions) {
    if (!options.connection === !options.filename) {
      throw new TypeError('SqliteGuardStore: give connection or filename (one of them)');
    }
    this.#own = !options.connection;
    this.#db =
      (options.connection as Database.Database | undefined) ??
      new (loadBetterSqlite3())(options.filename!);
    if (this.#own) {
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('busy_timeout = 5000');
      this.#db.pragma('synchronous = NORMAL');
    }
    migrateSqlite(this.#db);
    const db = this.#db;
    const prune = db.prepare(G.prune);
    const upsert = db.prepare<[string, number, number], {count: number}>(G.add);
    const takeOne = db.prepare<[string, number, number], {count: number}>(G.take);
    const add = db.transaction((name: string, bucket: number, n: number, pruneBefore: number) => {
      prune.run(name, pruneBefore);
      return upsert.get(name, bucket, n)!.count;
    });
    this.#add = (...args) => add.immediate(...args);
    const take = db.transaction(
      (name: string, bucket: number, max: number, pruneBefore: number) => {
        prune.run(name, pruneBefore);
        const row = takeOne.get(name, bucket, max);
        return row !== undefined && row.count <= max;
      },
    );
    this.#take = (...args) => take.immediate(...args);
    this.#sum = db.prepare(G.sum);
    this.#flag = db.prepare(G.flag);
    const setFlag = db.prepare(G.setFlag);
    const extend = db.prepare(G.extendFlag);
    const raise = db.transaction(
      (name: string, now: number, until: number, info: string, within: number) => {
        const old = this.#flag.get(name);
        if (old && old.until >= now - within) {
          const end = Math.max(old.until, until);
          extend.run(end, name);
          return {raisedAt: old.raised_at, until: end, info: old.info, raised: false};
        }
        setFlag.run(name, now, until, info);
        return {raisedAt: now, until, info, raised: true};
      },
    );
    this.#raise = (...args) => raise.immediate(...args);
    this.#clear = db.prepare(G.clear);
    // A range of the primary key, not LIKE (which SQLite would not read from the index).
    this.#forget = db.prepare(G.forgetRange);
  }

  async add(name: string, bucket: number, n: number, pruneBefore: number): Promise<number> {
    return this.#add(name, bucket, n, pruneBefore);
  }

  async take(name: string, bucket: number, max: number, pruneBefore: number): Promise<boolean> {
    return this.#take(name, bucket, max, pruneBefore);
  }

  async sums(names: readonly string[], since: number): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const name of names) out[name] = this.#sum.get(name, since)?.n ?? 0;
    return out;
  }

  async raise(name: string, now: number, until: number, info: string, continueWithinMs: number) {
    return this.#raise(name, now, until, info, continueWithinMs);
  }

  async flag(name: string): Promise<GuardFlag | undefined> {
    const row = this.#flag.get(name);
    return row && {raisedAt: row.raised_at, until: row.until, info: row.info};
  }

  async clear(name: string, raisedAt: number): Promise<boolean> {
    return this.#clear.run(name, raisedAt).changes === 1;
  }

  async forget(prefix: string, before: number): Promise<number> {
    return this.#forget.run(prefix, prefixEnd(prefix), before).changes;
  }

  /** The payment store's `rejected_webhooks` (a table of the same migrations). */
  async trimRejectedWebhooks(keep: number): Promise<number> {
    this.#trim ??= this.#db.prepare(SQL.trimRejected);
    return this.#trim.run(Math.max(0, keep - 1)).changes;
  }

  /** Closes the file it opened (not a connection it was given). */
  async close(): Promise<void> {
    if (this.#own && this.#db.open) this.#db.close();
  }
}

/** The first text after every text that starts with `prefix` (its last character plus one). */
function prefixEnd(prefix: string): string {
  if (prefix === '') throw new TypeError('forget: the prefix must not be empty');
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
