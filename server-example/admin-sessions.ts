/**
 * The back office's sessions, kept on the server in the example's SQLite database: each
 * sign-in gets a fresh random id (32 bytes), of which only the SHA-256 is stored, with the
 * client address it came from. A session ends at the first of: sign-out (the row is
 * deleted), its absolute lifetime, or an idle time without a request (each use moves it
 * on). Expired rows are deleted when found and at each new sign-in.
 */
import {createHash, randomBytes} from 'node:crypto';
import type Database from 'better-sqlite3';

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

export class AdminSessions {
  readonly #limits: SessionLimits;
  readonly #now: () => number;
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement;
  readonly #touch: Database.Statement;
  readonly #delete: Database.Statement;
  readonly #prune: Database.Statement;

  constructor(db: Database.Database, limits: SessionLimits, now: () => number) {
    this.#limits = limits;
    this.#now = now;
    db.exec(`CREATE TABLE IF NOT EXISTS example_admin_sessions (
      id_sha256 TEXT PRIMARY KEY,
      address TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      last_seen_at INTEGER NOT NULL
    );`);
    this.#insert = db.prepare(
      `INSERT INTO example_admin_sessions (id_sha256, address, created_at, expires_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?)`,
    );
    this.#get = db.prepare(
      'SELECT expires_at, last_seen_at FROM example_admin_sessions WHERE id_sha256 = ?',
    );
    this.#touch = db.prepare(
      'UPDATE example_admin_sessions SET last_seen_at = ? WHERE id_sha256 = ?',
    );
    this.#delete = db.prepare('DELETE FROM example_admin_sessions WHERE id_sha256 = ?');
    this.#prune = db.prepare(
      'DELETE FROM example_admin_sessions WHERE expires_at <= ? OR last_seen_at <= ?',
    );
  }

  /** The absolute lifetime (the cookie's `Max-Age` too). */
  get maxAgeMs(): number {
    return this.#limits.maxAgeMs;
  }

  /** Opens a session for a sign-in from `address`; answers its id (base64url) for the cookie. */
  create(address: string): string {
    const now = this.#now();
    this.#prune.run(now, now - this.#limits.idleMs);
    const id = randomBytes(32).toString('base64url');
    this.#insert.run(digest(id), address, now, now + this.#limits.maxAgeMs, now);
    return id;
  }

  /** Whether `id` is a live session; using it moves its idle deadline on. */
  use(id: string): boolean {
    const now = this.#now();
    const key = digest(id);
    const row = this.#get.get(key) as Row | undefined;
    if (!row) return false;
    if (now >= row.expires_at || now >= row.last_seen_at + this.#limits.idleMs) {
      this.#delete.run(key);
      return false;
    }
    this.#touch.run(now, key);
    return true;
  }

  /** Ends a session (sign-out). */
  revoke(id: string): void {
    this.#delete.run(digest(id));
  }
}
