/**
 * `server-example/main.ts` and its PostgreSQL settings, as a process: a setting that
 * needs `DATABASE_URL` without it, or a URL that is not `postgres://`, stops the app at
 * start-up naming the variable; with a database that cannot be reached the app still
 * serves, `/healthz` answers 503, and a new order and a pay request `503 store_unavailable`
 * with `Retry-After` (the shop's tables are in that database too). `DATA_DIR` is not used
 * with `DATABASE_URL`: nothing is made there.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {existsSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../../../src/protocol/checkout.js';
import {freePort, payBody} from '../checkout/helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function start(env: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-example-db-'));
  const dataDir = path.join(dir, 'not-made-yet');
  const child = spawn(process.execPath, ['--import', 'tsx', 'server-example/main.ts'], {
    cwd: ROOT,
    env: {...process.env, DATA_DIR: dataDir, ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    dataDir,
    exited,
    stderr: () => stderr,
    cleanup: () => rmSync(dir, {recursive: true, force: true}),
  };
}

test('a database setting without DATABASE_URL, or a URL that is not postgres://, is named', async () => {
  const a = start({PORT: '0', DATABASE_SCHEMA: 'shop', DATABASE_URL: ''});
  assert.equal(await a.exited, 1);
  assert.match(a.stderr(), /DATABASE_SCHEMA: needs DATABASE_URL/);
  a.cleanup();
  const b = start({PORT: '0', DATABASE_URL: 'mysql://db/shop'});
  assert.equal(await b.exited, 1);
  assert.match(b.stderr(), /DATABASE_URL: must be a postgres:\/\/ URL/);
  b.cleanup();
});

test('a database that cannot be reached: the app serves, /healthz 503, new orders and pay 503 store_unavailable', async () => {
  const port = await freePort();
  const app = start({
    PORT: String(port),
    DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/test`,
    DATABASE_CONNECT_TIMEOUT_MS: '500',
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    let health: Response | undefined;
    for (let i = 0; i < 300 && !health; i++) {
      health = await fetch(`${base}/healthz`).catch(() => undefined);
      if (!health || (health.status === 503 && (await health.clone().text()) === 'starting'))
        health = undefined;
      if (!health) await sleep(100);
    }
    assert.equal(health?.status, 503, app.stderr());
    assert.equal(((await health!.json()) as {ok: boolean}).ok, false);
    const order = await fetch(`${base}/api/orders`, {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({productId: 'mug'}),
    });
    assert.equal(order.status, 503);
    assert.equal(order.headers.get('retry-after'), '5');
    assert.equal(((await order.json()) as {error: {code: string}}).error.code, 'store_unavailable');
    const page = await fetch(`${base}/checkout?order=ord-0123456789ab`);
    assert.equal(page.status, 503);
    assert.match(await page.text(), /database cannot be reached/);
    const orderRef = 'ord-0123456789ab';
    const res = await fetch(`${base}/api/checkout/pay`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Origin: `http://127.0.0.1:${port}`,
        [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
      },
      body: JSON.stringify(payBody(orderRef, 'att-db-down')),
    });
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as {error: {code: string}}).error.code, 'store_unavailable');
    assert.equal(existsSync(app.dataDir), false, 'nothing under DATA_DIR');
  } finally {
    app.child.kill('SIGTERM');
    await app.exited;
    app.cleanup();
  }
});
