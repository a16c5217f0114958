// `npm run test:pack`: the package as merchants get it. Copies the working tree to a
// temporary folder (so a build running in the tree meanwhile cannot pull dist/ away) and
// builds it there (under `npm test`, which has just built, it takes the tree's build),
// packs it with `npm pack`, installs the tarball into two fresh apps outside the repo - a
// browser-only one (`npm i <tarball>`, timed and measured: the figures go to install.json
// and are printed) and a server one (with the optional peers the server, the sandbox and
// pg-checkout/ssr need) - makes first-payment.md's project (steps 1-4) once when a guide
// that starts from it is to run - then runs test/pack/*.test.ts against them with
// PG_PACK_DIR set. The apps resolve pg-checkout, Lit and the peers from their own
// node_modules, never from the repo's; the bundlers and Playwright come from the repo, and
// the files that drive Chromium share one, started here (PG_CHROMIUM_WS).
// Arguments narrow the run to test files whose name contains one of them. The folder is
// removed when everything passes and kept (and named) when something fails.
import {execFileSync, spawn} from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {launchChromiumServer, SHARED_CHROMIUM_ENV} from './chromium.mjs';
import {timesReporterArgs} from './test-times-reporter.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

const files = readdirSync(path.join(root, 'test/pack'))
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()
  .map((f) => path.join('test/pack', f));
if (files.length === 0) {
  console.error('run-pack-tests: no test files found under test/pack');
  process.exit(1);
}

const work = mkdtempSync(path.join(tmpdir(), 'pg-pack-'));
const quiet = (cmd, args, cwd) => {
  try {
    return execFileSync(cmd, args, {cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
  } catch (error) {
    console.error(`run-pack-tests: ${cmd} ${args.join(' ')} failed in ${cwd}`);
    console.error(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    console.error(`run-pack-tests: kept ${work}`);
    process.exit(1);
  }
};

// 1. A copy of the working tree (tracked and new files, not ignored ones), built.
const tree = path.join(work, 'tree');
const listed = quiet('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root);
for (const file of listed.split('\0').filter(Boolean)) {
  const from = path.join(root, file);
  if (!existsSync(from) || !lstatSync(from).isFile()) continue; // deleted, or a submodule
  mkdirSync(path.dirname(path.join(tree, file)), {recursive: true});
  copyFileSync(from, path.join(tree, file));
}
symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
if (process.env.PG_TEST_BUILT === '1') {
  // `npm test` has just built the tree, and no tier builds while it runs: the copy takes it.
  for (const built of ['dist', 'custom-elements.json'])
    cpSync(path.join(root, built), path.join(tree, built), {recursive: true});
} else {
  quiet(process.execPath, ['scripts/build.mjs'], tree);
}

// 2. The tarball, as `npm publish` would make it (prepack, the build, has just run).
const packed = JSON.parse(
  quiet(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], tree),
);
const tarball = path.join(work, packed[0].filename);

// 3. The apps.
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const newApp = (name) => {
  const dir = path.join(work, name);
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({name: `pack-${name}`, private: true, type: 'module'}, null, 2)}\n`,
  );
  return dir;
};
const install = (dir, specs) => {
  const t0 = Date.now();
  quiet(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], dir);
  return Date.now() - t0;
};
/** Packages and bytes (file sizes summed) under `dir`/node_modules. */
function measure(dir) {
  const packages = [];
  let bytes = 0;
  const walk = (d, depth, scope) => {
    for (const entry of readdirSync(d, {withFileTypes: true})) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        if (depth === 0 && entry.name.startsWith('@')) walk(full, 0, entry.name);
        else {
          if (depth === 0 && !entry.name.startsWith('.'))
            packages.push(scope ? `${scope}/${entry.name}` : entry.name);
          walk(full, depth + 1);
        }
      } else if (entry.isFile()) bytes += lstatSync(full).size;
    }
  };
  walk(path.join(dir, 'node_modules'), 0);
  return {packages: packages.sort(), bytes};
}

const browser = newApp('browser');
const browserMs = install(browser, [tarball]);
const browserInstall = {ms: browserMs, ...measure(browser)};

const server = newApp('server');
const serverPeers = ['hono', 'pino', 'zod', '@hono/node-server', '@lit-labs/ssr'].map(
  (name) => `${name}@${pkg.peerDependencies[name]}`,
);
install(server, [tarball, ...serverPeers]);

// 4. first-payment.md's project as far as its step 4, made once for the guides that start
// from it (each takes a copy); newcomer-first-payment.test.ts does the guide itself.
const startsFromFirstPayment = files.some(
  (f) => /newcomer-.*\.test\.ts$/.test(f) && !f.endsWith('newcomer-first-payment.test.ts'),
);
let firstPayment;
/** Each file under `dir` with its size and time of change: what a write in place changes. */
const filesOf = (dir) =>
  readdirSync(dir, {recursive: true})
    .map((f) => [String(f), lstatSync(path.join(dir, String(f)))])
    .filter(([, s]) => s.isFile())
    .map(([f, s]) => `${f} ${s.size} ${s.mtimeMs}`)
    .sort();
let sharedBefore = [];
if (startsFromFirstPayment) {
  const t0 = Date.now();
  const printed = quiet(
    process.execPath,
    ['--import', 'tsx', 'test/pack/prepare-first-payment.ts', tarball],
    root,
  );
  firstPayment = JSON.parse(printed.trim().split('\n').at(-1));
  sharedBefore = filesOf(path.join(firstPayment.dir, 'node_modules'));
  console.log(
    `run-pack-tests: first-payment.md's project (steps 1-4) made once in ${seconds(Date.now() - t0)}`,
  );
}

const info = {tarball, tree, browser, server, browserInstall, firstPayment};
writeFileSync(path.join(work, 'install.json'), `${JSON.stringify(info, null, 2)}\n`);
console.log(
  `run-pack-tests: packed ${packed[0].filename} (${packed[0].entryCount} files, ${(packed[0].size / 1024).toFixed(0)} kB); ` +
    `browser-only install: ${browserInstall.packages.length} packages, ` +
    `${(browserInstall.bytes / 1024 / 1024).toFixed(1)} MB, ${seconds(browserMs)} ` +
    `(${browserInstall.packages.join(', ')}); ready in ${seconds(Date.now() - started)}`,
);

// 5. The tests, with one Chromium for the run: the files that drive a browser connect to it
// (sharedChromium() in scripts/chromium.mjs) rather than each launching its own.
const usesChromium = files.some((f) =>
  readFileSync(path.join(root, f), 'utf8').includes('sharedChromium('),
);
const chromiumServer = usesChromium ? await launchChromiumServer() : undefined;
const testsCode = await new Promise((resolve) => {
  const child = spawn(
    process.execPath,
    // Nothing waits forever (the timeout covers a whole file, too): a guard against a hang,
    // not a measure — 180 s was one, and ended bundlers.test.ts mid-set-up on a machine at
    // load 29, where the run's own set-up took 300 s.
    [
      '--import',
      'tsx',
      '--test',
      '--test-reporter=spec',
      ...timesReporterArgs(),
      '--test-timeout=600000',
      ...files,
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        PG_PACK_DIR: work,
        ...(chromiumServer ? {[SHARED_CHROMIUM_ENV]: chromiumServer.wsEndpoint()} : {}),
      },
    },
  );
  child.on('exit', (c, signal) => resolve(signal ? 1 : (c ?? 1)));
});
await chromiumServer?.close();
// The guides' copies hard-link the prepared project's node_modules (newcomer.ts): a step
// that wrote into a file there in place would have changed it under every other guide.
let code = testsCode;
if (firstPayment) {
  const now = new Set(filesOf(path.join(firstPayment.dir, 'node_modules')));
  const changed = sharedBefore.filter((line) => !now.has(line));
  if (changed.length > 0 || now.size !== sharedBefore.length) {
    console.error(
      `run-pack-tests: the shared first-payment project's node_modules changed during the run ` +
        `(a guide's step wrote into a hard-linked file): ${changed.slice(0, 10).join(', ')}`,
    );
    code = 1;
  }
}
console.log(`run-pack-tests: ${files.length} files in ${seconds(Date.now() - started)}`);
// The prepared project sits beside the newcomers' folders, as deep (see newcomer.ts).
const prepared = firstPayment && path.dirname(firstPayment.dir);
if (code === 0) {
  rmSync(work, {recursive: true, force: true});
  if (prepared) rmSync(prepared, {recursive: true, force: true});
} else {
  console.error(`run-pack-tests: kept ${work} (the tree, the tarball and the apps)`);
  if (prepared) console.error(`run-pack-tests: kept ${prepared} (first-payment.md's project)`);
}
process.exit(code);
