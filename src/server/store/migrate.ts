/**
 * The migration runner, once for both dialects and for every table of the store (payments,
 * the guards' counters and flags, the security reports): an algorithm of the store core,
 * driven like the others (`algorithms.ts`). It makes `schema_migrations` when missing,
 * renumbers a PostgreSQL database of pg-checkout 0.1.0 into the one sequence, refuses a
 * database newer than this code, and applies each missing migration with its row rewrites.
 * The caller holds the one transaction the whole run is in, and what keeps two processes
 * from migrating at once: SQLite's `BEGIN IMMEDIATE`; PostgreSQL's transaction-scoped
 * advisory lock {@link MIGRATION_LOCK} (pg-session.ts), with the schema on `search_path`
 * for the migrations' frozen text.
 */
import {step, type Row, type Steps, type StorePort} from './algorithms.js';
import {LEGACY_POSTGRES, MIGRATIONS, migrationSql, type Migration} from './migrations.js';
import type {RowRewrite} from './stored-tokens.js';

/** The key of PostgreSQL's advisory lock held while migrating (any fixed 64-bit number). */
export const MIGRATION_LOCK = 0x70675f636b6f7574n; // "pg_ckout"

/** Versions of the applied migrations, in order. */
export function* appliedVersions(p: StorePort): Steps<number[]> {
  return (yield* step(p.all(p.sql.appliedVersions, []))).map((r) => Number(r['version']));
}

/** Applies the migrations `migrations` (every one, by default) that the database lacks. */
export function* migrate(
  p: StorePort,
  migrations: readonly Migration[] = MIGRATIONS,
): Steps<number[]> {
  yield* step(p.exec(p.sql.createMigrations));
  if (p.sql.dialect === 'postgres') yield* renumberLegacy(p);
  const applied = new Set(yield* appliedVersions(p));
  const newest = Math.max(0, ...applied);
  const known = Math.max(...migrations.map((m) => m.version));
  if (newest > known) {
    throw new Error(
      `the database schema (version ${newest}) is newer than this code knows (${known}): upgrade pg-checkout`,
    );
  }
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    yield* step(p.exec(migrationSql(m, p.sql.dialect)));
    for (const r of m.rewrites ?? []) yield* rewriteRows(p, r);
    yield* step(p.run(p.sql.recordMigration, [m.version, m.name, Date.now()]));
  }
  return yield* appliedVersions(p);
}

/** A 0.1.0 PostgreSQL database's versions, renumbered into the one sequence, in one step. */
function* renumberLegacy(p: StorePort): Steps<void> {
  const rows = yield* step(p.all(p.sql.migrationRows, []));
  const first = rows.find((r) => Number(r['version']) === 1);
  if (first?.['name'] !== LEGACY_POSTGRES.firstName) return;
  if (rows.some((r) => Number(r['version']) > LEGACY_POSTGRES.newest)) return;
  const renumbered = rows.flatMap((r: Row) =>
    LEGACY_POSTGRES.renumbered(Number(r['version'])).map((version) => ({
      version,
      appliedAt: Number(r['applied_at']),
    })),
  );
  yield* step(p.run(p.sql.forgetMigrations, []));
  for (const r of renumbered) {
    const name = MIGRATIONS.find((m) => m.version === r.version)!.name;
    yield* step(p.run(p.sql.recordMigration, [r.version, name, r.appliedAt]));
  }
}

/** A migration's row rewrite, a page of rows at a time (in the migration's transaction). */
function* rewriteRows(p: StorePort, r: RowRewrite): Steps<void> {
  const select = `SELECT ${r.key} AS k, ${r.read} AS v FROM ${r.table} WHERE ${r.read} IS NOT NULL`;
  const update = `UPDATE ${r.table} SET ${r.write} = ? WHERE ${r.key} = ?`;
  let rows = yield* step(p.all(`${select} ORDER BY ${r.key} LIMIT 500`, []));
  while (rows.length > 0) {
    for (const {k, v} of rows as {k: unknown; v: string}[]) {
      const value = r.rewrite(v);
      if (value !== undefined && value !== v) yield* step(p.run(update, [value, k]));
    }
    const last = rows[rows.length - 1]!['k'];
    rows = yield* step(p.all(`${select} AND ${r.key} > ? ORDER BY ${r.key} LIMIT 500`, [last]));
  }
}
