// `npm run test:browser`: the element tests in real Chromium, Firefox and WebKit
// (web-test-runner; scripts/engines.mjs), then the end-to-end checks of the built bundles
// (test/browser-e2e, Node driving the engines through test/browser-e2e/engines.ts).
// `PG_BROWSERS=firefox,webkit` runs some engines only. Exits non-zero when anything fails.
import {spawnSync} from 'node:child_process';
import {existsSync, readdirSync, statSync} from 'node:fs';
import path from 'node:path';
import {checkEngines, selectedEngines} from './engines.mjs';
import {timesReporterArgs} from './test-times-reporter.mjs';

try {
  await checkEngines(selectedEngines());
} catch (error) {
  console.error(error.message); // one line: which package to install, or which variable to set
  process.exit(1);
}

const run = (args) => spawnSync(process.execPath, args, {stdio: 'inherit'}).status ?? 1;
const only = process.argv.slice(2);

const wtr = run([
  'node_modules/@web/test-runner/dist/bin.js',
  '--config',
  'web-test-runner.config.mjs',
  ...(only.length ? ['--files', ...only] : []),
]);
// Files named: the element tests alone.
if (only.length) process.exit(wtr);

// The e2e test needs a CDN bundle no older than the sources and the build's configuration.
const newest = (dir) =>
  readdirSync(dir, {recursive: true})
    .map((f) => path.join(dir, String(f)))
    .filter((f) => f.endsWith('.ts'))
    .reduce((m, f) => Math.max(m, statSync(f).mtimeMs), 0);
const cdn = 'dist/cdn/pg-checkout.js';
const inputs = Math.max(newest('src'), newest('scripts/vite'), statSync('vite.config.ts').mtimeMs);
// Under `npm test` (PG_TEST_BUILT=1) the package has just been built, the CDN bundle with it.
if (process.env.PG_TEST_BUILT !== '1' && (!existsSync(cdn) || statSync(cdn).mtimeMs < inputs)) {
  const built = run(['scripts/build.mjs', 'cdn']);
  if (built !== 0) process.exit(built);
}
const e2e = readdirSync('test/browser-e2e')
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => path.join('test/browser-e2e', f));
// They run whatever the element tests did: a failure there must not hide them (the browser
// tier once ended at 2,124 of its 2,232 tests, with one failure to show for it).
const checks = run([
  '--import',
  'tsx',
  '--test',
  '--test-reporter=spec',
  ...timesReporterArgs(),
  ...e2e,
]);
process.exit(wtr !== 0 ? wtr : checks);
