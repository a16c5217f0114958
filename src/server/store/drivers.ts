/**
 * The database drivers' objects a merchant hands to pg-checkout (a better-sqlite3
 * connection, a pg pool), by the members pg-checkout uses. They are written out here so the
 * published declarations import no type of `better-sqlite3` or `pg`, which a merchant on
 * the other database (or on neither) has not installed (issue 30). A better-sqlite3
 * `Database` is a `SqliteConnection`; a pg `Pool` is a `PgPool`.
 */

/** An open better-sqlite3 connection. */
export interface SqliteConnection {
  readonly name: string;
  readonly open: boolean;
  readonly memory: boolean;
  prepare(source: string): unknown;
  exec(source: string): unknown;
  pragma(source: string, options?: {simple?: boolean}): unknown;
  transaction(fn: (...args: never[]) => unknown): unknown;
  close(): unknown;
}

/** A pg `Pool`. */
export interface PgPool {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
