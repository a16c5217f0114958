// Runs the Node test suites: every test/node/**/*.test.ts through Node's test runner with
// tsx. Node 20 does not expand globs for --test, so the files are found here. Arguments
// narrow the run to files whose path contains one of them (`npm run test:node -- webhook`).
//
//   node scripts/run-node-tests.mjs [--unit | --integration | --rest | --site] [--watch] [filter…]
//
// The tiers, by what a test needs (the files' tiers are named in SLOW_TIERS below; a file
// named nowhere is a unit test):
// - `--unit` (`npm run test:unit`): in-process only — no child process, no PostgreSQL server,
//   no network beyond loopback inside the test's own process — two files at a time: the loop
//   a contributor runs after each change. `npm run lint` checks that its files reach neither
//   a child process nor PostgreSQL (scripts/check-test-tiers.mjs), and the run refuses to
//   start a child process (test/node/unit-guard.mjs). A file with a PostgreSQL half besides
//   its SQLite one (POSTGRES_HALVES) runs here with that half skipped (TEST_TIER=unit).
// - `--integration` (`npm run test:integration`): several processes, PostgreSQL, PgBouncer,
//   the example as a process; and the PostgreSQL halves of POSTGRES_HALVES (their in-process
//   halves skipped: the unit tier ran them). In two lanes of one file at a time: the files
//   that hold many PostgreSQL connections in one (MANY_CONNECTIONS), the others in the other.
// - `--site`: the documentation site (docs/site.test.ts), built and checked in Chromium.
// - `--rest`: the other slow tiers — type-checks, packaging, documentation, and the Node
//   tests that drive Chromium (one Chromium for the run, which those files share).
// - no tier flag (`npm run test:node`): every file, each whole.
// `--watch` (`npm run test:watch`: the unit tier) keeps running and, when a file changes,
// runs again the test files that import it (Node's --watch follows each file's imports,
// through tsx); a new test file needs a restart. One file alone, the fastest loop, runs all
// of it: `node --import tsx --test test/node/checkout/app.test.ts`. `npm test` runs every tier.
//
// The PostgreSQL suites need a server at PG_TEST_URL (default the local one): without
// one they are skipped, said here in one line — unless PG_TEST_REQUIRED=1 (.ci/run), where
// the suites fail instead.
import {spawn} from 'node:child_process';
import {readFileSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {launchChromiumServer, SHARED_CHROMIUM_ENV} from './chromium.mjs';
import {timesReporterArgs} from './test-times-reporter.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The files `--unit` leaves out, each a path or a folder under test/node/ with its tier:
 * 'integration' (`--integration`), or another slow tier (`--rest`). What is left is the unit
 * tier: the modules in-process, over loopback HTTP inside the test's process, on SQLite
 * files, against the in-process sandbox.
 */
export const SLOW_TIERS = {
  // Documentation: builds the site with VitePress and drives it in Chromium (a tier of its
  // own, `--site`: npm test runs it beside the integration tier, which leaves a core free);
  // type-checks every code block and runs the snippets in a merchant's project; runs
  // `changeset version`.
  'docs/site.test.ts': 'site',
  'docs/code-blocks.test.ts': 'type-check',
  'docs/changelog.test.ts': 'docs',
  // Every link of the README and the docs, against the files git tracks (git ls-files).
  'docs/links.test.ts': 'docs',
  'readme/snippets.test.ts': 'type-check',
  // Packaging: reads the package build (dist/), which `npm run build` writes.
  'build/': 'packaging',
  // Frameworks: tsc over every framework's JSX typings; the React example built with Vite
  // and paid in Chromium; React's server rendering hydrated in Chromium.
  'frameworks/types.test.ts': 'type-check',
  'frameworks/example.test.ts': 'end-to-end',
  'frameworks/ssr.test.ts': 'end-to-end',
  // End to end: Chromium on the sandbox's 3-D Secure page.
  'sandbox/browser.test.ts': 'end-to-end',
  // Chromium pays the built card form through the demo shop with an OpenTelemetry SDK.
  'telemetry/browser-trace.test.ts': 'end-to-end',
  // Integration: the example, the companion and the benchmarks' children as real processes,
  // started, killed, restarted and shut down; a flood of 10,000 webhooks, at the example and
  // at the companion; several instances on one PostgreSQL database, through PgBouncer.
  'checkout/multi-instance.test.ts': 'integration',
  'checkout/multi-instance-pgbouncer.test.ts': 'integration',
  'checkout/multiprocess.test.ts': 'integration',
  'checkout/rejected-webhooks-flood.test.ts': 'integration',
  'checkout/security-reports-flood.test.ts': 'integration',
  'example/two-machines.test.ts': 'integration',
  'example/shutdown.test.ts': 'integration',
  'example/shutdown-accept.test.ts': 'integration',
  'example/server-timeouts.test.ts': 'integration',
  'example/webhook-flood.test.ts': 'integration',
  'example/database-env.test.ts': 'integration',
  // A real Prometheus (Debian's package) scraping the example during payments.
  'example/prometheus.test.ts': 'integration',
  // The back office's health page in Chromium, over two instances on one PostgreSQL.
  'example/health-page.test.ts': 'integration',
  'example/main-log.test.ts': 'integration',
  'bench/children.test.ts': 'integration',
  // Integration: a companion killed mid-payment and restarted (crash-unconfirmed), two
  // instances sent SIGTERM mid-rush (graceful-close), the migrations run from a second
  // process (postgres-store), the example as a process (connections), the sandbox's command
  // line (cli); PostgreSQL alone: a pool held across the gateway, the database going away,
  // PgBouncer in transaction mode.
  'checkout/crash-unconfirmed.test.ts': 'integration',
  'checkout/graceful-close.test.ts': 'integration',
  'checkout/postgres-store.test.ts': 'integration',
  'checkout/pool-across-gateway.test.ts': 'integration',
  'checkout/store-unavailable.test.ts': 'integration',
  'checkout/pgbouncer.test.ts': 'integration',
  'checkout/pg-statements.test.ts': 'integration',
  'checkout/pg-first-statement.test.ts': 'integration',
  'example/connections.test.ts': 'integration',
  'sandbox/cli.test.ts': 'integration',
};

/**
 * Unit-tier files with a PostgreSQL half beside their in-process one, reached only through
 * test/node/checkout/postgres.ts: the unit tier runs them with that half skipped, and the
 * integration tier runs them again with only that half (`PG_TIER_SKIP`, `IN_PROCESS_SKIP` in
 * postgres.ts). scripts/check-test-tiers.mjs keeps this list exact.
 */
export const POSTGRES_HALVES = [
  'checkout/card-testing.test.ts',
  'checkout/guard-tables-upgrade.test.ts',
  'checkout/migrations.test.ts',
  'checkout/never-double.test.ts',
  'checkout/saved-card-limits.test.ts',
  'checkout/saved-cards-store.test.ts',
  'checkout/security-reports.test.ts',
  'checkout/store-drift.test.ts',
  'checkout/store.test.ts',
  'checkout/stored-tokens.test.ts',
  'checkout/token-migration.test.ts',
];

/**
 * The integration files that hold many PostgreSQL connections at once (several instances,
 * each with its pools; floods): the integration tier runs them one after another in one
 * lane, and the other integration files in a second lane beside it, so that the server's
 * 100 connections are never asked of two such files at once. The tier spends most of its
 * time waiting (processes starting and closing, leases running out), so two lanes take
 * about half the time of one.
 */
export const MANY_CONNECTIONS = [
  'checkout/multi-instance.test.ts',
  'checkout/multi-instance-pgbouncer.test.ts',
  'checkout/rejected-webhooks-flood.test.ts',
  'checkout/security-reports-flood.test.ts',
  'example/two-machines.test.ts',
  'example/shutdown.test.ts',
  'example/webhook-flood.test.ts',
  'example/health-page.test.ts',
];

for (const f of MANY_CONNECTIONS) {
  if (SLOW_TIERS[f] !== 'integration') {
    throw new Error(`MANY_CONNECTIONS: ${f} is not an integration file of SLOW_TIERS`);
  }
}

/** The tier of a file under test/node/: 'unit', 'integration', or another slow tier's name. */
export function tierOf(file) {
  const slow = Object.keys(SLOW_TIERS).find((prefix) => file.startsWith(prefix));
  return slow ? SLOW_TIERS[slow] : 'unit';
}

/**
 * The test files of a run: all (`tier` undefined), one tier's ('unit', 'integration' — with
 * the POSTGRES_HALVES — 'site' or 'rest'); narrowed by `filters` (parts of paths).
 */
export function testFiles({tier, unit = false, filters = []} = {}) {
  const wanted = tier ?? (unit ? 'unit' : undefined);
  return readdirSync(path.join(root, 'test/node'), {recursive: true})
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => {
      const t = tierOf(f);
      if (wanted === undefined) return true;
      if (wanted === 'integration') return t === 'integration' || POSTGRES_HALVES.includes(f);
      if (wanted === 'rest') return t !== 'unit' && t !== 'integration' && t !== 'site';
      return t === wanted;
    })
    .map((f) => path.join('test/node', f))
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}

async function main(args) {
  const tier = ['unit', 'integration', 'rest', 'site'].find((t) => args.includes(`--${t}`));
  const watch = args.includes('--watch');
  const filters = args.filter((a) => !/^--(?:unit|integration|rest|site|watch)$/.test(a));
  const files = testFiles({tier, filters});

  if (files.length === 0) {
    console.error('run-node-tests: no test files found under test/node');
    process.exit(1);
  }

  const PG_TEST_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

  /** Why the PostgreSQL suites cannot run here, or undefined when the server answers. */
  async function postgresMissing() {
    if (process.env.PG_TEST_REQUIRED === '1') return undefined;
    const {default: pg} = await import('pg');
    const client = new pg.Client({connectionString: PG_TEST_URL, connectionTimeoutMillis: 3000});
    try {
      await client.connect();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  // postgres.ts reads the tier: the unit tier skips the PostgreSQL halves without asking the
  // server; the integration tier skips the in-process halves the unit tier ran.
  const env = {...process.env, TEST_TIER: tier ?? 'all'};
  if (tier === 'unit') {
    // No PostgreSQL in the unit tier: a test that connects anyway meets no server.
    env.PG_TEST_URL = 'postgres://unit-tier-has-no-postgresql.invalid/test';
  }
  const missing = tier === 'unit' ? undefined : await postgresMissing();
  if (missing) {
    env.PG_TEST_SKIP = `no PostgreSQL at ${PG_TEST_URL} (${missing})`;
    console.log(
      `PostgreSQL suites skipped: no server at ${PG_TEST_URL} (${missing}); start PostgreSQL or set PG_TEST_URL, then npm run test:node -- postgres store multi-instance`,
    );
  }

  // One Chromium for the run: the files that drive a browser connect to it (sharedChromium()
  // in scripts/chromium.mjs) rather than each launching its own. Not in watch mode, which
  // would outlive it; not when a parent run (npm test) already names one.
  const usesChromium =
    !watch &&
    !process.env[SHARED_CHROMIUM_ENV] &&
    files.some((f) => readFileSync(path.join(root, f), 'utf8').includes('sharedChromium('));
  const chromiumServer = usesChromium ? await launchChromiumServer() : undefined;
  if (chromiumServer) env[SHARED_CHROMIUM_ENV] = chromiumServer.wsEndpoint();

  const nodeArgs = (lane) => [
    ...(watch ? ['--watch'] : []),
    '--import',
    'tsx',
    // The unit tier refuses a child process in a test file's process.
    ...(tier === 'unit' ? ['--import', './test/node/unit-guard.mjs'] : []),
    '--test',
    '--test-reporter=spec',
    // `npm test` gathers each file's time (scripts/test-times-reporter.mjs).
    ...timesReporterArgs(),
    // The unit tier's files wait on loopback more than they compute: two at a time. Not
    // --test-force-exit (a file's process ended once its tests were done, not its last
    // timer): on a loaded machine it once ended a file mid-test, and the run counted 9 tests
    // fewer and no failure.
    ...(tier === 'unit' ? ['--test-concurrency=2'] : []),
    // Nothing waits forever: a test awaits its event (a process's line or exit, a poll's
    // answer) with no deadline of its own (a deadline on a loaded machine would decide the
    // result); one that hangs is ended here, after 10 minutes (a guard, not a measure: it
    // covers a whole file too, and the slowest take minutes on a loaded machine). Not the
    // site tier: docs/site.test.ts alone took over 10 minutes at load 20 (131 s quiet).
    ...(watch || tier === 'site' ? [] : ['--test-timeout=600000']),
    ...lane,
  ];
  // The integration tier in two lanes side by side (MANY_CONNECTIONS): the first's output
  // as it comes, the second's when it ends.
  const many = (f) => MANY_CONNECTIONS.some((m) => f === path.join('test/node', m));
  const lanes =
    tier === 'integration' && !watch
      ? [files.filter(many), files.filter((f) => !many(f))].filter((l) => l.length > 0)
      : [files];
  const codes = await Promise.all(
    lanes.map(
      (lane, i) =>
        new Promise((resolve) => {
          const live = i === 0;
          const child = spawn(process.execPath, nodeArgs(lane), {
            cwd: root,
            stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
            env,
          });
          const kept = [];
          child.stdout?.on('data', (chunk) => kept.push([process.stdout, chunk]));
          child.stderr?.on('data', (chunk) => kept.push([process.stderr, chunk]));
          child.on('close', (code, signal) => {
            for (const [stream, chunk] of kept) stream.write(chunk);
            resolve(signal ? 1 : (code ?? 1));
          });
        }),
    ),
  );
  await chromiumServer?.close();
  process.exit(codes.find((c) => c !== 0) ?? 0);
}
