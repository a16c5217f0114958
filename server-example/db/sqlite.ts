/**
 * The example's tables on SQLite (`better-sqlite3`), the embedded default: the connection
 * the companion's `SqlitePaymentStore` shares (one connection for both, see app.ts). Work
 * runs synchronously from its first step to its last — a transaction is `BEGIN
 * IMMEDIATE` … `COMMIT` within one turn of the event loop — and statements are prepared
 * once per SQL text.
 */
import type Database from 'better-sqlite3';
import {TERMS, type ShopDb, type Step, type Work} from './work.js';

export function sqliteShopDb(db: Database.Database): ShopDb {
  const prepared = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const step = (s: Step): unknown => {
    switch (s.kind) {
      case 'all': {
        const statement = prepare(s.sql);
        if (statement.reader) return statement.all(...s.params);
        statement.run(...s.params);
        return [];
      }
      case 'run':
        return prepare(s.sql).run(...s.params).changes;
      case 'lock':
        return undefined; // BEGIN IMMEDIATE holds the database's write lock already
    }
  };
  const drive = (work: Work<unknown>): unknown => {
    for (let r = work.next(); ; r = work.next(step(r.value))) if (r.done) return r.value;
  };
  const inTransaction = db.transaction(drive);
  /** `fn()` as a promise: settled at once, the work itself done synchronously. */
  const settled = <T>(fn: () => unknown): Promise<T> => {
    try {
      return Promise.resolve(fn() as T);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  return {
    dialect: 'sqlite',
    terms: TERMS.sqlite,
    define(ddl) {
      db.exec(ddl);
    },
    run: (work) => settled(() => drive(work)),
    transaction: (work) => settled(() => inTransaction.immediate(work)),
    // The connection belongs to whoever opened it (app.ts closes it after the store).
    close: () => Promise.resolve(),
  };
}
