/**
 * The server benchmarks' load generator is open loop: requests leave on their schedule
 * while earlier ones are unanswered, and latency runs from the scheduled send time, so a
 * stall is charged to every request that waited behind it. Correctness of the harness,
 * not timing: the clock is a fake one the test moves; the server is real HTTP on loopback.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {after, describe, test} from 'node:test';
import {closeConnections, post} from '../../../bench/server/http-post.js';
import {runOpenLoop} from '../../../bench/server/open-loop.js';
import {FakeClock} from './fake-clock.js';

/** A server that holds every request until `release()`. */
async function stallingServer() {
  const held: http.ServerResponse[] = [];
  let onArrival = () => {};
  let answered = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      held.push(res);
      onArrival();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get arrived() {
      return held.length;
    },
    get answered() {
      return answered;
    },
    /** Resolves once `n` requests have arrived. */
    waitFor(n: number) {
      return new Promise<void>((resolve) => {
        const check = () => held.length >= n && resolve();
        onArrival = check;
        check();
      });
    },
    release() {
      for (const res of held.splice(0)) {
        answered++;
        res.writeHead(200, {'Content-Type': 'text/plain'}).end('ok');
      }
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

after(() => closeConnections());

describe('open-loop load generator', () => {
  test(
    'keeps sending on schedule while the server stalls; latency counts from the schedule',
    {
      timeout: 20_000,
    },
    async () => {
      const server = await stallingServer();
      const clock = new FakeClock();
      try {
        const target = {url: `${server.url}/pay`, headers: {}, status: 200, bodyIncludes: 'ok'};
        const running = runOpenLoop({
          rate: 10,
          durationMs: 1000,
          send: () => post(target, Buffer.from('{}')),
          clock,
        });
        for (let t = 0; t <= 900; t += 100) await clock.advanceTo(t);
        // All ten scheduled requests reach the server although none has been answered:
        // a closed loop would have stopped at its number of clients.
        await server.waitFor(10);
        assert.equal(server.arrived, 10);
        assert.equal(server.answered, 0);

        // The stall ends at t = 2000: each request waited from its own due time.
        await clock.advanceTo(2000);
        server.release();
        const result = await running;
        assert.equal(result.scheduled, 10);
        assert.equal(result.ok, 10);
        assert.equal(result.errors, 0);
        assert.deepEqual(
          result.latencies,
          Array.from({length: 10}, (_, i) => 1100 + i * 100),
        );
        assert.equal(result.p50Ms, 1500);
        assert.equal(result.p99Ms, 2000);
        assert.equal(result.maxMs, 2000);
        assert.equal(result.sendLagP99Ms, 0);
      } finally {
        server.close();
      }
    },
  );

  test('a late timer sends every overdue request at once, and the lag is reported', async () => {
    const clock = new FakeClock();
    const sentAt: number[] = [];
    const running = runOpenLoop({
      rate: 10,
      durationMs: 1000,
      send: async () => {
        sentAt.push(clock.now());
        return true;
      },
      clock,
    });
    await clock.advanceTo(0);
    assert.deepEqual(sentAt, [0]);
    // The generator oversleeps until t = 1000: the nine requests due meanwhile go at once.
    await clock.advanceTo(1000);
    assert.deepEqual(sentAt, [0, ...Array<number>(9).fill(1000)]);
    const result = await running;
    assert.equal(result.ok, 10);
    assert.equal(result.sendLagP99Ms, 900);
    assert.equal(result.maxMs, 900);
  });

  test('unanswered and refused requests are errors; the unanswered count with their wait', async () => {
    const clock = new FakeClock();
    const running = runOpenLoop({
      rate: 10,
      durationMs: 500,
      drainMs: 1000,
      // Request 1 never gets an answer, request 3 is refused, request 4 throws.
      send: (i) =>
        i === 1
          ? new Promise<boolean>(() => {})
          : i === 4
            ? Promise.reject(new Error('connection reset'))
            : Promise.resolve(i !== 3),
      clock,
    });
    for (let t = 0; t <= 400; t += 100) await clock.advanceTo(t);
    await clock.advanceTo(1400); // the drain ends
    const result = await running;
    assert.equal(result.scheduled, 5);
    assert.equal(result.ok, 2);
    assert.equal(result.errors, 3);
    assert.equal(result.unanswered, 1);
    assert.deepEqual(result.errorKinds, {
      failed: 1,
      'thrown: connection reset': 1,
      unanswered: 1,
    });
    // Request 1 was due at 100 and still open when the drain ended at 1400.
    assert.equal(result.maxMs, 1300);
    assert.equal(result.latencies.length, 5);
    // What became of each request, by index, for a caller that checks them one by one.
    assert.deepEqual(result.outcomes, [
      true,
      'unanswered',
      true,
      'failed',
      'thrown: connection reset',
    ]);
  });

  test('the achieved rate runs over the whole schedule: half answered is half the rate', async () => {
    const clock = new FakeClock();
    // The first half is answered at once, the second never.
    const running = runOpenLoop({
      rate: 10,
      durationMs: 1000,
      drainMs: 1000,
      send: (i) => (i < 5 ? Promise.resolve(true) : new Promise<boolean>(() => {})),
      clock,
    });
    for (let t = 0; t <= 900; t += 100) await clock.advanceTo(t);
    await clock.advanceTo(1900); // the drain ends
    const half = await running;
    assert.equal(half.unanswered, 5);
    // 5 answers over the 1 s schedule; counted to the last answer (t = 400) this was
    // 12.5/s, more than was asked for.
    assert.equal(half.achievedRate, 5);

    const instant = new FakeClock();
    const all = runOpenLoop({rate: 10, durationMs: 1000, send: async () => true, clock: instant});
    for (let t = 0; t <= 900; t += 100) await instant.advanceTo(t);
    // Ten answers over the schedule's 1 s, not over the 0.9 s to the last one.
    assert.equal((await all).achievedRate, 10);
  });

  test('answers other than the expected one are errors, by status or body', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/busy') res.writeHead(503).end();
        else res.writeHead(200).end('{"outcome":"failure"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const clock = new FakeClock();
    try {
      const running = runOpenLoop({
        rate: 10,
        durationMs: 400,
        send: (i) =>
          post(
            {
              url: `${base}/${i % 2 ? 'busy' : 'pay'}`,
              headers: {},
              status: 200,
              bodyIncludes: '"outcome":"success"',
            },
            Buffer.from('{}'),
          ),
        clock,
      });
      for (let t = 0; t <= 300; t += 100) await clock.advanceTo(t);
      const result = await running;
      assert.equal(result.ok, 0);
      assert.deepEqual(result.errorKinds, {'status 503': 2, 'unexpected body': 2});
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('refuses a rate or duration that is not positive', async () => {
    const send = () => Promise.resolve(true);
    await assert.rejects(runOpenLoop({rate: 0, durationMs: 1000, send}), RangeError);
    await assert.rejects(runOpenLoop({rate: 10, durationMs: -1, send}), RangeError);
    await assert.rejects(runOpenLoop({rate: Number.NaN, durationMs: 1000, send}), RangeError);
  });
});
