/**
 * `SecurityReportStore` on PostgreSQL (node-postgres): the payment page's CSP violation
 * reports in one table of their own, `pg_security_reports` in `schema`, one row per report
 * key with its first and last sighting and its count, the report as JSONB
 * (security-reports.ts has already cut its URLs and masked digit runs). Give it a pool
 * (the one you gave `PostgresPaymentStore({pool})`, or the app's). The table is made on
 * first use, under a transaction-scoped advisory lock so that processes starting together
 * do not race, and the rows an older version wrote are masked again then; an upsert counts a sighting in one statement; `trim` keeps the most recently
 * seen rows within a count and a size, in one statement.
 */
import type {Pool} from 'pg';
import type {PgPool} from './drivers.js';
import {MIGRATION_LOCK} from './migrate.js';
import {
  remaskedReport,
  type SecurityReport,
  type SecurityReportStore,
  type StoredSecurityReport,
} from './security-reports.js';

/**
 * Where {@link PostgresSecurityReportStore} keeps the reports: a `pg` pool, and the table's schema.
 */
export interface PostgresSecurityReportStoreOptions {
  pool: PgPool;
  /** The schema of the table (made when missing). Default `public`. */
  schema?: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/**
 * The advisory lock of the tables' creation: the payment store's migrations' own, so the
 * payment store, the guard store and the reports store of several instances starting
 * together make the schema one at a time (each `CREATE SCHEMA IF NOT EXISTS` under a lock
 * of its own raced the others: a duplicate key error in `pg_namespace`).
 */
const CREATE_LOCK = MIGRATION_LOCK.toString();

interface Row {
  key: string;
  first_seen: string | number;
  last_seen: string | number;
  count: number;
  report: SecurityReport;
}

/**
 * The payment page's CSP violation reports, kept in PostgreSQL (table `pg_security_reports`
 * in `schema`, made on first use): one row per report, with its first and last sighting and a
 * count. Give it to `createCheckoutApp({securityReports: {store}})`; it never ends the pool.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import {PostgresPaymentStore, PostgresSecurityReportStore} from 'pg-checkout/server';
 *
 * const pool = new pg.Pool({connectionString: process.env.DATABASE_URL});
 * const payments = new PostgresPaymentStore({pool, schema: 'checkout'});
 * const reports = new PostgresSecurityReportStore({pool, schema: 'checkout'});
 * ```
 */
export class PostgresSecurityReportStore implements SecurityReportStore {
  readonly #pool: Pool;
  readonly #table: string;
  readonly #schema: string;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresSecurityReportStoreOptions) {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) {
      throw new TypeError('PostgresSecurityReportStore: schema: must be a plain identifier');
    }
    this.#pool = options.pool as Pool;
    this.#schema = schema;
    this.#table = `"${schema}".pg_security_reports`;
  }

  /** Makes the table once (again after a failed try). */
  #made(): Promise<void> {
    this.#ready ??= (async () => {
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [CREATE_LOCK]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (
          key TEXT PRIMARY KEY,
          first_seen BIGINT NOT NULL,
          last_seen BIGINT NOT NULL,
          count INTEGER NOT NULL,
          report JSONB NOT NULL
        )`);
        // Rows an older, laxer rule wrote, masked again (`remaskedReport`).
        const {rows} = await client.query<{key: string; report: SecurityReport}>(
          `SELECT key, report FROM ${this.#table} FOR UPDATE`,
        );
        for (const row of rows) {
          const report = remaskedReport(row.report);
          if (!report) continue;
          await client.query(`UPDATE ${this.#table} SET report = $2 WHERE key = $1`, [
            row.key,
            JSON.stringify(report),
          ]);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async record(key: string, report: SecurityReport, at: Date) {
    await this.#made();
    const {rows} = await this.#pool.query<{count: number}>(
      `INSERT INTO ${this.#table} AS r (key, first_seen, last_seen, count, report)
       VALUES ($1, $2, $2, 1, $3)
       ON CONFLICT (key) DO UPDATE SET count = r.count + 1, last_seen = GREATEST(r.last_seen, EXCLUDED.last_seen)
       RETURNING count`,
      [key, at.getTime(), JSON.stringify(report)],
    );
    const count = rows[0]!.count;
    return {isNew: count === 1, count};
  }

  async trim(bounds: {rows: number; bytes: number}): Promise<number> {
    await this.#made();
    // The rows past the newest `rows`, or past `bytes` counted from the newest down.
    const r = await this.#pool.query(
      `DELETE FROM ${this.#table} WHERE key IN (
         SELECT key FROM (
           SELECT key, row_number() OVER w AS n,
             sum(octet_length(report::text) + octet_length(key)) OVER w AS total
           FROM ${this.#table}
           WINDOW w AS (ORDER BY last_seen DESC, key ROWS UNBOUNDED PRECEDING)
         ) AS ranked WHERE n > $1 OR total > $2)`,
      [bounds.rows, bounds.bytes],
    );
    return r.rowCount ?? 0;
  }

  async list(limit = 100): Promise<StoredSecurityReport[]> {
    await this.#made();
    const {rows} = await this.#pool.query<Row>(
      `SELECT * FROM ${this.#table} ORDER BY last_seen DESC, key LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({
      ...row.report,
      key: row.key,
      firstSeen: new Date(Number(row.first_seen)),
      lastSeen: new Date(Number(row.last_seen)),
      count: row.count,
    }));
  }
}
