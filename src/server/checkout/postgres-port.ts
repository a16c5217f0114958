/**
 * PostgreSQL's port of the store core (`store-core.ts`): the statements of `store-sql.ts`
 * with their `?` numbered, run on one transaction's connection or, for statements that
 * stand alone, on the pool (the store, `postgres-store.ts`, gives the query function and
 * maps errors); and PostgreSQL's own steps — advisory locks, card-testing counts for
 * every key in one statement, outbox claims with `FOR UPDATE SKIP LOCKED`.
 */
import type {QueryResult} from 'pg';
import type {OutboxClaim, Row, StorePort} from './store-core.js';
import {statements} from './store-sql.js';
import type {OutboxDelivery, VelocityKey} from './store.js';
/** `?` placeholders numbered as PostgreSQL wants them (`$1`, `$2`, …), once per text. */
const numbered = new Map<string, string>();
function pgText(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let i = 0;
    text = sql.replace(/\?/g, () => `$${++i}`);
    numbered.set(sql, text);
  }
  return text;
}

export type Query = (text: string, values?: unknown[]) => Promise<QueryResult<Row>>;

const PG_SQL = statements('postgres');

/**
 * PostgreSQL's port, on one transaction's connection or (statements that stand alone) on
 * the pool.
 */
export class PostgresPort implements StorePort {
  readonly sql = PG_SQL;
  readonly #query: Query;
  readonly #shared: {prunedAt: number};

  constructor(query: Query, shared: {prunedAt: number}) {
    this.#query = query;
    this.#shared = shared;
  }

  get prunedAt(): number {
    return this.#shared.prunedAt;
  }
  set prunedAt(at: number) {
    this.#shared.prunedAt = at;
  }

  #q(sql: string, args: readonly unknown[]): Promise<QueryResult<Row>> {
    return this.#query(pgText(sql), args as unknown[]);
  }

  async get(sql: string, args: readonly unknown[]): Promise<Row | undefined> {
    return (await this.#q(sql, args)).rows[0];
  }

  async all(sql: string, args: readonly unknown[]): Promise<Row[]> {
    return (await this.#q(sql, args)).rows;
  }

  async run(sql: string, args: readonly unknown[]): Promise<number> {
    return (await this.#q(sql, args)).rowCount ?? 0;
  }

  async insert(sql: string, args: readonly unknown[]): Promise<number> {
    return Number((await this.#q(sql, args)).rows[0]!['id']);
  }

  async exec(sql: string): Promise<void> {
    await this.#query(sql);
  }

  /** Serialises transactions about `key` (released at commit); any text key. */
  async lock(key: string): Promise<void> {
    await this.#query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
  }

  /**
   * Two statements whatever the number of keys (one round trip each, on the pay path): the
   * keys' locks, taken in sorted order so that two reservations sharing keys never wait on
   * each other in a circle; then per key, in order, the max-th newest count in the window,
   * if there is one — one row per key, however many the window holds.
   */
  async velocityFull(keys: readonly VelocityKey[], since: number): Promise<(number | null)[]> {
    const locks = [
      ...new Set(keys.map((k) => `velocity:${JSON.stringify([k.scope, k.key])}`)),
    ].sort();
    await this.#query(
      `SELECT pg_advisory_xact_lock(hashtextextended(l.k, 0))
       FROM unnest($1::text[]) WITH ORDINALITY AS l(k, i) ORDER BY l.i`,
      [locks],
    );
    const nth = await this.#query(
      `SELECT (SELECT a.at FROM attempt_velocity a
               WHERE a.scope = v.scope AND a.key = v.key AND a.at > $4
               ORDER BY a.at DESC OFFSET v.max - 1 LIMIT 1) AS at
       FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS v(scope, key, max, i)
       ORDER BY v.i`,
      [keys.map((k) => k.scope), keys.map((k) => k.key), keys.map((k) => k.max), since],
    );
    return nth.rows.map((r) => (r['at'] === null ? null : Number(r['at'])));
  }

  async countVelocity(keys: readonly VelocityKey[], at: number): Promise<void> {
    await this.#query(
      `INSERT INTO attempt_velocity (scope, key, at)
       SELECT v.scope, v.key, $3::bigint FROM unnest($1::text[], $2::text[]) AS v(scope, key)`,
      [keys.map((k) => k.scope), keys.map((k) => k.key), at],
    );
  }

  /** The marks in one statement. */
  async markDelivered(delivered: readonly OutboxDelivery[]): Promise<void> {
    await this.#query(
      `UPDATE outbox o SET delivered_at = d.at
       FROM unnest($1::bigint[], $2::bigint[]) AS d(id, at)
       WHERE o.id = d.id AND o.delivered_at IS NULL`,
      [delivered.map((d) => d.id), delivered.map((d) => d.at)],
    );
  }

  /** `FOR UPDATE SKIP LOCKED`: concurrent claimers pass over each other's rows. */
  async claimOutbox(c: OutboxClaim): Promise<Row[]> {
    const r = await this.#query(
      `UPDATE outbox SET claimed_by = $1, claimed_until = $2
       WHERE id IN (
         SELECT id FROM outbox WHERE delivered_at IS NULL
           AND (claimed_until IS NULL OR claimed_until <= $3 OR claimed_by = $1)
         ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [c.owner, c.until, c.now, c.limit],
    );
    return r.rows;
  }
}
