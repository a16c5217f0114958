/**
 * The benchmarks' one median and quantile: every goal ratio is a ratio of medians, so an
 * even count of rounds must not tilt it towards either middle value.
 */
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {median, percentile, round} from '../../../bench/stats.js';

test('the median of an odd count is its middle value, whatever the order', () => {
  assert.equal(median([9, 1, 5]), 5);
});

test('the median of an even count is the mean of the two middle values', () => {
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('the median leaves its input as it was, and is NaN for no values', () => {
  const values = [3, 1, 2];
  median(values);
  assert.deepEqual(values, [3, 1, 2]);
  assert.ok(Number.isNaN(median([])));
});

test('percentile is nearest rank over sorted values', () => {
  const sorted = Array.from({length: 100}, (_, i) => i + 1);
  assert.equal(percentile(sorted, 0.5), 50);
  assert.equal(percentile(sorted, 0.99), 99);
  assert.equal(percentile(sorted, 1), 100);
  assert.equal(percentile([7], 0.99), 7);
  assert.ok(Number.isNaN(percentile([], 0.5)));
});

test('round keeps the asked decimals', () => {
  assert.equal(round(1.23456), 1.23);
  assert.equal(round(1.25, 1), 1.3);
  assert.equal(round(52.5, 0), 53);
});
