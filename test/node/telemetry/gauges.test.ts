/**
 * The observable instruments read what each app holds at collection time: admission's
 * counts summed over the apps, the breaker of the shop, and the outbox of each store once
 * (its backlog and its oldest entry's age on the app's clock).
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {loadOtelApi} from '../../../src/server/telemetry/otel-api.js';
import {Telemetry} from '../../../src/server/telemetry/telemetry.js';
import {pointsOf, registerSdk} from './otel-sdk.js';

let sdk: ReturnType<typeof registerSdk>;
before(() => {
  sdk = registerSdk();
});
after(() => sdk.shutdown());

test('admission, breaker and outbox gauges read every live app at collection', async () => {
  const t = new Telemetry(loadOtelApi());
  const now = 1_000_000;
  const pending = [{createdAt: now - 90_000}, {createdAt: now - 30_000}, {createdAt: now - 1000}];
  const store = {pendingOutbox: (limit = 100) => Promise.resolve(pending.slice(0, limit))};
  const service = {
    cardTestingState: () => Promise.resolve({state: 'open' as const, decided: 40, declined: 30}),
  };
  const a = {admission: {inFlight: 3, queued: 2, refused: 7}, service, store, now: () => now};
  // A second app on the same store (and guard store): its outbox is not counted twice.
  const b = {admission: {inFlight: 1, queued: 0, refused: 1}, service, store, now: () => now};
  const ownerA = {};
  const ownerB = {};
  t.observe(ownerA, a);
  t.observe(ownerB, b);

  const m = await sdk.metrics();
  const value = (name: string) => pointsOf(m.get(name))[0]?.[1];
  assert.equal(value('pg_checkout.admission.in_flight'), 4);
  assert.equal(value('pg_checkout.admission.queued'), 2);
  assert.equal(value('pg_checkout.admission.refused'), 8);
  assert.equal(value('pg_checkout.card_testing.breaker.state'), 1);
  assert.equal(value('pg_checkout.card_testing.decline_ratio'), 0.75);
  assert.equal(value('pg_checkout.outbox.backlog'), 3);
  assert.equal(value('pg_checkout.outbox.oldest_age'), 90);

  // Later collections read the apps again.
  a.admission.inFlight = 0;
  pending.splice(0, 2);
  const later = await sdk.metrics();
  assert.equal(pointsOf(later.get('pg_checkout.admission.in_flight'))[0]?.[1], 1);
  assert.equal(pointsOf(later.get('pg_checkout.outbox.backlog'))[0]?.[1], 1);
  assert.equal(pointsOf(later.get('pg_checkout.outbox.oldest_age'))[0]?.[1], 1);
  assert.ok(ownerA && ownerB);
});
