/**
 * The one way pg-checkout talks to PostgreSQL (`PgSession`): the payment store, the guard
 * store and the security-report store on a pool and a schema share it — one migrator under
 * one lock, one transaction helper, one statement timeout, one mapping of an outage to
 * {@link StoreUnavailableError} and one listener for a checked-out client's errors. It keeps
 * no state in a database session, so that it works through a pooler in transaction mode
 * (PgBouncer's `pool_mode = transaction`, where each transaction may run on another server
 * connection than the last):
 *
 * - no startup parameters a pooler refuses or drops, no session-level `SET`, no session
 *   advisory lock: locks are `pg_advisory_xact_lock`, released at commit;
 * - no `search_path`: every statement names its tables with the schema (`statements.ts`,
 *   the name checked once, by {@link checkedSchema}), so a statement stands alone;
 * - no named prepared statements (pg sends unnamed ones unless a query has a `name`).
 *
 * One round trip per statement. A statement that stands alone (a read, one write) is sent
 * alone — no `BEGIN`/`COMMIT` around it. A transaction's `BEGIN` goes with its settings,
 * the advisory locks asked for before its first statement and that statement, as one text
 * (one round trip), and only when that statement is sent; the statement the core says is
 * its last goes with the `COMMIT`. Those two have their values written in as quoted
 * literals (`inlined`), which the server types as it types parameters.
 *
 * The statement timeout holds everywhere, in two ways. Where a transaction exists, the
 * server's: `SET LOCAL statement_timeout`, sent with its `BEGIN` (a transaction holds locks
 * others wait for; the server must end it). A statement alone has no transaction to carry a
 * `SET LOCAL`, and a session `SET` or a startup parameter would not survive a transaction-
 * mode pooler, so it is bounded on the client: pg's `query_timeout` with the same value
 * rejects the call (a `StoreUnavailableError`, like the server's timeout) and the pool
 * drops the connection, whose backend the server ends when it finds its client gone. Such
 * a statement holds no lock past its own end, reads or writes rows by key, and is the
 * caller's only wait: the bound is on what the caller waits, as the server's is.
 */
import type {Pool, PoolClient, QueryResult} from 'pg';
import {isPoolWait, poolWaitAsBusy} from '../store-busy.js';
import {MIGRATION_LOCK, migrate} from '../migrate.js';
import {runAsync, type Row} from '../algorithms.js';
import {PgDriver, type Send} from './postgres-port.js';
import {statements, type Statements} from '../statements.js';
import {StoreUnavailableError} from '../payment-store.js';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * `schema` (default `public`) when it is a plain identifier — it is written into the
 * statements' text — or a `TypeError` naming `who`'s option.
 */
export function checkedSchema(schema: string | undefined, who: string): string {
  const name = schema ?? 'public';
  if (typeof name !== 'string' || !SCHEMA_NAME.test(name)) {
    throw new TypeError(
      `${who}: schema: must be a plain identifier (letters, digits, _; up to 63)`,
    );
  }
  return name;
}

/**
 * The text that starts a transaction on `schema` with its `search_path` (a checked
 * identifier): for SQL that names its tables without a schema (the example's tables, the
 * frozen text of the migrations).
 */
export function transactionStart(schema: string, statementTimeoutMs: number | undefined): string {
  return `BEGIN; SET LOCAL search_path TO ${schema}${timeoutText(statementTimeoutMs)}`;
}

function timeoutText(ms: number | undefined): string {
  return ms === undefined ? '' : `; SET LOCAL statement_timeout = ${Math.trunc(ms)}`;
}

const heard = new WeakSet<object>();

/**
 * Listens to `client`'s `error` event, once per client. A connection cut while a client is
 * checked out of the pool (a restart, a pooler gone) rejects its query — the caller's
 * error — and pg also emits `error` on the client, which the pool listens to only while
 * the client is idle: unheard, it would end the process.
 */
export function hearErrors<T extends {on(event: 'error', listener: (e: Error) => void): unknown}>(
  client: T,
): T {
  if (!heard.has(client)) {
    heard.add(client);
    client.on('error', () => undefined);
  }
  return client;
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
const CUT = /Connection terminated|Client has encountered a connection error|not queryable/i;

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
  // not here: the database is up and busy (`StoreBusyError`, store-busy.ts). pg's
  // `query_timeout` ("Query read timeout") is the statement timeout of a statement alone.
  return CUT.test(message) || /Connection ended|Query read timeout/i.test(message);
}

/** The server ended the connection before the statement (nothing of it ran). */
function isCut(error: unknown, alone: boolean): boolean {
  const e = error as {code?: unknown; message?: unknown} | null;
  if (e?.code === '57P01' || e?.code === '57P02') return true;
  // A statement alone that was cut may have run: only a read is sent again.
  return !alone && CUT.test(String(e?.message));
}

/** `error` as the store reports it: busy, unavailable, or as it is. */
export function mapError(error: unknown): unknown {
  if (isPoolWait(error)) return poolWaitAsBusy(error);
  if (error instanceof StoreUnavailableError || !isUnavailable(error)) return error;
  const what = (error as Error).message || String((error as {code?: unknown}).code);
  return new StoreUnavailableError(`the payment database cannot be reached: ${what}`, {
    cause: error,
  });
}

/** A text as an SQL literal (pg's `escapeLiteral`): for the locks sent with `BEGIN`. */
function literal(s: string): string {
  const quoted = `'${s.replace(/'/g, "''").replace(/\\/g, '\\\\')}'`;
  return s.includes('\\') ? ` E${quoted}` : quoted;
}

/** Sessions by pool and schema: the stores on one pool and schema share one (and its migration). */
const sessions = new WeakMap<object, Map<string, PgSession>>();

/** The transactions and statements of the stores on one pool and one schema. @internal */
export class PgSession {
  readonly pool: Pool;
  readonly schema: string;
  readonly sql: Statements;
  readonly statementTimeoutMs: number | undefined;
  /** The drivers' shared state (when the card-testing counts were last pruned). */
  readonly shared = {prunedAt: 0};
  /** The driver for statements that stand alone. */
  readonly alone: PgDriver;
  #migrated: Promise<void> | undefined;
  readonly #begin: string;

  /**
   * The session of `pool` and `schema` (a checked name): the one made before, if any — its
   * statement timeout then holds — or a new one.
   */
  static of(pool: Pool, schema: string, statementTimeoutMs?: number): PgSession {
    let bySchema = sessions.get(pool);
    if (!bySchema) sessions.set(pool, (bySchema = new Map()));
    let session = bySchema.get(schema);
    if (
      !session ||
      (statementTimeoutMs !== undefined && session.statementTimeoutMs === undefined)
    ) {
      session = new PgSession(pool, schema, statementTimeoutMs);
      bySchema.set(schema, session);
    }
    return session;
  }

  private constructor(pool: Pool, schema: string, statementTimeoutMs: number | undefined) {
    this.pool = pool;
    this.schema = schema;
    this.sql = statements('postgres', schema);
    this.statementTimeoutMs = statementTimeoutMs;
    this.#begin = `BEGIN${timeoutText(statementTimeoutMs)}`;
    this.alone = new PgDriver(this.sql, (text, values) => this.query(text, values), this.shared);
  }

  /**
   * Creates the schema when missing and applies the migrations not applied yet — every
   * table of every store on this schema — once per session (again after a failed run), all
   * in one transaction under the one migration lock (transaction-scoped: nothing outlives
   * it), with the migrations' frozen text on the schema's `search_path`: several instances
   * starting at once migrate one after the other, the later ones finding nothing to do.
   */
  ready(): Promise<void> {
    this.#migrated ??= this.#migrate().catch((error: unknown) => {
      this.#migrated = undefined;
      throw mapError(error);
    });
    return this.#migrated;
  }

  async #migrate(): Promise<void> {
    const c = await this.#connect();
    let broken: Error | undefined;
    try {
      await c.query(
        `${transactionStart(this.schema, this.statementTimeoutMs)};
         SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()});
         CREATE SCHEMA IF NOT EXISTS ${this.schema}`,
      );
      const send: Send = (text, values) => c.query<Row>(text, values);
      await runAsync(migrate(new PgDriver(this.sql, send, this.shared)));
      await c.query('COMMIT');
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error;
      else await c.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      throw error;
    } finally {
      c.release(broken);
    }
  }

  async #connect(): Promise<PoolClient> {
    try {
      return hearErrors(await this.pool.connect());
    } catch (error) {
      throw mapError(error);
    }
  }

  /**
   * One statement alone: one round trip, bounded by the statement timeout on the client
   * (see above). A read on a pooled connection the server cut while it was idle is sent
   * once more, on another.
   */
  async query(text: string, values: unknown[] = []): Promise<QueryResult<Row>> {
    await this.ready();
    const timeout = this.statementTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        // `query_timeout` is pg's, per query (its typings name only the client's option).
        const config =
          timeout === undefined ? {text, values} : {text, values, query_timeout: timeout};
        return await this.pool.query<Row>(config as {text: string; values: unknown[]});
      } catch (error) {
        if (attempt === 0 && isCut(error, !/^\s*SELECT/i.test(text))) continue;
        throw mapError(error);
      }
    }
  }

  /**
   * `fn` in one transaction on one connection, on a driver whose `BEGIN` is sent with its
   * first statement (with the locks asked for before it); committed, or rolled back when
   * `fn` throws; a connection that broke is dropped. A connection the server cut while it
   * was idle is found at `BEGIN` and replaced once.
   */
  async tx<T>(fn: (driver: PgDriver) => Promise<T>): Promise<T> {
    await this.ready();
    let c: PoolClient | undefined;
    let broken: Error | undefined;
    let locks: string[] | undefined = [];
    // The transaction's first statement goes with its `BEGIN` (and its settings and
    // locks) as one text, its values written in as literals (see `inlined`); a statement
    // whose values cannot be (bytes, nested arrays) goes after a `BEGIN` of its own.
    const start = async (first?: string): Promise<QueryResult<Row> | QueryResult<Row>[]> => {
      const text = [this.#begin, ...locks!.map(lockText), ...(first ? [first] : [])].join('; ');
      locks = undefined;
      for (let attempt = 0; ; attempt++) {
        const client = await this.#connect();
        let results: QueryResult<Row> | QueryResult<Row>[];
        try {
          results = (await client.query(text)) as QueryResult<Row> | QueryResult<Row>[];
        } catch (error) {
          if (isUnavailable(error) || isCut(error, false)) {
            client.release(error as Error);
            if (attempt === 0 && isCut(error, false)) continue;
            throw error;
          }
          // The statement's own error (the transaction began): rolled back by the caller.
          c = client;
          throw error;
        }
        c = client;
        return results;
      }
    };
    // The statement said to be the last (`lastNext`) goes with the `COMMIT`, its values
    // written in as the first statement's are (or, when they cannot be, before it).
    let last = false;
    let committed = false;
    const send: Send = async (text, values) => {
      if (committed) throw new Error('a statement after its transaction committed');
      // Values are written in only where the text goes with the BEGIN or the COMMIT.
      const written =
        (!c || last) && !this.sql.sendsValuesApart(text) ? inlined(text, values ?? []) : undefined;
      const withCommit = last && written !== undefined;
      const one = withCommit ? `${written}; COMMIT` : written;
      let results: QueryResult<Row> | QueryResult<Row>[];
      if (c) {
        results = (withCommit ? await c.query(one!) : await c.query<Row>(text, values)) as
          QueryResult<Row> | QueryResult<Row>[];
      } else if (one !== undefined) {
        results = await start(one);
      } else {
        await start();
        results = await c!.query<Row>(text, values);
      }
      committed = withCommit;
      if (!Array.isArray(results)) return results;
      return withCommit ? results.at(-2)! : results.at(-1)!;
    };
    const lock = async (key: string) => {
      if (locks) locks.push(key);
      else await send('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    };
    try {
      const driver = new PgDriver(this.sql, send, this.shared, lock, () => (last = true));
      const result = await fn(driver);
      if (c && !committed) await c.query('COMMIT');
      return result;
    } catch (error) {
      if (c) {
        if (isUnavailable(error)) broken = error as Error;
        else await c.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      }
      throw mapError(error);
    } finally {
      c?.release(broken);
    }
  }
}

/**
 * `text` with its values (`$1`, `$2`, …) written in as quoted literals — each an untyped
 * literal the server types from its place, as it types an untyped parameter — so it can go
 * in one text with the transaction's `BEGIN`; undefined when a value is not a string, a
 * finite number, a boolean, null, or an array of strings, numbers and nulls (an array
 * literal; anything else — a buffer, a nested array — is sent as a parameter).
 * @internal Not part of the public API.
 */
export function inlined(text: string, values: readonly unknown[]): string | undefined {
  const literals: string[] = [];
  for (const v of values) {
    if (v === null || v === undefined) literals.push('NULL');
    else if (typeof v === 'string') literals.push(literal(v));
    else if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') {
      literals.push(`'${String(v)}'`);
    } else if (Array.isArray(v) && v.every(plain)) {
      literals.push(literal(`{${v.map(arrayElement).join(',')}}`));
    } else return undefined;
  }
  return text.replace(/\$(\d+)/g, (_, n: string) => literals[Number(n) - 1]!);
}

const plain = (v: unknown) =>
  v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** An element of an array literal: quoted, its `"` and `\` escaped; `NULL` for null. */
function arrayElement(v: unknown): string {
  return v === null ? 'NULL' : `"${String(v).replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
}

function lockText(key: string): string {
  return `SELECT pg_advisory_xact_lock(hashtextextended(${literal(key)}, 0))`;
}
