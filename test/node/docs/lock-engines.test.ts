/**
 * `npm install` on the Node.js versions package.json's `engines` accepts prints no
 * EBADENGINE: every package of package-lock.json that is installed everywhere (optional
 * platform packages aside: npm installs or skips them by os and cpu) accepts the lowest
 * version of each line `engines` allows (20.19.0, 22.12.0). webpack-cli 7.3 pulled rechoir
 * 1.0, which needs 22.15: webpack-cli stays on 7.2, whose rechoir is 0.8. The packages
 * that still do not are named below, each with its reason; a new one fails here by name.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

/** npm's own range rules (semver ships no types, and @types/semver is not a dependency). */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): {version: string} | null;
};

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  engines: {node: string};
};
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, {version?: string; optional?: boolean; engines?: {node?: string}}>;
};

/**
 * Known, and out of this package's hands (a contributor on an older 20.x or 22.x sees
 * EBADENGINE for these alone): webdriverio 9.33's packages ask for 20.20.2 or 22.23.4 within
 * those lines (test/browser's WebKit driver); typescript-eslint's eslint-visitor-keys 5 for
 * 22.13 on the 22 line (the linter, not the tests).
 */
const KNOWN =
  /^node_modules\/(@wdio\/[\w-]+|webdriver|webdriverio|@typescript-eslint\/visitor-keys\/node_modules\/eslint-visitor-keys)$/;

test('every package the lock installs accepts the lowest Node.js of each line engines allows', () => {
  const lowest = pkg.engines.node
    .split('||')
    .map((part) => semver.minVersion(part.trim())!.version);
  assert.deepEqual(lowest, ['20.19.0', '22.12.0']);
  const refused: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (!where || !range || entry.optional || KNOWN.test(where)) continue;
    for (const version of lowest) {
      if (!semver.satisfies(version, range)) {
        refused.push(`${where}@${entry.version}: engines.node "${range}" refuses ${version}`);
      }
    }
  }
  assert.deepEqual(refused, []);
});
