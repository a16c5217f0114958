/**
 * The figures every benchmark reports, defined once: the median of a sample, a quantile of
 * a sorted one, and rounding for the JSON lines.
 */

/** The `p` quantile (0..1) of sorted values (nearest rank); NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** The median of `values`: the middle one, or the mean of the two middle ones; NaN when none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** `x` rounded to `digits` decimals, for the benchmarks' JSON lines. */
export const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
