// What `npm test` (scripts/test.mjs) counts and prints, apart from running the tiers, so
// that test/node/tiers/checks.test.ts can hold it to the runners' real output: the counts
// each runner prints, a tier's tally, the ten slowest files, the tests that failed with the
// first lines of their errors, and the closing line CI reads.
import {stripVTControlCharacters} from 'node:util';

/** What one tier counted and how long it took. */
export function newTally(name) {
  return {name, passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, ms: 0, code: 0};
}

/**
 * Adds up what the runners print: Node's runner ends with `ℹ pass N`, `ℹ fail N`,
 * `ℹ cancelled N`, `ℹ skipped N`, `ℹ todo N` (once per runner a tier starts);
 * web-test-runner redraws one progress line per engine, `Chromium: |…| 9/9 test files |
 * N passed, N failed[, N skipped]`, of which the last counts.
 */
export function counter(tally) {
  const engines = new Map();
  return {
    line(line) {
      const node = /^ℹ (pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
      if (node) {
        const key = {pass: 'passed', fail: 'failed'}[node[1]] ?? node[1];
        tally[key] += Number(node[2]);
        return;
      }
      const plain = stripVTControlCharacters(line); // without the cursor moves
      const wtr =
        /(\w+): *\|[^|]*\| *\d+\/\d+ test files \| (\d+) passed, (\d+) failed(?:, (\d+) skipped)?/.exec(
          plain,
        );
      if (wtr) engines.set(wtr[1], [Number(wtr[2]), Number(wtr[3]), Number(wtr[4] ?? 0)]);
    },
    end() {
      for (const [pass, fail, skip] of engines.values()) {
        tally.passed += pass;
        tally.failed += fail;
        tally.skipped += skip;
      }
    },
  };
}

/**
 * The reporters' lines, each a JSON object; a line that is not one (two runners' writes
 * run together) is left out rather than losing the end of the run.
 */
function records(text) {
  return text.split('\n').flatMap((line) => {
    try {
      const record = JSON.parse(line);
      return record !== null && typeof record === 'object' ? [record] : [];
    } catch {
      return [];
    }
  });
}

/**
 * The ten slowest test files, `[file, ms]`, from the lines the runners' times reporters
 * wrote (scripts/test-times-reporter.mjs, a Node test file's whole time;
 * scripts/wtr-times-reporter.mjs, a browser file's in one engine): a file that ran twice
 * (a PostgreSQL half in the integration tier) adds up.
 */
export function slowestFiles(text) {
  const perFile = new Map();
  for (const {file, ms} of records(text)) {
    if (typeof ms !== 'number') continue; // a failure's line (failureLine)
    perFile.set(file, (perFile.get(file) ?? 0) + ms);
  }
  return [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
}

/**
 * The closing line of all tiers, `all suites: N passed, N failed` (then `, N skipped` when
 * some were). Cancelled tests count as failed, todo tests as skipped, and a tier that failed
 * without a failed or cancelled test to count (a crash, a file that would not load) as one
 * failed.
 */
export function closingLine(tallies) {
  const sum = (key) => tallies.reduce((n, t) => n + t[key], 0);
  const passed = sum('passed');
  const failed =
    sum('failed') +
    sum('cancelled') +
    tallies.filter((t) => t.code !== 0 && t.failed + t.cancelled === 0).length;
  const skipped = sum('skipped') + sum('todo');
  return {
    line: `all suites: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`,
    passed,
    failed,
    skipped,
  };
}

/** At most this many lines of a failed test's error at the end of the run. */
const ERROR_LINES = 14;

/**
 * The first lines of a failed test's error, for the end of the run (the tier's output,
 * far above on a long run, has all of it): its name, code and message (an assertion's diff
 * included), the first line of its stack outside Node and node_modules (the test's own
 * line), and its cause's first line. Node's runner wraps what a test threw in an error of
 * its own (`ERR_TEST_FAILURE`), whose `cause` is what was thrown, or the reason (a string:
 * a timeout, a cancelled test).
 */
export function failureText(error) {
  const e = error?.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error;
  if (e === null || typeof e !== 'object' || typeof e.message !== 'string') {
    return stripVTControlCharacters(String(e)).split('\n').slice(0, ERROR_LINES).join('\n');
  }
  const code = typeof e.code === 'string' ? ` [${e.code}]` : '';
  const lines = stripVTControlCharacters(`${e.name ?? 'Error'}${code}: ${e.message}`)
    .split('\n')
    .slice(0, ERROR_LINES);
  const where = String(e.stack ?? '')
    .split('\n')
    .find((l) => /^\s+at /.test(l) && !/node:|node_modules/.test(l));
  if (where) lines.push(where.trim());
  const cause = e.cause?.message ?? (typeof e.cause === 'string' ? e.cause : undefined);
  if (cause) lines.push(`cause: ${stripVTControlCharacters(String(cause)).split('\n')[0]}`);
  return lines.join('\n');
}

/** The line a runner's reporter appends for a failed test (beside the files' times). */
export function failureLine(file, name, error) {
  return `${JSON.stringify({file, failed: name, error: failureText(error)})}\n`;
}

/** Node's reason for a test cancelled because its file or suite ended first. */
const CANCELLED = /^test did not finish before its parent/;

/**
 * The failed tests of the run, `{file, failed, error}`, from the reporters' lines: those
 * cancelled by their file or suite's end last, after what ended it.
 */
export function failures(text) {
  const all = records(text).filter((record) => typeof record.failed === 'string');
  return [
    ...all.filter((f) => !CANCELLED.test(f.error)),
    ...all.filter((f) => CANCELLED.test(f.error)),
  ];
}

/**
 * What the end of the run says of the tests that failed: each one's file, name and error's
 * first lines (`failureText`), the first `max` of them. CI shows the end of a run's output.
 */
export function failureReport(list, max = 10) {
  const out = [];
  for (const {file, failed, error} of list.slice(0, max)) {
    out.push(`  ✖ ${file} › ${failed}`);
    for (const line of error.split('\n')) out.push(`      ${line}`);
  }
  if (list.length > max) out.push(`  … and ${list.length - max} more: the tiers' output above`);
  return out.join('\n');
}
