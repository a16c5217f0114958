/**
 * `SqlitePaymentStore`: the embedded, durable {@link PaymentStore} on `better-sqlite3`.
 * WAL journal with `synchronous=NORMAL` (every commit survives a crash of the process),
 * except for the writes that must survive a power cut: a new attempt (on disk before the
 * gateway is called) and every write that acknowledges a webhook (the gateway does not
 * resend what we acknowledged). Those are group-committed (one transaction and one sync
 * for the ones asked for in the same turn of the event loop), and their promises resolve
 * only once the WAL file holding them has been synced to disk — by an `fdatasync` of the
 * WAL on libuv's thread pool, so the event loop is not stalled for the disk (where there
 * is no WAL file to sync, they are committed with `synchronous=FULL` instead). Status
 * changes from the create response can be rebuilt from the gateway by reconciling the
 * attempt; choose `synchronous: 'FULL'` to fsync every commit. A busy
 * timeout so several processes can share the file, versioned migrations recorded
 * in `schema_migrations`, and the constraints the never-double guarantee leans on: a
 * primary key on the attempt id, a unique gateway `order_id`, a unique webhook event key
 * and a unique (order, operation, status) for secondary operations. Attempt inserts run
 * in `BEGIN IMMEDIATE` transactions, so "does this order already have a live attempt?"
 * and the insert are one step even across processes.
 *
 * better-sqlite3 is synchronous; the methods return Promises to keep the interface the
 * same as any networked store. The schema and its migrations are in `sqlite-schema.ts`;
 * this file is one class because every method is one transaction on the same handle, and
 * the group commit that makes them durable wraps that handle too.
 */
import type Database from 'better-sqlite3';
import {closeSync, fdatasync, fsyncSync, mkdirSync, openSync} from 'node:fs';
import path from 'node:path';
import {loadBetterSqlite3} from '../optional-peers.js';
import {
  LIVE_STATES,
  type AttemptMutation,
  type AttemptReservation,
  type CreateIntentResult,
  type IntentMutation,
  type IntentState,
  type OperationIntent,
  type ReserveAttemptResult,
  type VelocityKey,
  type AttemptRecord,
  type AttemptState,
  type InsertAttemptResult,
  type NewPaymentUpdate,
  type StoredOperationInput,
  type StoredOperation,
  type OutboxDelivery,
  type OutboxEntry,
  type PaymentStore,
  type RecordOperationResult,
  type RejectedWebhookInput,
  type RejectedWebhookRecord,
  type UpdateAttemptResult,
  type WebhookEventInput,
  type WebhookEventRecord,
} from './store.js';
import {
  ATTEMPT_COLUMNS,
  ATTEMPT_KEYS,
  INTENT_COLUMNS,
  INTENT_KEYS,
  MIGRATIONS,
  rowToAttempt,
  rowToIntent,
  rowToOutbox,
  type AttemptKey,
} from './sqlite-schema.js';
import {
  SAVED_CARD_COLUMNS,
  rowToEvent,
  rowToOperation,
  rowToRejected,
  rowToSavedCard,
} from './store-rows.js';
import type {SavedCardRecord} from './saved-cards.js';
import type {RowRewrite} from './stored-tokens.js';

/** A write waiting for the group commit. */
interface QueuedWrite {
  run: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = {ok: true; value: unknown} | {ok: false; error: unknown};

/** An outbox claim's parameters: for `owner` until `until`, up to `limit` entries. */
interface OutboxClaim {
  owner: string;
  now: number;
  until: number;
  limit: number;
}

/**
 * An open better-sqlite3 `Database`, by the members the store uses: written out here so the
 * published declarations import no type of better-sqlite3, whose types (DefinitelyTyped's
 * @types/better-sqlite3) a merchant who never passes a connection has not installed (issue
 * 30). A `Database` is one.
 */
interface SqliteConnection {
  readonly name: string;
  readonly open: boolean;
  readonly memory: boolean;
  prepare(source: string): unknown;
  exec(source: string): unknown;
  pragma(source: string, options?: {simple?: boolean}): unknown;
  transaction(fn: (...args: never[]) => unknown): unknown;
  close(): unknown;
}

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

export class SqlitePaymentStore implements PaymentStore {
  readonly filename: string;
  private readonly db: Database.Database;
  private readonly stmts: ReturnType<SqlitePaymentStore['prepare']>;
  /** The transaction wrappers, made once (better-sqlite3 builds four closures per wrapper). */
  private readonly txs: {
    batch: Database.Transaction<(batch: readonly QueuedWrite[]) => Settled[]>;
    savepoint: Database.Transaction<(run: () => unknown) => unknown>;
    update: Database.Transaction<SqlitePaymentStore['updateOne']>;
    operation: Database.Transaction<SqlitePaymentStore['recordOperationOne']>;
    updateIntent: Database.Transaction<SqlitePaymentStore['updateIntentOne']>;
    claimAfter: Database.Transaction<SqlitePaymentStore['claimAfterOne']>;
    claim: Database.Transaction<SqlitePaymentStore['claimRows']>;
  };
  private readonly synchronous: 'FULL' | 'NORMAL';
  /** The WAL file, synced after a durable group commit; `undefined`: commit with FULL. */
  private walFd: number | undefined;
  /** Syncs in flight, whose writes are not acknowledged yet. */
  private readonly syncing = new Set<Promise<void>>();
  private readonly syncInserts: boolean;
  /** False for a connection the app gave (`connection`): its owner closes it. */
  private readonly ownsDb: boolean;

  constructor(options: SqlitePaymentStoreOptions | string) {
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
    this.db =
      (opts.connection as Database.Database | undefined) ??
      new (loadBetterSqlite3())(opts.filename);
    this.db.pragma('journal_mode = WAL');
    this.synchronous = opts.synchronous ?? 'NORMAL';
    this.syncInserts = opts.syncAttemptInserts ?? true;
    this.db.pragma(`synchronous = ${this.synchronous}`);
    this.db.pragma(`busy_timeout = ${Math.trunc(opts.busyTimeoutMs ?? 5000)}`);
    this.db.pragma('foreign_keys = ON');
    this.migrate();
    this.stmts = this.prepare();
    this.walFd = this.openWal();
    this.txs = {
      batch: this.db.transaction((batch: readonly QueuedWrite[]) => this.runBatch(batch)),
      savepoint: this.db.transaction((run: () => unknown) => run()),
      update: this.db.transaction(
        (
          key: {attemptId: string} | {gatewayOrderId: string},
          mutate: (current: AttemptRecord) => AttemptMutation | undefined,
          event: WebhookEventInput | undefined,
        ) => this.updateOne(key, mutate, event),
      ),
      operation: this.db.transaction(
        (
          operation: StoredOperationInput,
          update: NewPaymentUpdate,
          event: WebhookEventInput | undefined,
        ) => this.recordOperationOne(operation, update, event),
      ),
      updateIntent: this.db.transaction(
        (
          orderRef: string,
          key: string,
          mutate: (current: OperationIntent) => IntentMutation | undefined,
        ) => this.updateIntentOne(orderRef, key, mutate),
      ),
      claimAfter: this.db.transaction((delivered: readonly OutboxDelivery[], claim: OutboxClaim) =>
        this.claimAfterOne(delivered, claim),
      ),
      claim: this.db.transaction((claim: OutboxClaim) => this.claimRows(claim)),
    };
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

  /** Versions of the applied migrations. */
  appliedMigrations(): number[] {
    return (
      this.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as {
        version: number;
      }[]
    ).map((r) => r.version);
  }

  private migrate(): void {
    this.db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    )`);
    const run = this.db.transaction(() => {
      const applied = new Set(this.appliedMigrations());
      const newest = Math.max(0, ...applied);
      const known = Math.max(...MIGRATIONS.map((m) => m.version));
      if (newest > known) {
        throw new Error(
          `the database schema (version ${newest}) is newer than this code knows (${known}): upgrade pg-checkout`,
        );
      }
      for (const m of MIGRATIONS) {
        if (applied.has(m.version)) continue;
        this.db.exec(m.sql);
        for (const r of m.rewrites ?? []) this.rewriteRows(r);
        this.db
          .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
          .run(m.version, m.name, Date.now());
      }
    });
    run.immediate();
  }

  /** A migration's row rewrite, a page of rows at a time (in the migration's transaction). */
  private rewriteRows(r: RowRewrite): void {
    const select = `SELECT ${r.key} AS k, ${r.read} AS v FROM ${r.table} WHERE ${r.read} IS NOT NULL`;
    const first = this.db.prepare(`${select} ORDER BY ${r.key} LIMIT 500`);
    const next = this.db.prepare(`${select} AND ${r.key} > ? ORDER BY ${r.key} LIMIT 500`);
    const update = this.db.prepare(`UPDATE ${r.table} SET ${r.write} = ? WHERE ${r.key} = ?`);
    let rows = first.all() as {k: unknown; v: string}[];
    while (rows.length > 0) {
      for (const {k, v} of rows) {
        const value = r.rewrite(v);
        if (value !== undefined && value !== v) update.run(value, k);
      }
      rows = next.all(rows[rows.length - 1]!.k) as {k: unknown; v: string}[];
    }
  }

  private prepare() {
    const cols = ATTEMPT_KEYS.map((k) => ATTEMPT_COLUMNS[k]);
    const live = LIVE_STATES.map((s) => `'${s}'`).join(', ');
    return {
      insertAttempt: this.db.prepare(
        `INSERT INTO attempts (${cols.join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')})`,
      ),
      attemptById: this.db.prepare('SELECT * FROM attempts WHERE attempt_id = ?'),
      attemptByGatewayId: this.db.prepare('SELECT * FROM attempts WHERE gateway_order_id = ?'),
      // The live rule of `isLiveAttempt`: success always; other open states unless written off.
      liveAttempt: this.db.prepare(
        `SELECT * FROM attempts WHERE order_ref = ? AND state IN (${live})
           AND (state = 'success' OR written_off IS NULL) ORDER BY seq LIMIT 1`,
      ),
      attemptsByOrder: this.db.prepare('SELECT * FROM attempts WHERE order_ref = ? ORDER BY seq'),
      insertEvent: this.db.prepare(
        `INSERT INTO webhook_events (event_key, received_at, kind, gateway_order_id, status, data, flag)
         VALUES (@eventKey, @receivedAt, @kind, @gatewayOrderId, @status, @data, @flag)
         ON CONFLICT (event_key) DO NOTHING`,
      ),
      listEvents: this.db.prepare('SELECT * FROM webhook_events ORDER BY id'),
      insertOperation: this.db.prepare(
        `INSERT INTO operations (gateway_order_id, order_ref, kind, operation_id, status, status_code, amount, currency, raw, created_at)
         VALUES (@gatewayOrderId, @orderRef, @kind, @operationId, @status, @statusCode, @amount, @currency, @raw, @createdAt)
         ON CONFLICT (gateway_order_id, kind, operation_id, status) DO NOTHING`,
      ),
      operationsByOrder: this.db.prepare(
        'SELECT * FROM operations WHERE order_ref = ? ORDER BY id',
      ),
      insertRejected: this.db.prepare(
        `INSERT INTO rejected_webhooks (received_at, ip, reason, body_sha256, size)
         VALUES (@receivedAt, @ip, @reason, @bodySha256, @size)`,
      ),
      listRejected: this.db.prepare('SELECT * FROM rejected_webhooks ORDER BY id'),
      insertOutbox: this.db.prepare('INSERT INTO outbox (created_at, payload) VALUES (?, ?)'),
      pendingOutbox: this.db.prepare(
        'SELECT * FROM outbox WHERE delivered_at IS NULL ORDER BY id LIMIT ?',
      ),
      outboxDelivered: this.db.prepare(
        'UPDATE outbox SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL',
      ),
      outboxFailed: this.db.prepare('UPDATE outbox SET failures = failures + 1 WHERE id = ?'),
      // A claim is `claimable` (below) and this, in one write transaction: an UPDATE …
      // WHERE id IN (SELECT … LIMIT) RETURNING * builds two ephemeral tables and cost ~10
      // times as much, even when it found nothing to claim.
      claimOne: this.db.prepare('UPDATE outbox SET claimed_by = ?, claimed_until = ? WHERE id = ?'),
      acquireLease: this.db.prepare(
        `INSERT INTO leases (key, owner, expires_at) VALUES (@key, @owner, @until)
         ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE leases.expires_at <= @now OR leases.owner = excluded.owner`,
      ),
      releaseLease: this.db.prepare('DELETE FROM leases WHERE key = ? AND owner = ?'),
      syncFull: this.db.prepare('PRAGMA synchronous = FULL'),
      syncNormal: this.db.prepare('PRAGMA synchronous = NORMAL'),
      ping: this.db.prepare('SELECT 1 AS ok'),
      insertIntent: this.db.prepare(
        `INSERT INTO operation_intents (${INTENT_KEYS.map((k) => INTENT_COLUMNS[k]).join(', ')})
         VALUES (${INTENT_KEYS.map((k) => '@' + INTENT_COLUMNS[k]).join(', ')})`,
      ),
      intentByKey: this.db.prepare(
        'SELECT * FROM operation_intents WHERE order_ref = ? AND key = ?',
      ),
      intentsByOrder: this.db.prepare(
        'SELECT * FROM operation_intents WHERE order_ref = ? ORDER BY created_at, rowid',
      ),
      updateIntent: this.db.prepare(
        `UPDATE operation_intents SET state = @state, operation_id = @operation_id,
           status_code = @status_code, status_description = @status_description,
           baseline = @baseline, updated_at = @updated_at
         WHERE order_ref = @order_ref AND key = @key`,
      ),
      velocityCount: this.db.prepare(
        'SELECT COUNT(*) AS n FROM attempt_velocity WHERE scope = ? AND key = ? AND at > ?',
      ),
      velocityNth: this.db.prepare(
        'SELECT at FROM attempt_velocity WHERE scope = ? AND key = ? AND at > ? ORDER BY at DESC LIMIT 1 OFFSET ?',
      ),
      velocityInsert: this.db.prepare(
        'INSERT INTO attempt_velocity (scope, key, at) VALUES (?, ?, ?)',
      ),
      velocityPrune: this.db.prepare('DELETE FROM attempt_velocity WHERE at <= ?'),
      insertSavedCard: this.db.prepare(
        `INSERT OR IGNORE INTO saved_cards (${Object.values(SAVED_CARD_COLUMNS).join(', ')})
         VALUES (${Object.values(SAVED_CARD_COLUMNS)
           .map((c) => '@' + c)
           .join(', ')})`,
      ),
      liveSavedCardByToken: this.db.prepare(
        'SELECT * FROM saved_cards WHERE customer_id = ? AND token = ? AND deleted_at IS NULL',
      ),
      savedCardById: this.db.prepare('SELECT * FROM saved_cards WHERE id = ?'),
      savedCardsOf: this.db.prepare(
        'SELECT * FROM saved_cards WHERE customer_id = ? AND deleted_at IS NULL ORDER BY created_at, rowid',
      ),
      allSavedCards: this.db.prepare(
        'SELECT * FROM saved_cards WHERE deleted_at IS NULL ORDER BY customer_id, created_at, rowid',
      ),
      deleteSavedCard: this.db.prepare(
        `UPDATE saved_cards SET deleted_at = ?, token = ''
         WHERE customer_id = ? AND id = ? AND deleted_at IS NULL`,
      ),
    };
  }

  private readonly claimables = new Map<number, Database.Statement>();

  /**
   * The claimable entries' SELECT for one `limit`, written into the statement (cached: the
   * outbox passes one). A bound `LIMIT ?` makes this SQLite prepare the statement again at
   * every run: ~100 µs per claim in the companion bench instead of ~15.
   */
  private claimable(limit: number): Database.Statement {
    let stmt = this.claimables.get(limit);
    if (!stmt) {
      if (!Number.isSafeInteger(limit)) {
        throw new RangeError(`claimOutbox: limit must be an integer, not ${limit}`);
      }
      stmt = this.db.prepare(
        `SELECT * FROM outbox WHERE delivered_at IS NULL
           AND (claimed_until IS NULL OR claimed_until <= @now OR claimed_by = @owner)
         ORDER BY id LIMIT ${limit}`,
      );
      this.claimables.set(limit, stmt);
    }
    return stmt;
  }

  private readonly updates = new Map<string, Database.Statement>();

  /** A prepared `UPDATE attempts SET ...` for one set of columns (cached). */
  private updateStatement(keys: AttemptKey[]): Database.Statement {
    const id = keys.join(',');
    let stmt = this.updates.get(id);
    if (!stmt) {
      stmt = this.db.prepare(
        `UPDATE attempts SET ${keys.map((k) => `${ATTEMPT_COLUMNS[k]} = ?`).join(', ')} WHERE attempt_id = ?`,
      );
      this.updates.set(id, stmt);
    }
    return stmt;
  }

  private attemptParams(a: AttemptRecord): Record<string, unknown> {
    const params: Record<string, unknown> = {};
    for (const key of ATTEMPT_KEYS) params[ATTEMPT_COLUMNS[key]] = a[key] ?? null;
    return params;
  }

  private getRow(stmt: Database.Statement, ...args: unknown[]): AttemptRecord | undefined {
    const row = stmt.get(...args) as Record<string, unknown> | undefined;
    return row && rowToAttempt(row);
  }

  private insertOne(
    attempt: AttemptRecord,
    reservation: AttemptReservation | undefined,
  ): InsertAttemptResult {
    const same = this.getRow(this.stmts.attemptById, attempt.attemptId);
    if (same) return {inserted: false, existing: same, reason: 'same_attempt'};
    const live = this.getRow(this.stmts.liveAttempt, attempt.orderRef);
    if (live) return {inserted: false, existing: live, reason: 'order_has_live_attempt'};
    if (reservation) {
      const refused = this.velocityRefusal(reservation);
      if (refused) return {inserted: false, reason: 'limited', ...refused};
    }
    const params = this.attemptParams(attempt);
    this.stmts.insertAttempt.run(params);
    // In the attempt's savepoint: should either write throw, neither is kept.
    if (reservation) this.velocityRecord(reservation);
    // The row as it now reads back: the same values, without the empty columns.
    return {inserted: true, attempt: rowToAttempt(params), reserved: reservation !== undefined};
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
      const full = durable && fd === undefined;
      if (full) this.syncMode(true);
      try {
        results = this.txs.batch.immediate(batch);
      } finally {
        if (full) this.syncMode(false);
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
        return {ok: true, value: this.txs.savepoint(item.run)};
      } catch (error) {
        return {ok: false, error};
      }
    });
  }

  /**
   * Switches to `synchronous=FULL` for a commit that must survive a power cut (even when
   * the store runs with `NORMAL`), and back, where there is no WAL file to sync. The
   * pragma cannot change inside a transaction, so it is switched around it.
   */
  private syncMode(durable: boolean): void {
    if (this.synchronous === 'FULL') return;
    if (durable) this.stmts.syncFull.run();
    else this.stmts.syncNormal.run();
  }

  /**
   * Inserts the attempt, and takes its reservation's counts, in one step of the next group
   * commit (fsynced unless `syncAttemptInserts` is off).
   */
  insertAttempt(
    attempt: AttemptRecord,
    reservation?: AttemptReservation,
  ): Promise<InsertAttemptResult> {
    return this.enqueue(() => this.insertOne(attempt, reservation), this.syncInserts);
  }

  async getAttempt(attemptId: string): Promise<AttemptRecord | undefined> {
    return this.getRow(this.stmts.attemptById, attemptId);
  }

  async getAttemptByGatewayOrderId(gatewayOrderId: string): Promise<AttemptRecord | undefined> {
    return this.getRow(this.stmts.attemptByGatewayId, gatewayOrderId);
  }

  async listAttempts(orderRef: string): Promise<AttemptRecord[]> {
    return (this.stmts.attemptsByOrder.all(orderRef) as Record<string, unknown>[]).map(
      rowToAttempt,
    );
  }

  private readonly byStates = new Map<number, Database.Statement>();

  async listAttemptsInStates(states: readonly AttemptState[]): Promise<AttemptRecord[]> {
    if (states.length === 0) return [];
    let stmt = this.byStates.get(states.length);
    if (!stmt) {
      stmt = this.db.prepare(
        `SELECT * FROM attempts WHERE state IN (${states.map(() => '?').join(', ')}) ORDER BY created_at, seq`,
      );
      this.byStates.set(states.length, stmt);
    }
    return (stmt.all(...states) as Record<string, unknown>[]).map(rowToAttempt);
  }

  private insertEvent(event: WebhookEventInput): boolean {
    return (
      this.stmts.insertEvent.run({
        eventKey: event.eventKey,
        receivedAt: event.receivedAt,
        kind: event.kind,
        gatewayOrderId: event.gatewayOrderId ?? null,
        status: event.status ?? null,
        data: event.data,
        flag: event.flag ?? null,
      }).changes === 1
    );
  }

  private insertOutbox(update: NewPaymentUpdate, now: number): number {
    return Number(this.stmts.insertOutbox.run(now, JSON.stringify(update)).lastInsertRowid);
  }

  async updateAttempt(
    key: {attemptId: string} | {gatewayOrderId: string},
    mutate: (current: AttemptRecord) => AttemptMutation | undefined,
    event?: WebhookEventInput,
  ): Promise<UpdateAttemptResult> {
    // A webhook's write is durable before it is acknowledged: it goes through the group commit.
    if (event) return this.enqueue(() => this.updateOne(key, mutate, event), true);
    return this.txs.update.immediate(key, mutate, undefined);
  }

  private updateOne(
    key: {attemptId: string} | {gatewayOrderId: string},
    mutate: (current: AttemptRecord) => AttemptMutation | undefined,
    event: WebhookEventInput | undefined,
  ): UpdateAttemptResult {
    if (event && !this.insertEvent(event)) {
      return {duplicateEvent: true, attempt: undefined, changed: false};
    }
    const current =
      'attemptId' in key
        ? this.getRow(this.stmts.attemptById, key.attemptId)
        : this.getRow(this.stmts.attemptByGatewayId, key.gatewayOrderId);
    if (!current) return {duplicateEvent: false, attempt: undefined, changed: false};
    // The row after the update, as it would read back (an empty value clears a column).
    const next = {...current} as Record<string, unknown>;
    const mutation = mutate(current);
    if (!mutation) return {duplicateEvent: false, attempt: current, changed: false};
    const entries = Object.entries(mutation.patch) as [AttemptKey, unknown][];
    const assignments = entries.filter(([k]) => k in ATTEMPT_COLUMNS);
    if (assignments.length > 0) {
      this.updateStatement(assignments.map(([k]) => k)).run(
        ...assignments.map(([, v]) => v ?? null),
        current.attemptId,
      );
      for (const [k, v] of assignments) {
        if (v === null || v === undefined) delete next[k];
        else next[k] = v;
      }
    }
    const savedCardId = mutation.saveCard && this.saveCardOne(mutation.saveCard).id;
    const update =
      mutation.update && (savedCardId ? {...mutation.update, savedCardId} : mutation.update);
    const outboxId = update ? this.insertOutbox(update, next['updatedAt'] as number) : undefined;
    return {
      duplicateEvent: false,
      attempt: next as unknown as AttemptRecord,
      changed: next['state'] !== current.state,
      ...(outboxId === undefined ? {} : {outboxId}),
      ...(savedCardId === undefined ? {} : {savedCardId}),
    };
  }

  recordEvent(event: WebhookEventInput): Promise<boolean> {
    return this.enqueue(() => this.insertEvent(event), true);
  }

  async listEvents(): Promise<WebhookEventRecord[]> {
    return (this.stmts.listEvents.all() as Record<string, unknown>[]).map(rowToEvent);
  }

  async recordOperation(
    operation: StoredOperationInput,
    update: NewPaymentUpdate,
    event?: WebhookEventInput,
  ): Promise<RecordOperationResult> {
    if (event) return this.enqueue(() => this.recordOperationOne(operation, update, event), true);
    return this.txs.operation.immediate(operation, update, undefined);
  }

  private recordOperationOne(
    operation: StoredOperationInput,
    update: NewPaymentUpdate,
    event: WebhookEventInput | undefined,
  ): RecordOperationResult {
    if (event && !this.insertEvent(event)) return {duplicateEvent: true, inserted: false};
    const inserted =
      this.stmts.insertOperation.run({
        ...operation,
        statusCode: operation.statusCode ?? null,
        amount: operation.amount ?? null,
        currency: operation.currency ?? null,
      }).changes === 1;
    if (!inserted) return {duplicateEvent: false, inserted: false};
    return {
      duplicateEvent: false,
      inserted: true,
      outboxId: this.insertOutbox(update, operation.createdAt),
    };
  }

  async listOperations(orderRef: string): Promise<StoredOperation[]> {
    return this.operationsOf(orderRef);
  }

  private operationsOf(orderRef: string): StoredOperation[] {
    return (this.stmts.operationsByOrder.all(orderRef) as Record<string, unknown>[]).map(
      rowToOperation,
    );
  }

  async recordRejectedWebhook(rejected: RejectedWebhookInput): Promise<void> {
    this.stmts.insertRejected.run(rejected);
  }

  async listRejectedWebhooks(): Promise<RejectedWebhookRecord[]> {
    return (this.stmts.listRejected.all() as Record<string, unknown>[]).map(rowToRejected);
  }

  async pendingOutbox(limit = 100): Promise<OutboxEntry[]> {
    return (this.stmts.pendingOutbox.all(limit) as Record<string, unknown>[]).map(rowToOutbox);
  }

  /** One write transaction (`BEGIN IMMEDIATE`): one claimer at a time across processes. */
  async claimOutbox(
    owner: string,
    now: number,
    leaseMs: number,
    limit = 100,
  ): Promise<OutboxEntry[]> {
    return this.txs.claim.immediate({owner, now, until: now + leaseMs, limit});
  }

  /** The claimable entries, oldest first, claimed (in the caller's write transaction). */
  private claimRows(claim: OutboxClaim): OutboxEntry[] {
    const rows = this.claimable(claim.limit).all(claim) as Record<string, unknown>[];
    for (const r of rows) this.stmts.claimOne.run(claim.owner, claim.until, r['id']);
    return rows.map(rowToOutbox);
  }

  /** The marks and the claim in one `BEGIN IMMEDIATE` transaction: one commit for both. */
  async claimOutboxAfterDelivery(
    delivered: readonly OutboxDelivery[],
    owner: string,
    now: number,
    leaseMs: number,
    limit = 100,
  ): Promise<OutboxEntry[]> {
    return this.txs.claimAfter.immediate(delivered, {owner, now, until: now + leaseMs, limit});
  }

  private claimAfterOne(delivered: readonly OutboxDelivery[], claim: OutboxClaim): OutboxEntry[] {
    for (const d of delivered) this.stmts.outboxDelivered.run(d.at, d.id);
    return this.claimRows(claim);
  }

  async acquireLease(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.stmts.acquireLease.run({key, owner, now, until: now + leaseMs}).changes === 1;
  }

  async releaseLease(key: string, owner: string): Promise<void> {
    this.stmts.releaseLease.run(key, owner);
  }

  async markOutboxDelivered(id: number, at: number): Promise<void> {
    this.stmts.outboxDelivered.run(at, id);
  }

  async markOutboxFailed(id: number): Promise<void> {
    this.stmts.outboxFailed.run(id);
  }

  private intentParams(i: OperationIntent): Record<string, unknown> {
    const params: Record<string, unknown> = {};
    for (const key of INTENT_KEYS) params[INTENT_COLUMNS[key]] = i[key] ?? null;
    return params;
  }

  private intentRow(orderRef: string, key: string): OperationIntent | undefined {
    const row = this.stmts.intentByKey.get(orderRef, key) as Record<string, unknown> | undefined;
    return row && rowToIntent(row);
  }

  private createIntentOne(
    intent: OperationIntent,
    decide: Parameters<PaymentStore['createIntent']>[1],
    update: NewPaymentUpdate | undefined,
  ): CreateIntentResult {
    const existing = this.intentRow(intent.orderRef, intent.key);
    if (existing) return {created: false, existing};
    const intents = (
      this.stmts.intentsByOrder.all(intent.orderRef) as Record<string, unknown>[]
    ).map(rowToIntent);
    const refused = decide(intents, this.operationsOf(intent.orderRef));
    if (refused) return {created: false, refused};
    this.stmts.insertIntent.run(this.intentParams(intent));
    if (update) this.insertOutbox(update, intent.createdAt);
    return {created: true, intent: {...intent}};
  }

  /** Durable before the gateway is called, like a new attempt. */
  createIntent(
    intent: OperationIntent,
    decide: Parameters<PaymentStore['createIntent']>[1],
    update?: NewPaymentUpdate,
  ): Promise<CreateIntentResult> {
    return this.enqueue(() => this.createIntentOne(intent, decide, update), true);
  }

  private updateIntentOne(
    orderRef: string,
    key: string,
    mutate: (current: OperationIntent) => IntentMutation | undefined,
  ): OperationIntent | undefined {
    const current = this.intentRow(orderRef, key);
    if (!current) return undefined;
    const m = mutate({...current});
    if (!m) return current;
    const next = {...current, ...m.patch};
    this.stmts.updateIntent.run(this.intentParams(next));
    if (m.update) this.insertOutbox(m.update, next.updatedAt);
    return next;
  }

  async updateIntent(
    orderRef: string,
    key: string,
    mutate: (current: OperationIntent) => IntentMutation | undefined,
  ): Promise<OperationIntent | undefined> {
    return this.txs.updateIntent.immediate(orderRef, key, mutate);
  }

  async getIntent(orderRef: string, key: string): Promise<OperationIntent | undefined> {
    return this.intentRow(orderRef, key);
  }

  async listIntents(orderRef: string): Promise<OperationIntent[]> {
    return (this.stmts.intentsByOrder.all(orderRef) as Record<string, unknown>[]).map(rowToIntent);
  }

  private readonly intentsByStates = new Map<number, Database.Statement>();

  async listIntentsInStates(states: readonly IntentState[]): Promise<OperationIntent[]> {
    if (states.length === 0) return [];
    let stmt = this.intentsByStates.get(states.length);
    if (!stmt) {
      stmt = this.db.prepare(
        `SELECT * FROM operation_intents WHERE state IN (${states.map(() => '?').join(', ')}) ORDER BY created_at, rowid`,
      );
      this.intentsByStates.set(states.length, stmt);
    }
    return (stmt.all(...states) as Record<string, unknown>[]).map(rowToIntent);
  }

  private lastVelocityPrune = 0;

  /** The first key of `r` at its limit, and when a place frees; `undefined`: all have room. */
  private velocityRefusal(
    r: AttemptReservation,
  ): {scope: string; retryAfterMs: number} | undefined {
    const since = r.now - r.windowMs;
    for (const k of r.keys) {
      const {n} = this.stmts.velocityCount.get(k.scope, k.key, since) as {n: number};
      if (n >= k.max) {
        // The attempt whose leaving the window frees a place: the max-th newest.
        const {at} = this.stmts.velocityNth.get(k.scope, k.key, since, k.max - 1) as {at: number};
        return {scope: k.scope, retryAfterMs: at + r.windowMs - r.now};
      }
    }
    return undefined;
  }

  /** Counts one attempt for each key of `r` (after {@link velocityRefusal}, in its transaction). */
  private velocityRecord(r: AttemptReservation): void {
    for (const k of r.keys) this.stmts.velocityInsert.run(k.scope, k.key, r.now);
    if (r.now - this.lastVelocityPrune > 60_000) {
      this.lastVelocityPrune = r.now;
      this.stmts.velocityPrune.run(r.now - r.windowMs);
    }
  }

  private reserveOne(r: AttemptReservation): ReserveAttemptResult {
    const refused = this.velocityRefusal(r);
    if (refused) return {ok: false, ...refused};
    this.velocityRecord(r);
    return {ok: true};
  }

  /**
   * Counts and records in one step of a `BEGIN IMMEDIATE` transaction (its own savepoint
   * in the group commit, so the reservations made in one turn of the event loop share a
   * commit), so concurrent requests in this and other processes cannot all pass the same
   * check: a reservation, not an after-the-fact count. Not fsynced: a power cut may forget
   * the last reservations, never let two through at once.
   */
  reserveAttempt(
    keys: readonly VelocityKey[],
    now: number,
    windowMs: number,
  ): Promise<ReserveAttemptResult> {
    return this.enqueue(() => this.reserveOne({keys, now, windowMs}), false);
  }

  /** In one step of the group commit: a live card of the customer with this token wins. */
  saveCard(card: SavedCardRecord): Promise<SavedCardRecord> {
    return this.enqueue(() => this.saveCardOne(card), true);
  }

  private saveCardOne(card: SavedCardRecord): SavedCardRecord {
    const params: Record<string, unknown> = {};
    for (const [key, column] of Object.entries(SAVED_CARD_COLUMNS)) {
      params[column] = card[key as keyof SavedCardRecord] ?? null;
    }
    this.stmts.insertSavedCard.run(params);
    const row = this.stmts.liveSavedCardByToken.get(card.customerId, card.token);
    return rowToSavedCard(row as Record<string, unknown>);
  }

  async getSavedCard(id: string): Promise<SavedCardRecord | undefined> {
    const row = this.stmts.savedCardById.get(id) as Record<string, unknown> | undefined;
    return row && rowToSavedCard(row);
  }

  async listSavedCards(customerId?: string): Promise<SavedCardRecord[]> {
    const rows = (
      customerId === undefined
        ? this.stmts.allSavedCards.all()
        : this.stmts.savedCardsOf.all(customerId)
    ) as Record<string, unknown>[];
    return rows.map(rowToSavedCard);
  }

  deleteSavedCard(customerId: string, id: string, at: number): Promise<boolean> {
    return this.enqueue(
      () => this.stmts.deleteSavedCard.run(at, customerId, id).changes === 1,
      true,
    );
  }

  async ping(): Promise<boolean> {
    try {
      return this.db.open && this.stmts.ping.get() !== undefined;
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
