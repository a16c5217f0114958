/**
 * The example's webhook log (`server-example/webhook-log.ts`): a delivery is shown as a
 * repeat exactly when an earlier delivery of the same event was acknowledged (200) — so a
 * resend after a refused delivery is not a repeat, a second acknowledged one is; the
 * deliveries are written a few at a time; and the log is bounded: forged deliveries past a
 * rate per minute are counted instead of kept, each kind keeps its newest rows only (a
 * flood of forgeries never pushes the gateway's deliveries out), the counts are kept for a
 * number of minutes, and what waits in memory while the database fails is bounded too.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {CHECKOUT_BASE, createExampleApp} from '../../../server-example/app.js';
import {sqliteShopDb} from '../../../server-example/db/sqlite.js';
import type {ShopDb} from '../../../server-example/db/work.js';
import {
  WEBHOOK_LOG_FLUSH_MS,
  WebhookLog,
  inspectWebhook,
  type WebhookLogLimits,
} from '../../../server-example/webhook-log.js';
import {SECRET, captureLogger, primaryWebhook, signedWebhook} from '../checkout/helpers.js';

const success = inspectWebhook(signedWebhook(primaryWebhook('o-1', 'success')), SECRET);
const forged = inspectWebhook(signedWebhook(primaryWebhook('o-1', 'success'), 'other'), SECRET);

test('a delivery is a repeat exactly when the same event was acknowledged before', async () => {
  const db = new Database(':memory:');
  const log = new WebhookLog(sqliteShopDb(db));
  const pending = inspectWebhook(signedWebhook(primaryWebhook('o-1', 'pending')), SECRET);
  assert.equal(success.signature, 'valid');
  assert.equal(forged.signature, 'invalid');

  log.record(success, '198.51.100.1', 503, 1); // refused: the gateway sends it again
  log.record(success, '198.51.100.1', 200, 2); // first acknowledged: not a repeat
  log.record(pending, '198.51.100.1', 200, 3); // another event of the order
  log.record(success, '198.51.100.1', 200, 4); // a repeat
  log.record(forged, '198.51.100.9', 403, 5);
  log.record(forged, '198.51.100.9', 403, 6); // no event key: never a repeat

  const listed = (await log.list()).reverse();
  assert.deepEqual(
    listed.map((e) => [e.receivedAt, e.answer, e.signature, e.duplicate]),
    [
      [1, 503, 'valid', false],
      [2, 200, 'valid', false],
      [3, 200, 'valid', false],
      [4, 200, 'valid', true],
      [5, 403, 'invalid', false],
      [6, 403, 'invalid', false],
    ],
  );
  assert.equal(listed[0]!.gatewayOrderId, 'o-1');
  assert.equal(listed[0]!.status, 'success');
  db.close();
});

test('deliveries are written together a moment after they are recorded, at once when the log is read or flushed', async (t) => {
  // The log's timer runs on the test's clock.
  t.mock.timers.enable({apis: ['setTimeout']});
  const dir = mkdtempSync(path.join(tmpdir(), 'webhook-log-'));
  try {
    const file = path.join(dir, 'shop.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const log = new WebhookLog(sqliteShopDb(db));
    // Another process reading the file (another instance's back office).
    const reader = new Database(file, {readonly: true});
    const written = () =>
      (reader.prepare('SELECT COUNT(*) AS n FROM example_webhook_log').get() as {n: number}).n;
    log.record(success, '198.51.100.1', 200, 1);
    log.record(success, '198.51.100.1', 200, 2);
    assert.equal(written(), 0, 'not one commit per delivery');
    t.mock.timers.tick(WEBHOOK_LOG_FLUSH_MS - 1);
    await new Promise(setImmediate);
    assert.equal(written(), 0, 'not before the moment has passed');
    t.mock.timers.tick(1);
    await new Promise(setImmediate); // the write the timer started (SQLite: no I/O to await)
    assert.equal(written(), 2);
    log.record(success, '198.51.100.1', 200, 3);
    assert.equal((await log.list()).length, 3, 'a read of the log shows every delivery recorded');
    assert.equal(written(), 3);
    log.record(success, '198.51.100.1', 200, 4);
    await log.flush(); // the app's close, before it closes the database
    assert.equal(written(), 4);
    reader.close();
    db.close();
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

test('an app closed right after a webhook has its delivery in the log', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'webhook-log-app-'));
  try {
    const example = createExampleApp({
      dataDir: dir,
      publicUrl: 'http://shop.test',
      gateway: {
        baseUrl: 'http://127.0.0.1:9',
        posId: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c0be11',
        credentials: {apiKey: 'k', apiSecret: SECRET, endpointsKey: 'e'},
      },
      logger: captureLogger().logger,
    });
    const res = await example.app.request(`http://shop.test${CHECKOUT_BASE}/webhook`, {
      method: 'POST',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: signedWebhook(primaryWebhook('o-3', 'success')),
    });
    assert.equal(res.status, 200);
    await example.close();
    const db = new Database(path.join(dir, 'payments.db'), {readonly: true});
    const rows = db.prepare('SELECT gateway_order_id, answer FROM example_webhook_log').all();
    assert.deepEqual(rows, [{gateway_order_id: 'o-3', answer: 200}]);
    db.close();
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

const SMALL: WebhookLogLimits = {
  rows: {valid: 5, undecodable: 2, invalid: 3},
  forgedPerMinute: 2,
  countedMinutes: 3,
  pending: 4,
};

test('forged deliveries past the rate are counted, each kind keeps its newest rows, the counts their last minutes', async () => {
  const db = new Database(':memory:');
  const clock = {ms: Date.parse('2031-03-01T09:00:00Z')};
  const log = new WebhookLog(sqliteShopDb(db), () => clock.ms, SMALL);
  const kinds = () =>
    db
      .prepare('SELECT signature, COUNT(*) AS n FROM example_webhook_log GROUP BY 1 ORDER BY 1')
      .all();

  log.record(success, '198.51.100.1', 200, 1);
  log.record(success, '198.51.100.1', 200, 2);
  for (let i = 0; i < 10; i++) log.record(forged, '203.0.113.9', 403, 10 + i);
  await log.flush();
  assert.deepEqual(kinds(), [
    {signature: 'invalid', n: 2},
    {signature: 'valid', n: 2},
  ]);
  assert.equal((await log.unlogged()).deliveries, 8, 'the minute kept 2 forged ones, counted 8');

  // The next minutes: 2 more kept each, but never more than 3 in all (the newest).
  for (let m = 1; m <= 2; m++) {
    clock.ms += 60_000;
    for (let i = 0; i < 10; i++) log.record(forged, '203.0.113.9', 403, 100 * m + i);
  }
  await log.flush();
  const forgedKept = db
    .prepare("SELECT received_at FROM example_webhook_log WHERE signature = 'invalid' ORDER BY id")
    .all();
  assert.deepEqual(forgedKept, [{received_at: 101}, {received_at: 200}, {received_at: 201}]);
  assert.equal((await log.unlogged()).deliveries, 24);
  // The gateway's deliveries are still there, and they too keep their newest 5 only.
  for (let i = 0; i < 7; i++) {
    log.record(success, '198.51.100.1', 200, 1000 + i);
    await log.flush();
  }
  assert.deepEqual(kinds(), [
    {signature: 'invalid', n: 3},
    {signature: 'valid', n: 5},
  ]);
  assert.deepEqual(
    (await log.list()).filter((e) => e.signature === 'valid').map((e) => e.receivedAt),
    [1006, 1005, 1004, 1003, 1002],
  );

  // Counts older than 3 minutes are dropped as new ones are written: two minutes on, the
  // first two minutes' counts go, the third's stays.
  clock.ms += 2 * 60_000;
  for (let i = 0; i < 3; i++) log.record(forged, '203.0.113.9', 403, 2000 + i);
  const unlogged = await log.unlogged();
  const minutes = db.prepare('SELECT minute, deliveries FROM example_webhook_log_unlogged').all();
  assert.deepEqual(
    minutes.map((r) => (r as {deliveries: number}).deliveries),
    [8, 1],
    'the minutes within the last 3, one row each',
  );
  assert.equal(unlogged.deliveries, 9);
  db.close();
});

test('while the database fails, what waits to be written is bounded; the rest is counted', async () => {
  const db = new Database(':memory:');
  const real = sqliteShopDb(db);
  let failing = true;
  const flaky: ShopDb = {
    ...real,
    transaction: (work) => (failing ? Promise.reject(new Error('down')) : real.transaction(work)),
  };
  const log = new WebhookLog(flaky, Date.now, SMALL);
  for (let i = 0; i < 3; i++) log.record(success, '198.51.100.1', 200, i);
  await assert.rejects(log.flush(), /down/);
  for (let i = 3; i < 10; i++) log.record(success, '198.51.100.1', 200, i);
  await assert.rejects(log.flush(), /down/);
  failing = false;
  await log.flush();
  const kept = db.prepare('SELECT received_at FROM example_webhook_log ORDER BY id').all();
  assert.deepEqual(
    kept.map((r) => (r as {received_at: number}).received_at),
    [0, 1, 2, 3],
    'the first 4 waited (the limit); the other 6 were counted',
  );
  assert.equal((await log.unlogged()).deliveries, 6);
  db.close();
});
