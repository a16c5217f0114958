/**
 * `PostgresPaymentStore`: the {@link PaymentStore} on PostgreSQL (with `pg`, an optional
 * peer dependency), for running several companion instances on one database. The rules
 * are the store core's (`store-core.ts`, `sql-store.ts`), each step awaited on a pooled
 * connection; this file is the port — what must not happen twice is decided in the
 * database, never in one process's memory:
 *
 * - a new attempt is inserted under a per-order transaction lock
 *   (`pg_advisory_xact_lock`) after `SELECT … FOR UPDATE` of the order's attempts, with
 *   a unique partial index (one open attempt per order) as the backstop;
 * - a change to an attempt or an intent locks its row (`FOR UPDATE`), so the `mutate`
 *   decision and the write are one step across instances;
 * - card-testing reservations lock their (scope, key) pairs, in a fixed order, before
 *   counting, so two instances cannot both pass the same last place;
 * - outbox delivery claims entries with `FOR UPDATE SKIP LOCKED` and a claim that
 *   expires, and lookups take a lease (`leases`) that expires: a crashed instance's work
 *   is taken over once its claims run out.
 *
 * Migrations (`migrate.ts`) run when the store is made, in one transaction under a
 * transaction-scoped advisory lock, so instances starting together migrate one at a time.
 * Nothing is kept in a database session (pg-session.ts): the store works through
 * PgBouncer in transaction mode. A pool wait past `connectTimeoutMs` is a `StoreBusyError`
 * (the database is busy, not down). A database that cannot be reached
 * (refused, timed out, connection cut, statement timeout) is a
 * {@link StoreUnavailableError}; the store keeps trying on the next call.
 */
import type {ConnectionOptions} from 'node:tls';
import type {Pool, PoolClient, QueryResult} from 'pg';
import {loadPg} from '../optional-peers.js';
import {isPoolWait, poolWaitAsBusy} from './backpressure.js';
import {hearErrors, transactionStart} from './pg-session.js';
import type {PgPool} from './drivers.js';
import {MIGRATION_LOCK, appliedVersions, migrate as runMigrations} from './migrate.js';
import {SqlPaymentStore, type RunMode} from './sql-store.js';
import {PostgresPort} from './postgres-port.js';
import {runAsync, type Row, type Steps, type StorePort} from './store-core.js';
import {StoreUnavailableError} from './store.js';
import {telemetry} from '../telemetry/telemetry.js';

/** Options of {@link PostgresPaymentStore}: the database, its schema and the pool's limits. */
export interface PostgresPaymentStoreOptions {
  /** `postgres://user:password@host:5432/database?sslmode=verify-full` (or give `pool`). */
  connectionString?: string;
  /** A `pg` pool of your own (its settings win; the store does not end it on `close`). */
  pool?: PgPool;
  /** The schema of the store's tables (created when missing). Default `public`. */
  schema?: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /**
   * How long to wait for a connection, in ms (default 5000): for a free one of the pool
   * (then `StoreBusyError`, `503 busy`), or for a new one to be made (then unavailable).
   */
  connectTimeoutMs?: number;
  /** The longest one statement may run, in ms (default 10000); then `store_unavailable`. */
  statementTimeoutMs?: number;
  /**
   * TLS, as `pg` takes it: `true`, or `{ca, rejectUnauthorized, ...}` (`tls.connect`
   * options). `sslmode` in the connection string works too.
   */
  ssl?: boolean | ConnectionOptions;
  /** `application_name`, shown in `pg_stat_activity` (default `pg-checkout`). */
  applicationName?: string;
}

/** SQLSTATE classes and codes that mean "the database is not there", not "bad query". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
]);

/** True when `error` says the database could not be reached or did not answer in time. */
export function isUnavailable(error: unknown): boolean {
  const e = error as {code?: unknown; message?: unknown} | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string') {
    if (UNAVAILABLE_ERRNOS.has(e.code) || UNAVAILABLE_SQLSTATES.has(e.code)) return true;
    if (e.code.startsWith('08')) return true; // connection exception
  }
  const message = typeof e.message === 'string' ? e.message : '';
  // pg's pool waiting for a free connection ("timeout exceeded when trying to connect") is
  // not here: the database is up and busy (`StoreBusyError`, backpressure.ts).
  return /Connection terminated|Client has encountered a connection error|Connection ended|not queryable/i.test(
    message,
  );
}

/** The server ended the connection (nothing of the statement ran on it). */
function isCut(error: unknown): boolean {
  const e = error as {code?: unknown; message?: unknown} | null;
  return (
    e?.code === '57P01' ||
    e?.code === '57P02' ||
    /Connection terminated|Client has encountered a connection error|not queryable/i.test(
      String(e?.message),
    )
  );
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const INT8_OID = 20;

/**
 * The payment store on PostgreSQL (pg), for several instances on one database: its tables
 * in a schema of your choice, migrated when the store is made, nothing kept in a session
 * (it works through PgBouncer in transaction mode).
 *
 * @example
 * ```ts
 * import {PostgresPaymentStore} from 'pg-checkout/server';
 *
 * const store = new PostgresPaymentStore({
 *   connectionString: 'postgres://shop@127.0.0.1:5432/shop',
 *   schema: 'checkout',
 *   poolSize: 10,
 * });
 * await store.ready();
 * await store.close();
 * ```
 */
export class PostgresPaymentStore extends SqlPaymentStore {
  readonly schema: string;
  /**
   * @internal The store's pool, for the example's own tables in the same database; not in
   * the published declarations (they import no type of pg).
   */
  readonly pool: Pool;
  private readonly ownPool: boolean;
  /** The migrations' run; a failed run (database down) is tried again by the next call. */
  private migrated: Promise<void> | undefined;
  private closed = false;
  /** `BEGIN` and the transaction's settings (pg-session.ts: nothing kept in a session). */
  private readonly start: string;
  /** The ports' shared state (when the card-testing counts were last pruned). */
  private readonly shared = {prunedAt: 0};
  /** The port for statements that stand alone, on the pool. */
  private readonly pooled = new PostgresPort(
    (text, values) => this.query(text, values),
    this.shared,
  );

  constructor(options: PostgresPaymentStoreOptions | string) {
    super();
    const opts = typeof options === 'string' ? {connectionString: options} : options;
    const schema = opts.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) {
      throw new TypeError(
        'PostgresPaymentStore: schema: must be a plain identifier (letters, digits, _; up to 63)',
      );
    }
    if (!opts.pool && !opts.connectionString) {
      throw new TypeError('PostgresPaymentStore: connectionString: is required (or pass pool)');
    }
    for (const key of ['poolSize', 'connectTimeoutMs', 'statementTimeoutMs'] as const) {
      const v = opts[key];
      if (v !== undefined && !(Number.isInteger(v) && v > 0)) {
        throw new TypeError(`PostgresPaymentStore: ${key}: must be a positive whole number`);
      }
    }
    this.schema = schema;
    this.ownPool = !opts.pool;
    if (opts.pool) {
      this.pool = opts.pool as Pool;
    } else {
      const pg = loadPg();
      this.pool = new pg.Pool({
        connectionString: opts.connectionString,
        max: opts.poolSize ?? 10,
        connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
        application_name: opts.applicationName ?? 'pg-checkout',
        ...(opts.ssl === undefined ? {} : {ssl: opts.ssl}),
        // Epoch milliseconds in BIGINT columns read back as numbers.
        types: {
          getTypeParser: ((oid: number, format?: string) =>
            oid === INT8_OID
              ? (v: string) => Number(v)
              : pg.types.getTypeParser(oid, format as 'text')) as never,
        },
      });
    }
    this.start = transactionStart(
      schema,
      opts.pool ? opts.statementTimeoutMs : (opts.statementTimeoutMs ?? 10_000),
    );
    // A pooled connection cut while idle (a restart, pg_terminate_backend) is an event
    // of the pool, not of a call: the pool drops it and the next call gets a fresh one.
    this.pool.on('error', () => undefined);
    this.ready().catch(() => undefined);
  }

  /** Runs the migrations once (again after a failed run). */
  ready(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('PostgresPaymentStore is closed'));
    this.migrated ??= this.migrate().catch((error: unknown) => {
      this.migrated = undefined;
      throw this.mapError(error);
    });
    return this.migrated;
  }

  /** Versions of the applied migrations. */
  async appliedMigrations(): Promise<number[]> {
    await this.ready();
    return runAsync(appliedVersions(this.pooled));
  }

  /**
   * Creates the schema when missing and applies the migrations not applied yet, all in one
   * transaction under a transaction-scoped advisory lock (released at its commit, so
   * nothing outlives the transaction: pg-session.ts): several instances starting at once
   * migrate one after the other, each reading what is applied under the lock (the later
   * ones find nothing to do). A database newer than this code is refused.
   */
  private async migrate(): Promise<void> {
    const c = await this.begin();
    let broken: Error | undefined;
    try {
      await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      const port = new PostgresPort((text, values) => c.query<Row>(text, values), this.shared);
      await runAsync(runMigrations(port, false));
      await c.query('COMMIT');
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error;
      else await c.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      throw error;
    } finally {
      c.release(broken);
    }
  }

  protected run<T>(mode: RunMode, body: (p: StorePort) => Steps<T>): Promise<T> {
    return telemetry.storeOperation('postgresql', mode, () => this.runUntimed(mode, body));
  }

  private async runUntimed<T>(mode: RunMode, body: (p: StorePort) => Steps<T>): Promise<T> {
    if (mode === 'read' || mode === 'steps') {
      await this.ready();
      return runAsync(body(this.pooled));
    }
    return this.tx((c) =>
      runAsync(body(new PostgresPort((text, values) => c.query<Row>(text, values), this.shared))),
    );
  }

  private mapError(error: unknown): unknown {
    if (isPoolWait(error)) return poolWaitAsBusy(error);
    if (error instanceof StoreUnavailableError || !isUnavailable(error)) return error;
    const what = (error as Error).message || String((error as {code?: unknown}).code);
    return new StoreUnavailableError(`the payment database cannot be reached: ${what}`, {
      cause: error,
    });
  }

  /**
   * One statement, in a transaction of its own (its settings are the transaction's:
   * pg-session.ts). A pooled connection that the server cut while it was idle is replaced
   * once (`begin`).
   */
  private query(text: string, values: unknown[] = []): Promise<QueryResult<Row>> {
    return this.tx((c) => c.query<Row>(text, values));
  }

  /** A connection whose `BEGIN` succeeded (a stale one found cut is replaced once). */
  private async begin(): Promise<PoolClient> {
    for (let attempt = 0; ; attempt++) {
      let c: PoolClient;
      try {
        c = hearErrors(await this.pool.connect());
      } catch (error) {
        throw this.mapError(error);
      }
      try {
        await c.query(this.start);
        return c;
      } catch (error) {
        c.release(error as Error);
        if (attempt === 0 && isCut(error)) continue;
        throw this.mapError(error);
      }
    }
  }

  /** `fn` in one transaction on one connection; a connection that broke is dropped. */
  private async tx<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    const c = await this.begin();
    let broken: Error | undefined;
    try {
      const result = await fn(c);
      await c.query('COMMIT');
      return result;
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error;
      else await c.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      throw this.mapError(error);
    } finally {
      c.release(broken);
    }
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.query('SELECT 1 AS ok')).rows.length === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.migrated?.catch(() => undefined);
    this.closed = true;
    if (this.ownPool) await this.pool.end();
  }
}
