/**
 * What the example's tables share: each creates its table in the shop's SQLite file and
 * prepares its statements once, by name, from one table of SQL text.
 */
import type Database from 'better-sqlite3';

/** The prepared form of a table of named SQL statements. */
export type Statements<K extends string> = Readonly<Record<K, Database.Statement>>;

/** Runs `schema` (idempotent `CREATE ... IF NOT EXISTS`) and prepares every statement of `sql`. */
export function openTable<K extends string>(
  db: Database.Database,
  schema: string,
  sql: Readonly<Record<K, string>>,
): Statements<K> {
  db.exec(schema);
  const prepared = {} as Record<K, Database.Statement>;
  for (const key of Object.keys(sql) as K[]) prepared[key] = db.prepare(sql[key]);
  return prepared;
}
