// A reporter for Node's test runner that `npm test` adds beside the spec reporter (the Node
// runners do when PG_TEST_TIMES names a file: scripts/run-node-tests.mjs, run-pack-tests.mjs,
// run-e2e.mjs, run-wtr.mjs; `timesReporterArgs()` gives them the flags): for each test FILE
// that ends, one JSON line `{file, ms}` appended to that file, ms being the whole file's time
// (its process started, its hooks, its tests, its exit), from which scripts/test.mjs prints
// the ten slowest files of the run. Appended line by line, so runners of tiers that run side
// by side can share the file. (The runner reports a file as a test named by its path; its
// top-level tests alone would leave out a file's before() hooks, where most set-up is.)
// And for each test that fails, a line with its name and its error's first lines
// (scripts/test-summary.mjs, failureLine), which scripts/test.mjs prints at the end of the
// run: a suite failing because of its tests adds none.
import {appendFileSync} from 'node:fs';
import {devNull} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {failureLine} from './test-summary.mjs';

export default async function* timesReporter(source) {
  const target = process.env.PG_TEST_TIMES;
  for await (const event of source) {
    if (!target) continue;
    const {file, name, details} = event.data ?? {};
    if (event.type === 'test:fail' && details?.error?.failureType !== 'subtestsFailed') {
      appendFileSync(target, failureLine(file ?? '', name, details?.error));
    }
    if (event.type !== 'test:complete' || !file || name !== file) continue;
    appendFileSync(target, `${JSON.stringify({file, ms: details?.duration_ms ?? 0})}\n`);
  }
  yield '';
}

/**
 * The flags that add this reporter to a `node --test` run beside the spec reporter, when
 * PG_TEST_TIMES names a file (under `npm test`); else none.
 */
export function timesReporterArgs() {
  if (!process.env.PG_TEST_TIMES) return [];
  return [
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(path.join(import.meta.dirname, 'test-times-reporter.mjs'))}`,
    `--test-reporter-destination=${devNull}`,
  ];
}
