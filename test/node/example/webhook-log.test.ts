/**
 * The example's webhook log (`server-example/webhook-log.ts`): every delivery is kept,
 * with its signature check and the companion's answer, and a delivery is shown as a
 * repeat exactly when an earlier delivery of the same event was acknowledged (200) — so a
 * resend after a refused delivery is not a repeat, a second acknowledged one is.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import {WebhookLog, inspectWebhook} from '../../../server-example/webhook-log.js';
import {SECRET, primaryWebhook, signedWebhook} from '../checkout/helpers.js';

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
