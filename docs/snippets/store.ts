// store.ts — where the payments are kept: SQLite in a file for one instance; PostgreSQL
// (npm install pg) when several instances share them. Pass paymentStore() as `store`.
import {readFileSync} from 'node:fs';
import {PostgresPaymentStore, SqlitePaymentStore} from 'pg-checkout/server';

export function paymentStore() {
  const url = process.env.DATABASE_URL; // postgres://user:password@db.internal:5432/shop
  if (!url) return new SqlitePaymentStore('data/payments.db');
  const caFile = process.env.DATABASE_CA_FILE; // the CA of the database's certificate
  return new PostgresPaymentStore({
    connectionString: url, // or ?sslmode=verify-full&sslrootcert=/path/ca.pem in the URL
    schema: 'checkout', // created, with its tables, by the first instance to start
    poolSize: 10, // connections per instance
    connectTimeoutMs: 5_000, // all connections busy longer: 503 busy (the database is up)
    statementTimeoutMs: 10_000, // a statement running longer: 503 store_unavailable
    ...(caFile ? {ssl: {ca: readFileSync(caFile, 'utf8'), rejectUnauthorized: true}} : {}),
  });
}
