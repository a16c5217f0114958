/**
 * The health page's table (server-example/health/log.ts) on SQLite in-process: two
 * instances' deltas for one minute add up (and each instance's own rows too), rows older
 * than two hours go, and the gateway percentiles come from the merged buckets — checked
 * against the exact percentile of the observations themselves, which an average of each
 * instance's percentile misses.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import {sqliteShopDb} from '../../../server-example/db/sqlite.js';
import {HealthLog, MINUTE_MS, SERIES, quantile} from '../../../server-example/health/log.js';

/** Bucket counts of `values` over `bounds` (upper bounds; `+Inf` last), as the SDK keeps them. */
function bucketsOf(values: number[], bounds: number[]): Map<string, number> {
  const m = new Map<string, number>([...bounds.map((b) => [String(b), 0] as const), ['+Inf', 0]]);
  for (const v of values) {
    const b = bounds.find((x) => v <= x);
    const key = b === undefined ? '+Inf' : String(b);
    m.set(key, m.get(key)! + 1);
  }
  return m;
}

test('two instances add up per minute; old rows go', async () => {
  let now = 10 * 60 * MINUTE_MS + 5_000;
  const log = new HealthLog(sqliteShopDb(new Database(':memory:')), () => now);
  await log.add('a', now, [
    {series: SERIES.payment, label: 'success', value: 2},
    {series: SERIES.failure, label: 'insufficient_funds 5105', value: 1},
  ]);
  await log.add('b', now, [{series: SERIES.payment, label: 'success', value: 3}]);
  await log.add('a', now + 1000, [{series: SERIES.payment, label: 'success', value: 1}]);
  const w = await log.read();
  const minute = w.minutes.get(10 * 60 * MINUTE_MS)!;
  assert.equal(minute.get(SERIES.payment)!.get('success'), 6);
  assert.equal(minute.get(SERIES.failure)!.get('insufficient_funds 5105'), 1);
  assert.deepEqual(w.instances, ['a', 'b']);

  now += 3 * 60 * MINUTE_MS;
  await log.add('a', now, [{series: SERIES.busy, label: 'store', value: 1}]);
  const later = await log.read();
  assert.equal(later.minutes.has(10 * 60 * MINUTE_MS), false, 'two hours on, gone');
  assert.deepEqual(later.instances, ['a']);
});

test("p50 and p99 of merged buckets are the shop's, not an average of the instances'", () => {
  const bounds = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5];
  // A: 99 fast requests; B: 50 slow ones. The shop's p99 is a slow one.
  const a = Array.from({length: 99}, () => 0.02);
  const b = Array.from({length: 50}, () => 0.6);
  const merged = new Map<string, number>();
  for (const m of [bucketsOf(a, bounds), bucketsOf(b, bounds)]) {
    for (const [k, v] of m) merged.set(k, (merged.get(k) ?? 0) + v);
  }
  const exact = [...a, ...b].sort((x, y) => x - y);
  const p99 = quantile(0.99, merged)!;
  // Within the bucket holding the exact p99 (0.5 < 0.6 <= 0.75).
  assert.ok(p99 > 0.5 && p99 <= 0.75, `p99 ${p99}`);
  assert.equal(exact[Math.ceil(0.99 * exact.length) - 1], 0.6);
  const averaged =
    (quantile(0.99, bucketsOf(a, bounds))! + quantile(0.99, bucketsOf(b, bounds))!) / 2;
  assert.ok(averaged < 0.5, `the average of the instances' p99 (${averaged}) misses it`);
  const p50 = quantile(0.5, merged)!;
  assert.ok(p50 > 0.01 && p50 <= 0.025, `p50 ${p50}`);
  assert.equal(quantile(0.5, new Map()), undefined);
  assert.equal(
    quantile(
      0.99,
      new Map([
        ['0.1', 0],
        ['+Inf', 4],
      ]),
    ),
    0.1,
    'all past the last bound',
  );
});
