/**
 * `require()` of a browser entry (`pg-checkout`, `/react`, `/fingerprint`, `/validation`,
 * `/hydrate`) from CommonJS, from the packed tarball: instead of Node's
 * `ERR_PACKAGE_PATH_NOT_EXPORTED`, an error that says the entry is an ES module only and
 * shows the `import()` that loads it (the "require" condition's generated module). Without
 * it a newcomer's `npm init -y` project (`"type": "commonjs"`) learns nothing.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {packed, runNode} from './packed.js';

const BROWSER_ENTRIES = [
  'pg-checkout',
  'pg-checkout/react',
  'pg-checkout/fingerprint',
  'pg-checkout/validation',
  'pg-checkout/hydrate',
];

describe('require() of a browser entry', () => {
  it('explains ESM-only and shows the import(), for every browser entry', async () => {
    const file = path.join(packed.browser, `esm-only-${process.pid}.cjs`);
    writeFileSync(
      file,
      `for (const name of ${JSON.stringify(BROWSER_ENTRIES)}) {
        try { require(name); console.log(name + ': loaded'); }
        catch (e) { console.log(JSON.stringify({name, code: e.code, message: e.message})); }
      }`,
    );
    const ran = await runNode(packed.browser, [file]);
    assert.equal(ran.stderr, '');
    const lines = ran.stdout.trim().split('\n');
    assert.equal(lines.length, BROWSER_ENTRIES.length, ran.stdout);
    for (const [i, line] of lines.entries()) {
      const name = BROWSER_ENTRIES[i]!;
      const got = JSON.parse(line) as {name: string; code: string; message: string};
      assert.equal(got.code, 'ERR_PG_CHECKOUT_ESM_ONLY', line);
      assert.match(got.message, /is an ES module only/);
      assert.ok(got.message.includes(`await import("${name}")`), got.message);
      assert.ok(got.message.startsWith(`${name} `), got.message);
    }
  });

  it('import() of the same entries still resolves (the types and import conditions are unchanged)', async () => {
    const file = path.join(packed.browser, `esm-only-import-${process.pid}.cjs`);
    writeFileSync(
      file,
      `import('pg-checkout/validation').then((m) => console.log(typeof m.validateExpiry));`,
    );
    const ran = await runNode(packed.browser, [file]);
    assert.equal(ran.stderr, '');
    assert.equal(ran.stdout.trim(), 'function');
  });
});
