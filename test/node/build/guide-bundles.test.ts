/**
 * The guides' esbuild commands make what the README advertises: the first payment's page
 * script (docs/snippets/bundle-page.sh over page-npm.ts) and the React guide's
 * (bundle-react.sh over checkout-page-react.tsx) are built here with the command exactly
 * as the snippet writes it, in a project folder as the guide leaves it (`tsconfig.json`
 * with `"jsx": "react-jsx"`, as `tsc --init` writes), resolving `pg-checkout` to this
 * package's build (dist/, `npm run build`). Every language but English must be left out
 * of the page's script (a file of its own, loaded on demand), and the first payment's
 * script must stay within the CDN file's gzip budget, the README's "28 kB". Without
 * `--splitting` the twelve tables were bundled in: 42.7 kB gzip.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {gzipSync} from 'node:zlib';
import {uk} from '../../../src/i18n/locales/uk.js';
import {de} from '../../../src/i18n/locales/de.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const ESBUILD = path.join(repo, 'node_modules/esbuild/bin/esbuild');
/** 28 kB, as the README says (the CDN file itself may take 64 B more: vite.config.ts). */
const BUDGET_GZIP = 28 * 1024;

// Inside the repository, so `pg-checkout` resolves to this package (its own name) and
// React to the repository's devDependencies, as from a merchant's node_modules.
const work = mkdtempSync(path.join(repo, '.guide-bundles-'));
after(() => rmSync(work, {recursive: true, force: true}));

/** The esbuild arguments of a snippet's `npx esbuild …` line. */
function esbuildArgs(snippet: string): string[] {
  const line = readFileSync(path.join(repo, 'docs/snippets', snippet), 'utf8').trim();
  const words = line.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ['npx', 'esbuild'], `${snippet}: ${line}`);
  return words.slice(2);
}

/** Builds `source` as the guide's `name` with the snippet's command; its output files. */
function buildGuide(dir: string, source: string, name: string, snippet: string) {
  const project = path.join(work, dir);
  mkdirSync(path.join(project, 'public'), {recursive: true});
  copyFileSync(path.join(repo, 'docs/snippets', source), path.join(project, name));
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({compilerOptions: {jsx: 'react-jsx', module: 'nodenext', strict: true}}),
  );
  execFileSync(ESBUILD, [...esbuildArgs(snippet), '--log-level=error'], {cwd: project});
  const out = path.join(project, 'public');
  return readdirSync(out)
    .filter((f) => f.endsWith('.js'))
    .map((file) => {
      const bytes = readFileSync(path.join(out, file));
      // esbuild writes ASCII: other characters as \uXXXX escapes, read back here.
      const text = bytes
        .toString('utf8')
        .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) =>
          String.fromCharCode(parseInt(hex, 16)),
        );
      return {file, text, gzip: gzipSync(bytes, {level: 9}).length};
    });
}

for (const guide of [
  {dir: 'first-payment', source: 'page-npm.ts', name: 'checkout-page.ts', sh: 'bundle-page.sh'},
  {
    dir: 'frameworks',
    source: 'checkout-page-react.tsx',
    name: 'checkout-page.tsx',
    sh: 'bundle-react.sh',
  },
]) {
  describe(`the ${guide.dir} guide's bundle (${guide.sh})`, () => {
    const files = buildGuide(guide.dir, guide.source, guide.name, guide.sh);
    const page = files.find((f) => f.file === 'checkout-page.js');

    test('writes public/checkout-page.js, which the page loads', () => {
      assert.ok(page, files.map((f) => f.file).join(', '));
      console.error(
        `${guide.dir}: checkout-page.js ${page.gzip} B gzip; ${files.length - 1} files on demand`,
      );
    });

    test('leaves every language but English out of the page script, in files of their own', () => {
      for (const table of [uk, de]) {
        assert.ok(!page!.text.includes(table.success), `${table.success} is bundled in`);
        assert.ok(
          files.some((f) => f !== page && f.text.includes(table.success)),
          `no file on demand holds ${table.success}`,
        );
      }
    });

    if (guide.dir === 'first-payment') {
      test('stays within the 28 kB gzip the README advertises', () => {
        assert.ok(page!.gzip <= BUDGET_GZIP, `${page!.gzip} B gzip > ${BUDGET_GZIP} B`);
      });
    }
  });
}
