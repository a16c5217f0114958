/**
 * The health page's data: per-minute counters in the example's own table
 * `health_minutes`, one row per (minute, instance, series, label), written by each
 * instance's recorder (recorder.ts) and read by the back office's health page. Why a
 * table of deltas, not the payments' rows or each instance's memory: the gateway's
 * latency and the `busy` answers are stored nowhere else, and a page served by one
 * instance must show what every instance of the shop did. Each instance adds only to its
 * own rows (the instance is in the key, so two instances never wait on one row), and
 * every value is a count or a sum — payments by outcome, failures by reason and status
 * code, requests per latency bucket, `busy` answers, breaker samples open and closed —
 * so the shop's figure for a minute is the plain SUM over instances. That is why latency
 * is kept as bucket counts (the companion's histogram bounds) and its p50/p99 are read
 * from the merged buckets, as Prometheus's `histogram_quantile` reads them: a percentile
 * of each instance cannot be averaged into the shop's. Rows older than `KEEP_MS` go at
 * each write.
 */
import {all, run, type ShopDb, type Work} from '../db/work.js';

/** One minute, in ms. */
export const MINUTE_MS = 60_000;

/** How long rows are kept: the page shows an hour. */
export const KEEP_MS = 2 * 60 * MINUTE_MS;

/** What the recorder adds up. */
export const SERIES = {
  /** Payments by outcome (`success`, `failure`, `3ds_required`, `processing`, `error`). */
  payment: 'payment',
  /** Failed payments by reason and the gateway's status code (`declined 5105`). */
  failure: 'failure',
  /** Gateway requests per latency bucket (label: the bucket's upper bound, seconds). */
  gatewayBucket: 'gateway_le',
  /** `busy` answers: `admission` (503 busy) or `store` (the store's busy). */
  busy: 'busy',
  /** Samples of the card-testing breaker: `open` or `closed`. */
  breaker: 'breaker',
} as const;

export type Series = (typeof SERIES)[keyof typeof SERIES];

/** An amount to add to one series' label. */
export interface HealthDelta {
  series: Series;
  label: string;
  value: number;
}

/** One minute's merged figures (summed over instances): `series → label → value`. */
export type MinuteFigures = Map<Series, Map<string, number>>;

export interface HealthWindow {
  /** The first minute shown (ms, a minute's start) */
  from: number;
  /** Each minute of the window with rows, by its start (ms). */
  minutes: Map<number, MinuteFigures>;
  /** The instances that wrote in the window. */
  instances: string[];
}

/** The minute `t` falls in, as its start (ms). */
export const minuteOf = (t: number) => Math.floor(t / MINUTE_MS) * MINUTE_MS;

export class HealthLog {
  readonly #db: ShopDb;
  readonly #now: () => number;

  constructor(db: ShopDb, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
    const ms = db.terms.ms;
    db.define(`CREATE TABLE IF NOT EXISTS health_minutes (
  minute ${ms} NOT NULL,
  instance TEXT NOT NULL,
  series TEXT NOT NULL,
  label TEXT NOT NULL,
  value DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (minute, instance, series, label)
)`);
  }

  /** Adds `deltas` to `instance`'s rows of the minute `at` falls in, in one transaction. */
  add(instance: string, at: number, deltas: readonly HealthDelta[]): Promise<void> {
    const minute = minuteOf(at);
    const cutoff = minuteOf(this.#now() - KEEP_MS);
    return this.#db.transaction(
      (function* (): Work<void> {
        for (const d of deltas) {
          if (d.value === 0) continue;
          yield* run(
            `INSERT INTO health_minutes (minute, instance, series, label, value) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (minute, instance, series, label)
             DO UPDATE SET value = health_minutes.value + excluded.value`,
            minute,
            instance,
            d.series,
            d.label,
            d.value,
          );
        }
        yield* run('DELETE FROM health_minutes WHERE minute < ?', cutoff);
      })(),
    );
  }

  /** The last `minutes` minutes (the current one included), merged over instances. */
  read(minutes = 60): Promise<HealthWindow> {
    const from = minuteOf(this.#now()) - (minutes - 1) * MINUTE_MS;
    return this.#db.run(
      (function* (): Work<HealthWindow> {
        const rows = yield* all<{
          minute: number | string;
          series: Series;
          label: string;
          value: number | string;
        }>(
          `SELECT minute, series, label, SUM(value) AS value FROM health_minutes
           WHERE minute >= ? GROUP BY minute, series, label ORDER BY minute`,
          from,
        );
        const instances = yield* all<{instance: string}>(
          'SELECT DISTINCT instance FROM health_minutes WHERE minute >= ? ORDER BY instance',
          from,
        );
        const byMinute = new Map<number, MinuteFigures>();
        for (const r of rows) {
          const minute = Number(r.minute);
          let figures = byMinute.get(minute);
          if (!figures) byMinute.set(minute, (figures = new Map()));
          let labels = figures.get(r.series);
          if (!labels) figures.set(r.series, (labels = new Map()));
          labels.set(r.label, Number(r.value));
        }
        return {from, minutes: byMinute, instances: instances.map((i) => i.instance)};
      })(),
    );
  }
}

/**
 * The `q` quantile (0..1) of merged histogram buckets (`upper bound → count`, `+Inf` for
 * the last), interpolated linearly within its bucket as `histogram_quantile` does; the
 * highest finite bound when it falls in `+Inf`; `undefined` with no observation.
 */
export function quantile(q: number, buckets: ReadonlyMap<string, number>): number | undefined {
  const sorted = [...buckets]
    .map(([le, n]) => ({le: le === '+Inf' ? Infinity : Number(le), n}))
    .filter((b) => !Number.isNaN(b.le))
    .sort((x, y) => x.le - y.le);
  const total = sorted.reduce((s, b) => s + b.n, 0);
  if (total === 0) return undefined;
  const rank = q * total;
  let below = 0;
  let lower = 0;
  for (const b of sorted) {
    if (below + b.n >= rank && b.n > 0) {
      if (b.le === Infinity) return lower;
      return lower + (b.le - lower) * ((rank - below) / b.n);
    }
    below += b.n;
    if (b.le !== Infinity) lower = b.le;
  }
  return lower;
}

/** Adds `from`'s buckets into `into`. */
export function mergeInto(
  into: Map<string, number>,
  from: ReadonlyMap<string, number> | undefined,
) {
  for (const [k, v] of from ?? []) into.set(k, (into.get(k) ?? 0) + v);
}
