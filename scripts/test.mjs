// `npm test`: every suite in turn — Node (test:node), browser (test:browser), the packed
// package as merchants install it (test:pack), end-to-end (test:e2e) — with their output
// passed through as it comes, then one closing line that counts the tests of all four:
// `all suites: N passed, N failed`. Stops at the first suite that fails, as `a && b && c`
// would, and exits with its code. On a checkout that was never built (`npm install &&
// npm test`, as the README allows) it builds first: the documentation tests read the
// package build (test/node/docs/site.ts), which the other suites make for themselves.
import {execFileSync, spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {stripVTControlCharacters} from 'node:util';
import {PACKAGE_BUILD_FILES} from './package-build.mjs';

const SUITES = ['test:node', 'test:browser', 'test:pack', 'test:e2e'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let passed = 0;
let failed = 0;

/** Runs one suite, echoing its output and adding up the counts its runners print. */
function runSuite(name) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', name], {stdio: ['ignore', 'pipe', 'inherit']});
    let pending = '';
    // web-test-runner redraws one progress line per engine: keep the last of each.
    const browserCounts = new Map();
    const count = (line) => {
      const node = /^ℹ (pass|fail) (\d+)$/.exec(line);
      if (node) {
        if (node[1] === 'pass') passed += Number(node[2]);
        else failed += Number(node[2]);
        return;
      }
      const plain = stripVTControlCharacters(line); // without the cursor moves
      const wtr = /(\w+): *\|[^|]*\| *\d+\/\d+ test files \| (\d+) passed, (\d+) failed/.exec(
        plain,
      );
      if (wtr) browserCounts.set(wtr[1], [Number(wtr[2]), Number(wtr[3])]);
    };
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (pending + chunk.toString('utf8')).split(/\r?\n|\r/);
      pending = lines.pop() ?? '';
      lines.forEach(count);
    });
    child.on('close', (code, signal) => {
      count(pending);
      for (const [pass, fail] of browserCounts.values()) {
        passed += pass;
        failed += fail;
      }
      resolve(signal ? 1 : (code ?? 1));
    });
  });
}

const missing = PACKAGE_BUILD_FILES.filter((file) => !existsSync(file));
if (missing.length > 0) {
  console.log(`npm test: ${missing.join(', ')} missing: building the package first`);
  execFileSync(process.execPath, ['scripts/build.mjs'], {stdio: 'inherit'});
}

let exitCode = 0;
for (const suite of SUITES) {
  exitCode = await runSuite(suite);
  if (exitCode !== 0) {
    failed ||= 1; // a suite that failed without a count still failed
    break;
  }
}
console.log(`\nall suites: ${passed} passed, ${failed} failed`);
process.exit(exitCode);
