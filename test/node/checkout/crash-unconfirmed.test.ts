/**
 * A customer is never left waiting after a crash (issue 29): a real companion process is
 * killed (SIGKILL) while its create request is at the gateway, and the sandbox never
 * creates that payment (a fault rule: a delay, then the connection dropped without doing
 * anything). After a restart on the same SQLite file, the status route must tell the
 * customer that the payment is not confirmed and that they may pay again — never
 * "processing" for as long as anyone asks — and paying again must charge the order exactly
 * once (the create is re-sent with the same gateway `order_id`). No clock decides: the
 * sandbox holds the create until the test releases it (its `faultDelay`), the kill follows
 * the create's arrival there, and the status route is asked until it answers more than
 * "processing" (the test's timeout is the only bound). Measured: how many times it was
 * asked.
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, type ChildProcess} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {fileURLToPath} from 'node:url';
import Database from 'better-sqlite3';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {payBody, payHttp, sandboxCharges, sandboxPayments, statusHttp} from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = path.join(ROOT, 'test/node/checkout/fixtures/companion-process.ts');
/** A success card of this test's own, matched by the fault rule. */
const CARD = '5454545454545454';

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-crash-'));
const DB = path.join(tmp, 'companion.db');
const children = new Set<ChildProcess>();
let sandbox: Sandbox;

function spawnCompanion(): Promise<{url: string; child: ChildProcess; stderr: string[]}> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: {
      ...process.env,
      COMPANION_DB: DB,
      GATEWAY_URL: sandbox.url,
      GATEWAY_POS_ID: sandbox.credentials.posId,
      GATEWAY_API_KEY: sandbox.credentials.apiKey,
      GATEWAY_API_SECRET: sandbox.credentials.apiSecret,
      GATEWAY_ENDPOINTS_KEY: sandbox.credentials.endpointsKey,
      GATEWAY_TIMEOUT_MS: '10000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const died = (code: number | null) =>
      reject(new Error(`the companion exited (${code}) before it listened: ${stderr.join('')}`));
    child.once('exit', died);
    createInterface({input: child.stdout!}).once('line', (line) => {
      child.off('exit', died);
      resolve({url: (JSON.parse(line) as {url: string}).url, child, stderr});
    });
  });
}

const killAll = () => {
  for (const c of children) c.kill('SIGKILL');
};

/** The held create: `arrived` once it is at the gateway; `release()` lets it go on. */
const held = (() => {
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {arrived, release, delay: () => (arrive(), gate)};
})();

before(async () => {
  process.once('exit', killAll);
  sandbox = await startSandbox({faultDelay: held.delay});
});

after(async () => {
  killAll();
  process.off('exit', killAll);
  await sandbox?.close();
  rmSync(tmp, {recursive: true, force: true});
});

/** The attempt's state in the database file (another connection, as an operator would). */
function storedState(orderRef: string): string | undefined {
  const db = new Database(DB, {readonly: true, fileMustExist: true});
  try {
    const row = db.prepare('SELECT state FROM attempts WHERE order_ref = ?').get(orderRef) as
      {state: string} | undefined;
    return row?.state;
  } finally {
    db.close();
  }
}

test('kill -9 while a create is at the gateway, which never makes it: after the restart the customer is told to pay again, and pays once', async (t) => {
  const orderRef = 'ord-crash-1';
  // Held (until released: `held`), then the connection dropped without a payment.
  for (const fault of ['delay=1000', 'drop']) {
    const res = await fetch(`${sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({match: {card_last4: CARD.slice(-4)}, fault, times: 1}),
    });
    assert.equal(res.status, 201, await res.text());
  }
  const first = await spawnCompanion();
  const sent = payHttp(first.url, payBody(orderRef, 'att-crash-1', CARD)).catch(() => undefined);
  // The attempt is stored `creating` before the create leaves: once it is at the gateway,
  // kill the companion.
  await held.arrived;
  assert.equal(storedState(orderRef), 'creating', 'the attempt was stored before the create');
  first.child.kill('SIGKILL');
  await sent;
  // The sandbox drops the held create without making the payment (done within this turn of
  // the event loop: released, dropped, its order id given back).
  held.release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(sandboxPayments(sandbox, orderRef).length, 0, 'the gateway never created it');
  assert.equal(storedState(orderRef), 'creating', 'the crash left the create open');

  const second = await spawnCompanion();
  // The customer's return page asks the status route, as often as it likes: each ask once
  // the last is answered, until it says more than "processing".
  let told: Record<string, unknown> | undefined;
  let asked = 0;
  while (!told) {
    const s = await statusHttp(second.url, orderRef);
    asked++;
    if (s.json['final'] === true) told = s.json;
    else assert.equal(s.json['state'], 'processing');
  }
  assert.equal(told['state'], 'failure');
  assert.equal(told['reason'], 'not_confirmed', 'not confirmed: may pay again');

  // Paying again (the card form makes a new attempt id) charges once.
  const again = await payHttp(second.url, payBody(orderRef, 'att-crash-2', CARD));
  assert.equal(again.status, 200);
  assert.equal(again.json['outcome'], 'success');
  const status = await statusHttp(second.url, orderRef);
  assert.equal(status.json['state'], 'success');
  assert.equal(sandboxCharges(sandbox, orderRef), 1, 'charged exactly once');
  const ids = new Set(sandboxPayments(sandbox, orderRef).map((p) => p.orderId));
  assert.equal(ids.size, 1, 'the same gateway order id was re-sent');
  t.diagnostic(`crash: told "not confirmed, pay again" after the status was asked ${asked} times`);
  second.child.kill('SIGTERM');
});
