/**
 * Where the example keeps everything: the companion's payment store and the shop's own
 * tables (orders, throttles, back-office sessions, the webhook log) and the pages' CSP
 * violation reports, always in the same
 * database. With `database`, both are on PostgreSQL — nothing is written under `dataDir`,
 * so instances on several machines share nothing but the database. Without it, both are
 * in the SQLite file `dataDir/payments.db`, on one connection.
 */
import {mkdirSync} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  PostgresPaymentStore,
  PostgresSecurityReportStore,
  SqlitePaymentStore,
  SqliteSecurityReportStore,
  type PaymentStore,
  type PostgresPaymentStoreOptions,
  type SecurityReportStore,
} from '../../src/server/index.js';
import {postgresShopDb} from './postgres.js';
import {sqliteShopDb} from './sqlite.js';
import type {ShopDb} from './work.js';

export interface Storage {
  store: PaymentStore;
  db: ShopDb;
  /** The pages' CSP violation reports (the companion's `securityReports`), in the same database. */
  securityReports: SecurityReportStore;
  /** Closes the store, then what the shop's tables opened. */
  close(): Promise<void>;
}

export function openStorage(o: {
  database?: PostgresPaymentStoreOptions | undefined;
  dataDir?: string | undefined;
}): Storage {
  if (o.database) {
    const store = new PostgresPaymentStore(o.database);
    const db = postgresShopDb(store.pool, store.schema);
    return {
      store,
      db,
      securityReports: new PostgresSecurityReportStore({pool: store.pool, schema: store.schema}),
      async close() {
        await db.close();
        await store.close();
      },
    };
  }
  if (!o.dataDir) throw new TypeError('ExampleConfig: dataDir: is required without database');
  const dbFile = path.join(o.dataDir, 'payments.db');
  // The folder is made here, as the SQLite store makes it for itself.
  mkdirSync(o.dataDir, {recursive: true});
  const connection = new Database(dbFile);
  connection.pragma('journal_mode = WAL');
  // NORMAL, as the companion's store: a commit survives a crash of the process, and the
  // shop's writes wait for no fsync on the event loop (with SQLite's default, FULL, each
  // paid mark and webhook-log line did: two per payment in the companion bench). A power
  // cut cannot keep a later commit of the file and lose an earlier one (the WAL is replayed
  // in order), so an order the outbox marked delivered stays marked paid; if both are
  // lost, the update is delivered again (same `updateId`).
  connection.pragma('synchronous = NORMAL');
  connection.pragma('busy_timeout = 5000');
  // The companion's store and the shop share this connection: with one each, every write
  // of one made the other drop its page cache and read its pages again.
  const store = new SqlitePaymentStore({filename: dbFile, connection});
  return {
    store,
    db: sqliteShopDb(connection),
    securityReports: new SqliteSecurityReportStore({connection}),
    async close() {
      await store.close();
      connection.close();
    },
  };
}
