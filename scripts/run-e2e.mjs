// Runs the end-to-end suite (test/e2e/*.test.ts): builds what the demo serves if needed,
// starts ONE demo server exactly as `npm start` does (server-example/main.ts as a child
// process, embedded sandbox, a temporary DATA_DIR, a free port) with every output line
// captured to a log file, runs the test files one after the other with Node's test runner
// and tsx (then card-data.test.ts: it searches that log and the SQLite file), then stops
// the server. Arguments narrow the run to files whose name contains one of them;
// card-data.test.ts then runs only when one of them names it, since what it proves (no card
// data anywhere after the suite paid with every test card) needs the payments of the suite:
// after a few files it would find too little to search and fail for that.
import {execFileSync, spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {timesReporterArgs} from './test-times-reporter.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const filters = process.argv.slice(2);
const LAST = 'card-data.test.ts';

const build = (script, args = []) =>
  execFileSync(process.execPath, [script, ...args], {stdio: 'inherit'});
// Under `npm test` the whole package, the demo's scripts included, has just been built.
if (process.env.PG_TEST_BUILT !== '1')
  build(
    'scripts/build.mjs',
    existsSync('dist/cdn/pg-checkout-hydrate.js') ? ['demo'] : ['cdn', 'cdn-hydrate', 'demo'],
  );

/** Whether the card-data check runs: always for the whole suite, else when it is named. */
const runLast = filters.length === 0 || filters.some((x) => LAST.includes(x));
const files = readdirSync('test/e2e')
  .filter((f) => f.endsWith('.test.ts') && f !== LAST)
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()
  .map((f) => path.join('test/e2e', f));

const dataDir = mkdtempSync(path.join(tmpdir(), 'pg-e2e-'));
const logFile = path.join(dataDir, 'server.log');
writeFileSync(logFile, '');
const adminToken = `e2e-${randomBytes(12).toString('hex')}`;

const server = spawn(process.execPath, ['--import', 'tsx', 'server-example/main.ts'], {
  env: {
    ...process.env,
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    // Every order of the suite comes from 127.0.0.1: more than the default 30 per 10 minutes.
    ORDER_LIMIT: '10000',
    // ...and every payment attempt: more than the companion's default card-testing limits.
    PAY_ATTEMPTS_PER_IP: '10000',
    PAY_ATTEMPTS_PER_ORDER: '1000',
    PAY_ATTEMPTS_PER_CARD: '10000',
    // ...and every checkout page asks for its order (total, saved cards).
    ORDER_LOOKUPS_PER_IP: '10000',
    SANDBOX_REPORT_DELAY_MS: '2500',
    SANDBOX_WEBHOOK_DUPLICATE_RATE: '0.1',
    GATEWAY_BASE_URL: '',
    PUBLIC_URL: '',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});

let banner = '';
const ready = new Promise((resolve, reject) => {
  const onData = (chunk) => {
    appendFileSync(logFile, chunk);
    if (banner !== undefined) {
      banner += chunk.toString();
      const shop = /Demo shop: (\S+)/.exec(banner);
      const sandbox = /Embedded gateway sandbox: (\S+)/.exec(banner);
      if (shop && sandbox) {
        banner = undefined;
        resolve({base: shop[1], sandbox: sandbox[1]});
      }
    }
  };
  server.stdout.on('data', onData);
  server.stderr.on('data', onData);
  server.once('exit', (code) =>
    reject(new Error(`the demo server exited (${code}) before it was ready`)),
  );
  setTimeout(() => reject(new Error('the demo server did not start within 60 s')), 60_000).unref();
});

let code = 1;
try {
  const {base, sandbox} = await ready;
  console.log(`run-e2e: demo server ${base} (sandbox ${sandbox}), data ${dataDir}`);
  const started = Date.now();
  const runTests = (list) =>
    new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--test', '--test-reporter=spec', ...timesReporterArgs(), ...list],
        {
          stdio: 'inherit',
          env: {
            ...process.env,
            E2E_BASE_URL: base,
            E2E_SANDBOX_URL: sandbox,
            E2E_ADMIN_TOKEN: adminToken,
            E2E_DATA_DIR: dataDir,
            E2E_LOG_FILE: logFile,
          },
        },
      );
      child.on('exit', (c, signal) => resolve(signal ? 1 : (c ?? 1)));
    });
  // One file at a time (they share the server), then the card-data check over everything.
  let failed = 0;
  for (const file of files) failed += (await runTests([file])) === 0 ? 0 : 1;
  if (runLast) failed += (await runTests([path.join('test/e2e', LAST)])) === 0 ? 0 : 1;
  else console.log(`run-e2e: ${LAST} not run: it searches what the whole suite left`);
  code = failed === 0 ? 0 : 1;
  console.log(
    `run-e2e: ${files.length + (runLast ? 1 : 0)} files in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
} catch (error) {
  console.error(`run-e2e: ${error instanceof Error ? error.message : error}`);
  console.error(`run-e2e: server log:\n${banner ?? ''}`);
} finally {
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (code === 0) rmSync(dataDir, {recursive: true, force: true});
  else console.error(`run-e2e: kept ${dataDir} (server.log, payments.db) for inspection`);
}
process.exit(code);
