/**
 * A flood of forged webhooks cannot grow the companion's database past a documented size
 * (issue 29): 10,000 unsigned posts to the webhook route over real HTTP, on a SQLite file
 * (the app's clock moving 100 ms at each reading, so the flood spans hours of the app's
 * time and the row cap is reached, not only the minute's rate) and on PostgreSQL (at the
 * machine's pace). Measured after each: the rows and bytes of `rejected_webhooks` and of
 * the guard store's counts (tables and indexes). Every post is refused; each is kept or
 * counted; the rows stay within `webhookRejections` (60 a minute, the newest 1,000). The
 * bound the guide states (docs/guides/reliability.md): 1,000 rows and 1,440 count rows, under
 * 512 kB on SQLite and 1 MiB on PostgreSQL.
 */
import {after, test, type TestContext} from 'node:test';
import assert from 'node:assert/strict';
import type {AddressInfo} from 'node:net';
import Database from 'better-sqlite3';
import {createAdaptorServer} from '@hono/node-server';
import {
  PostgresPaymentStore,
  type CheckoutApp,
  type PaymentStore,
} from '../../../src/server/index.js';
import {StubGateway, floodForgedWebhooks, inProcessApp, tempStores} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, pgQuery, schemaName} from './postgres.js';

const POSTS = 10_000;
const CONCURRENCY = 32;
const SQLITE_MAX_BYTES = 512 * 1024;
const PG_MAX_BYTES = 1024 * 1024;

const stores = tempStores('pg-reject-flood');
after(async () => {
  await stores.cleanup();
  await dropSchemas();
});

/** Serves `app` over HTTP and posts `POSTS` forged webhooks, `CONCURRENCY` at a time. */
async function flood(app: CheckoutApp) {
  const server = createAdaptorServer({fetch: app.fetch});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const {signed, statuses, seconds} = await floodForgedWebhooks(
    `${base}/webhook`,
    POSTS,
    CONCURRENCY,
  );
  // A delivery signed by the gateway first: it is accepted, and nothing of it is a refusal.
  assert.equal(signed, 200);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return {statuses, seconds};
}

function companion(store: PaymentStore, clock?: () => number) {
  return inProcessApp(store, new StubGateway(), {
    clientIp: undefined,
    ...(clock ? {clock} : {}),
  }).app;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function report(t: TestContext, what: string, figures: Record<string, unknown>) {
  t.diagnostic(`${what}: ${JSON.stringify(figures)}`);
}

test('10,000 forged webhooks on SQLite, over hours of the app’s time: at most 1,000 rows kept, the rest counted', async (t) => {
  const store = stores.open('flood');
  const clock = {ms: Date.parse('2031-03-01T09:00:00Z')};
  const app = companion(store, () => (clock.ms += 100));
  const {statuses, seconds} = await flood(app);
  const counts = await app.rejectedWebhookCounts();
  await app.close();
  await store.close();
  assert.deepEqual(statuses, {403: POSTS}, 'every forged post refused');
  const [file] = stores.files();
  const db = new Database(file!, {readonly: true});
  const rows = (sql: string) => (db.prepare(sql).get() as {n: number}).n;
  const bytesOf = (table: string) =>
    (
      db
        .prepare(
          `SELECT COALESCE(SUM(pgsize), 0) AS n FROM dbstat WHERE name IN
            (SELECT name FROM sqlite_master WHERE tbl_name = ?)`,
        )
        .get(table) as {n: number}
    ).n;
  const rejected = rows('SELECT COUNT(*) AS n FROM rejected_webhooks');
  const countRows = rows('SELECT COUNT(*) AS n FROM pg_guard_counts');
  const bytes = bytesOf('rejected_webhooks') + bytesOf('pg_guard_counts');
  db.close();
  report(t, 'SQLite', {
    posts: POSTS,
    seconds: Number(seconds.toFixed(1)),
    rejectedWebhooks: rejected,
    countRows,
    kept: counts.kept,
    counted: counts.counted,
    bytes,
    size: kib(bytes),
  });
  assert.equal(rejected, 1000, 'the newest 1,000 kept');
  assert.equal(counts.kept + counts.counted, POSTS, 'every refusal kept or counted');
  assert.ok(counts.counted > 0, 'past 60 a minute, counted');
  assert.ok(countRows <= 2 * 1440, 'a count row per minute and kind, for a day at most');
  assert.ok(bytes < SQLITE_MAX_BYTES, `${kib(bytes)} within the documented bound`);
});

test(
  '10,000 forged webhooks on PostgreSQL at full speed: 60 a minute kept, the rest counted',
  {skip: PG_SKIP},
  async (t) => {
    const schema = schemaName('reject_flood');
    const store = new PostgresPaymentStore({connectionString: PG_TEST_URL, schema});
    const app = companion(store);
    const {statuses, seconds} = await flood(app);
    const counts = await app.rejectedWebhookCounts();
    await app.close();
    await store.close();
    assert.deepEqual(statuses, {403: POSTS}, 'every forged post refused');
    const [f] = await pgQuery<Record<string, number>>(
      `SELECT
        (SELECT COUNT(*)::int FROM ${schema}.rejected_webhooks) AS rejected,
        (SELECT COUNT(*)::int FROM ${schema}.pg_guard_counts) AS "countRows",
        (pg_total_relation_size('${schema}.rejected_webhooks')
          + pg_total_relation_size('${schema}.pg_guard_counts'))::int AS bytes`,
    );
    const minutes = Math.ceil(seconds / 60) + 1;
    report(t, 'PostgreSQL', {
      posts: POSTS,
      seconds: Number(seconds.toFixed(1)),
      rejectedWebhooks: f!['rejected'],
      countRows: f!['countRows'],
      kept: counts.kept,
      counted: counts.counted,
      bytes: f!['bytes'],
      size: kib(f!['bytes']!),
    });
    assert.ok(f!['rejected']! <= Math.min(1000, 60 * minutes), 'the minute rate, the row cap');
    assert.equal(counts.kept + counts.counted, POSTS, 'every refusal kept or counted');
    assert.ok(f!['bytes']! < PG_MAX_BYTES, `${kib(f!['bytes']!)} within the documented bound`);
  },
);
