/**
 * The server side's packages, which a browser-only install of pg-checkout does not pay
 * for: package.json lists hono, pino, zod, @hono/node-server and better-sqlite3 as
 * optional peer dependencies, so `npm i pg-checkout` installs none of them. Before
 * `pg-checkout/server` or `pg-checkout/sandbox` loads, its entry (written by
 * scripts/build.mjs) checks that the packages it needs are there, so a missing one is an
 * error that names it and the command that installs it, instead of an
 * ERR_MODULE_NOT_FOUND from deep inside dist/. better-sqlite3, a native module that takes
 * minutes to compile, is needed only by `SqlitePaymentStore` and is loaded when the first
 * one is made; pg (an optional peer too) likewise only by `PostgresPaymentStore`.
 */
import {createRequire} from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type Pg from 'pg';

/** A package that the part of pg-checkout in use needs is not installed. */
export class MissingPeerDependencyError extends Error {
  readonly code = 'missing_peer_dependency';
  /** The packages to install. */
  readonly packages: readonly string[];

  /** `what` is the part of pg-checkout that needs `packages`; `purpose`, what for. */
  constructor(
    what: string,
    packages: readonly string[],
    opts: {purpose?: string; cause?: unknown},
  ) {
    const list = packages.join(', ');
    const purpose = opts.purpose ? ` for ${opts.purpose}` : '';
    super(
      `${what} needs ${list}${purpose}, which ${packages.length === 1 ? 'is' : 'are'} not installed: npm i ${packages.join(' ')}`,
      opts.cause === undefined ? undefined : {cause: opts.cause},
    );
    this.name = 'MissingPeerDependencyError';
    this.packages = packages;
  }
}

/** The peers a server entry may need before it loads (better-sqlite3 is loaded on use). */
export type PeerName = 'hono' | 'pino' | 'zod' | '@hono/node-server';

/** Each one imported by a literal specifier, which bundlers can follow. */
const PEERS: Readonly<Record<PeerName, () => Promise<unknown>>> = {
  hono: () => import('hono'),
  pino: () => import('pino'),
  zod: () => import('zod'),
  '@hono/node-server': () => import('@hono/node-server'),
};

/** The error means `name` itself is missing (not one of its own dependencies). */
function isMissing(error: unknown, name: string): boolean {
  const e = error as {code?: unknown; message?: unknown} | null;
  return (
    (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') &&
    typeof e.message === 'string' &&
    e.message.includes(`'${name}'`)
  );
}

/**
 * Imports `names` and throws one {@link MissingPeerDependencyError} naming every one that
 * is not installed. `what` is the part of pg-checkout that needs them.
 */
export async function requirePeers(what: string, names: readonly PeerName[]): Promise<void> {
  const missing: string[] = [];
  let cause: unknown;
  for (const name of names) {
    try {
      await PEERS[name]();
    } catch (error) {
      if (!isMissing(error, name)) throw error;
      missing.push(name);
      cause ??= error;
    }
  }
  if (missing.length > 0) throw new MissingPeerDependencyError(what, missing, {cause});
}

/** Requires the peer `name`, which `purpose` needs, naming it when it is not installed. */
function loadPeer<T>(name: string, purpose: string): T {
  try {
    return createRequire(import.meta.url)(name) as T;
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new MissingPeerDependencyError('pg-checkout/server', [name], {purpose, cause: error});
  }
}

/**
 * better-sqlite3's `Database` class, loaded on first use.
 * @internal Left out of the declarations (`stripInternal`), which would otherwise import
 * better-sqlite3's types: a merchant who never uses SQLite has none (issue 30).
 */
export function loadBetterSqlite3(): typeof BetterSqlite3 {
  return loadPeer('better-sqlite3', 'SqlitePaymentStore');
}

/**
 * pg (node-postgres), loaded on first use.
 * @internal Left out of the declarations, as `loadBetterSqlite3` is: they would import pg's types.
 */
export function loadPg(): typeof Pg {
  return loadPeer('pg', 'PostgresPaymentStore');
}
