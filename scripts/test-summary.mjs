// What `npm test` (scripts/test.mjs) counts and prints, apart from running the tiers, so
// that test/node/tiers/summary.test.ts can hold it to the runners' real output: the counts
// each runner prints, a tier's tally, the ten slowest files, and the closing line CI reads.
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
 * The ten slowest test files, `[file, ms]`, from the lines the runners' times reporters
 * wrote (scripts/test-times-reporter.mjs, a Node test file's whole time;
 * scripts/wtr-times-reporter.mjs, a browser file's in one engine): a file that ran twice
 * (a PostgreSQL half in the integration tier) adds up.
 */
export function slowestFiles(text) {
  const perFile = new Map();
  for (const line of text.split('\n').filter(Boolean)) {
    const {file, ms} = JSON.parse(line);
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
