/**
 * A process never asks the gateway about a payment whose create it is still sending
 * (`CreatesInFlight`, service/locks.ts): while the create call runs, `reconcile`, a sweep
 * and recovery leave the attempt to it — no lookup that could find nothing yet, and no
 * `creating` attempt taken for a crashed one and made `unknown` under its own create.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {SqlitePaymentStore} from '../../../src/server/index.js';
import {StubGateway, inProcessApp, pay, payBody, record} from './helpers.js';
import type {PaymentRecord} from '../../../src/server/gateway/schemas.js';

test('reconcile, sweep and recovery leave a running create alone', async () => {
  const gw = new StubGateway();
  let reached!: () => void;
  const atGateway = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  gw.onCreate = async (req): Promise<PaymentRecord> => {
    reached();
    await released;
    return record(req, 'success');
  };
  const store = new SqlitePaymentStore(':memory:');
  const {app} = inProcessApp(store, gw);
  const paying = pay(app, payBody('ord-r', 'att-r'));
  await atGateway;

  await app.reconcile('ord-r');
  await app.sweep({force: true});
  await app.recover();
  assert.deepEqual(gw.lookups, [], 'no lookup while the create runs');
  assert.equal((await store.getAttempt('att-r'))?.state, 'creating');

  release();
  const answer = (await (await paying).json()) as {outcome: string};
  assert.equal(answer.outcome, 'success');
  await app.close();
});
