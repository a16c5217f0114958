/**
 * What `npm i pg-checkout` gives a front-end app, from the packed tarball: the browser's
 * packages and nothing of the server's (no native compile, no hono, pino or zod), the
 * files `exports` and `bin` name, and - where the server side is used without its
 * optional peers - an error that names the packages to install.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {exportFiles, installedPackage, packed, runNode} from './packed.js';

const SERVER_PACKAGES = ['better-sqlite3', 'pg', 'hono', '@hono/node-server', 'pino', 'zod'];
const app = packed.browser;
const pkgDir = installedPackage(app);

describe('a browser-only install (npm i <tarball>)', () => {
  it('installs Lit, card-validator and nothing of the server side', (t) => {
    const {packages, bytes, ms} = packed.browserInstall;
    t.diagnostic(
      `${packages.length} packages, ${(bytes / 1024 / 1024).toFixed(1)} MB, ${(ms / 1000).toFixed(1)} s: ${packages.join(', ')}`,
    );
    for (const name of SERVER_PACKAGES) {
      assert.ok(!packages.includes(name), `${name} is not installed`);
    }
    assert.ok(packages.includes('lit') && packages.includes('pg-checkout'));
    assert.ok(!existsSync(path.join(app, 'node_modules/.bin/prebuild-install')), 'nothing native');
    assert.deepEqual(
      packages,
      [
        '@lit-labs/ssr-dom-shim',
        '@lit/reactive-element',
        '@types/trusted-types',
        'card-validator',
        'credit-card-type',
        'lit',
        'lit-element',
        'lit-html',
        'pg-checkout',
      ],
      'Lit, card-validator (with its credit-card-type) and pg-checkout, nothing else',
    );
  });

  it('has every file package.json "exports" and "bin" name', () => {
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      bin: Record<string, string>;
    };
    const targets = exportFiles(pkg.exports);
    assert.ok(targets.includes('./dist/server/require.cjs'), 'nested conditions are walked');
    for (const file of [...targets, ...Object.values(pkg.bin)]) {
      assert.ok(existsSync(path.join(pkgDir, file)), `${file} is in the package`);
    }
    assert.ok(!existsSync(path.join(pkgDir, 'src')), 'sources are not published');
    assert.ok(!existsSync(path.join(pkgDir, 'dist/demo')), 'the demo scripts are not published');
  });

  it('pg-checkout/server without its peers names the packages to install', async () => {
    const ran = await runNode(app, [
      '--input-type=module',
      '-e',
      "await import('pg-checkout/server')",
    ]);
    assert.notEqual(ran.code, 0);
    assert.match(
      ran.stderr,
      /MissingPeerDependencyError: pg-checkout\/server needs hono, pino, zod, which are not installed: npm i hono pino zod/,
    );
  });

  it('pg-checkout/sandbox and its bin without their peers name the packages to install', async () => {
    const imported = await runNode(app, [
      '--input-type=module',
      '-e',
      "await import('pg-checkout/sandbox')",
    ]);
    assert.match(
      imported.stderr,
      /pg-checkout\/sandbox needs @hono\/node-server, hono, zod, which are not installed: npm i @hono\/node-server hono zod/,
    );
    const bin = await runNode(app, ['node_modules/.bin/pg-checkout-sandbox', '--port', '0']);
    assert.equal(bin.code, 1);
    assert.match(
      bin.stderr,
      /^pg-checkout-sandbox needs hono, @hono\/node-server, zod, which are not installed: npm i hono @hono\/node-server zod\n$/,
    );
  });
});
