/**
 * Benchmark harness for `npm run bench`. Every `bench/*.bench.ts` default-exports an async
 * function that returns one figures object (or several); each is printed as one JSON
 * line, `{"bench": "<file name>", ...figures}`. Benchmarks compare against a baseline
 * measured side by side in the same run (a ratio, or latency added over a bare hop),
 * because this machine is shared and noisy.
 *
 * A figures object with a `failure` (a broken guarantee, such as a webhook acknowledged and
 * not stored: not a missed speed goal, which is `meetsGoal: false`) is printed like the
 * others and makes the run exit 1, as a benchmark that throws does.
 *
 * `npm run bench -- webhook` runs only the benchmarks whose file name contains "webhook".
 */
import {readdir} from 'node:fs/promises';
import {fileURLToPath, pathToFileURL} from 'node:url';
import path from 'node:path';

type Figures = Record<string, unknown>;
type Bench = () => Promise<Figures | Figures[]>;

const dir = path.dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = (await readdir(dir))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

let failed = 0;
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, '');
  try {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as {default: Bench};
    const result = await mod.default();
    for (const figures of Array.isArray(result) ? result : [result]) {
      console.log(JSON.stringify({bench: name, ...figures}));
      if (typeof figures['failure'] === 'string') {
        failed++;
        console.error(`bench ${name}: FAILED: ${figures['failure']}`);
      }
    }
  } catch (err) {
    failed++;
    console.log(JSON.stringify({bench: name, error: String((err as Error)?.stack ?? err)}));
  }
}
process.exitCode = failed ? 1 : 0;
