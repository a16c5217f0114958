/**
 * What the example's multi-process tests share: the gateway sandbox as a process of its
 * own (`sandbox/cli.ts`) and instances of the real `server-example/main.ts`, each started
 * on a free port and ready once `/healthz` says `ready`; every child is killed should the
 * test process die first.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {freePort} from '../checkout/helpers.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The sandbox's credentials, which the instances are given too. */
export const CREDENTIALS = {
  posId: '7d3c6a1e-5b2f-4c8d-9e0a-1f2b3c4d5e70',
  apiKey: 'example-processes-key',
  apiSecret: 'example-processes-secret',
  endpointsKey: 'example-processes-endpoints',
} as const;

const children = new Set<ChildProcess>();
let hooked = false;
function track(child: ChildProcess): void {
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const c of children) c.kill('SIGKILL');
    });
  }
  children.add(child);
  child.once('exit', () => children.delete(child));
}

export interface Running {
  url: string;
  child: ChildProcess;
  /** What the process wrote to stderr (and stdout), for a failure message. */
  output: () => string;
  /** Resolves with the exit code (`null` when a signal ended it) once it has exited. */
  exited: Promise<number | null>;
}

/** `script` as a process under tsx, with `env` added; its stderr kept for `output()`. */
export function run(script: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: {...process.env, ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {child, output: () => output, exited, append: (s: string) => (output += s)};
}

/** The sandbox on a free port, with `CREDENTIALS`. */
export async function startSandboxProcess(): Promise<Running> {
  const port = await freePort();
  const p = run(
    'sandbox/cli.ts',
    [
      `--port=${port}`,
      `--pos-id=${CREDENTIALS.posId}`,
      `--api-key=${CREDENTIALS.apiKey}`,
      `--api-secret=${CREDENTIALS.apiSecret}`,
      `--endpoints-key=${CREDENTIALS.endpointsKey}`,
    ],
    {},
  );
  // Its line says it listens, or it exits first (no deadline: a loaded machine is slow, and a
  // hang is ended by the tier's test timeout).
  await new Promise<void>((resolve, reject) => {
    void p.exited.then((code) => reject(new Error(`sandbox exited (${code}): ${p.output()}`)));
    createInterface({input: p.child.stdout!}).on('line', (line) => {
      if (line.startsWith('Gateway sandbox listening on ')) resolve();
    });
  });
  return {url: `http://127.0.0.1:${port}`, ...p};
}

/**
 * `server-example/main.ts` on a free port, on the sandbox at `sandboxUrl`, with `env`
 * added; resolves once `/healthz` answers `ready`.
 */
export async function startExample(
  sandboxUrl: string,
  env: Record<string, string>,
): Promise<Running> {
  const port = env['PORT'] ? Number(env['PORT']) : await freePort();
  const p = run('server-example/main.ts', [], {
    GATEWAY_BASE_URL: sandboxUrl,
    POS_ID: CREDENTIALS.posId,
    API_KEY: CREDENTIALS.apiKey,
    API_SECRET: CREDENTIALS.apiSecret,
    ENDPOINTS_KEY: CREDENTIALS.endpointsKey,
    ...env,
    PORT: String(port),
  });
  // stdout: the start-up lines and the log, kept with stderr for a failure message.
  p.child.stdout!.setEncoding('utf8').on('data', (c: string) => p.append(c));
  const url = `http://127.0.0.1:${port}`;
  // Until it is ready or has exited: no deadline (a loaded machine is slow; a hang is ended
  // by the tier's test timeout).
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`example exited:\n${p.output()}`);
    const state = await fetch(`${url}/healthz`)
      .then((r) => r.json() as Promise<{state?: string}>)
      .then((h) => h.state)
      .catch(() => undefined);
    if (state === 'ready') break;
    await sleep(100);
  }
  return {url, ...p};
}

/** Sends `signal` and resolves with the exit code; SIGKILL after `killAfterMs`. */
export async function stop(
  r: Running,
  signal: NodeJS.Signals = 'SIGTERM',
  killAfterMs = 30_000,
): Promise<number | null> {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return r.child.exitCode;
  const timer = setTimeout(() => r.child.kill('SIGKILL'), killAfterMs);
  r.child.kill(signal);
  const code = await r.exited;
  clearTimeout(timer);
  return code;
}
