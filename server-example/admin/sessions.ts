/**
 * The back office's sessions, kept on the server in the example's database (SQLite, or
 * PostgreSQL with `DATABASE_URL`: a sign-in on one instance holds on every other): each
 * sign-in gets a fresh random id (32 bytes), of which only the SHA-256 is stored, with the
 * client address it came from. A session ends at the first of: sign-out (the row is
 * deleted), its absolute lifetime, or an idle time without a request (each use moves it
 * on). Expired rows are deleted when found and at each new sign-in.
 */
import {createHash, randomBytes} from 'node:crypto';
import {run, type ShopDb} from '../db/work.js';

export interface SessionLimits {
  /** Absolute lifetime of a session, from its sign-in. */
  maxAgeMs: number;
  /** A session not used for this long ends. */
  idleMs: number;
}

const digest = (id: string) => createHash('sha256').update(id).digest('hex');

const schema = (ms: string) => `CREATE TABLE IF NOT EXISTS example_admin_sessions (
  id_sha256 TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  created_at ${ms} NOT NULL,
  expires_at ${ms} NOT NULL,
  last_seen_at ${ms} NOT NULL
)`;

export class AdminSessions {
  readonly #db: ShopDb;
  readonly #limits: SessionLimits;
  readonly #now: () => number;

  constructor(db: ShopDb, limits: SessionLimits, now: () => number) {
    this.#db = db;
    this.#limits = limits;
    this.#now = now;
    db.define(schema(db.terms.ms));
  }

  /** The absolute lifetime (the cookie's `Max-Age` too). */
  get maxAgeMs(): number {
    return this.#limits.maxAgeMs;
  }

  /** Opens a session for a sign-in from `address`; answers its id (base64url) for the cookie. */
  async create(address: string): Promise<string> {
    const now = this.#now();
    const id = randomBytes(32).toString('base64url');
    await this.#db.transaction(
      (function* open(limits: SessionLimits) {
        yield* run(
          'DELETE FROM example_admin_sessions WHERE expires_at <= ? OR last_seen_at <= ?',
          now,
          now - limits.idleMs,
        );
        yield* run(
          `INSERT INTO example_admin_sessions (id_sha256, address, created_at, expires_at, last_seen_at)
            VALUES (?, ?, ?, ?, ?)`,
          digest(id),
          address,
          now,
          now + limits.maxAgeMs,
          now,
        );
      })(this.#limits),
    );
    return id;
  }

  /** Whether `id` is a live session; using it moves its idle deadline on. */
  async use(id: string): Promise<boolean> {
    const now = this.#now();
    const key = digest(id);
    // One statement: a live session is moved on, an ended one is left to be deleted.
    const live = await this.#db.run(
      run(
        `UPDATE example_admin_sessions SET last_seen_at = ?
          WHERE id_sha256 = ? AND expires_at > ? AND last_seen_at > ?`,
        now,
        key,
        now,
        now - this.#limits.idleMs,
      ),
    );
    if (live > 0) return true;
    await this.revoke(id);
    return false;
  }

  /** Ends a session (sign-out). */
  async revoke(id: string): Promise<void> {
    await this.#db.run(run('DELETE FROM example_admin_sessions WHERE id_sha256 = ?', digest(id)));
  }
}
