// A web-test-runner reporter that `npm test` adds beside the default one (when PG_TEST_TIMES
// names a file, web-test-runner.config.mjs does): for each test file that ends in an engine,
// one JSON line `{file, ms}` appended to that file — `file` is the path and the engine,
// `ms` the time from the engine's page starting to load it to its last result — which
// scripts/test.mjs reads with the Node runners' lines (scripts/test-times-reporter.mjs) to
// print the ten slowest files of the run; and a line for each test that failed there, with
// its error's first lines, which it prints at the end of the run.
import {appendFileSync} from 'node:fs';
import path from 'node:path';
import {failureLine} from './test-summary.mjs';

export function timesReporter() {
  const target = process.env.PG_TEST_TIMES;
  const started = new Map();
  return {
    start({sessions, startTime}) {
      if (!target) return;
      sessions.on('session-status-updated', (session) => {
        if (session.status === 'INITIALIZING') started.set(session.id, Date.now());
        if (session.status !== 'FINISHED') return;
        // The first files start loading before the reporters start: from the run's start.
        const ms = Date.now() - (started.get(session.id) ?? startTime);
        started.delete(session.id);
        const file = `${path.relative(process.cwd(), session.testFile)} (${session.browser.name})`;
        appendFileSync(target, `${JSON.stringify({file, ms})}\n`);
        // The tests that failed, and errors outside any test (a file that would not load).
        for (const error of session.errors ?? []) {
          appendFileSync(target, failureLine(file, '(the file)', error));
        }
        const walk = (suite, names) => {
          for (const test of suite?.tests ?? []) {
            if (!test.passed && !test.skipped) {
              const name = [...names, test.name].join(' › ');
              appendFileSync(target, failureLine(file, name, test.error ?? 'failed'));
            }
          }
          for (const inner of suite?.suites ?? []) walk(inner, [...names, inner.name]);
        };
        walk(session.testResults, []);
      });
    },
  };
}
