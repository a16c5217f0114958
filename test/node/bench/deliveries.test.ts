/**
 * The webhook-ingestion benchmark accounts for every webhook by its identity: what the
 * load generator saw (answered 2xx, answered otherwise, no answer) against what the app
 * stored. A fake app over real HTTP stores some requests and answers others in every way
 * the real one might; the open loop runs on a fake clock, so "after the generator gave up"
 * is a point the test chooses, not a wall-clock wait.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {after, describe, test} from 'node:test';
import {tallyDeliveries} from '../../../bench/server/deliveries.js';
import {answeredStatus, closeConnections, post} from '../../../bench/server/http-post.js';
import {runOpenLoop} from '../../../bench/server/open-loop.js';
import {FakeClock} from './fake-clock.js';

/**
 * What the fake app does with a request whose body is `<id>:<behaviour>`:
 * `store` stores and answers 200; `store-late` stores and answers only on `release()`;
 * `ack-only` answers 200 without storing; `refuse-<status>` answers that status without
 * storing; `store-refuse` stores and answers 503; `store-drop` stores and closes the
 * connection without an answer.
 */
async function fakeApp() {
  const stored = new Set<string>();
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const [id, behaviour] = body.split(':') as [string, string];
      if (behaviour.startsWith('store')) stored.add(id);
      if (behaviour === 'store-late') held.push(res);
      else if (behaviour === 'store-drop') req.socket.destroy();
      else if (behaviour === 'store-refuse') res.writeHead(503).end();
      else if (behaviour.startsWith('refuse-')) res.writeHead(Number(behaviour.slice(7))).end();
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/checkout/webhook`,
    stored,
    release() {
      for (const res of held.splice(0)) res.writeHead(200).end('ok');
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * Sends one request per `[id, behaviour]` at 10/s on a fake clock; when every request but
 * the held ones has its answer, the clock moves past the drain (the generator gives up on
 * the rest). Resolves with each request's identity and outcome.
 */
async function send(app: Awaited<ReturnType<typeof fakeApp>>, requests: [string, string][]) {
  const clock = new FakeClock();
  const target = {url: app.url, headers: {}, status: 200};
  const held = requests.filter(([, b]) => b === 'store-late').length;
  let settled = 0;
  let onSettled = () => {};
  const running = runOpenLoop({
    rate: 10,
    durationMs: requests.length * 100,
    drainMs: 1000,
    send: async (i) => {
      const [id, behaviour] = requests[i]!;
      const outcome = await post(target, Buffer.from(`${id}:${behaviour}`));
      settled++;
      onSettled();
      return outcome;
    },
    clock,
  });
  for (let i = 0; i < requests.length; i++) await clock.advanceTo(i * 100);
  await new Promise<void>((resolve) => {
    onSettled = () => settled >= requests.length - held && resolve();
    onSettled();
  });
  await clock.advanceTo(requests.length * 100 + 1000);
  const result = await running;
  return {result, deliveries: requests.map(([id], i) => ({id, outcome: result.outcomes[i]!}))};
}

after(() => closeConnections());

describe('webhook accounting by identity', () => {
  test('a webhook stored but answered after the generator gave up is unanswered and stored, not negative lost', async () => {
    const app = await fakeApp();
    try {
      const {result, deliveries} = await send(app, [
        ['wh-0-1', 'store'],
        ['wh-1-1', 'store-late'],
        ['wh-2-1', 'store'],
      ]);
      app.release(); // the app answers, after the end of the step
      assert.equal(result.ok, 2);
      assert.equal(app.stored.size, 3); // one more row than answers: the old `lost` was -1
      const t = tallyDeliveries(deliveries, 200, app.stored);
      assert.equal(t.sent, 3);
      assert.equal(t.answeredOk, 2);
      assert.deepEqual(t.unanswered, {unanswered: 1});
      assert.equal(t.stored, 3);
      assert.equal(t.lost, 0);
      assert.equal(t.unansweredStored, 1);
    } finally {
      app.close();
    }
  });

  test('a webhook answered 200 without being stored is lost, by name, beside one stored and not answered', async () => {
    const app = await fakeApp();
    try {
      const {deliveries} = await send(app, [
        ['wh-0-1', 'store'],
        ['wh-1-1', 'ack-only'],
        ['wh-2-1', 'store-late'],
      ]);
      app.release();
      // Rows equal answers (2 and 2): counting rows would call this run clean.
      assert.equal(app.stored.size, 2);
      const t = tallyDeliveries(deliveries, 200, app.stored);
      assert.equal(t.answeredOk, 2);
      assert.equal(t.lost, 1);
      assert.deepEqual(t.lostIds, ['wh-1-1']);
      assert.equal(t.unansweredStored, 1);
    } finally {
      app.close();
    }
  });

  test('errors are counted by status, dropped connections as unanswered, stored or not', async () => {
    const app = await fakeApp();
    try {
      const {deliveries} = await send(app, [
        ['wh-0-1', 'refuse-500'],
        ['wh-1-1', 'store-refuse'],
        ['wh-2-1', 'refuse-500'],
        ['wh-3-1', 'store-drop'],
        ['wh-4-1', 'refuse-204'],
      ]);
      const t = tallyDeliveries(deliveries, 200, app.stored);
      assert.equal(t.sent, 5);
      assert.deepEqual(t.answeredError, {'500': 2, '503': 1});
      assert.equal(t.answeredErrorStored, 1);
      assert.equal(
        Object.values(t.unanswered).reduce((a, b) => a + b, 0),
        1,
      );
      assert.equal(t.unansweredStored, 1);
      // A 204 is a 2xx: the sender takes it as delivered, and it was not stored.
      assert.equal(t.answeredOk, 1);
      assert.equal(t.lost, 1);
      assert.deepEqual(t.lostIds, ['wh-4-1']);
      assert.equal(t.stored, 2);
    } finally {
      app.close();
    }
  });

  test('a client timeout or a connection error is no answer; any status is an answer', () => {
    assert.equal(answeredStatus('timeout', 200), undefined);
    assert.equal(answeredStatus('ECONNRESET', 200), undefined);
    assert.equal(answeredStatus('unanswered', 200), undefined);
    assert.equal(answeredStatus('status 503', 200), 503);
    assert.equal(answeredStatus('unexpected body', 200), 200);
    assert.equal(answeredStatus(true, 201), 201);
    const t = tallyDeliveries(
      [
        {id: 'a', outcome: 'timeout'},
        {id: 'b', outcome: 'timeout'},
      ],
      200,
      new Set(['a']),
    );
    assert.deepEqual(t.unanswered, {timeout: 2});
    assert.equal(t.unansweredStored, 1);
    assert.equal(t.lost, 0);
  });
});
