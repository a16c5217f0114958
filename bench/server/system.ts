/**
 * The system under test of the server benchmarks, each part a process of its own: the
 * gateway sandbox (`sandbox/cli.ts`), a bare pass-through proxy in front of it (the
 * baseline), and the merchant app — the real `server-example/main.ts` — on the store of
 * the variant:
 *
 * - `sqlite`: one instance on its SQLite file (the default);
 * - `postgres-1`: one instance with `DATABASE_URL`;
 * - `postgres-2`: two instances on one PostgreSQL behind a round-robin proxy process.
 *
 * The PostgreSQL variants get a fresh schema per run (the example's `DATABASE_SCHEMA`), on
 * `PG_TEST_URL` (default `postgres://postgres@127.0.0.1:5432/test`), dropped afterwards;
 * the example keeps everything there (payments, orders, throttles), nothing in `DATA_DIR`.
 * They are skipped, with the reason, while `server-example` does not read `DATABASE_URL`
 * or when PostgreSQL cannot be reached.
 *
 * The app believes one proxy's `X-Forwarded-For` (`TRUST_PROXY=1`), as behind a load
 * balancer: the load generator sends each payment with its customer's address there, so
 * the companion's card-testing limits keep their defaults (each customer pays once). The
 * round-robin proxy of `postgres-2` passes the header on as it is. The shop's own order
 * limit counts socket addresses, and the orders are created from 127.0.0.1, untimed:
 * it is raised (`ORDER_LIMIT`).
 */
import {randomBytes} from 'node:crypto';
import {mkdtempSync, readFileSync, readdirSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {ROOT, freePort, startChild, type Child} from './children.js';

export const VARIANTS = ['sqlite', 'postgres-1', 'postgres-2'] as const;
export type Variant = (typeof VARIANTS)[number];

/** Credentials of the sandbox and the app (test values). */
export const CREDENTIALS = {
  posId: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c0be11',
  apiKey: 'bench-api-key',
  apiSecret: 'bench-api-secret',
  endpointsKey: 'bench-endpoints-key',
} as const;

export const PG_TEST_URL = process.env['PG_TEST_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether `server-example` reads `DATABASE_URL` (it picks PostgreSQL when it is set). */
export function exampleReadsDatabaseUrl(): boolean {
  const dir = path.join(ROOT, 'server-example');
  return readdirSync(dir).some(
    (f) => f.endsWith('.ts') && readFileSync(path.join(dir, f), 'utf8').includes('DATABASE_URL'),
  );
}

/** Why `variant` cannot run here, or `undefined` when it can. */
export async function skipReason(variant: Variant): Promise<string | undefined> {
  if (variant === 'sqlite') return undefined;
  if (!exampleReadsDatabaseUrl()) {
    return 'server-example does not read DATABASE_URL yet (no PostgreSQL store)';
  }
  const client = new pg.Client({connectionString: PG_TEST_URL, connectionTimeoutMillis: 3000});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return `PostgreSQL at ${redact(PG_TEST_URL)} is not reachable: ${(err as Error).message}`;
  } finally {
    await client.end().catch(() => {});
  }
}

const redact = (url: string) => url.replace(/\/\/[^@/]*@/, '//');

export interface System {
  variant: Variant;
  sandboxUrl: string;
  /** The bare pass-through proxy in front of the sandbox. */
  proxyUrl: string;
  /** Where the load goes for the app: the instance, or the round-robin proxy. */
  appUrl: string;
  /** The app instances' pids (for their CPU time). */
  appPids: number[];
  proxyPid: number;
  dir: string;
  close(): Promise<void>;
}

/**
 * Starts the sandbox, the proxy and the app of `variant`; `close()` stops them and cleans
 * up. `appRoot`: run the app instances from another checkout of the project (to compare
 * two versions side by side; `BENCH_COMPARE_ROOT`).
 */
export async function startSystem(
  variant: Variant,
  appRoot?: string,
  /** More settings for the app instances (`METRICS_PORT`, …). */
  appEnv?: Record<string, string>,
): Promise<System> {
  const dir = mkdtempSync(path.join(tmpdir(), `pg-bench-${variant}-`));
  let schema: string | undefined;
  const started: Child[] = [];
  const cleanUp = async () => {
    await Promise.all(started.map((c) => c.stop()));
    if (schema) await dropSchema(schema);
    // BENCH_KEEP_LOGS=1 keeps the processes' logs (the folder's path is printed).
    if (process.env['BENCH_KEEP_LOGS']) console.error(`bench: logs kept in ${dir}`);
    else rmSync(dir, {recursive: true, force: true});
  };
  try {
    const sandbox = await startSandbox(started, dir);
    const sandboxUrl = sandbox.ready[1]!;
    const proxy = await startProxy(started, 'proxy', [sandboxUrl], dir);

    let databaseUrl: string | undefined;
    if (variant !== 'sqlite') {
      schema = `bench_${randomBytes(4).toString('hex')}`;
      await createSchema(schema);
      databaseUrl = PG_TEST_URL;
    }
    const instances = variant === 'postgres-2' ? 2 : 1;
    const ports = await Promise.all(Array.from({length: instances}, () => freePort()));
    // Two instances stand behind one address, the round-robin proxy's: it is their public
    // URL, so the gateway's webhooks reach them through it too.
    const rrPort = instances > 1 ? await freePort() : undefined;
    const publicUrl = (port: number) => `http://127.0.0.1:${rrPort ?? port}`;
    const apps: Child[] = [];
    for (const [i, port] of ports.entries()) {
      apps.push(
        await startApp(started, {
          port,
          publicUrl: publicUrl(port),
          sandboxUrl,
          dataDir: path.join(dir, databaseUrl ? 'app' : `app-${i}`),
          logFile: path.join(dir, `app-${i}.log`),
          instanceId: `bench-${i}`,
          ...(appRoot ? {root: appRoot} : {}),
          ...(databaseUrl && schema ? {databaseUrl, schema} : {}),
          ...(appEnv ? {env: appEnv} : {}),
        }),
      );
    }
    let appUrl = `http://127.0.0.1:${ports[0]}`;
    if (rrPort) {
      await startProxy(
        started,
        'round-robin',
        ports.map((p) => `http://127.0.0.1:${p}`),
        dir,
        rrPort,
      );
      appUrl = `http://127.0.0.1:${rrPort}`;
    }
    return {
      variant,
      sandboxUrl,
      proxyUrl: proxy.ready[1]!,
      appUrl,
      appPids: apps.map((a) => a.pid),
      proxyPid: proxy.pid,
      dir,
      close: cleanUp,
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/** The gateway sandbox's CLI, with the benchmark's credentials, on a free port. */
export function startSandbox(started: Child[], dir: string): Promise<Child> {
  return startChild({
    started,
    name: 'sandbox',
    script: 'sandbox/cli.ts',
    args: [
      '--port=0',
      `--pos-id=${CREDENTIALS.posId}`,
      `--api-key=${CREDENTIALS.apiKey}`,
      `--api-secret=${CREDENTIALS.apiSecret}`,
      `--endpoints-key=${CREDENTIALS.endpointsKey}`,
    ],
    logFile: path.join(dir, 'sandbox.log'),
    readyPattern: /listening on (http:\/\/\S+)/,
  });
}

/** A `proxy-process.ts` with `targets` (none: a bare 200 endpoint). */
export function startProxy(
  started: Child[],
  name: string,
  targets: string[],
  dir: string,
  port?: number,
): Promise<Child> {
  return startChild({
    started,
    name,
    script: 'bench/server/proxy-process.ts',
    args: targets,
    env: port === undefined ? {} : {PORT: String(port)},
    logFile: path.join(dir, `${name}.log`),
    readyPattern: /listening (http:\/\/\S+)/,
  });
}

/**
 * One `server-example/main.ts` on the sandbox, behind one trusted proxy (the load
 * generator's `X-Forwarded-For`), its order limit raised for the untimed order creation;
 * `BENCH_APP_NODE_ARGS` adds options for node (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export async function startApp(
  started: Child[],
  o: {
    port: number;
    publicUrl: string;
    sandboxUrl: string;
    dataDir: string;
    logFile: string;
    instanceId?: string;
    databaseUrl?: string;
    schema?: string;
    /** The checkout to run it from (default this one). */
    root?: string;
    /** More settings (`PAY_ATTEMPTS_PER_ORDER`, …). */
    env?: Record<string, string>;
  },
): Promise<Child> {
  const nodeArgs = process.env['BENCH_APP_NODE_ARGS']?.split(' ').filter(Boolean) ?? [];
  const app = await startChild({
    started,
    name: 'server-example',
    script: 'server-example/main.ts',
    nodeArgs,
    ...(o.root ? {cwd: o.root} : {}),
    env: {
      PORT: String(o.port),
      PUBLIC_URL: o.publicUrl,
      DATA_DIR: o.dataDir,
      GATEWAY_BASE_URL: o.sandboxUrl,
      POS_ID: CREDENTIALS.posId,
      API_KEY: CREDENTIALS.apiKey,
      API_SECRET: CREDENTIALS.apiSecret,
      ENDPOINTS_KEY: CREDENTIALS.endpointsKey,
      ORDER_LIMIT: '1000000',
      TRUST_PROXY: '1',
      ...(o.instanceId ? {INSTANCE_ID: o.instanceId} : {}),
      ...(o.databaseUrl ? {DATABASE_URL: o.databaseUrl, DATABASE_SCHEMA: o.schema ?? ''} : {}),
      ...o.env,
    },
    logFile: o.logFile,
    readyPattern: /Demo shop: (\S+)/,
  });
  // Ready once recovery is done: `/healthz` says `ready`.
  const base = `http://127.0.0.1:${o.port}`;
  for (let i = 0; ; i++) {
    const health = await fetch(`${base}/healthz`)
      .then((r) => r.json() as Promise<{state?: string}>)
      .catch(() => ({state: undefined}));
    if (health.state === 'ready') return app;
    if (i > 300) throw new Error(`server-example on ${base} did not become ready`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function withPg<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({connectionString: PG_TEST_URL});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export const createSchema = (schema: string) => withPg((c) => c.query(`CREATE SCHEMA ${schema}`));
export const dropSchema = (schema: string) =>
  withPg((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).catch((err: Error) =>
    console.error(`bench: could not drop schema ${schema}: ${err.message}`),
  );
