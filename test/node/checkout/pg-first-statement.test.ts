/**
 * A PostgreSQL transaction's first statement goes with its `BEGIN` as one text, its values
 * written in as literals (pg-session.ts): values with quotes, backslashes, `$1`-like text,
 * empty values and numbers must reach the database exactly as parameters would — an
 * attempt inserted (its first statement the order's read), updated by its id and by its
 * gateway order id with a webhook event (first statement: the event and the locked read),
 * each read back unchanged; a duplicate event still changes nothing.
 */
import assert from 'node:assert/strict';
import {after, describe, test} from 'node:test';
import pg from 'pg';
import {PostgresPaymentStore} from '../../../src/server/index.js';
import {inlined} from '../../../src/server/store/postgres/pg-session.js';
import {statements} from '../../../src/server/store/statements.js';
import {newSavedCardId} from '../../../src/server/store/saved-card-records.js';
import {storedAttempt as attempt} from './attempt-rows.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

after(dropSchemas);

const AWKWARD = [`O'Reilly`, `back\\slash`, `both'\\'`, `$1 $2 ?`, `E'x'`, `semi; COMMIT;`, `ünï`];

describe("a transaction's first statement sent with its BEGIN", {skip: PG_SKIP}, () => {
  test('awkward values round-trip as parameters would', async () => {
    const store = new PostgresPaymentStore({
      connectionString: PG_TEST_URL,
      schema: schemaName('first'),
      statementTimeoutMs: 10_000,
    });
    try {
      for (const [i, text] of AWKWARD.entries()) {
        const a = attempt(`${text}-id-${i}`, `${text}-order`, {seq: i + 1, createdAt: 1000 + i});
        const inserted = await store.insertAttempt(a, undefined);
        assert.equal(inserted.inserted, true, text);
        assert.deepEqual(await store.listAttempts(a.orderRef), [a]);
        const again = await store.insertAttempt({...a, attemptId: `${a.attemptId}-2`}, undefined);
        assert.deepEqual(again, {inserted: false, existing: a, reason: 'order_has_live_attempt'});

        const byId = await store.updateAttempt({attemptId: a.attemptId}, () => ({
          patch: {statusDescription: text, updatedAt: 2000},
        }));
        assert.equal(byId.attempt?.statusDescription, text);

        const event = {
          eventKey: `${text}-event`,
          receivedAt: 3000,
          kind: 'primary',
          gatewayOrderId: a.gatewayOrderId,
          status: 'SUCCESS',
          data: JSON.stringify({text}),
        };
        const mutate = () => ({patch: {state: 'success' as const, updatedAt: 3000}});
        const byGateway = await store.updateAttempt(
          {gatewayOrderId: a.gatewayOrderId},
          mutate,
          event,
        );
        assert.equal(byGateway.duplicateEvent, false);
        assert.equal(byGateway.changed, true);
        const twice = await store.updateAttempt({gatewayOrderId: a.gatewayOrderId}, mutate, event);
        assert.equal(twice.duplicateEvent, true);
        const [stored] = await store.listAttempts(a.orderRef);
        assert.deepEqual(stored, {
          ...a,
          statusDescription: text,
          state: 'success',
          updatedAt: 3000,
        });
        const events = (await store.listEvents()).filter((e) => e.eventKey === event.eventKey);
        assert.equal(events.length, 1);
        assert.equal(events[0]!.data, event.data);
      }
      // An event for no stored attempt is kept, and says so once.
      const lone = {
        eventKey: 'lone',
        receivedAt: 1,
        kind: 'primary',
        data: '{}',
        gatewayOrderId: `x'\\`,
      };
      const r = await store.updateAttempt({gatewayOrderId: `x'\\`}, () => undefined, lone);
      assert.deepEqual(r, {duplicateEvent: false, attempt: undefined, changed: false});
      const r2 = await store.updateAttempt({gatewayOrderId: `x'\\`}, () => undefined, lone);
      assert.equal(r2.duplicateEvent, true);
    } finally {
      await store.close();
    }
  });
});

describe('values written in as literals, judged by PostgreSQL', {skip: PG_SKIP}, () => {
  test('each reads back as the same value sent as a parameter: arrays, numbers, booleans, null', async () => {
    const pool = new pg.Pool({connectionString: PG_TEST_URL, max: 1});
    try {
      const text = `SELECT $1::text[] AS texts, $2::numeric[] AS numbers, $3::bigint AS big,
        $4::boolean AS yes, $5::text AS nothing, $6::text AS awkward`;
      const values = [
        [...AWKWARD, null, '', 'NULL', '{a,b}', ' spaced ', '"quoted"', 'a\\"b'],
        [1, 2.5, -3, null, 1e21],
        1795960356651,
        true,
        null,
        AWKWARD.join(' '),
      ];
      const written = inlined(text, values);
      assert.ok(written !== undefined, 'every value can be written in');
      const asParameters = (await pool.query(text, values)).rows;
      assert.deepEqual((await pool.query(written)).rows, asParameters);
    } finally {
      await pool.end();
    }
  });
});

describe("a saved card's token is never written into a statement's text", {skip: PG_SKIP}, () => {
  test('the rule: a statement on saved_cards keeps its values as parameters', () => {
    const sql = statements('postgres', 's');
    for (const text of [sql.insertSavedCard, sql.liveSavedCard, sql.deleteSavedCard]) {
      assert.equal(sql.sendsValuesApart(text), true, text);
    }
    assert.equal(sql.sendsValuesApart(sql.insertAttempt), false);
    assert.equal(
      inlined('SELECT * FROM s.attempts WHERE order_ref = $1', ['o-1']),
      `SELECT * FROM s.attempts WHERE order_ref = 'o-1'`,
    );
  });

  test('saving, finding and removing a card sends no text holding its token', async () => {
    const store = new PostgresPaymentStore({
      connectionString: PG_TEST_URL,
      schema: schemaName('token'),
      statementTimeoutMs: 10_000,
    });
    // Every text the store sends, on the pool and on a client it checks out.
    const pool = (store as unknown as {pool: pg.Pool}).pool;
    const texts: string[] = [];
    const textOf = (first: unknown) =>
      typeof first === 'string' ? first : String((first as {text?: unknown} | null)?.text);
    const wrapped = new WeakSet<object>();
    const watch = (client: pg.PoolClient) => {
      if (wrapped.has(client)) return client;
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as {query: unknown}).query = (...args: unknown[]) => {
        texts.push(textOf(args[0]));
        return query(...args);
      };
      return client;
    };
    // pg's own pool.query checks a client out with a callback: both ways are watched.
    type Done = (error: Error | undefined, client: pg.PoolClient, release: () => void) => void;
    const connect = pool.connect.bind(pool) as (done?: Done) => Promise<pg.PoolClient> | void;
    (pool as {connect: unknown}).connect = (done?: Done) =>
      done
        ? connect((error, client, release) => done(error, client && watch(client), release))
        : (connect() as Promise<pg.PoolClient>).then(watch);
    const token = 'tok-secret-4f1d';
    try {
      const card = {
        id: newSavedCardId(),
        customerId: 'cust-token',
        token,
        mask: '424242******4242',
        tokenExpiresAt: '2031-12-31T23:59:59',
        createdAt: 1000,
      };
      assert.deepEqual(await store.saveCard(card), card);
      assert.deepEqual(await store.saveCard({...card, id: newSavedCardId()}), card);
      assert.equal((await store.listSavedCards('cust-token')).length, 1);
      await store.deleteSavedCard('cust-token', card.id, 2000);
      assert.ok(texts.length > 0);
      assert.deepEqual(
        texts.filter((t) => t.includes(token)),
        [],
      );
    } finally {
      await store.close();
    }
  });
});
