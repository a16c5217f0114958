/**
 * `SecurityReportStore` on SQLite (better-sqlite3): the payment page's CSP violation
 * reports in a table of the store, `pg_security_reports` (its migrations make it,
 * migrations.ts, run here when the file lacks it), one row per report key with
 * its first and last sighting and its count, the report itself as JSON (security-report-records.ts
 * has already cut its URLs and masked digit runs). Give it the app's connection
 * (`connection`, as the example does with the payment store's) or a file. An upsert counts a sighting in one statement, so several processes on
 * one file count every one; rows an older version wrote are masked again when it opens
 * (`remaskedReport`); `trim` keeps the most recently seen rows within a count and
 * a size, in one statement.
 */
import type Database from 'better-sqlite3';
import {loadBetterSqlite3} from '../../optional-peers.js';
import type {SqliteConnection} from '../drivers.js';
import {
  remaskedReport,
  type SecurityReport,
  type SecurityReportStore,
  type StoredSecurityReport,
} from '../security-report-records.js';
import {migrateSqlite} from './sqlite-store.js';
import {statements} from '../statements.js';

const R = statements('sqlite').reports;

/**
 * Where {@link SqliteSecurityReportStore} keeps the reports: an open connection, or a file (exactly
 * one of them).
 */
export interface SqliteSecurityReportStoreOptions {
  /** An open better-sqlite3 connection (its owner closes it). */
  connection?: SqliteConnection;
  /** Or a database file, opened (and closed by `close()`) here. */
  filename?: string;
}

interface Row {
  key: string;
  first_seen: number;
  last_seen: number;
  count: number;
  report: string;
}

/**
 * The payment page's CSP violation reports, kept in SQLite (table `pg_security_reports`,
 * made when missing): one row per report, with its first and last sighting and a count.
 * Give it to `createCheckoutApp({securityReports: {store}})`. Needs `better-sqlite3`.
 *
 * @example
 * ```ts
 * import {SqliteSecurityReportStore} from 'pg-checkout/server';
 *
 * const store = new SqliteSecurityReportStore({filename: 'data/payments.db'});
 * console.log(await store.list(10)); // the ten reports seen last
 * ```
 */
export class SqliteSecurityReportStore implements SecurityReportStore {
  readonly #db: Database.Database;
  readonly #own: boolean;
  readonly #record: Database.Statement<[string, number, number, string], {count: number}>;
  readonly #list: Database.Statement<[number], Row>;
  readonly #trim: Database.Statement<[number, number]>;

  constructor(options: SqliteSecurityReportStoreOptions) {
    if (!options.connection === !options.filename) {
      throw new TypeError('SqliteSecurityReportStore: give connection or filename (one of them)');
    }
    this.#own = !options.connection;
    this.#db =
      (options.connection as Database.Database | undefined) ??
      new (loadBetterSqlite3())(options.filename!);
    migrateSqlite(this.#db);
    this.#record = this.#db.prepare(R.record);
    this.#list = this.#db.prepare(R.list);
    this.#remask();
    this.#trim = this.#db.prepare(R.trim);
  }

  /** Rows written by an older, laxer rule, masked again (`remaskedReport`), in one transaction. */
  #remask(): void {
    const rows = this.#db.prepare<[], {key: string; report: string}>(R.all);
    const update = this.#db.prepare(R.rewrite);
    const changed = rows
      .all()
      .map((row) => ({
        key: row.key,
        report: remaskedReport(JSON.parse(row.report) as SecurityReport),
      }))
      .filter((row) => row.report !== undefined);
    if (changed.length === 0) return;
    // The old text must not stay behind in freed space of a page, or in the WAL: written
    // over with zeros (`secure_delete`), and the WAL checkpointed into the file and emptied.
    const secure = this.#db.pragma('secure_delete', {simple: true}) as number;
    this.#db.pragma('secure_delete = ON');
    try {
      this.#db
        .transaction(() => {
          for (const row of changed) update.run(JSON.stringify(row.report), row.key);
        })
        .immediate();
    } finally {
      this.#db.pragma(`secure_delete = ${secure ? 'ON' : 'OFF'}`);
    }
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async record(key: string, report: SecurityReport, at: Date) {
    const t = at.getTime();
    const {count} = this.#record.get(key, t, t, JSON.stringify(report))!;
    return {isNew: count === 1, count};
  }

  async list(limit = 100): Promise<StoredSecurityReport[]> {
    return this.#list.all(limit).map((row) => ({
      ...(JSON.parse(row.report) as SecurityReport),
      key: row.key,
      firstSeen: new Date(row.first_seen),
      lastSeen: new Date(row.last_seen),
      count: row.count,
    }));
  }

  async trim(bounds: {rows: number; bytes: number}): Promise<number> {
    return this.#trim.run(bounds.rows, bounds.bytes).changes;
  }

  /** Closes the file it opened (not a connection it was given). */
  async close(): Promise<void> {
    if (this.#own) this.#db.close();
  }
}
