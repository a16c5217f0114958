// A reporter for Node's test runner that `npm test` adds beside the spec reporter
// (scripts/run-node-tests.mjs does when PG_TEST_TIMES names a file): for each top-level
// test or suite that ends, one JSON line `{file, ms}` appended to that file, from which
// scripts/test.mjs adds up each file's time and prints the ten slowest. Appended line by
// line, so runners of tiers that run side by side can share the file.
import {appendFileSync} from 'node:fs';

export default async function* timesReporter(source) {
  const target = process.env.PG_TEST_TIMES;
  for await (const event of source) {
    if (!target || (event.type !== 'test:pass' && event.type !== 'test:fail')) continue;
    if (event.data.nesting !== 0 || !event.data.file) continue;
    appendFileSync(
      target,
      `${JSON.stringify({file: event.data.file, ms: event.data.details?.duration_ms ?? 0})}\n`,
    );
  }
  yield '';
}
