/**
 * `SecurityReportStore` on PostgreSQL (node-postgres): the payment page's CSP violation
 * reports in a table of the store, `pg_security_reports` in `schema`, one row per report
 * key with its first and last sighting and its count, the report as JSONB
 * (security-report-records.ts has already cut its URLs and masked digit runs). Give it a pool
 * (the one you gave `PostgresPaymentStore({pool})`, or the app's). The table is the store's
 * migrations' (migrations.ts), run on first use by the session the payment store on the
 * same pool and schema uses (pg-session.ts); the rows an older version wrote are masked
 * again then, in one transaction; an upsert counts a sighting in one statement; `trim`
 * keeps the most recently seen rows within a count and a size, in one statement.
 */
import type {Pool} from 'pg';
import type {PgPool} from '../drivers.js';
import {PgSession, checkedSchema} from './pg-session.js';
import {
  remaskedReport,
  type SecurityReport,
  type SecurityReportStore,
  type StoredSecurityReport,
} from '../security-report-records.js';

/**
 * Where {@link PostgresSecurityReportStore} keeps the reports: a `pg` pool, and the table's schema.
 */
export interface PostgresSecurityReportStoreOptions {
  pool: PgPool;
  /** The schema of the table (made when missing). Default `public`. */
  schema?: string;
}

interface Row {
  key: string;
  first_seen: string | number;
  last_seen: string | number;
  count: number;
  report: string;
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
  readonly #session: PgSession;
  #remasked: Promise<void> | undefined;

  constructor(options: PostgresSecurityReportStoreOptions) {
    const schema = checkedSchema(options.schema, 'PostgresSecurityReportStore');
    this.#session = PgSession.of(options.pool as Pool, schema);
  }

  get #sql() {
    return this.#session.sql.reports;
  }

  /** Rows an older, laxer rule wrote, masked again (`remaskedReport`): once, on first use. */
  #ready(): Promise<void> {
    this.#remasked ??= this.#session
      .tx(async (d) => {
        for (const row of await d.all(this.#sql.all, [])) {
          const report = remaskedReport(JSON.parse(String(row['report'])) as SecurityReport);
          if (report) await d.run(this.#sql.rewrite, [JSON.stringify(report), row['key']]);
        }
      })
      .catch((error: unknown) => {
        this.#remasked = undefined;
        throw error;
      });
    return this.#remasked;
  }

  async record(key: string, report: SecurityReport, at: Date) {
    await this.#ready();
    const t = at.getTime();
    const row = await this.#session.alone.get(this.#sql.record, [
      key,
      t,
      t,
      JSON.stringify(report),
    ]);
    const count = Number(row!['count']);
    return {isNew: count === 1, count};
  }

  async trim(bounds: {rows: number; bytes: number}): Promise<number> {
    await this.#ready();
    return this.#session.alone.run(this.#sql.trim, [bounds.rows, bounds.bytes]);
  }

  async list(limit = 100): Promise<StoredSecurityReport[]> {
    await this.#ready();
    const rows = (await this.#session.alone.all(this.#sql.list, [limit])) as unknown as Row[];
    return rows.map((row) => ({
      ...(JSON.parse(row.report) as SecurityReport),
      key: row.key,
      firstSeen: new Date(Number(row.first_seen)),
      lastSeen: new Date(Number(row.last_seen)),
      count: row.count,
    }));
  }
}
