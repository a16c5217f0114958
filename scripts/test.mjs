// `npm test`: every tier — unit (test:unit), integration (test:integration), the
// documentation site (site), the other Node tiers (type-checks, packaging, documentation,
// the Node tests that drive Chromium), browser
// (test:browser), the packed package as merchants install it (test:pack), end-to-end
// (test:e2e) — after ONE build of the package, which every tier then reads (PG_TEST_BUILT=1
// tells the runners not to build again). The tiers run in phases (PHASES below): in a phase,
// lanes of tiers side by side, as they share no resource; each phase after the last. A tier
// that fails does not stop the others: they all run, and the run exits non-zero.
//
// At the end: each tier's time and counts, the ten slowest test files of every tier (each
// runner appends its files' times to PG_TEST_TIMES: scripts/test-times-reporter.mjs,
// scripts/wtr-times-reporter.mjs), the tests that failed with their errors' first lines
// (the same reporters append them: CI shows the end of the output), and one closing
// line that counts the tests of all tiers, `all suites: N passed, N failed` (then `, N
// skipped` when some were; CI reads that shape). Cancelled tests (cut short: a timeout, a
// parent that failed) count as failed; todo tests count as skipped. A tier that failed
// without a count of failed tests still adds one.
//
// `PG_TEST_SERIAL=1` runs the tiers one after another, their output passed through as it
// comes. `PG_TEST_BUILT=1` (the build has just run) skips the build here too.
// `PG_CI_STEPS=name=seconds,…` (.ci/run: npm ci, lint) puts those steps' times at the top
// of the table, so that the end of CI's output has every step's time.
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {
  closingLine,
  counter,
  failureReport,
  failures,
  newTally,
  slowestFiles,
} from './test-summary.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The tiers, each with the command that runs it. */
const TIERS = {
  unit: [npm, ['run', '--silent', 'test:unit']],
  integration: [npm, ['run', '--silent', 'test:integration']],
  'node-rest': [process.execPath, ['scripts/run-node-tests.mjs', '--rest']],
  site: [process.execPath, ['scripts/run-node-tests.mjs', '--site']],
  browser: [npm, ['run', '--silent', 'test:browser']],
  pack: [npm, ['run', '--silent', 'test:pack']],
  e2e: [npm, ['run', '--silent', 'test:e2e']],
};

/**
 * The order of the run: PHASES one after another; in a phase, its lanes side by side, each
 * lane's tiers one after another. Every tier but integration keeps the two cores of the
 * machine busy much of its time; the phases are laid out by what each must not share:
 * - integration (processes with start and close deadlines, the PostgreSQL test database's
 *   server) leaves a core free most of its time (it waits on processes and leases), so the
 *   documentation site (site: VitePress and axe in its own Chromium, temporary folders) runs
 *   beside it; nothing else does.
 * - browser (its own server on a free port, three engines, WebKit in a private X display)
 *   alone: it keeps both cores busy by itself.
 * - the rest share nothing: unit (in-process, temporary folders), node-rest (type-checks,
 *   the build's files, its own Chromium) and e2e (the demo on a free port, a temporary
 *   DATA_DIR, Chromium) one after another, beside pack (a copy of the tree in a temporary
 *   folder, installs and bundles, its own Chromium).
 */
const PHASES = [
  [['unit', 'node-rest', 'e2e'], ['pack']],
  [['integration'], ['site']],
  [['browser']],
];

/**
 * Runs one tier, counting what its runners print; its output goes to `out` as it comes
 * (live) or is kept and written whole when the tier ends (beside another tier).
 */
function runTier(name, {live, env}) {
  const tally = newTally(name);
  const [command, args] = TIERS[name];
  const started = performance.now();
  const kept = [];
  const write = (text) => (live ? process.stdout.write(text) : kept.push(text));
  if (!live) console.log(`npm test: ${name} started (its output follows when it ends)`);
  else console.log(`\n── ${name} ──`);
  return new Promise((resolve) => {
    const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe'], env});
    const count = counter(tally);
    let pending = '';
    child.stdout.on('data', (chunk) => {
      write(chunk);
      const lines = (pending + chunk.toString('utf8')).split(/\r?\n|\r/);
      pending = lines.pop() ?? '';
      lines.forEach(count.line);
    });
    child.stderr.on('data', (chunk) => (live ? process.stderr.write(chunk) : kept.push(chunk)));
    child.on('close', (code, signal) => {
      count.line(pending);
      count.end();
      tally.ms = performance.now() - started;
      tally.code = signal ? 1 : (code ?? 1);
      if (!live) {
        console.log(`\n── ${name} ──`);
        for (const text of kept) process.stdout.write(text);
      }
      console.log(`npm test: ${name} ${tally.code === 0 ? 'passed' : 'FAILED'}`);
      resolve(tally);
    });
  });
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
/** A test file's path as the runners give it, from the project's folder. */
const relative = (file) => path.relative(process.cwd(), file);

async function main() {
  const serial = process.env.PG_TEST_SERIAL === '1';
  const scratch = mkdtempSync(path.join(tmpdir(), 'pg-npm-test-'));
  const timesFile = path.join(scratch, 'times.jsonl');
  const tallies = [];

  const buildStarted = performance.now();
  if (process.env.PG_TEST_BUILT !== '1') {
    console.log('npm test: building the package once (npm run build); every tier reads it');
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], {stdio: 'inherit'});
    const build = newTally('build');
    build.ms = performance.now() - buildStarted;
    build.code = built.status ?? 1;
    tallies.push(build);
    if (build.code !== 0) {
      // Every tier reads the build: without it they would only fail for that reason.
      console.log('\nnpm test: the build failed; no tier ran');
      console.log(`\nall suites: 0 passed, 1 failed`);
      process.exit(1);
    }
  }
  const env = {...process.env, PG_TEST_BUILT: '1', PG_TEST_TIMES: timesFile};

  const started = performance.now();
  const phases = serial ? PHASES.flat(2).map((t) => [[t]]) : PHASES;
  for (const lanes of phases) {
    const live = lanes.length === 1;
    const results = await Promise.all(
      lanes.map(async (lane) => {
        const done = [];
        for (const name of lane) done.push(await runTier(name, {live, env}));
        return done;
      }),
    );
    tallies.push(...results.flat());
  }
  const total = performance.now() - started;

  console.log('\nnpm test: tiers');
  // The steps of .ci/run before this one, `name=seconds,…`, first in the table.
  for (const step of (process.env.PG_CI_STEPS ?? '').split(',').filter(Boolean)) {
    const [name, s] = step.split('=');
    console.log(`  ${name.padEnd(12)} ${seconds(Number(s) * 1000).padStart(8)}  (.ci/run)`);
  }
  for (const t of tallies) {
    const counts =
      t.name === 'build'
        ? ''
        : `${t.passed} passed, ${t.failed} failed, ${t.cancelled} cancelled, ${t.skipped} skipped, ${t.todo} todo`;
    console.log(
      `  ${t.name.padEnd(12)} ${seconds(t.ms).padStart(8)}  ${t.code === 0 ? 'ok    ' : 'FAILED'}  ${counts}`,
    );
  }
  console.log(
    `  ${'all tiers'.padEnd(12)} ${seconds(total).padStart(8)}  (${phases.map((lanes) => lanes.map((l) => l.join(' → ')).join(' beside ')).join(', then ')})`,
  );

  let times = '';
  try {
    times = readFileSync(timesFile, 'utf8');
  } catch {
    // no Node tier wrote a time
  }
  const slow = slowestFiles(times);
  if (slow.length > 0) {
    console.log(
      '\nnpm test: the ten slowest test files of the run (a whole file; a browser file per engine)',
    );
    for (const [file, ms] of slow) console.log(`  ${seconds(ms).padStart(8)}  ${relative(file)}`);
  }
  rmSync(scratch, {recursive: true, force: true});

  const failedTests = failures(times);
  if (failedTests.length > 0) {
    console.log(
      `\nnpm test: the tests that failed (${failedTests.length}; each with its error's first lines)`,
    );
    console.log(failureReport(failedTests.map((f) => ({...f, file: relative(f.file)}))));
  }
  const failedTiers = tallies.filter((t) => t.code !== 0).map((t) => t.name);
  if (failedTiers.length > 0) console.log(`\nnpm test: failed tiers: ${failedTiers.join(', ')}`);
  const {line, failed} = closingLine(tallies.filter((t) => t.name !== 'build'));
  console.log(`\n${line}`);
  process.exit(failedTiers.length > 0 || failed > 0 ? 1 : 0);
}

await main();
