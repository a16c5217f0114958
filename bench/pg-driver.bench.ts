/**
 * Which PostgreSQL driver the `PostgresPaymentStore` uses: `pg` (node-postgres) or
 * `postgres` (Postgres.js), measured side by side on the same server (`PG_TEST_URL`,
 * default postgres://postgres@127.0.0.1:5432/test) with the store's own shape of work:
 * (1) a primary-key read, one at a time (latency); (2) the store's typical write, a short
 * transaction (`BEGIN`; `SELECT … FOR UPDATE`; `UPDATE`; `INSERT` into an outbox;
 * `COMMIT`), 16 at a time on a pool of 8 (throughput). Each driver runs both twice,
 * alternately, and the better round counts. Skipped (one line) without a server.
 */
import pg from 'pg';
import postgres from 'postgres';

const URL = process.env['PG_TEST_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const READS = 3000;
const TXS = 2000;
const CONCURRENCY = 16;
const POOL = 8;

interface Driver {
  name: string;
  read(id: string): Promise<unknown>;
  tx(id: string, n: number): Promise<void>;
  close(): Promise<void>;
}

function nodePostgres(schema: string): Driver {
  const pool = new pg.Pool({connectionString: URL, max: POOL, options: `-c search_path=${schema}`});
  return {
    name: 'pg',
    read: (id) =>
      pool.query({name: 'read', text: 'SELECT * FROM rows WHERE id = $1', values: [id]}),
    async tx(id, n) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        await c.query({
          name: 'lock',
          text: 'SELECT * FROM rows WHERE id = $1 FOR UPDATE',
          values: [id],
        });
        await c.query({name: 'upd', text: 'UPDATE rows SET n = $2 WHERE id = $1', values: [id, n]});
        await c.query({
          name: 'out',
          text: 'INSERT INTO outbox (payload) VALUES ($1)',
          values: [`{"n":${n}}`],
        });
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK');
        throw e;
      } finally {
        c.release();
      }
    },
    close: () => pool.end(),
  };
}

function postgresJs(schema: string): Driver {
  const sql = postgres(URL, {max: POOL, onnotice: () => {}, connection: {search_path: schema}});
  return {
    name: 'postgres',
    read: (id) => sql`SELECT * FROM rows WHERE id = ${id}`,
    async tx(id, n) {
      await sql.begin(async (t) => {
        await t`SELECT * FROM rows WHERE id = ${id} FOR UPDATE`;
        await t`UPDATE rows SET n = ${n} WHERE id = ${id}`;
        await t`INSERT INTO outbox (payload) VALUES (${`{"n":${n}}`})`;
      });
    },
    close: () => sql.end(),
  };
}

async function timed(n: number, concurrency: number, fn: (i: number) => Promise<unknown>) {
  const lat: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await fn(i);
        lat.push(performance.now() - t);
      }
    }),
  );
  const ms = performance.now() - started;
  lat.sort((a, b) => a - b);
  const q = (p: number) => Math.round(lat[Math.floor(p * (lat.length - 1))]! * 1000);
  return {perSecond: Math.round((n / ms) * 1000), p50us: q(0.5), p99us: q(0.99)};
}

export default async function pgDriver() {
  const admin = new pg.Client({connectionString: URL, connectionTimeoutMillis: 2000});
  try {
    await admin.connect();
  } catch (error) {
    return {skipped: `no PostgreSQL at ${URL}: ${(error as Error).message}`};
  }
  const schema = `bench_driver_${process.pid}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(
    `CREATE TABLE ${schema}.rows (id TEXT PRIMARY KEY, n INTEGER NOT NULL, body TEXT)`,
  );
  await admin.query(
    `CREATE TABLE ${schema}.outbox (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL)`,
  );
  await admin.query(
    `INSERT INTO ${schema}.rows SELECT 'r' || i, 0, repeat('x', 400) FROM generate_series(0, 999) i`,
  );
  const best: Record<
    string,
    {
      read: ReturnType<typeof timed> extends Promise<infer T> ? T : never;
      tx: Awaited<ReturnType<typeof timed>>;
    }
  > = {};
  try {
    for (let round = 0; round < 2; round++) {
      for (const make of [nodePostgres, postgresJs]) {
        const d = make(schema);
        await timed(200, 1, (i) => d.read(`r${i % 1000}`)); // warm-up
        const read = await timed(READS, 1, (i) => d.read(`r${i % 1000}`));
        const tx = await timed(TXS, CONCURRENCY, (i) => d.tx(`r${i % 1000}`, i));
        await d.close();
        const prev = best[d.name];
        best[d.name] = {
          read: !prev || read.p50us < prev.read.p50us ? read : prev.read,
          tx: !prev || tx.perSecond > prev.tx.perSecond ? tx : prev.tx,
        };
      }
    }
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  return Object.entries(best).map(([driver, f]) => ({
    driver,
    readP50us: f.read.p50us,
    readP99us: f.read.p99us,
    readsPerSecond: f.read.perSecond,
    txPerSecond: f.tx.perSecond,
    txP50us: f.tx.p50us,
    txP99us: f.tx.p99us,
  }));
}
