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
import {PostgresPaymentStore} from '../../../src/server/index.js';
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
