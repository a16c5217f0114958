/**
 * npm 11's `allowScripts` (package.json) covers every dependency with an install script, so
 * `npm install` lists none as "not yet covered", and allows only the ones the project needs:
 * better-sqlite3 (its native binary: a prebuilt one, else a build) and esbuild (its binary
 * for this platform). The browser drivers' downloads (edgedriver, geckodriver: the tests
 * drive the engines through their own launchers) and rs-module-lexer's fallback (its native
 * build comes as an optional dependency) stay off; packages whose only script is `prepare`
 * (never run for a registry install) are denied, so the notice stays empty.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as unknown;
const pkg = read('package.json') as {allowScripts?: Record<string, boolean>};
const lock = read('package-lock.json') as {
  packages: Record<string, {hasInstallScript?: boolean}>;
};

test('allowScripts allows better-sqlite3 and esbuild, and no other install script', () => {
  const allowed = Object.entries(pkg.allowScripts ?? {})
    .filter(([, allow]) => allow)
    .map(([name]) => name)
    .sort();
  assert.deepEqual(allowed, ['better-sqlite3', 'esbuild']);
});

test('every dependency with an install script is decided in allowScripts', () => {
  const policy = pkg.allowScripts ?? {};
  const undecided = Object.entries(lock.packages)
    .filter(([where, entry]) => where && entry.hasInstallScript)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .filter((name) => !(name in policy));
  assert.deepEqual(undecided, []);
  assert.equal(policy['edgedriver'], false);
  assert.equal(policy['geckodriver'], false);
});
