/**
 * No database connection is held across a call to the gateway (issue 28). The companion
 * on a real PostgreSQL store with a pool of two connections, served over loopback HTTP,
 * against the gateway sandbox: 50 pay requests for 50 orders at once, while the test holds
 * every payment create at the gateway until all 50 have arrived there. Had a transaction
 * spanned a create, the two connections would be held by the first two creates, the other
 * 48 pays could not reach the gateway (they would wait for a connection until the pool's
 * deadline, then answer busy), and fewer than 50 would arrive: counted, not timed. Then
 * every pay is answered 200 `success`, and the sandbox holds exactly one charge per order.
 * Then the same with the pool's wait deadline shorter than the queue: a pool wait past it
 * is `503 busy` with `Retry-After` — never `store_unavailable`, the database being up.
 * Skipped without PostgreSQL.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {PostgresPaymentStore} from '../../../src/server/index.js';
import {CARDS, payBody, payHttp, sandboxCharges, serveCompanion} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

const PAYS = 50;

let sandbox: Sandbox;
before(async () => {
  if (!PG_SKIP) sandbox = await startSandbox({});
});
after(async () => {
  await sandbox?.close();
  await dropSchemas();
});

/**
 * The companion's fetch, holding every payment create before it leaves for the gateway
 * until `release()`. `settled` resolves once each of the `count` pays either has its create
 * waiting there or has been answered without one (`answered()`, as each answer comes).
 */
function heldCreates(count: number) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  let arrived = 0;
  let answered = 0;
  const check = () => {
    if (arrived + answered >= count) settle();
  };
  const gatewayFetch = async (input: string, init: RequestInit): Promise<Response> => {
    if (init.method === 'POST' && new URL(input).pathname === '/api/v1/payment') {
      arrived++;
      check();
      await gate;
    }
    return fetch(input, init);
  };
  const answeredOne = () => {
    answered++;
    check();
  };
  return {gatewayFetch, release, settled, answeredOne, arrived: () => arrived};
}

/** Counts the checkouts of `store`'s pool. */
function countPool(store: PostgresPaymentStore): {count: number} {
  const counted = {count: 0};
  const pool = store.pool as unknown as {connect: (...args: unknown[]) => unknown};
  const connect = pool.connect.bind(pool);
  pool.connect = (...args: unknown[]) => {
    counted.count++;
    return connect(...args);
  };
  return counted;
}

describe('a pool of two and a gateway that holds every create', {skip: PG_SKIP}, () => {
  test('50 pays at once for 50 orders: all reach the gateway at once, all paid, one charge each', async (t) => {
    const store = new PostgresPaymentStore({
      connectionString: PG_TEST_URL,
      schema: schemaName('pool2'),
      poolSize: 2,
    });
    await store.ready();
    const checkouts = countPool(store);
    const held = heldCreates(PAYS);
    const companion = await serveCompanion(sandbox, store, {gatewayFetch: held.gatewayFetch});
    try {
      const orders = Array.from({length: PAYS}, (_, i) => `pool2-${i}`);
      const answering = Promise.all(
        orders.map((ref) =>
          payHttp(companion.url, payBody(ref, `${ref}-a`, CARDS.success)).finally(held.answeredOne),
        ),
      );
      // Every create at the gateway at once, or (connections held across them) the pays
      // that found no connection answered without theirs arriving.
      await held.settled;
      const arrivedTogether = held.arrived();
      held.release();
      const answers = await answering;
      t.diagnostic(
        `${arrivedTogether} of ${PAYS} creates at the gateway at once; ${checkouts.count} checkouts of the pool`,
      );
      assert.equal(arrivedTogether, PAYS, 'no connection held across a create');
      assert.deepEqual(
        answers.filter((a) => a.status !== 200 || a.json['outcome'] !== 'success'),
        [],
        'every pay answered 200 success',
      );
      assert.deepEqual(
        orders.filter((ref) => sandboxCharges(sandbox, ref) !== 1),
        [],
        'one charge per order',
      );
      assert.ok(checkouts.count >= PAYS * 2, 'the pool was used by every pay');
    } finally {
      await companion.close();
      await store.close();
    }
  });

  test('a pool wait past its deadline is 503 busy with Retry-After, not store_unavailable', async () => {
    const store = new PostgresPaymentStore({
      connectionString: PG_TEST_URL,
      schema: schemaName('poolwait'),
      poolSize: 1,
      // Long enough to make a new connection on a loaded machine (pg's one timeout covers
      // both the wait for a free connection and the making of one), short for a test.
      connectTimeoutMs: 1000,
    });
    await store.ready();
    // The one connection is taken (as by a long transaction) while the pays arrive.
    const held = await store.pool.connect();
    const companion = await serveCompanion(sandbox, store);
    try {
      const answer = await payHttp(companion.url, payBody('poolwait-1', 'poolwait-1-a'));
      assert.equal(answer.status, 503);
      assert.equal((answer.json['error'] as {code: string}).code, 'busy');
      assert.equal((answer.json['error'] as {retryAfter: number}).retryAfter, 2);
      held.release();
      // The same attempt again, once a connection is free: paid, once.
      const again = await payHttp(companion.url, payBody('poolwait-1', 'poolwait-1-a'));
      assert.equal(again.status, 200);
      assert.equal(again.json['outcome'], 'success');
      assert.equal(sandboxCharges(sandbox, 'poolwait-1'), 1);
      assert.equal((await companion.app.health()).store, true, 'the database is up');
    } finally {
      await companion.close();
      await store.close();
    }
  });
});
