/**
 * The never-double rules of the pay route — single flight per attempt id, one live
 * attempt per order, unknown outcomes reconciled before anything else and re-sent with
 * the same gateway order id, refusals that never open a second charge — run with the
 * same assertions on every backend (`backends.ts`): the memory store with a stub gateway
 * in-process, and a SQLite file or PostgreSQL with the real sandbox over HTTP.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {CARDS, payBody} from './helpers.js';
import {BACKENDS} from './backends.js';

for (const make of BACKENDS) {
  const backend = make();

  describe(`pay: never double (${backend.name})`, {skip: backend.skip ?? false}, () => {
    before(() => backend.setup());
    after(() => backend.teardown());

    test('concurrent submits of one attempt make one gateway request and get the same answer', async () => {
      const h = await backend.companion();
      h.fault('ord-c', 'slow');
      const answers = await Promise.all(
        Array.from({length: 10}, () => h.pay(payBody('ord-c', 'att-c')).then((r) => r.json)),
      );
      assert.equal(h.creates('ord-c').length, 1);
      for (const a of answers) assert.deepEqual(a, answers[0]);
      assert.equal(h.charges('ord-c'), 1);
    });

    test('concurrent attempts with different ids for one order make one gateway request', async () => {
      const h = await backend.companion();
      h.fault('ord-d', 'slow');
      const answers = await Promise.all(
        Array.from({length: 8}, (_, i) => h.pay(payBody('ord-d', `att-d${i}`)).then((r) => r.json)),
      );
      assert.equal(h.creates('ord-d').length, 1);
      assert.ok(answers.every((a) => a['outcome'] === 'success'));
      assert.equal(h.charges('ord-d'), 1);
    });

    test('a repeat after the answer is answered from the store', async () => {
      const h = await backend.companion();
      const first = (await h.pay(payBody('ord-e', 'att-e'))).json;
      const again = (await h.pay(payBody('ord-e', 'att-e'))).json;
      assert.deepEqual(again, first);
      assert.equal(h.creates('ord-e').length, 1);
    });

    test('an attempt id of another order is refused', async () => {
      const h = await backend.companion();
      await h.pay(payBody('ord-f', 'att-f'));
      const res = await h.pay(payBody('ord-g', 'att-f'));
      assert.equal(res.status, 400);
      assert.equal((res.json['error'] as {field: string}).field, 'attemptId');
      assert.equal(h.creates('ord-g').length, 0);
    });

    test('after a decline a new attempt id gets a new gateway order id; the old one replays', async () => {
      const h = await backend.companion();
      const declined = (await h.pay(payBody('ord-h', 'att-h1', CARDS.decline))).json;
      assert.equal(declined['outcome'], 'failure');
      assert.equal(declined['code'], '5152');
      const replay = (await h.pay(payBody('ord-h', 'att-h1', CARDS.decline))).json;
      assert.deepEqual(replay, declined);
      const ok = (await h.pay(payBody('ord-h', 'att-h2'))).json;
      assert.equal(ok['outcome'], 'success');
      const created = h.creates('ord-h');
      assert.equal(created.length, 2);
      assert.notEqual(created[0], created[1]);
      assert.match(created[1]!, /^ord-h-2-/);
      assert.equal(h.charges('ord-h'), 1);
    });

    test('a success answers every later attempt of the order without charging', async () => {
      const h = await backend.companion();
      await h.pay(payBody('ord-i', 'att-i1'));
      const later = (await h.pay(payBody('ord-i', 'att-i2'))).json;
      assert.equal(later['outcome'], 'success');
      assert.equal(h.creates('ord-i').length, 1);
      assert.equal(h.charges('ord-i'), 1);
    });

    test('a pending 3-D Secure attempt answers its user_action_url instead of a second charge', async () => {
      const h = await backend.companion();
      const first = (await h.pay(payBody('ord-j', 'att-j1', CARDS.threeDS))).json;
      assert.equal(first['outcome'], '3ds_required');
      const second = (await h.pay(payBody('ord-j', 'att-j2'))).json;
      assert.deepEqual(second, first);
      assert.equal(h.creates('ord-j').length, 1);
    });

    test('an unknown outcome is reconciled before answering: found → its state', async () => {
      const h = await backend.companion();
      h.fault('ord-k', 'lost-after-charge');
      const answer = (await h.pay(payBody('ord-k', 'att-k'))).json;
      assert.equal(answer['outcome'], 'success');
      assert.equal(h.lookups('ord-k'), 1);
      await h.app.flushOutbox();
      // The hook hears what the customer would have: not confirmed, then the success.
      assert.deepEqual(
        h.updates.filter((u) => u.orderRef === 'ord-k').map((u) => [u.state, u.statusCode ?? null]),
        [
          ['unknown', 'not_confirmed'],
          ['success', '1000'],
        ],
      );
      assert.equal(h.charges('ord-k'), 1);
    });

    test('an unknown outcome is never taken for "not created": paying again reuses the order id', async () => {
      let now = Date.now();
      const h = await backend.companion({
        clock: () => now,
        statusCheck: {afterMs: 0, minIntervalMs: 1_000},
      });
      h.fault('ord-l', 'lost');
      const answer = (await h.pay(payBody('ord-l', 'att-l1'))).json;
      assert.equal(answer['outcome'], 'failure');
      assert.equal(answer['code'], 'not_confirmed', 'retryable, never "no money was taken"');
      // However long the gateway keeps not knowing it, the order is never "not created".
      now += 7 * 24 * 3600_000;
      // The status route answers as pay did: not confirmed, pay again (never "processing").
      const status = await h.status('ord-l');
      assert.equal(status['state'], 'failure');
      assert.equal(status['reason'], 'not_confirmed');
      assert.equal(status['final'], true);
      // Paying again sends the create again with the SAME gateway order id (the gateway
      // charges at most one create per order id).
      const ok = (await h.pay(payBody('ord-l', 'att-l2'))).json;
      assert.equal(ok['outcome'], 'success');
      const created = h.creates('ord-l');
      assert.equal(created.length, 2);
      assert.equal(created[0], created[1]);
      const attempts = await h.app.store.listAttempts('ord-l');
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0]!.createCount, 2);
      assert.equal(h.charges('ord-l'), 1);
    });

    test('a refusal of a re-sent create keeps the attempt open: the first may still land', async () => {
      const h = await backend.companion();
      h.fault('ord-rf', 'lost', 'refused');
      await h.pay(payBody('ord-rf', 'att-rf1'));
      const refused = (await h.pay(payBody('ord-rf', 'att-rf2'))).json;
      assert.equal(refused['outcome'], 'failure');
      const [a] = await h.app.store.listAttempts('ord-rf');
      assert.equal(a!.state, 'unknown');
      // The next payment still uses the same order id, never a fresh one.
      await h.pay(payBody('ord-rf', 'att-rf3'));
      assert.equal(new Set(h.creates('ord-rf')).size, 1);
      assert.equal(h.charges('ord-rf'), 1);
    });

    test('P-409 on creation is treated as unknown and looked up', async () => {
      const h = await backend.companion();
      h.fault('ord-m', 'conflict-after-charge');
      assert.equal((await h.pay(payBody('ord-m', 'att-m'))).json['outcome'], 'success');
      assert.equal(h.charges('ord-m'), 1);
    });

    test('a 400 from the gateway is a failure with nothing created; a new attempt may follow', async () => {
      const h = await backend.companion();
      h.fault('ord-n', 'refused');
      const first = (await h.pay(payBody('ord-n', 'att-n1'))).json;
      assert.equal(first['outcome'], 'failure');
      assert.equal(first['code'], 'V-400');
      assert.equal(h.charges('ord-n'), 0);
      assert.equal((await h.pay(payBody('ord-n', 'att-n2'))).json['outcome'], 'success');
      assert.equal(h.charges('ord-n'), 1);
    });

    test('a 401 from the gateway is 503 gateway_unavailable and nothing is charged', async () => {
      const h = await backend.companion();
      h.fault('ord-o', 'unauthorised');
      const res = await h.pay(payBody('ord-o', 'att-o'));
      assert.equal(res.status, 503);
      assert.equal((res.json['error'] as {code: string}).code, 'gateway_unavailable');
      assert.equal(h.charges('ord-o'), 0);
    });

    test('hosted: a second click reuses the open payment; after an unknown outcome the same order id is sent again', async () => {
      const h = await backend.companion();
      const first = await h.hosted('hp-1');
      assert.equal(first.status, 303);
      assert.notEqual(first.location, '/thanks?order=hp-1', "to the gateway's page");
      const again = await h.hosted('hp-1');
      assert.equal(again.location, first.location);
      assert.equal(h.creates('hp-1').length, 1);

      h.fault('hp-2', 'lost');
      const lost = await h.hosted('hp-2');
      assert.equal(lost.status, 303);
      assert.equal(lost.location, '/thanks?order=hp-2', 'not confirmed: the return page');
      const retried = await h.hosted('hp-2');
      assert.notEqual(retried.location, '/thanks?order=hp-2');
      const created = h.creates('hp-2');
      assert.equal(created.length, 2);
      assert.equal(created[0], created[1]);
      assert.equal((await h.app.store.listAttempts('hp-2')).length, 1);
    });
  });
}
