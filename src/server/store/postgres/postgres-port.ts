/**
 * PostgreSQL's driver of the store core (`algorithms.ts`): the statements of `statements.ts`
 * with their `?` numbered (`$1`, `$2`, …), sent by the session (`pg-session.ts`) on one
 * transaction's connection or, for statements that stand alone, on the pool; and the
 * advisory transaction lock. Nothing else: the dialect's SQL is `statements.ts`'s.
 */
import type {QueryResult} from 'pg';
import type {Row, StorePort} from '../algorithms.js';
import type {Statements} from '../statements.js';

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

/** @internal */
export type Send = (text: string, values?: unknown[]) => Promise<QueryResult<Row>>;

/** The driver of the store core on PostgreSQL: statements numbered and sent by `send`. @internal */
export class PgDriver implements StorePort {
  readonly sql: Statements;
  readonly #send: Send;
  readonly #shared: {prunedAt: number};
  readonly #lock: (key: string) => Promise<void>;
  /** In a transaction: the next statement goes with its `COMMIT` (pg-session.ts). */
  lastNext?: () => void;

  constructor(
    sql: Statements,
    send: Send,
    shared: {prunedAt: number},
    lock?: (key: string) => Promise<void>,
    lastNext?: () => void,
  ) {
    if (lastNext) this.lastNext = lastNext;
    this.sql = sql;
    this.#send = send;
    this.#shared = shared;
    this.#lock =
      lock ??
      (async (key) => {
        await send('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
      });
  }

  get prunedAt(): number {
    return this.#shared.prunedAt;
  }
  set prunedAt(at: number) {
    this.#shared.prunedAt = at;
  }

  #q(sql: string, args: readonly unknown[]): Promise<QueryResult<Row>> {
    return this.#send(pgText(sql), args as unknown[]);
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
    await this.#send(sql);
  }
  /** Serialises transactions about `key` (released at commit); any text key. */
  lock(key: string): Promise<void> {
    return this.#lock(key);
  }
}
