/**
 * Where three hand-written stores once disagreed (issue 31), now one store core on two
 * dialects, each case on SQLite (a file, and `:memory:`) and PostgreSQL (skipped without a
 * server), with two store instances on one database where the dialect has them (two
 * connections to the file; two pools on the schema), so "at once" is truly at once:
 * - intents asked for at once against a `decide` that allows fewer: exactly those kept
 *   (the memory store awaited inside its step and kept both of two refunds);
 * - one live attempt per order: a store refuses a new attempt exactly when
 *   `isLiveAttempt` says the order's attempt is live, for every state, written off or not;
 * - the same sort orders for rows with equal times (insertion order breaks the tie).
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {
  PostgresPaymentStore,
  SqlitePaymentStore,
  type AttemptState,
  type PaymentStore,
} from '../../../src/server/index.js';
import {
  ATTEMPT_STATES,
  isLiveAttempt,
  type OperationIntent,
  type WriteOffReason,
} from '../../../src/server/store/payment-store.js';
import {storedAttempt as attempt} from './attempt-rows.js';
import {IN_PROCESS_SKIP, PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-drift-'));
after(async () => {
  rmSync(tmp, {recursive: true, force: true});
  await dropSchemas();
});
let n = 0;

/** A new database: two store instances on it (the same one where there is only one). */
type Open = () => [PaymentStore, PaymentStore];

const DIALECTS: [string, Open, (string | false)?][] = [
  [
    'SQLite file, two connections',
    () => {
      const file = path.join(tmp, `d${n++}.db`);
      return [new SqlitePaymentStore(file), new SqlitePaymentStore(file)];
    },
    IN_PROCESS_SKIP,
  ],
  [
    "SQLite ':memory:'",
    () => {
      const s = new SqlitePaymentStore(':memory:');
      return [s, s];
    },
    IN_PROCESS_SKIP,
  ],
  [
    'PostgreSQL, two pools',
    () => {
      const schema = schemaName('drift');
      const a = new PostgresPaymentStore({connectionString: PG_TEST_URL, schema});
      const b = new PostgresPaymentStore({connectionString: PG_TEST_URL, schema});
      return [a, b];
    },
    PG_SKIP,
  ],
];

const close = async ([a, b]: [PaymentStore, PaymentStore]) => {
  await a.close();
  if (b !== a) await b.close();
};

function refund(key: string, amount: string, at = 1): OperationIntent {
  return {
    orderRef: 'o1',
    key,
    gatewayOrderId: 'o1-a1',
    kind: 'refund',
    reason: 'merchant',
    amount,
    currency: 'XTS',
    state: 'pending',
    fingerprint: key,
    createdAt: at,
    updatedAt: at,
  };
}

/** Refuses what would take the refunds (not failed) past `total` cents. */
const upTo = (total: number) => (intents: readonly OperationIntent[]) => {
  const taken = intents
    .filter((i) => i.state !== 'failure')
    .reduce((sum, i) => sum + Math.round(Number(i.amount) * 100), 0);
  return taken + 100 > total
    ? {code: 'over_refund', message: 'amount: more than the order has left to refund'}
    : undefined;
};

for (const [name, open, skip] of DIALECTS) {
  describe(`${name}: what the stores once disagreed on`, {skip: skip || false}, () => {
    test('two refund intents at once against a decide that allows one: one kept', async () => {
      const stores = open();
      const [a, b] = stores;
      const results = await Promise.all([
        a.createIntent(refund('k1', '1.00'), upTo(100)),
        b.createIntent(refund('k2', '1.00'), upTo(100)),
      ]);
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal(results.filter((r) => !r.created && 'refused' in r).length, 1);
      assert.equal((await a.listIntents('o1')).length, 1);
      await close(stores);
    });

    test('twelve refunds at once against a decide that allows three: three kept', async () => {
      const stores = open();
      const results = await Promise.all(
        Array.from({length: 12}, (_, i) =>
          stores[i % 2]!.createIntent(refund(`k${i}`, '1.00'), upTo(300)),
        ),
      );
      assert.equal(results.filter((r) => r.created).length, 3);
      assert.equal((await stores[1].listIntents('o1')).length, 3);
      await close(stores);
    });

    test('one live attempt per order: refused exactly when isLiveAttempt says so', async () => {
      const stores = open();
      const [s] = stores;
      const cases: {state: AttemptState; writtenOff?: WriteOffReason}[] = ATTEMPT_STATES.flatMap(
        (state) => [{state}, {state, writtenOff: 'abandoned' as const}],
      );
      for (const [i, c] of cases.entries()) {
        const order = `live-${i}`;
        await s.insertAttempt(attempt(`first-${i}`, order));
        await s.updateAttempt({attemptId: `first-${i}`}, () => ({
          patch: {state: c.state, ...(c.writtenOff ? {writtenOff: c.writtenOff} : {})},
        }));
        const second = await s.insertAttempt(attempt(`second-${i}`, order, {seq: 2}));
        const refused = !second.inserted && second.reason === 'order_has_live_attempt';
        assert.equal(refused, isLiveAttempt(c), JSON.stringify(c));
      }
      await close(stores);
    });

    test('rows with equal times are listed in the order they were stored', async () => {
      const stores = open();
      const [s] = stores;
      for (const key of ['k-b', 'k-a', 'k-c']) {
        await s.createIntent(refund(key, '1.00', 7), () => undefined);
      }
      assert.deepEqual(
        (await s.listIntents('o1')).map((i) => i.key),
        ['k-b', 'k-a', 'k-c'],
      );
      assert.deepEqual(
        (await s.listIntentsInStates(['pending'])).map((i) => i.key),
        ['k-b', 'k-a', 'k-c'],
      );
      for (const id of ['a-y', 'a-x']) {
        await s.insertAttempt(attempt(id, `o-${id}`, {createdAt: 5}));
      }
      assert.deepEqual(
        (await s.listAttemptsInStates(['creating'])).map((a) => a.attemptId),
        ['a-x', 'a-y'],
        'equal times and sequence numbers: by attempt id',
      );
      for (const token of ['t-2', 't-1', 't-3']) {
        await s.saveCard({
          id: `sc_${token}`,
          customerId: 'cust',
          token,
          mask: '424242******4242',
          tokenExpiresAt: '2031-12-31T23:59:59',
          createdAt: 9,
        });
      }
      assert.deepEqual(
        (await s.listSavedCards('cust')).map((c) => c.token),
        ['t-2', 't-1', 't-3'],
      );
      await close(stores);
    });
  });
}
