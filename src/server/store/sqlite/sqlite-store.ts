/**
 * `SqlitePaymentStore`: the embedded, durable {@link PaymentStore} on `better-sqlite3`;
 * `new SqlitePaymentStore(':memory:')` is the in-process store for tests and demos (same
 * rules, nothing kept after the process). WAL journal with `synchronous=NORMAL` (every
 * commit survives a crash of the process), except for the writes that must survive a
 * power cut: a new attempt (on disk before the gateway is called) and every write that
 * acknowledges a webhook (the gateway does not resend what we acknowledged). Those are
 * group-committed (one transaction and one sync for the ones asked for in the same turn of
 * the event loop), and their promises resolve only once the WAL file holding them has been
 * synced to disk — by an `fdatasync` of the WAL on libuv's thread pool, so the event loop
 * is not stalled for the disk (where there is no WAL file to sync, they are committed with
 * `synchronous=FULL` instead). Status changes from the create response can be rebuilt
 * from the gateway by reconciling the attempt; choose `synchronous: 'FULL'` to fsync every
 * commit. A busy timeout so several processes can share the file; every write transaction
 * is `BEGIN IMMEDIATE`, so "does this order already have a live attempt?" and the insert
 * are one step even across processes.
 *
 * The rules are the store core's (`algorithms.ts`, `sql-payment-store.ts`), run here synchronously
 * inside one transaction each, over this file's driver: prepared statements kept per text. better-sqlite3 is
 * synchronous; the methods return Promises to keep the interface of a networked store.
 */
import type Database from 'better-sqlite3';
import {closeSync, fdatasync, fsyncSync, mkdirSync, openSync} from 'node:fs';
import path from 'node:path';
import {loadBetterSqlite3} from '../../optional-peers.js';
import type {SqliteConnection} from '../drivers.js';
import {appliedVersions, migrate as runMigrations} from '../migrate.js';
import {SqlPaymentStore, type RunMode} from '../sql-payment-store.js';
import {runSync, type Row, type Steps, type StorePort} from '../algorithms.js';
import {statements} from '../statements.js';
import {telemetry} from '../../telemetry/telemetry.js';

/** A write waiting for the group commit. */
interface QueuedWrite {
  run: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = {ok: true; value: unknown} | {ok: false; error: unknown};

/** Options of {@link SqlitePaymentStore}: the file, and how hard each commit is made durable. */
export interface SqlitePaymentStoreOptions {
  /** Database file; `:memory:` for a throw-away database. Parent folders are created. */
  filename: string;
  /**
   * `NORMAL` (default): commits survive a process crash; `FULL`: every commit also
   * survives power loss (one fsync per commit, slower).
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** Commit new attempts with `FULL` even when `synchronous` is `NORMAL`. Default true. */
  syncAttemptInserts?: boolean;
  /** How long a writer waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * An open better-sqlite3 connection to `filename`, for an app that keeps tables of its
   * own in the same file: one connection for both. SQLite drops a connection's whole page
   * cache whenever another connection has written the file, so with two connections in one
   * process each re-reads its pages after every write of the other (dozens of reads per
   * payment). The store sets its pragmas on it (WAL, `synchronous`, busy timeout, foreign
   * keys) and does not close it: its owner does, after the store's `close()`.
   */
  connection?: SqliteConnection;
}

/** SQLite's driver: statements prepared once per text, run on the one connection. @internal */
export class SqlitePort implements StorePort {
  readonly sql = statements('sqlite');
  prunedAt = 0;
  readonly #db: Database.Database;
  readonly #prepared = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** The prepared statement of `sql` (prepared on first use: the tables may be new). */
  statement(sql: string): Database.Statement {
    let stmt = this.#prepared.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#prepared.set(sql, stmt);
    }
    return stmt;
  }

  get(sql: string, args: readonly unknown[]): Row | undefined {
    return this.statement(sql).get(...args) as Row | undefined;
  }

  all(sql: string, args: readonly unknown[]): Row[] {
    return this.statement(sql).all(...args) as Row[];
  }

  run(sql: string, args: readonly unknown[]): number {
    return this.statement(sql).run(...args).changes;
  }

  insert(sql: string, args: readonly unknown[]): number {
    return Number(this.statement(sql).run(...args).lastInsertRowid);
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /** The write transaction (`BEGIN IMMEDIATE`) holds the file: nothing more to lock. */
  lock(): void {}
}

/**
 * Applies the store's migrations that `db` lacks (every table: payments, guards, reports),
 * in one `BEGIN IMMEDIATE` transaction: the one migrator of the file, whichever store opens
 * it first.
 * @internal Not part of the public API.
 */
export function migrateSqlite(db: Database.Database): void {
  const port = new SqlitePort(db);
  db.transaction(() => runSync(runMigrations(port))).immediate();
}

/**
 * The payment store in one SQLite file (better-sqlite3), the embedded default: every
 * process on the file shares it, writes are group-committed, and `':memory:'` gives a
 * throw-away database for tests and demos (the in-process store).
 *
 * @example
 * ```ts
 * import {SqlitePaymentStore} from 'pg-checkout/server';
 *
 * const store = new SqlitePaymentStore('data/payments.db');
 * console.log(await store.ping());
 * await store.close();
 * ```
 */
export class SqlitePaymentStore extends SqlPaymentStore {
  readonly filename: string;
  private readonly db: Database.Database;
  private readonly port: SqlitePort;
  /** Runs its function in a transaction; called inside another, in a savepoint. */
  private readonly tx: Database.Transaction<(run: () => unknown) => unknown>;
  private readonly batch: Database.Transaction<(batch: readonly QueuedWrite[]) => Settled[]>;
  private readonly synchronous: 'FULL' | 'NORMAL';
  /** The WAL file, synced after a durable group commit; `undefined`: commit with FULL. */
  private walFd: number | undefined;
  /** Syncs in flight, whose writes are not acknowledged yet. */
  private readonly syncing = new Set<Promise<void>>();
  private readonly syncInserts: boolean;
  /** False for a connection the app gave (`connection`): its owner closes it. */
  private readonly ownsDb: boolean;

  /**
   * @internal The open connection: the guard store beside a `:memory:` database shares it
   * (no other connection sees that database).
   */
  get connection(): SqliteConnection {
    return this.db as unknown as SqliteConnection;
  }

  constructor(options: SqlitePaymentStoreOptions | string) {
    super();
    const opts: SqlitePaymentStoreOptions =
      typeof options === 'string' ? {filename: options} : options;
    this.filename = opts.filename;
    if (opts.connection) {
      // The WAL file synced for durable commits is found by `filename`: it must be this one's.
      if (path.resolve(opts.connection.name) !== path.resolve(opts.filename)) {
        throw new Error(
          `SqlitePaymentStore: the connection is to ${opts.connection.name}, not ${opts.filename}`,
        );
      }
    } else if (opts.filename !== ':memory:' && opts.filename !== '') {
      mkdirSync(path.dirname(path.resolve(opts.filename)), {recursive: true});
    }
    this.ownsDb = !opts.connection;
    const db = (this.db =
      (opts.connection as Database.Database | undefined) ??
      new (loadBetterSqlite3())(opts.filename));
    db.pragma('journal_mode = WAL');
    this.synchronous = opts.synchronous ?? 'NORMAL';
    this.syncInserts = opts.syncAttemptInserts ?? true;
    db.pragma(`synchronous = ${this.synchronous}`);
    db.pragma(`busy_timeout = ${Math.trunc(opts.busyTimeoutMs ?? 5000)}`);
    db.pragma('foreign_keys = ON');
    this.port = new SqlitePort(db);
    this.tx = db.transaction((run: () => unknown) => run());
    this.batch = db.transaction((batch: readonly QueuedWrite[]) => this.runBatch(batch));
    this.tx.immediate(() => runSync(runMigrations(this.port)));
    this.walFd = this.openWal();
  }

  /** Versions of the applied migrations. */
  appliedMigrations(): number[] {
    return runSync(appliedVersions(this.port));
  }

  protected run<T>(mode: RunMode, body: (p: StorePort) => Steps<T>): Promise<T> {
    return telemetry.storeOperation('sqlite', mode, () => this.runUntimed(mode, body));
  }

  private runUntimed<T>(mode: RunMode, body: (p: StorePort) => Steps<T>): Promise<T> {
    const run = () => runSync(body(this.port));
    switch (mode) {
      case 'insert':
        return this.enqueue(run, this.syncInserts);
      case 'durable':
        return this.enqueue(run, true);
      case 'group':
        return this.enqueue(run, false);
      default:
        try {
          return Promise.resolve(mode === 'read' ? run() : (this.tx.immediate(run) as T));
        } catch (error) {
          return Promise.reject(error);
        }
    }
  }

  /**
   * Opens the WAL file for syncing durable commits (SQLite keeps it, same inode, while
   * this connection is open; it places no locks on it). Its directory is synced once,
   * so the file's entry is on disk too. `undefined` when every commit is FULL anyway, or
   * the database has no WAL file (in memory, or WAL mode unavailable).
   */
  private openWal(): number | undefined {
    if (this.synchronous === 'FULL' || this.db.memory) return undefined;
    if (this.db.pragma('journal_mode', {simple: true}) !== 'wal') return undefined;
    const file = path.resolve(this.filename);
    try {
      const fd = openSync(`${file}-wal`, 'r');
      const dir = openSync(path.dirname(file), 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
      return fd;
    } catch {
      return undefined;
    }
  }

  /** The last sync started (settled or not), and the one queued behind it, if any. */
  private lastSync: Promise<void> = Promise.resolve();
  private nextSync: Promise<void> | undefined;

  /**
   * Resolves once everything written to the WAL so far is on disk. One sync runs at a
   * time; the commits made meanwhile share the next one, which starts when it ends (so
   * it covers them all), instead of queueing a sync each behind it.
   */
  private syncWal(fd: number): Promise<void> {
    if (this.nextSync) return this.nextSync;
    const next = this.lastSync.then(() => {
      this.nextSync = undefined;
      return new Promise<void>((resolve, reject) =>
        fdatasync(fd, (error) => (error ? reject(error) : resolve())),
      );
    });
    this.nextSync = next;
    this.lastSync = next.catch(() => undefined);
    return next;
  }

  /** Writes waiting for the next group commit, in the order they were asked for. */
  private queued: QueuedWrite[] = [];

  /**
   * Group commit: the writes that must be on disk before their promise resolves (new
   * attempts, and every write that acknowledges a webhook), when requested in the same
   * turn of the event loop, are committed in one `BEGIN IMMEDIATE` transaction with one
   * fsync, instead of one each. Each runs in its own savepoint, in order, exactly as if
   * alone: one that throws is undone and rejected without touching the others. The batch
   * is flushed by `setImmediate`, right after the current I/O callbacks, so a lone write
   * waits for nothing.
   */
  private enqueue<T>(run: () => T, durable: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.push({run, durable, resolve: resolve as (value: unknown) => void, reject});
      if (this.queued.length === 1) setImmediate(() => this.flushQueued());
    });
  }

  private flushQueued(): void {
    const batch = this.queued.splice(0);
    if (batch.length === 0) return;
    const durable = batch.some((w) => w.durable);
    // With a WAL file to sync, the commit itself is NORMAL and the sync runs off the event
    // loop; without one, the commit is FULL (SQLite syncs before it returns).
    const fd = durable ? this.walFd : undefined;
    let results: Settled[];
    try {
      const full = durable && fd === undefined && this.synchronous !== 'FULL';
      if (full) this.port.statement('PRAGMA synchronous = FULL').run();
      try {
        results = this.batch.immediate(batch);
      } finally {
        // The pragma cannot change inside a transaction, so it is switched around it.
        if (full) this.port.statement('PRAGMA synchronous = NORMAL').run();
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    const settle = () =>
      batch.forEach((item, i) => {
        const r = results[i]!;
        if (r.ok) item.resolve(r.value);
        else item.reject(r.error);
      });
    if (fd === undefined) {
      settle();
      return;
    }
    // Nothing in the batch is acknowledged before the WAL holding it is on disk.
    const synced = this.syncWal(fd).then(settle, (error: unknown) => {
      for (const item of batch) item.reject(error);
    });
    this.syncing.add(synced);
    void synced.finally(() => this.syncing.delete(synced));
  }

  /** The body of a group commit: every write in its own savepoint. */
  private runBatch(batch: readonly QueuedWrite[]): Settled[] {
    return batch.map((item): Settled => {
      try {
        return {ok: true, value: this.tx(item.run)};
      } catch (error) {
        return {ok: false, error};
      }
    });
  }

  async ping(): Promise<boolean> {
    try {
      return this.db.open && this.port.get(this.port.sql.ping, []) !== undefined;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.flushQueued();
    while (this.syncing.size > 0) await Promise.all([...this.syncing]);
    if (this.walFd !== undefined) {
      closeSync(this.walFd);
      this.walFd = undefined;
    }
    if (this.ownsDb && this.db.open) this.db.close();
  }
}
