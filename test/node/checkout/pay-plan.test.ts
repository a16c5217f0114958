/**
 * What one payment asks of its stores (issue 36: pay as a plan). Every call of the payment
 * store or the guard store is a transaction or a standalone read, so a direct payment's
 * calls are counted, on stores that only count what they pass on: before its answer
 * (settle, guard, insert, apply with its follow-ups) and with the work after it (the
 * outbox delivered to `onPaymentUpdate`). The follow-ups of a change are steps of the
 * payment: once its answer is given, the breaker has counted its outcome.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {MemoryGuardStore, SqlitePaymentStore} from '../../../src/server/index.js';
import {CARDS, StubGateway, inProcessApp, pay, payBody, record} from './helpers.js';

/** `target`, each of its method calls written down in `calls` as `tag.method`. */
function counted<T extends object>(target: T, tag: string, calls: string[]): T {
  return new Proxy(target, {
    get(t, key) {
      const value: unknown = Reflect.get(t, key, t);
      if (typeof value !== 'function' || key === 'constructor') return value;
      return (...args: unknown[]) => {
        calls.push(`${tag}.${String(key)}`);
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

function companion() {
  const calls: string[] = [];
  const gw = new StubGateway();
  gw.onCreate = async (req) => record(req, req.cc_number === CARDS.decline ? 'failure' : 'success');
  const guard = new MemoryGuardStore();
  // A count that lands a turn of the event loop later, as a database's would.
  const add = guard.add.bind(guard);
  guard.add = async (...args) => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return add(...args);
  };
  const {app} = inProcessApp(counted(new SqlitePaymentStore(':memory:'), 'store', calls), gw, {
    guardStore: counted(guard, 'guard', calls),
    clock: () => 1_000_000,
  });
  return {app, calls, guard};
}

test('a direct payment: 6 store calls before its answer, 8 with the work after it', async () => {
  const {app, calls} = companion();
  // A first payment makes the stores' one-time work (schema, statements) before counting.
  assert.equal((await pay(app, payBody('warm', 'att-warm'))).status, 200);
  await app.flushOutbox();
  calls.length = 0;

  const res = await pay(app, payBody('ord-1', 'att-1'));
  assert.equal(((await res.json()) as {outcome: string}).outcome, 'success');
  // The outbox's delivery runs beside the answer (it starts on the next turn after the
  // write it follows): it is the work after the answer, wherever it lands.
  const answered = calls.filter((c) => !/Outbox/.test(c));
  await app.flushOutbox();
  await app.close();
  assert.ok(answered.length <= 6, `before the answer: ${answered.join(', ')}`);
  assert.ok(calls.length <= 8, `with the work after it: ${calls.join(', ')}`);
});

test("the breaker has counted a payment's outcome by the time it is answered", async () => {
  const {app, guard} = companion();
  assert.equal((await pay(app, payBody('ord-d', 'att-d', CARDS.decline))).status, 200);
  // No wait: the count is the payment's last step, not a task after it.
  const declined = await guard.sums(['ct:declined'], 0);
  assert.equal(declined['ct:declined'], 1);
  await app.close();
});
