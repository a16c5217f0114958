/**
 * The server side from the packed tarball, in an app that installed the optional peers it
 * uses (hono, pino, zod, @hono/node-server): `pg-checkout/server` loads, `SqlitePaymentStore`
 * names better-sqlite3 until it is installed and works once it is, and the gateway sandbox
 * runs both as the `pg-checkout-sandbox` bin (whose `--version` is the package's) and
 * from `pg-checkout/sandbox`; a saved card's brand comes from card-validator, the
 * dependency installed with the package (so `npm update` brings its fixes to the server at
 * once), not from a copy of it.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {readFileSync, readdirSync, symlinkSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {importFrom, installedPackage, packed, runNode} from './packed.js';

type ServerModule = typeof import('../../src/server/index.js');
type SandboxModule = typeof import('../../sandbox/index.js');

const app = packed.server;
const repo = fileURLToPath(new URL('../../', import.meta.url));

describe('pg-checkout/server with its peers installed', () => {
  it('loads, and SqlitePaymentStore names better-sqlite3 until it is installed', async () => {
    // In a process of its own: Node remembers a package.json it did not find.
    const missing = await runNode(app, [
      '--input-type=module',
      '-e',
      `const {SqlitePaymentStore} = await import('pg-checkout/server');
      try { new SqlitePaymentStore(':memory:'); } catch (e) { console.log(JSON.stringify({code: e.code, message: e.message})); }`,
    ]);
    assert.equal(missing.stderr, '');
    assert.deepEqual(JSON.parse(missing.stdout), {
      code: 'missing_peer_dependency',
      message:
        'pg-checkout/server needs better-sqlite3 for SqlitePaymentStore, which is not installed: npm i better-sqlite3',
    });
    // The repo's better-sqlite3, compiled once, stands in for `npm i better-sqlite3`.
    symlinkSync(
      path.join(repo, 'node_modules/better-sqlite3'),
      path.join(app, 'node_modules/better-sqlite3'),
      'dir',
    );
    const server = await importFrom<ServerModule>(app, 'pg-checkout/server');
    assert.equal(typeof server.createCheckoutApp, 'function');
    const store = new server.SqlitePaymentStore(':memory:');
    assert.equal(await store.getAttempt('none'), undefined);
    await store.close();
  });
});

describe("a saved card's brand from the package", () => {
  it('is told by card-validator as installed: a dependency, imported, no devDependency', async () => {
    const installed = installedPackage(app);
    // card-validator is a dependency: the app has it, and dist/server imports it.
    const probe = await runNode(app, [
      '--input-type=module',
      '-e',
      `const {cardNumber} = await import('card-validator/dist/card-number.js'); console.log(cardNumber('4242').card.type);`,
    ]);
    assert.equal(probe.stdout.trim(), 'visa');
    let imports = 0;
    for (const file of readdirSync(path.join(installed, 'dist/server'), {recursive: true})) {
      if (!String(file).endsWith('.js')) continue;
      const text = readFileSync(path.join(installed, 'dist/server', String(file)), 'utf8');
      assert.doesNotMatch(text, /from\s+["']credit-card-type/, String(file));
      if (/from\s+["']card-validator\//.test(text)) imports++;
    }
    assert.ok(imports > 0, 'dist/server imports card-validator, not a copy of it');
    const module = pathToFileURL(path.join(installed, 'dist/server/card-brand.js')).href;
    const ran = await runNode(app, [
      '--input-type=module',
      '-e',
      `const {brandOfMask} = await import(${JSON.stringify(module)});
      console.log(JSON.stringify(['424242******4242', '555555******4444', '378282*****0005', '000000******0000'].map((m) => brandOfMask(m) ?? null)));`,
    ]);
    assert.equal(ran.stderr, '');
    assert.deepEqual(JSON.parse(ran.stdout), ['visa', 'mastercard', 'american-express', null]);
  });
});

describe('the gateway sandbox from the package', () => {
  it('pg-checkout/sandbox exports startSandbox and its tables, by name', async () => {
    const sandbox = await importFrom<SandboxModule>(app, 'pg-checkout/sandbox');
    assert.deepEqual(Object.keys(sandbox).sort(), [
      'ADMIN_ENDPOINTS',
      'DEFAULT_CREDENTIALS',
      'DEFAULT_RETRY_DELAYS_MS',
      'ERROR_CODES',
      'FAULTS',
      'LENIENCY_RULES',
      'PROFILES',
      'REGISTER_DEFAULT_FIELDS',
      'REPORT_NOT_READY_STATUS',
      'SANDBOX_CODES',
      'SandboxOptions',
      'TEST_CARDS',
      'startSandbox',
    ]);
    const running = await sandbox.startSandbox({credentials: {apiSecret: 'imported-secret'}});
    try {
      assert.equal(await (await fetch(`${running.url}/health`)).text(), 'OK');
      assert.equal(running.credentials.apiSecret, 'imported-secret');
    } finally {
      await running.close();
    }
  });

  it('the pg-checkout-sandbox bin starts with the port and credentials given as flags', async () => {
    const child = spawn(
      process.execPath,
      ['node_modules/.bin/pg-checkout-sandbox', '--port', '0', '--api-secret', 'flag-secret'],
      {cwd: app, stdio: ['ignore', 'pipe', 'pipe']},
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
      // Its output says where it listens, or it exits first.
      const url = await new Promise<string>((resolve, reject) => {
        const look = () => {
          const found = listening.exec(out);
          if (found) resolve(found[1]!);
        };
        child.stdout.on('data', look);
        child.stderr.on('data', look);
        void exited.then(() => reject(new Error(`the bin did not start: ${out}`)));
      });
      assert.match(out, /API secret\s+flag-secret/);
      assert.match(out, /X-API-Auth: CPAY sandbox-api-key:flag-secret/);
      const health = await fetch(`${url}/health`);
      assert.equal(health.status, 200);
      assert.equal(await health.text(), 'OK');
      child.kill('SIGINT');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it("the bin's --version is the package's version", async () => {
    const {version} = JSON.parse(
      readFileSync(path.join(installedPackage(app), 'package.json'), 'utf8'),
    ) as {version: string};
    for (const flag of ['--version', '-v']) {
      const ran = await runNode(app, ['node_modules/.bin/pg-checkout-sandbox', flag]);
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, `pg-checkout-sandbox ${version}\n`);
    }
    // Before the peers are checked: a browser-only install answers it too.
    const bare = await runNode(packed.browser, ['node_modules/.bin/pg-checkout-sandbox', '-v']);
    assert.equal(bare.stdout, `pg-checkout-sandbox ${version}\n`);
  });

  it('the bin refuses an unknown flag with its usage', async () => {
    const child = spawn(
      process.execPath,
      ['node_modules/.bin/pg-checkout-sandbox', '--prot', '1'],
      {
        cwd: app,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /Unknown option '--prot'/);
    assert.match(err, /Usage: pg-checkout-sandbox/);
  });
});
