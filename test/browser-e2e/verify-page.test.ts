/**
 * `pg-checkout-verify-page` (src/server/page-check/cli.ts), the PCI DSS 11.6.1 page check,
 * run as a merchant runs it — the command, as a child process, with the inventories and the
 * policy on its command line — against the example app served on an ephemeral port: its CDN
 * page and its server-rendered checkout, once as built (exit 0: every script listed, the
 * policy as expected), and once through a proxy that changes one byte of a file and weakens
 * the policy (exit 1, both named). A page that cannot be loaded exits 2.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {execFile} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../sandbox/index.js';
import {createCheckoutLogger} from '../../src/server/index.js';
import {createExampleApp, type ExampleApp} from '../../server-example/app.js';
import {sriHash} from '../../scripts/vite/subresource-integrity.js';
import {dataDirs, sandboxGateway} from '../node/example/helpers.js';

const dirs = dataDirs('pg-verify-page-');
const CLI = 'src/server/page-check/cli.ts';
const INVENTORY = 'dist/cdn/pg-checkout.inventory.json';

let sandbox: Sandbox;
let example: ExampleApp;
let server: ReturnType<typeof createAdaptorServer>;
let base: string;
/** What the proxy in front of the example changes, while set. */
let tamper: {file?: string; weakenCsp?: boolean} = {};
/** The merchant's own inventory: the example's page script. */
let ownInventory: string;

before(async () => {
  sandbox = await startSandbox({});
  // The example, and in front of it what an attacker on the way could change.
  server = createAdaptorServer({
    // The socket (env) passed on: the example tells the client address from it.
    fetch: async (request: Request, env: unknown) => {
      const response = await example.app.fetch(request, env);
      const {pathname} = new URL(request.url);
      const headers = new Headers(response.headers);
      if (tamper.weakenCsp) {
        const csp = headers.get('content-security-policy');
        if (csp)
          headers.set(
            'content-security-policy',
            csp.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'"),
          );
      }
      if (tamper.file && pathname === `/assets/${tamper.file}`) {
        const bytes = Buffer.from(await response.arrayBuffer());
        bytes[bytes.indexOf('pg-checkout')] = 0x50; // 'p' → 'P', in its licence comment
        return new Response(bytes, {status: response.status, headers});
      }
      return new Response(response.body, {status: response.status, headers});
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  example = createExampleApp({
    publicUrl: base,
    dataDir: dirs.make(),
    logger: createCheckoutLogger({level: 'silent'}),
    gateway: sandboxGateway(sandbox),
  });
  example.start();
  ownInventory = path.join(dirs.make(), 'own-inventory.json');
  const pageScript = readFileSync('dist/demo/checkout.js');
  writeFileSync(
    ownInventory,
    JSON.stringify({
      files: [
        {
          url: '/demo/js/checkout.js',
          integrity: sriHash(pageScript),
          kind: 'script',
          purpose: 'The demo checkout page: the 3-D Secure mode box, the hosted form.',
        },
      ],
    }),
  );
});

after(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await example?.close();
  await sandbox?.close();
  dirs.removeAll();
});

/** Runs the command; its exit code and what it printed. */
function verify(args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI, ...args],
      {timeout: 90_000},
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({code, stdout, stderr});
      },
    );
  });
}

async function newOrder(): Promise<string> {
  const res = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'tea-sampler'}),
  });
  return ((await res.json()) as {orderRef: string}).orderRef;
}

/** The policy the example sends, as a merchant records it for the check. */
async function recordedPolicy(): Promise<string> {
  return (await fetch(`${base}/`)).headers.get('content-security-policy')!;
}

interface CheckJson {
  headers: Record<string, string>;
  scripts: Array<{url: string; status: string; entry?: string}>;
  differences: string[];
}

describe('pg-checkout-verify-page against the example app', () => {
  it('as built: the CDN page and the server-rendered checkout load only what the inventories list (exit 0)', async () => {
    tamper = {};
    const csp = await recordedPolicy();
    const order = await newOrder();
    const results: CheckJson[] = [];
    for (const page of [`/cdn?order=${order}`, `/checkout?order=${order}`]) {
      const run = await verify([
        `${base}${page}`,
        '--inventory',
        INVENTORY,
        '--inventory',
        ownInventory,
        '--csp',
        csp,
        '--json',
      ]);
      assert.equal(run.code, 0, `${page}: ${run.stdout}${run.stderr}`);
      const result = JSON.parse(run.stdout) as CheckJson;
      assert.deepEqual(result.differences, []);
      assert.equal(result.headers['content-security-policy'], csp);
      assert.ok(result.scripts.every((s) => s.status === 'listed'));
      results.push(result);
    }
    // The CDN page: pg-checkout.js alone. The server-rendered checkout: the loader, the
    // bundle it pins, and the page's own script.
    assert.deepEqual(
      results.map((r) => r.scripts.map((s) => s.entry).sort()),
      [
        ['pg-checkout.js'],
        ['/demo/js/checkout.js', 'pg-checkout-hydrate-after-paint.js', 'pg-checkout-hydrate.js'],
      ],
    );
  });

  it('with one byte of a file changed and the policy weakened: names both (exit 1)', async () => {
    const csp = await recordedPolicy();
    const order = await newOrder();
    tamper = {file: 'pg-checkout.js', weakenCsp: true};
    const run = await verify([
      `${base}/cdn?order=${order}`,
      '--inventory',
      INVENTORY,
      '--csp',
      csp,
    ]);
    tamper = {};
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /CHANGED +script http:\/\/127\.0\.0\.1:\d+\/assets\/pg-checkout\.js/);
    assert.match(run.stdout, /is not the file of the inventory \(pg-checkout\.js\)/);
    assert.match(run.stdout, /Content-Security-Policy: script-src adds 'unsafe-inline'/);
    assert.match(run.stdout, /Content-Security-Policy: script-src allows 'unsafe-inline'/);
  });

  it('without the merchant inventory, the page script is unlisted; without an expected policy, a weak one is still named (exit 1)', async () => {
    const order = await newOrder();
    tamper = {weakenCsp: true};
    const run = await verify([`${base}/checkout?order=${order}`, '--inventory', INVENTORY]);
    tamper = {};
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /UNLISTED script http:\/\/127\.0\.0\.1:\d+\/demo\/js\/checkout\.js/);
    assert.match(run.stdout, /script-src allows 'unsafe-inline'/);
  });

  it('exits 2 when the page cannot be checked, and 2 on a bad inventory', async () => {
    const down = await verify(['http://127.0.0.1:9/', '--inventory', INVENTORY]);
    assert.equal(down.code, 2);
    assert.match(down.stderr, /could not be loaded/);
    const bad = path.join(dirs.make(), 'bad.json');
    writeFileSync(bad, JSON.stringify({files: [{file: 'x.js', integrity: 'md5-x'}]}));
    const refused = await verify([`${base}/`, '--inventory', bad]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /files\[0\]: x\.js: integrity must be sha256-, sha384- or sha512-/,
    );
  });
});
