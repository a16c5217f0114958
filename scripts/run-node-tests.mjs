// Runs the Node test suites: every test/node/**/*.test.ts through Node's test runner with
// tsx. Node 20 does not expand globs for --test, so the files are found here. Arguments
// narrow the run to files whose path contains one of them (`npm run test:node -- webhook`).
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

const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
  {cwd: root, stdio: 'inherit'},
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
