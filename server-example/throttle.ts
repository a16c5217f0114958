/**
 * Counts events per key in a sliding window, in the example's database (SQLite, or
 * PostgreSQL with `DATABASE_URL`): the back office's wrong tokens and the shop's new
 * orders, per client address. The events are rows, so a restart does not clear a throttle
 * and every instance on the database shares it; rows older than the window are deleted
 * as new ones come in, and a key at its limit adds none, so a key holds at most `max`
 * rows.
 */
import {lock, one, run, type ShopDb, type Work} from './db/work.js';

/** At most `max` events per key in any `windowMs`. */
export interface WindowLimit {
  max: number;
  windowMs: number;
}

/** A wait for people: `40` → `40 seconds`; `90` → `2 minutes`. */
export function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

const schema = (ms: string) => [
  `CREATE TABLE IF NOT EXISTS example_throttle_events (
  bucket TEXT NOT NULL,
  key TEXT NOT NULL,
  at ${ms} NOT NULL
)`,
  `CREATE INDEX IF NOT EXISTS example_throttle_events_key
  ON example_throttle_events (bucket, key, at)`,
  `CREATE INDEX IF NOT EXISTS example_throttle_events_at
  ON example_throttle_events (bucket, at)`,
];

export class Throttle {
  readonly #db: ShopDb;
  readonly #bucket: string;
  readonly #limit: WindowLimit;
  readonly #now: () => number;

  /** `bucket` names what is counted (`admin-login`, `orders`): each has its own rows. */
  constructor(db: ShopDb, bucket: string, limit: WindowLimit, now: () => number) {
    this.#db = db;
    this.#bucket = bucket;
    this.#limit = limit;
    this.#now = now;
    for (const ddl of schema(db.terms.ms)) db.define(ddl);
  }

  /** Seconds until `key` may act again, or `undefined` while it is under the limit. */
  retryAfter(key: string): Promise<number | undefined> {
    return this.#db.run(this.#wait(key, this.#now()));
  }

  /** Counts one event for `key`, and forgets the events that have left the window. */
  record(key: string): Promise<void> {
    return this.#db.run(this.#record(key, this.#now()));
  }

  /**
   * Counts one event for `key` unless it is at its limit, in one transaction that holds
   * the key's lock, so two requests (or two instances) cannot both take the last place.
   * Answers `undefined` when the event was counted, else the seconds to wait.
   */
  take(key: string): Promise<number | undefined> {
    return this.#db.transaction(this.#take(key, this.#now()));
  }

  *#take(key: string, now: number): Work<number | undefined> {
    yield* lock(`throttle:${this.#bucket}:${key}`);
    const wait = yield* this.#wait(key, now);
    if (wait === undefined) yield* this.#record(key, now);
    return wait;
  }

  *#wait(key: string, now: number): Work<number | undefined> {
    const {max, windowMs} = this.#limit;
    // The max-th newest event of the window: while there is one, the key is at its limit,
    // and it may act again once that event leaves the window.
    const row = yield* one<{at: number}>(
      `SELECT at FROM example_throttle_events WHERE bucket = ? AND key = ? AND at > ?
        ORDER BY at DESC LIMIT 1 OFFSET ?`,
      this.#bucket,
      key,
      now - windowMs,
      max - 1,
    );
    if (row === undefined) return undefined;
    return Math.max(1, Math.ceil((Number(row.at) + windowMs - now) / 1000));
  }

  *#record(key: string, now: number): Work<void> {
    yield* run(
      'DELETE FROM example_throttle_events WHERE bucket = ? AND at <= ?',
      this.#bucket,
      now - this.#limit.windowMs,
    );
    yield* run(
      'INSERT INTO example_throttle_events (bucket, key, at) VALUES (?, ?, ?)',
      this.#bucket,
      key,
      now,
    );
  }
}
