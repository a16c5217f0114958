/**
 * A PgBouncer of the test's own in front of the test database (issue 28): Debian's
 * `pgbouncer` (`PGBOUNCER_PATH`, default /usr/sbin/pgbouncer; `.ci/run` installs it) in
 * transaction pooling mode, the way large deployments put many instances before one
 * PostgreSQL, on a free loopback port, with its own ini and user list in a temporary
 * folder. Each transaction may run on another server connection, so a store that kept
 * anything in a session (a `search_path` set at connect time, a session advisory lock, a
 * named prepared statement) would break through it. As root it runs as `nobody`
 * (PgBouncer refuses to run as root). `PGBOUNCER_SKIP` says why it cannot run here,
 * unless `PG_TEST_REQUIRED=1`, where a missing PgBouncer fails.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createConnection} from 'node:net';
import {setTimeout as sleep} from 'node:timers/promises';
import {freePort} from './helpers.js';
import {PG_SKIP, PG_TEST_URL} from './postgres.js';

export const PGBOUNCER_PATH = process.env['PGBOUNCER_PATH'] ?? '/usr/sbin/pgbouncer';

function missing(): string | false {
  if (PG_SKIP) return PG_SKIP;
  try {
    accessSync(PGBOUNCER_PATH, constants.X_OK);
    return false;
  } catch {
    const why = `no PgBouncer at ${PGBOUNCER_PATH} (apt-get install pgbouncer, or set PGBOUNCER_PATH)`;
    if (process.env['PG_TEST_REQUIRED'] === '1') throw new Error(why);
    return why;
  }
}

/** Why the PgBouncer suites are skipped, or false when they can run. */
export const PGBOUNCER_SKIP: string | false = missing();

export interface PgBouncer {
  /** The test database's URL through PgBouncer. */
  url: string;
  /** What PgBouncer logged (its refusals say why a client was turned away). */
  log: string[];
  stop(): Promise<void>;
}

/** Starts PgBouncer (transaction pooling) in front of `PG_TEST_URL`; resolves once it accepts. */
export async function startPgBouncer(
  settings: {poolSize?: number; maxClients?: number} = {},
): Promise<PgBouncer> {
  const target = new URL(PG_TEST_URL);
  const database = target.pathname.slice(1) || 'postgres';
  const user = decodeURIComponent(target.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-pgbouncer-'));
  chmodSync(dir, 0o755);
  const users = path.join(dir, 'userlist.txt');
  writeFileSync(users, `"${user}" "${decodeURIComponent(target.password)}"\n`, {mode: 0o644});
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      target.password ? 'auth_type = plain' : 'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      `default_pool_size = ${settings.poolSize ?? 20}`,
      `max_client_conn = ${settings.maxClients ?? 500}`,
      'server_reset_query =',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    {mode: 0o644},
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER_PATH, [...(asRoot ? ['-u', 'nobody'] : []), ini], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  for (const s of [child.stdout!, child.stderr!]) {
    s.setEncoding('utf8').on('data', (c: string) => log.push(c));
  }
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const stop = async () => {
    process.off('exit', kill);
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await Promise.race([exited, sleep(3000).then(() => child.kill('SIGKILL'))]);
    }
    rmSync(dir, {recursive: true, force: true});
  };
  // Until it listens or exits: no deadline (a hang is ended by the tier's test timeout).
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`pgbouncer exited (${child.exitCode}):\n${log.join('')}`);
    }
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) break;
    await sleep(50);
  }
  const url = new URL(PG_TEST_URL);
  url.host = `127.0.0.1:${port}`;
  return {url: url.toString(), log, stop};
}
