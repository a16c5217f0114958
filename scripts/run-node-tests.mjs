// Runs the Node test suites: every test/node/**/*.test.ts through Node's test runner with
// tsx. Node 20 does not expand globs for --test, so the files are found here. Arguments
// narrow the run to files whose path contains one of them (`npm run test:node -- webhook`).
// The PostgreSQL suites need a server at PG_TEST_URL (default the local one): without
// one they are skipped, said here in one line — unless PG_TEST_REQUIRED=1 (.ci/run), where
// the suites fail instead.
import {spawn} from 'node:child_process';
import {readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);
const files = readdirSync(path.join(root, 'test/node'), {recursive: true})
  .map((f) => path.join('test/node', String(f)))
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

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
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
  {cwd: root, stdio: 'inherit', env},
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
