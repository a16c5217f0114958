/**
 * `pg-checkout/server` and `pg-checkout/sandbox` from CommonJS, from the packed tarball: a
 * `.cjs` file (what a project that `npm init -y` made, `"type": "commonjs"`, runs) gets,
 * through the `require` condition, the very module an `import` gets, without a warning; a
 * missing optional peer is named as it is for `import`; and where Node does not `require()`
 * ES modules (here: `--no-experimental-require-module`) the error says what to change.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {packed, runNode} from './packed.js';

/** Runs `code` as a CommonJS file of `app`, with `flags` for Node. */
function runCommonJs(app: string, name: string, code: string, flags: string[] = []) {
  const file = path.join(app, `${name}-${process.pid}.cjs`);
  writeFileSync(file, code);
  return runNode(app, [...flags, file]);
}

describe('require() of the server side', () => {
  it('pg-checkout/server: the same module instance import() gives, without a warning', async () => {
    const ran = await runCommonJs(
      packed.server,
      'same-instance',
      `const required = require('pg-checkout/server');
      import('pg-checkout/server').then((imported) => {
        console.log(JSON.stringify({
          same: required.createCheckoutApp === imported.createCheckoutApp &&
            required.CheckoutError === imported.CheckoutError,
          names: Object.keys(required).length,
          importedNames: Object.keys(imported).length,
        }));
      });`,
    );
    assert.equal(ran.stderr, '');
    const out = JSON.parse(ran.stdout) as {same: boolean; names: number; importedNames: number};
    assert.equal(out.same, true);
    assert.equal(out.names, out.importedNames);
    assert.ok(out.names > 40, `${out.names} names`);
  });

  it('pg-checkout/sandbox: startSandbox starts and answers', async () => {
    const ran = await runCommonJs(
      packed.server,
      'sandbox',
      `const {startSandbox} = require('pg-checkout/sandbox');
      startSandbox().then(async (sandbox) => {
        const res = await fetch(sandbox.url + '/health');
        console.log(res.status, await res.text());
        await sandbox.close();
      });`,
    );
    assert.equal(ran.stderr, '');
    assert.equal(ran.stdout.trim(), '200 OK');
  });

  it('names the optional peers that are missing, as import does', async () => {
    const ran = await runCommonJs(
      packed.browser,
      'missing-peers',
      `for (const subpath of ['pg-checkout/server', 'pg-checkout/sandbox']) {
        try { require(subpath); } catch (e) { console.log(e.name + ': ' + e.message); }
      }`,
    );
    assert.equal(ran.stderr, '');
    assert.deepEqual(ran.stdout.trim().split('\n'), [
      'MissingPeerDependencyError: pg-checkout/server needs hono, pino, zod, which are not installed: npm i hono pino zod',
      'MissingPeerDependencyError: pg-checkout/sandbox needs @hono/node-server, hono, zod, which are not installed: npm i @hono/node-server hono zod',
    ]);
  });

  it('where Node cannot require() an ES module, says what to change', async () => {
    const ran = await runCommonJs(
      packed.server,
      'no-require-esm',
      `try { require('pg-checkout/server'); } catch (e) { console.log(e.message); console.log(e.cause.code); }`,
      ['--no-experimental-require-module'],
    );
    const [message, cause] = ran.stdout.trim().split('\n');
    assert.match(message!, /^pg-checkout\/server is an ES module, and this Node\.js \(v[\d.]+\)/);
    assert.match(message!, /Upgrade Node\.js/);
    assert.match(message!, /`npm pkg set type=module`/);
    assert.match(message!, /`await import\('pg-checkout\/server'\)`/);
    assert.equal(cause, 'ERR_REQUIRE_ESM');
  });
});
