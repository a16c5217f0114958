/**
 * `PostgresPaymentStore`: the {@link PaymentStore} on PostgreSQL (with `pg`, an optional
 * peer dependency), for running several companion instances on one database. The rules
 * are the store core's (`algorithms.ts`, `sql-payment-store.ts`), each step awaited on a pooled
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
 * Migrations (`migrate.ts`) run when the store is made, in one transaction under the one
 * migration lock, so instances starting together migrate one at a time. The connection
 * work — statements alone in one round trip, transactions, the statement timeout, outages —
 * is the session's (`pg-session.ts`), shared with the guard and security-report stores on
 * the same pool and schema; nothing is kept in a database session: the store works through
 * PgBouncer in transaction mode. A pool wait past `connectTimeoutMs` is a `StoreBusyError`
 * (the database is busy, not down). A database that cannot be reached (refused, timed out,
 * connection cut, statement timeout) is a {@link StoreUnavailableError}; the store keeps
 * trying on the next call.
 */
import type {ConnectionOptions} from 'node:tls';
import type {Pool} from 'pg';
import {loadPg} from '../../optional-peers.js';
import type {PgPool} from '../drivers.js';
import {appliedVersions} from '../migrate.js';
import {PgSession, checkedSchema} from './pg-session.js';
import {SqlPaymentStore, type RunMode} from '../sql-payment-store.js';
import {runAsync, type Steps, type StorePort} from '../algorithms.js';
import {telemetry} from '../../telemetry/telemetry.js';

export {isUnavailable} from './pg-session.js';

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
  private closed = false;
  /** The statements, transactions and migrations (pg-session.ts). */
  private readonly session: PgSession;

  constructor(options: PostgresPaymentStoreOptions | string) {
    super();
    const opts = typeof options === 'string' ? {connectionString: options} : options;
    const schema = checkedSchema(opts.schema, 'PostgresPaymentStore');
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
    this.session = PgSession.of(
      this.pool,
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
    return this.session.ready();
  }

  /** Versions of the applied migrations. */
  async appliedMigrations(): Promise<number[]> {
    await this.ready();
    return runAsync(appliedVersions(this.session.alone));
  }

  protected run<T>(mode: RunMode, body: (p: StorePort) => Steps<T>): Promise<T> {
    return telemetry.storeOperation('postgresql', mode, () => this.runUntimed(mode, body));
  }

  /** Reads and single writes alone (one round trip each); the rest in one transaction. */
  private async runUntimed<T>(mode: RunMode, body: (p: StorePort) => Steps<T>): Promise<T> {
    if (this.closed) throw new Error('PostgresPaymentStore is closed');
    if (mode === 'read' || mode === 'steps') return runAsync(body(this.session.alone));
    return this.session.tx((driver) => runAsync(body(driver)));
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.session.query(this.session.sql.ping)).rows.length === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.session.ready().catch(() => undefined);
    this.closed = true;
    if (this.ownPool) await this.pool.end();
  }
}
