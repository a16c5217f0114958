/**
 * The whole example on PostgreSQL, as two machines run it: two `server-example/main.ts`
 * processes with a data folder each (`DATA_DIR`), one PostgreSQL schema
 * (`DATABASE_URL`, `DATABASE_SCHEMA`) and one standalone gateway sandbox, nothing else
 * shared. An order created on A is known to and paid on B, and A sees it paid; a
 * back-office sign-in on A holds on B, and a sign-out on B ends it on A; the order limit
 * and the wrong-token limit count across both; a webhook received by one is in the other's
 * webhook log; and neither data folder holds anything. Skipped without PostgreSQL.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {existsSync, mkdtempSync, readdirSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {PAY_HEADERS, payBody} from '../checkout/helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, pgQuery, schemaName} from '../checkout/postgres.js';
import {call} from './helpers.js';
import {startExample, startSandboxProcess, stop, type Running} from './processes.js';

const ADMIN = 'two-machines-admin-token-0123456789';
const tmp = mkdtempSync(path.join(tmpdir(), 'pg-example-two-'));
const schema = PG_SKIP ? '' : schemaName('example_two');
const dataDirA = path.join(tmp, 'a');
const dataDirB = path.join(tmp, 'b');
let sandbox: Running;
let a: Running;
let b: Running;

before(async () => {
  if (PG_SKIP) return;
  sandbox = await startSandboxProcess();
  const common = {
    DATABASE_URL: PG_TEST_URL,
    DATABASE_SCHEMA: schema,
    ADMIN_TOKEN: ADMIN,
    ORDER_LIMIT: '3',
  };
  [a, b] = await Promise.all([
    startExample(sandbox.url, {...common, DATA_DIR: dataDirA, INSTANCE_ID: 'machine-a'}),
    startExample(sandbox.url, {...common, DATA_DIR: dataDirB, INSTANCE_ID: 'machine-b'}),
  ]);
});

after(async () => {
  await Promise.all([a, b, sandbox].filter(Boolean).map((r) => stop(r)));
  await dropSchemas();
  rmSync(tmp, {recursive: true, force: true});
});

const logs = () => `--- A:\n${a.output().slice(-2000)}\n--- B:\n${b.output().slice(-2000)}`;

function newOrder(base: string, from: string) {
  return call(base, '/api/orders', {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'mug'}),
    from,
  });
}

function signIn(base: string, token: string, from: string) {
  return call(base, '/admin/login', {
    method: 'POST',
    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({token}).toString(),
    from,
  });
}

const cookieOf = (headers: Record<string, unknown>) =>
  ([headers['set-cookie']].flat() as string[])
    .map((l) => l.split(';')[0]!)
    .find((p) => p.startsWith('pg_admin=') && p !== 'pg_admin=');

describe('two example instances on one PostgreSQL, nothing else shared', {skip: PG_SKIP}, () => {
  test('an order made on A is paid on B and shown paid on A', async () => {
    const created = await newOrder(a.url, '127.0.0.41');
    assert.equal(created.status, 201, logs());
    const {orderRef} = JSON.parse(created.text) as {orderRef: string};
    const onB = await call(b.url, `/api/orders/${orderRef}`);
    assert.equal(onB.status, 200, 'B knows the order A made');
    assert.equal((JSON.parse(onB.text) as {paid: boolean}).paid, false);
    const page = await call(b.url, `/checkout?order=${orderRef}`);
    assert.match(page.text, new RegExp(`order-ref="${orderRef}"`), "B's checkout page has it");

    const paid = await fetch(`${b.url}/api/checkout/pay`, {
      method: 'POST',
      headers: {...PAY_HEADERS, Origin: b.url},
      body: JSON.stringify(payBody(orderRef, `${orderRef}-a`)),
    });
    const answer = (await paid.json()) as {outcome: string};
    assert.equal(paid.status, 200);
    assert.equal(answer.outcome, 'success', JSON.stringify(answer));

    let shown = false;
    for (let i = 0; i < 100 && !shown; i++) {
      const onA = JSON.parse((await call(a.url, `/api/orders/${orderRef}`)).text) as {
        paid: boolean;
      };
      shown = onA.paid;
      if (!shown) await sleep(100);
    }
    assert.ok(shown, `A shows the order paid\n${logs()}`);
    const status = await fetch(`${a.url}/api/checkout/status?order=${orderRef}`);
    assert.equal(((await status.json()) as {state: string}).state, 'success');
  });

  test('a sign-in on A holds on B; a sign-out on B ends it on A', async () => {
    const signedIn = await signIn(a.url, ADMIN, '127.0.0.42');
    assert.equal(signedIn.status, 303);
    const cookie = cookieOf(signedIn.headers);
    assert.ok(cookie, 'a session cookie');
    const onB = await call(b.url, '/admin/api/orders', {headers: {Cookie: cookie}});
    assert.equal(onB.status, 200, 'the session A opened is live on B');
    assert.ok((JSON.parse(onB.text) as {orders: unknown[]}).orders.length >= 1);
    const out = await call(b.url, '/admin/logout', {method: 'POST', headers: {Cookie: cookie}});
    assert.equal(out.status, 303);
    const onA = await call(a.url, '/admin/api/orders', {headers: {Cookie: cookie}});
    assert.equal(onA.status, 403, 'signed out on B, refused on A');
  });

  test('the order limit and the wrong-token limit count across both instances', async () => {
    assert.equal((await newOrder(a.url, '127.0.0.43')).status, 201);
    assert.equal((await newOrder(b.url, '127.0.0.43')).status, 201);
    assert.equal((await newOrder(a.url, '127.0.0.43')).status, 201);
    assert.equal((await newOrder(b.url, '127.0.0.43')).status, 429, 'the 4th, on B');
    assert.equal((await newOrder(a.url, '127.0.0.43')).status, 429, 'and on A');
    assert.equal((await newOrder(b.url, '127.0.0.44')).status, 201, 'another address');

    for (let i = 1; i <= 5; i++) {
      const wrong = await signIn(
        i % 2 ? a.url : b.url,
        `wrong-token-${i}-0123456789`,
        '127.0.0.45',
      );
      assert.equal(wrong.headers.location, '/admin/login?error=1', `wrong token ${i}`);
    }
    assert.equal((await signIn(b.url, 'wrong-token-6-0123456789', '127.0.0.45')).status, 429);
    assert.equal((await signIn(a.url, 'wrong-token-7-0123456789', '127.0.0.45')).status, 429);
    assert.equal((await signIn(a.url, ADMIN, '127.0.0.45')).status, 303, 'the right token passes');
  });

  test("a webhook one instance received is in the other's webhook log", async () => {
    // The sandbox delivered the payment's webhooks to B (its server_url); A lists them.
    const bearer = {Authorization: `Bearer ${ADMIN}`};
    let deliveries: {gatewayOrderId: string | null; signature: string}[] = [];
    for (let i = 0; i < 100 && deliveries.length === 0; i++) {
      const log = await call(a.url, '/admin/api/webhooks', {headers: bearer});
      deliveries = (JSON.parse(log.text) as {deliveries: typeof deliveries}).deliveries;
      if (deliveries.length === 0) await sleep(100);
    }
    assert.ok(
      deliveries.some((d) => d.signature === 'valid' && d.gatewayOrderId?.startsWith('ord-')),
      `A lists the delivery B received\n${logs()}`,
    );
  });

  test('nothing is written under either DATA_DIR; the shop tables are in the schema', async () => {
    for (const dir of [dataDirA, dataDirB]) {
      assert.ok(
        !existsSync(dir) || readdirSync(dir).length === 0,
        `${dir} holds ${existsSync(dir) ? readdirSync(dir).join(', ') : ''}`,
      );
    }
    const tables = await pgQuery<{table_name: string}>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = $1 AND table_name LIKE 'example_%' ORDER BY 1`,
      [schema],
    );
    assert.deepEqual(
      tables.map((t) => t.table_name),
      [
        'example_admin_sessions',
        'example_canceled_subscriptions',
        'example_orders',
        'example_throttle_events',
        'example_webhook_log',
        'example_webhook_log_unlogged',
      ],
    );
  });
});
