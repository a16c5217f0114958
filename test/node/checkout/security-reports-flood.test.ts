/**
 * A CSP report is an unauthenticated write, bounded shop-wide (issue 35), proven over real
 * HTTP on 127.0.0.1: a flood of large reports from 200 client addresses (each its own
 * loopback address, 127.0.1.1 to 127.0.1.200, bound with `localAddress`) leaves the
 * reports table within its rows and bytes (the newest kept, the rest counted) on a SQLite
 * file and on PostgreSQL; two companion apps on one SQLite file, or one PostgreSQL schema,
 * share each address's budget; and the address is the one `trustProxy` reads from
 * `X-Forwarded-For`, IPv6 grouped by its /64. Figures (rows, bytes, kept, counted, refused)
 * are printed as diagnostics.
 */
import {after, describe, test, type TestContext} from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import {createAdaptorServer} from '@hono/node-server';
import {
  PostgresPaymentStore,
  PostgresSecurityReportStore,
  SqliteSecurityReportStore,
  type CheckoutApp,
  type CheckoutAppOptions,
  type PaymentStore,
  type SecurityReportStore,
} from '../../../src/server/index.js';
import {StubGateway, inProcessApp, tempStores} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

const ADDRESSES = 200;
const REPORTS_PER_ADDRESS = 60;
/** Reports per request: a Reporting API batch, as Chromium sends several at once. */
const BATCH = 10;
const CONCURRENCY = 16;
const MAX_ROWS = 1000;
const MAX_BYTES = 1024 * 1024;

const stores = tempStores('pg-report-flood');
after(async () => {
  await stores.cleanup();
  await dropSchemas();
});

/** A large violation report (about 3.5 kB once stored), unique by `n`. */
function bigReport(n: number) {
  return {
    type: 'csp-violation',
    age: 1,
    url: `https://shop.example/checkout/${n}`,
    user_agent: `Mozilla/5.0 (flood) ${'U'.repeat(280)}`,
    body: {
      documentURL: `https://shop.example/checkout/p${n}/${'d'.repeat(450)}`,
      blockedURL: `https://evil.example/b${n}/${'b'.repeat(450)}`,
      effectiveDirective: 'script-src-elem',
      originalPolicy: `default-src 'none'; ${'p'.repeat(1990)}`,
      disposition: 'enforce',
      sourceFile: `https://shop.example/s${n}/${'s'.repeat(450)}`,
      lineNumber: n,
      columnNumber: 1,
      sample: 'x'.repeat(100),
    },
  };
}

interface Answer {
  status: number;
}

/** One POST over a fresh connection from `from`, with `headers`. */
function post(
  url: string,
  body: string,
  opts: {from?: string; headers?: Record<string, string>} = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: {'Content-Type': 'application/reports+json', ...opts.headers},
      ...(opts.from ? {localAddress: opts.from} : {}),
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({status: res.statusCode ?? 0}));
    });
    req.end(body);
  });
}

/** Serves `app` on 127.0.0.1; answers its report URL and a closer. */
async function serve(app: CheckoutApp) {
  const server = createAdaptorServer({fetch: app.fetch});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/security-report`;
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every app's log lines, printed when a test fails. */
const logs: string[][] = [];

function companion(
  store: PaymentStore,
  reports: SecurityReportStore,
  overrides: Partial<CheckoutAppOptions> = {},
) {
  const made = inProcessApp(store, new StubGateway(), {
    clientIp: undefined,
    securityReports: {store: reports, maxRows: MAX_ROWS, maxBytes: MAX_BYTES},
    ...overrides,
  });
  logs.push(made.lines);
  return made.app;
}

/** 200 addresses × 60 large reports, in batches of 10, 16 requests at a time. */
async function flood(url: string) {
  const jobs: {from: string; body: string}[] = [];
  let n = 0;
  for (let round = 0; round < REPORTS_PER_ADDRESS / BATCH; round++) {
    for (let a = 1; a <= ADDRESSES; a++) {
      const batch = Array.from({length: BATCH}, () => bigReport(n++));
      jobs.push({from: `127.0.1.${a}`, body: JSON.stringify(batch)});
    }
  }
  const statuses: Record<number, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({length: CONCURRENCY}, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const {status} = await post(url, job.body, {from: job.from});
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return {statuses, reports: n};
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function report(t: TestContext, what: string, figures: Record<string, unknown>) {
  t.diagnostic(`${what}: ${JSON.stringify(figures)}`);
}

/** The guard store's counts of kept and counted reports, summed over its minutes. */
function guardCounts(rows: {name: string; n: number | string}[]) {
  const of = (name: string) => Number(rows.find((r) => r.name === name)?.n ?? 0);
  return {kept: of('security-report-kept'), counted: of('security-report-counted')};
}

describe('a flood of reports from 200 addresses', () => {
  test('on SQLite, over an hour of the app’s time: the table stays within its rows and bytes, the rest counted', async (t) => {
    const store = stores.open('flood');
    const [file] = stores.files();
    const reports = new SqliteSecurityReportStore({filename: file!});
    // The app's clock moves 100 ms at each reading, so the flood spans many minutes of
    // the app's time and the caps are reached, not only one minute's rate.
    const clock = {ms: Date.parse('2031-03-01T09:00:00Z')};
    const app = companion(store, reports, {clock: () => (clock.ms += 100)});
    const served = await serve(app);
    const {statuses, reports: sent} = await flood(served.url);
    await served.close();
    await app.close();
    await reports.close();
    await store.close();

    const db = new Database(file!, {readonly: true});
    const one = (sql: string) => db.prepare(sql).get() as Record<string, number>;
    const rows = one('SELECT count(*) AS n FROM pg_security_reports').n!;
    const bytes = one(
      'SELECT coalesce(sum(length(CAST(report AS BLOB)) + length(key)), 0) AS n FROM pg_security_reports',
    ).n!;
    const pages = one(
      `SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat
        WHERE name IN ('pg_security_reports', 'sqlite_autoindex_pg_security_reports_1')`,
    ).n!;
    const counts = guardCounts(
      db.prepare(`SELECT name, sum(count) AS n FROM pg_guard_counts GROUP BY name`).all() as {
        name: string;
        n: number;
      }[],
    );
    const addressRows = one(
      `SELECT count(*) AS n FROM pg_guard_counts WHERE name LIKE 'security-report:from:%'`,
    ).n!;
    db.close();
    report(t, 'SQLite', {
      sent,
      statuses,
      rows,
      reportBytes: kib(bytes),
      tablePages: kib(pages),
      ...counts,
      addressRows,
    });
    assert.ok((statuses[204] ?? 0) > 0, 'reports were accepted');
    assert.ok(rows > 0, 'reports were kept');
    assert.ok(rows <= MAX_ROWS, `at most ${MAX_ROWS} rows (${rows})`);
    assert.ok(bytes <= MAX_BYTES, `at most ${kib(MAX_BYTES)} of reports (${kib(bytes)})`);
    assert.ok(pages <= 2 * MAX_BYTES, `the table's pages within twice that (${kib(pages)})`);
    const accepted = (statuses[204] ?? 0) * BATCH;
    assert.equal(counts.kept + counts.counted, accepted, 'every accepted report kept or counted');
    assert.ok(counts.counted > 0, 'the excess was counted');
    assert.ok(addressRows <= ADDRESSES, `a count row per address at most (${addressRows})`);
  });

  test(
    'on PostgreSQL: the table stays within its rows and bytes, the rest counted',
    {skip: PG_SKIP},
    async (t) => {
      const schema = schemaName('report_flood');
      const store = new PostgresPaymentStore({connectionString: PG_TEST_URL, schema});
      const reports = new PostgresSecurityReportStore({pool: store.pool, schema});
      const clock = {ms: Date.parse('2031-03-01T09:00:00Z')};
      const app = companion(store, reports, {clock: () => (clock.ms += 100)});
      const served = await serve(app);
      const {statuses, reports: sent} = await flood(served.url);
      await served.close();
      await app.close();
      const q = async (sql: string) => (await store.pool.query(sql)).rows;
      const [{rows, bytes}] = (await q(
        `SELECT count(*)::int AS rows,
         coalesce(sum(octet_length(report::text) + octet_length(key)), 0)::int AS bytes
       FROM "${schema}".pg_security_reports`,
      )) as [{rows: number; bytes: number}];
      const [{size}] = (await q(
        `SELECT pg_total_relation_size('"${schema}".pg_security_reports')::int AS size`,
      )) as [{size: number}];
      const counts = guardCounts(
        (await q(
          `SELECT name, sum(count) AS n FROM "${schema}".pg_guard_counts GROUP BY name`,
        )) as {name: string; n: string}[],
      );
      await store.close();
      report(t, 'PostgreSQL', {
        sent,
        statuses,
        rows,
        reportBytes: kib(bytes),
        relationSize: kib(size),
        ...counts,
      });
      assert.ok(rows > 0 && rows <= MAX_ROWS, `between 1 and ${MAX_ROWS} rows (${rows})`);
      assert.ok(bytes <= MAX_BYTES, `at most ${kib(MAX_BYTES)} of reports (${kib(bytes)})`);
      const accepted = (statuses[204] ?? 0) * BATCH;
      assert.equal(counts.kept + counts.counted, accepted, 'every accepted report kept or counted');
      assert.ok(counts.counted > 0, 'the excess was counted');
    },
  );
});

describe('one budget per client address, shop-wide', () => {
  const MAX = 5;
  const batch = (n: number, tag: string) =>
    JSON.stringify(Array.from({length: n}, (_, i) => bigReport(i)).map((r) => ({...r, url: tag})));

  /** Two apps on one database, each served; `MAX` reports to the first, one to the second. */
  async function twoInstances(make: () => {apps: CheckoutApp[]; close(): Promise<void>}) {
    const {apps, close} = make();
    const [a, b] = await Promise.all(apps.map(serve));
    try {
      const first = await post(a!.url, batch(MAX, 'a'), {from: '127.0.2.1'});
      const second = await post(b!.url, batch(1, 'b'), {from: '127.0.2.1'});
      const other = await post(b!.url, batch(1, 'c'), {from: '127.0.2.2'});
      return {first: first.status, second: second.status, other: other.status};
    } finally {
      await a!.close();
      await b!.close();
      for (const app of apps) await app.close();
      await close();
    }
  }

  // One minute of the apps' time: the budget is the minute's.
  const minute = Date.parse('2031-03-01T09:00:10Z');

  test('two companion apps on one SQLite file: the second refuses what the first used up', async () => {
    const result = await twoInstances(() => {
      const s1 = stores.open('two');
      const s2 = stores.open('two');
      const file = stores.files().find((f) => f.endsWith('two.db'))!;
      const r1 = new SqliteSecurityReportStore({filename: file});
      const r2 = new SqliteSecurityReportStore({filename: file});
      const options = (reports: SecurityReportStore) => ({
        clock: () => minute,
        securityReports: {store: reports, maxReportsPerMinute: MAX},
      });
      return {
        apps: [companion(s1, r1, options(r1)), companion(s2, r2, options(r2))],
        async close() {
          await r1.close();
          await r2.close();
        },
      };
    });
    assert.deepEqual(result, {first: 204, second: 429, other: 204});
  });

  test(
    'two companion apps on one PostgreSQL schema: the second refuses what the first used up',
    {skip: PG_SKIP},
    async () => {
      const schema = schemaName('report_two');
      const pools: pg.Pool[] = [];
      const result = await twoInstances(() => {
        const apps = [0, 1].map(() => {
          const store = new PostgresPaymentStore({connectionString: PG_TEST_URL, schema});
          pools.push(store.pool);
          const reports = new PostgresSecurityReportStore({pool: store.pool, schema});
          return companion(store, reports, {
            clock: () => minute,
            securityReports: {store: reports, maxReportsPerMinute: MAX},
          });
        });
        return {
          apps,
          async close() {
            for (const p of pools) await p.end().catch(() => undefined);
          },
        };
      });
      assert.deepEqual(result, {first: 204, second: 429, other: 204}, logs.flat().join(''));
    },
  );

  test('behind a trusted proxy the address is the forwarded one, an IPv6 address counted by its /64', async () => {
    const store = stores.open('proxy');
    const reports = new SqliteSecurityReportStore({connection: store.connection});
    const app = companion(store, reports, {
      clock: () => minute,
      trustProxy: 1,
      securityReports: {store: reports, maxReportsPerMinute: MAX},
    });
    const served = await serve(app);
    const from = (xff: string, n = 1) =>
      post(served.url, batch(n, xff), {headers: {'X-Forwarded-For': xff}}).then((a) => a.status);
    try {
      assert.equal(await from('2001:db8:1:2::a', MAX), 204, 'the first address’s budget');
      // The same /64: one customer line, one budget.
      assert.equal(await from('2001:db8:1:2:ffff:ffff:ffff:b'), 429);
      assert.equal(await from('2001:0db8:0001:0002::c'), 429, 'however it is written');
      // A client's own claim in front of the proxy's entry changes nothing.
      assert.equal(await from('198.51.100.9, 2001:db8:1:2::d'), 429);
      // Another /64, and an IPv4 address: budgets of their own.
      assert.equal(await from('2001:db8:1:3::a'), 204);
      assert.equal(await from('198.51.100.9', MAX - 1), 204);
      // A proxy that writes the port too: the same address.
      assert.equal(await from('198.51.100.9:4711'), 204);
      assert.equal(await from('198.51.100.9:4712'), 429);
    } finally {
      await served.close();
      await app.close();
    }
  });

  test('an address’s count row goes once its minute is over, whether or not it comes back', async () => {
    const store = stores.open('forget');
    const [file] = stores.files().filter((f) => f.endsWith('forget.db'));
    const reports = new SqliteSecurityReportStore({connection: store.connection});
    const clock = {ms: minute};
    const app = companion(store, reports, {clock: () => clock.ms, trustProxy: 1});
    const send = (xff: string) =>
      app.request('/security-report', {
        method: 'POST',
        headers: {'Content-Type': 'application/reports+json', 'X-Forwarded-For': xff},
        body: batch(1, xff),
      });
    for (let i = 1; i <= 50; i++) assert.equal((await send(`198.51.100.${i}`)).status, 204);
    clock.ms += 2 * 60_000;
    assert.equal((await send('203.0.113.1')).status, 204);
    await app.close();
    const db = new Database(file!, {readonly: true});
    const names = db
      .prepare(`SELECT name FROM pg_guard_counts WHERE name LIKE 'security-report:from:%'`)
      .all() as {name: string}[];
    db.close();
    assert.deepEqual(names, [{name: 'security-report:from:203.0.113.1'}]);
  });
});
