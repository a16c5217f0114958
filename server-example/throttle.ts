/**
 * Counts events per key in a sliding window, in the example's SQLite database: the back
 * office's failed sign-ins and the shop's new orders, per client address. The events are
 * rows, so a restart does not clear a throttle and several processes on one database share
 * it; rows older than the window are deleted as new ones come in.
 */
import type Database from 'better-sqlite3';
import {openTable, type Statements} from './sqlite.js';

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

const SCHEMA = `CREATE TABLE IF NOT EXISTS example_throttle_events (
  bucket TEXT NOT NULL,
  key TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS example_throttle_events_key
  ON example_throttle_events (bucket, key, at);
CREATE INDEX IF NOT EXISTS example_throttle_events_at
  ON example_throttle_events (bucket, at);`;

const SQL = {
  // The max-th newest event of the window: while there is one, the key is at its limit,
  // and it may act again once that event leaves the window.
  nthNewest: `SELECT at FROM example_throttle_events WHERE bucket = ? AND key = ? AND at > ?
    ORDER BY at DESC LIMIT 1 OFFSET ?`,
  insert: 'INSERT INTO example_throttle_events (bucket, key, at) VALUES (?, ?, ?)',
  prune: 'DELETE FROM example_throttle_events WHERE bucket = ? AND at <= ?',
  clear: 'DELETE FROM example_throttle_events WHERE bucket = ? AND key = ?',
};

export class SqliteThrottle {
  readonly #bucket: string;
  readonly #limit: WindowLimit;
  readonly #now: () => number;
  readonly #sql: Statements<keyof typeof SQL>;
  readonly #take: Database.Transaction<(key: string) => number | undefined>;

  /** `bucket` names what is counted (`admin-login`, `orders`): each has its own rows. */
  constructor(db: Database.Database, bucket: string, limit: WindowLimit, now: () => number) {
    this.#bucket = bucket;
    this.#limit = limit;
    this.#now = now;
    this.#sql = openTable(db, SCHEMA, SQL);
    this.#sql.nthNewest.pluck();
    this.#take = db.transaction((key: string) => {
      const wait = this.retryAfter(key);
      if (wait === undefined) this.record(key);
      return wait;
    });
  }

  /** Seconds until `key` may act again, or `undefined` while it is under the limit. */
  retryAfter(key: string): number | undefined {
    const now = this.#now();
    const {max, windowMs} = this.#limit;
    const at = this.#sql.nthNewest.get(this.#bucket, key, now - windowMs, max - 1) as
      number | undefined;
    if (at === undefined) return undefined;
    return Math.max(1, Math.ceil((at + windowMs - now) / 1000));
  }

  /** Counts one event for `key`, and forgets the events that have left the window. */
  record(key: string): void {
    const now = this.#now();
    this.#sql.prune.run(this.#bucket, now - this.#limit.windowMs);
    this.#sql.insert.run(this.#bucket, key, now);
  }

  /**
   * Counts one event for `key` unless it is at its limit, in one write transaction, so two
   * requests (or two processes) cannot both take the last place. Answers `undefined` when
   * the event was counted, else the seconds to wait.
   */
  take(key: string): number | undefined {
    return this.#take.immediate(key);
  }

  /** Forgets the events of `key` (a successful sign-in clears the failures before it). */
  clear(key: string): void {
    this.#sql.clear.run(this.#bucket, key);
  }
}
