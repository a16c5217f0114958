/**
 * Databases as an earlier pg-checkout left them, for the upgrade tests: written by hand
 * (not by the store under test) from the migrations of that version — pg-checkout 0.1.0's,
 * frozen in `fixtures/released-0.1.0/` with its own PostgreSQL numbering and the names its
 * runner recorded, or a version of the current sequence (`migrations.ts`), as a run of
 * the current runner stopped there would leave it. `rows` is SQL run after the schema
 * (the rows that version wrote).
 */
import Database from 'better-sqlite3';
import {MIGRATIONS, migrationSql} from '../../../src/server/store/migrations.js';
import type {Dialect} from '../../../src/server/store/statements.js';
import {PG_MIGRATIONS as RELEASED_POSTGRES} from './fixtures/released-0.1.0/postgres-schema.js';
import {MIGRATIONS as RELEASED_SQLITE} from './fixtures/released-0.1.0/sqlite-schema.js';
import {pgQuery} from './postgres.js';

export {RELEASED_POSTGRES, RELEASED_SQLITE};

interface Step {
  version: number;
  name: string;
  sql: string;
}

/** The steps of a schema at `version`: 0.1.0's (`released`) or the current sequence's. */
function stepsTo(dialect: Dialect, version: number, released: boolean): Step[] {
  const list = released ? (dialect === 'sqlite' ? RELEASED_SQLITE : RELEASED_POSTGRES) : MIGRATIONS;
  return list
    .filter((m) => m.version <= version)
    .map((m) => ({version: m.version, name: m.name, sql: migrationSql(m, dialect)}));
}

/** The versions of each sequence: 0.1.0's per dialect, and the current one. */
export function versionsOf(dialect: Dialect, released: boolean): number[] {
  const list = released ? (dialect === 'sqlite' ? RELEASED_SQLITE : RELEASED_POSTGRES) : MIGRATIONS;
  return list.map((m) => m.version);
}

/** A SQLite file at `version`, with `rows`. */
export function sqliteAt(file: string, version: number, released: boolean, rows = ''): void {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    for (const m of stepsTo('sqlite', version, released)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(m.version, m.name);
    }
    db.exec(rows);
  } finally {
    db.close();
  }
}

/** A PostgreSQL schema `schema` (made here) at `version`, with `rows`. */
export async function postgresAt(
  schema: string,
  version: number,
  released: boolean,
  rows = '',
): Promise<void> {
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  await pgQuery(`CREATE SCHEMA ${schema}`);
  await pgQuery(`SET search_path TO ${schema};
    CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL);
    ${stepsTo('postgres', version, released)
      .map((m) => `${m.sql}; INSERT INTO schema_migrations VALUES (${m.version}, ${q(m.name)}, 0);`)
      .join('\n')}
    ${rows}`);
}
