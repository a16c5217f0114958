/**
 * No database connection is held across a call to the gateway (issue 28). The companion
 * on a real PostgreSQL store with a pool of two connections, served over loopback HTTP,
 * against the gateway sandbox whose every payment create takes 2 s (its `delay=2000`
 * fault, sent by the client's fetch on each create): 50 pay requests for 50 orders at
 * once. Every pay is answered 200 `success`, the sandbox holds exactly one charge per
 * order, and — measured on the pool itself, every checkout of a connection timed from
 * the request to its release — no connection is held for anything like a gateway call,
 * and no request waits for a connection for anything like one either: had a transaction
 * spanned a create, its connection would be held ≥ 2 s, and with two connections the
 * other 48 pays would queue for seconds. Then the same with the pool's wait deadline
 * shorter than the queue: a pool wait past it is `503 busy` with `Retry-After` — never
 * `store_unavailable`, the database being up. Skipped without PostgreSQL.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {PostgresPaymentStore} from '../../../src/server/index.js';
import {CARDS, payBody, payHttp, sandboxCharges, serveCompanion} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

const GATEWAY_MS = 2000;
const PAYS = 50;

let sandbox: Sandbox;
before(async () => {
  if (!PG_SKIP) sandbox = await startSandbox({});
});
after(async () => {
  await sandbox?.close();
  await dropSchemas();
});

/** Every create waits `GATEWAY_MS` at the sandbox (the sandbox's own delay fault). */
const slowCreates = (input: string, init: RequestInit): Promise<Response> => {
  const slow = init.method === 'POST' && new URL(input).pathname === '/api/v1/payment';
  if (!slow) return fetch(input, init);
  const headers = new Headers(init.headers);
  headers.set('X-Sandbox-Fault', `delay=${GATEWAY_MS}`);
  return fetch(input, {...init, headers});
};

interface Checkout {
  /** From asking the pool for a connection to getting it (ms). */
  waitMs: number;
  /** From getting the connection to releasing it (ms). */
  holdMs: number;
}

/** Times every checkout of `store`'s pool: the wait for a connection, and how long it is held. */
function timePool(store: PostgresPaymentStore): Checkout[] {
  const checkouts: Checkout[] = [];
  const pool = store.pool;
  type Client = {release(e?: unknown): void};
  const connect = pool.connect.bind(pool) as () => Promise<Client>;
  const timed = async (): Promise<Client> => {
    const asked = performance.now();
    const client = await connect();
    const got = performance.now();
    const release = client.release;
    client.release = function (this: unknown, e?: unknown) {
      checkouts.push({waitMs: got - asked, holdMs: performance.now() - got});
      client.release = release;
      return release.call(this, e);
    };
    return client;
  };
  // pg's own pool.query (the guard store's statements) asks with a callback: answer it too,
  // else its connection would be taken and never given back.
  (pool as unknown as {connect: (cb?: unknown) => unknown}).connect = (cb?: unknown) => {
    const got = timed();
    if (typeof cb !== 'function') return got;
    const callback = cb as (error: unknown, client?: Client, done?: (e?: unknown) => void) => void;
    got.then(
      (client) => callback(undefined, client, (e?: unknown) => client.release(e)),
      (error: unknown) => callback(error),
    );
    return undefined;
  };
  return checkouts;
}

const max = (xs: number[]) => Math.round(Math.max(0, ...xs));

describe('a pool of two and a gateway that takes 2 s per create', {skip: PG_SKIP}, () => {
  test('50 pays at once for 50 orders: all paid, no connection held across a create', async (t) => {
    const store = new PostgresPaymentStore({
      connectionString: PG_TEST_URL,
      schema: schemaName('pool2'),
      poolSize: 2,
    });
    await store.ready();
    const checkouts = timePool(store);
    const companion = await serveCompanion(sandbox, store, {
      gatewayFetch: slowCreates,
      timeoutMs: GATEWAY_MS * 5,
    });
    try {
      const orders = Array.from({length: PAYS}, (_, i) => `pool2-${i}`);
      const started = performance.now();
      const answers = await Promise.all(
        orders.map((ref) => payHttp(companion.url, payBody(ref, `${ref}-a`, CARDS.success))),
      );
      const seconds = (performance.now() - started) / 1000;
      const holds = checkouts.map((c) => c.holdMs);
      const waits = checkouts.map((c) => c.waitMs);
      t.diagnostic(
        `${PAYS} pays in ${seconds.toFixed(1)} s; ${checkouts.length} checkouts of the pool: ` +
          `longest hold ${max(holds)} ms, longest wait ${max(waits)} ms`,
      );
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
      assert.ok(checkouts.length >= PAYS * 2, 'the pool was used by every pay');
      // A create takes 2 s: a transaction around one would hold its connection that long.
      assert.ok(max(holds) < GATEWAY_MS / 2, `a connection held ${max(holds)} ms`);
      assert.ok(max(waits) < GATEWAY_MS / 2, `a connection waited for ${max(waits)} ms`);
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
