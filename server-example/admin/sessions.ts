/**
 * The back office's sessions, kept on the server in the example's SQLite database: each
 * sign-in gets a fresh random id (32 bytes), of which only the SHA-256 is stored, with the
 * client address it came from. A session ends at the first of: sign-out (the row is
 * deleted), its absolute lifetime, or an idle time without a request (each use moves it
 * on). Expired rows are deleted when found and at each new sign-in.
 */
import {createHash, randomBytes} from 'node:crypto';
import type Database from 'better-sqlite3';
import {openTable, type Statements} from '../sqlite.js';

export interface SessionLimits {
  /** Absolute lifetime of a session, from its sign-in. */
  maxAgeMs: number;
  /** A session not used for this long ends. */
  idleMs: number;
}

interface Row {
  expires_at: number;
  last_seen_at: number;
}

const digest = (id: string) => createHash('sha256').update(id).digest('hex');

const SCHEMA = `CREATE TABLE IF NOT EXISTS example_admin_sessions (
  id_sha256 TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);`;

const SQL = {
  insert: `INSERT INTO example_admin_sessions (id_sha256, address, created_at, expires_at, last_seen_at)
    VALUES (?, ?, ?, ?, ?)`,
  get: 'SELECT expires_at, last_seen_at FROM example_admin_sessions WHERE id_sha256 = ?',
  touch: 'UPDATE example_admin_sessions SET last_seen_at = ? WHERE id_sha256 = ?',
  delete: 'DELETE FROM example_admin_sessions WHERE id_sha256 = ?',
  prune: 'DELETE FROM example_admin_sessions WHERE expires_at <= ? OR last_seen_at <= ?',
};

export class AdminSessions {
  readonly #limits: SessionLimits;
  readonly #now: () => number;
  readonly #sql: Statements<keyof typeof SQL>;

  constructor(db: Database.Database, limits: SessionLimits, now: () => number) {
    this.#limits = limits;
    this.#now = now;
    this.#sql = openTable(db, SCHEMA, SQL);
  }

  /** The absolute lifetime (the cookie's `Max-Age` too). */
  get maxAgeMs(): number {
    return this.#limits.maxAgeMs;
  }

  /** Opens a session for a sign-in from `address`; answers its id (base64url) for the cookie. */
  create(address: string): string {
    const now = this.#now();
    this.#sql.prune.run(now, now - this.#limits.idleMs);
    const id = randomBytes(32).toString('base64url');
    this.#sql.insert.run(digest(id), address, now, now + this.#limits.maxAgeMs, now);
    return id;
  }

  /** Whether `id` is a live session; using it moves its idle deadline on. */
  use(id: string): boolean {
    const now = this.#now();
    const key = digest(id);
    const row = this.#sql.get.get(key) as Row | undefined;
    if (!row) return false;
    if (now >= row.expires_at || now >= row.last_seen_at + this.#limits.idleMs) {
      this.#sql.delete.run(key);
      return false;
    }
    this.#sql.touch.run(now, key);
    return true;
  }

  /** Ends a session (sign-out). */
  revoke(id: string): void {
    this.#sql.delete.run(digest(id));
  }
}
