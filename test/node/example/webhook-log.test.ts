/**
 * The example's webhook log (`server-example/webhook-log.ts`): every delivery is kept,
 * with its signature check and the companion's answer, and a delivery is shown as a
 * repeat exactly when an earlier delivery of the same event was acknowledged (200) — so a
 * resend after a refused delivery is not a repeat, a second acknowledged one is.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {CHECKOUT_BASE, createExampleApp} from '../../../server-example/app.js';
import {
  WEBHOOK_LOG_FLUSH_MS,
  WebhookLog,
  inspectWebhook,
} from '../../../server-example/webhook-log.js';
import {SECRET, captureLogger, primaryWebhook, signedWebhook} from '../checkout/helpers.js';

test('a delivery is a repeat exactly when the same event was acknowledged before', () => {
  const db = new Database(':memory:');
  const log = new WebhookLog(db);
  const success = inspectWebhook(signedWebhook(primaryWebhook('o-1', 'success')), SECRET);
  const pending = inspectWebhook(signedWebhook(primaryWebhook('o-1', 'pending')), SECRET);
  const forged = inspectWebhook(signedWebhook(primaryWebhook('o-1', 'success'), 'other'), SECRET);
  assert.equal(success.signature, 'valid');
  assert.equal(forged.signature, 'invalid');

  log.record(success, '198.51.100.1', 503, 1); // refused: the gateway sends it again
  log.record(success, '198.51.100.1', 200, 2); // first acknowledged: not a repeat
  log.record(pending, '198.51.100.1', 200, 3); // another event of the order
  log.record(success, '198.51.100.1', 200, 4); // a repeat
  log.record(forged, '198.51.100.9', 403, 5);
  log.record(forged, '198.51.100.9', 403, 6); // no event key: never a repeat

  const listed = log.list().reverse();
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

test('deliveries are written together a moment after they are recorded, at once when the log is read or flushed', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'webhook-log-'));
  try {
    const file = path.join(dir, 'shop.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const log = new WebhookLog(db);
    // Another process reading the file (another instance's back office).
    const reader = new Database(file, {readonly: true});
    const written = () =>
      (reader.prepare('SELECT COUNT(*) AS n FROM example_webhook_log').get() as {n: number}).n;
    const receipt = inspectWebhook(signedWebhook(primaryWebhook('o-2', 'success')), SECRET);
    log.record(receipt, '198.51.100.1', 200, 1);
    log.record(receipt, '198.51.100.1', 200, 2);
    assert.equal(written(), 0, 'not one commit per delivery');
    await new Promise((resolve) => setTimeout(resolve, WEBHOOK_LOG_FLUSH_MS + 30));
    assert.equal(written(), 2);
    log.record(receipt, '198.51.100.1', 200, 3);
    assert.equal(log.list().length, 3, 'a read of the log shows every delivery recorded');
    assert.equal(written(), 3);
    log.record(receipt, '198.51.100.1', 200, 4);
    log.flush(); // the app's close, before it closes the database
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
