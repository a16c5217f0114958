// Runs the Node test suites: every test/node/**/*.test.ts through Node's test runner with
// tsx. Node 20 does not expand globs for --test, so the files are found here. Arguments
// narrow the run to files whose path contains one of them (`npm run test:node -- webhook`).
//
//   node scripts/run-node-tests.mjs [--unit] [--watch] [filter…]
//
// `--unit` (`npm run test:unit`) leaves out the slow tiers named in SLOW_TIERS below — the
// type-check, packaging, documentation and end-to-end suites — and runs what is left two
// files at a time: the loop a contributor runs after each change, in under two minutes.
// `--watch` (`npm run test:watch`: the unit tier) keeps running and, when a file changes,
// runs again the test files that import it (Node's --watch follows each file's imports,
// through tsx); a new test file needs a restart. One file alone, the fastest loop:
// `node --import tsx --test test/node/checkout/app.test.ts`. `npm test` runs every tier.
//
// The PostgreSQL suites need a server at PG_TEST_URL (default the local one): without
// one they are skipped, said here in one line — unless PG_TEST_REQUIRED=1 (.ci/run), where
// the suites fail instead.
import {spawn} from 'node:child_process';
import {readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The files `--unit` leaves out, each a path or a folder under test/node/ with its tier.
 * What is left is the unit tier: the modules in-process, over loopback HTTP, on SQLite files
 * and PostgreSQL, against the in-process sandbox.
 */
export const SLOW_TIERS = {
  // Documentation: builds the site with VitePress and drives it in Chromium; type-checks
  // every code block and runs the snippets in a merchant's project; runs `changeset version`.
  'docs/site.test.ts': 'docs',
  'docs/code-blocks.test.ts': 'type-check',
  'docs/changelog.test.ts': 'docs',
  'readme/snippets.test.ts': 'type-check',
  // Packaging: reads the package build (dist/), which `npm run build` writes.
  'build/': 'packaging',
  // Frameworks: tsc over every framework's JSX typings; the React example built with Vite
  // and paid in Chromium; React's server rendering hydrated in Chromium.
  'frameworks/types.test.ts': 'type-check',
  'frameworks/example.test.ts': 'end-to-end',
  'frameworks/ssr.test.ts': 'end-to-end',
  // End to end: Chromium on the sandbox's 3-D Secure page; the example, the companion and the
  // benchmarks' children as real processes, started, killed, restarted and shut down; a
  // flood of 10,000 webhooks, at the example and at the companion.
  'sandbox/browser.test.ts': 'end-to-end',
  'checkout/multi-instance.test.ts': 'end-to-end',
  'checkout/multi-instance-pgbouncer.test.ts': 'end-to-end',
  'checkout/multiprocess.test.ts': 'end-to-end',
  'checkout/rejected-webhooks-flood.test.ts': 'end-to-end',
  'example/two-machines.test.ts': 'end-to-end',
  'example/shutdown.test.ts': 'end-to-end',
  'example/webhook-flood.test.ts': 'end-to-end',
  'example/database-env.test.ts': 'end-to-end',
  // A real Prometheus (Debian's package) scraping the example during payments.
  'example/prometheus.test.ts': 'end-to-end',
  'example/main-log.test.ts': 'end-to-end',
  'bench/children.test.ts': 'end-to-end',
};

/** The test files of a run: all, or the unit tier's; narrowed by `filters` (parts of paths). */
export function testFiles({unit = false, filters = []} = {}) {
  return readdirSync(path.join(root, 'test/node'), {recursive: true})
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => !unit || !Object.keys(SLOW_TIERS).some((slow) => f.startsWith(slow)))
    .map((f) => path.join('test/node', f))
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}

async function main(args) {
  const unit = args.includes('--unit');
  const watch = args.includes('--watch');
  const filters = args.filter((a) => a !== '--unit' && a !== '--watch');
  const files = testFiles({unit, filters});

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

  const env = {...process.env};
  const missing = await postgresMissing();
  if (missing) {
    env.PG_TEST_SKIP = `no PostgreSQL at ${PG_TEST_URL} (${missing})`;
    console.log(
      `PostgreSQL suites skipped: no server at ${PG_TEST_URL} (${missing}); start PostgreSQL or set PG_TEST_URL, then npm run test:node -- postgres store multi-instance`,
    );
  }

  const child = spawn(
    process.execPath,
    [
      ...(watch ? ['--watch'] : []),
      '--import',
      'tsx',
      '--test',
      '--test-reporter=spec',
      // The unit tier's files wait on loopback more than they compute: two at a time.
      ...(unit ? ['--test-concurrency=2'] : []),
      ...files,
    ],
    {cwd: root, stdio: 'inherit', env},
  );
  child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
}
