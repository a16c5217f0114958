/**
 * The processes of the server benchmarks: each started with `node --import tsx`, its
 * output in a log file (so nobody has to read a pipe while it is measured), ready when a
 * line of its log matches. Every child is registered and killed when the benchmark ends —
 * by `stopAll()` in its `finally`, and by SIGKILL on the parent's exit or on SIGINT/SIGTERM
 * should that `finally` never run. `cpuMs` reads a child's CPU time from /proc.
 */
import {spawn, execFileSync, type ChildProcess} from 'node:child_process';
import {closeSync, openSync, readFileSync} from 'node:fs';
import {createInterface} from 'node:readline';
import type {AddressInfo} from 'node:net';
import net from 'node:net';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const children = new Set<ChildProcess>();
let hooked = false;
function hookExit() {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const c of children) c.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const c of children) c.kill('SIGKILL');
      process.exit(130);
    });
  }
}

export interface Child {
  name: string;
  pid: number;
  log: string;
  /** The first match of the ready pattern, e.g. the URL it printed. */
  ready: RegExpMatchArray;
  stop(): Promise<void>;
}

/**
 * Starts `script` (a path from the repository root) with `args` and `env` added to the
 * parent's environment; resolves when its log matches `readyPattern`, rejects (with the
 * log's tail) when it exits first or takes longer than `timeoutMs`.
 */
export async function startChild(o: {
  /** The child is added here once it runs, for its owner to stop. */
  started?: Child[];
  name: string;
  script: string;
  args?: string[];
  /** Options for node itself, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** The tree `script` is in (default this repository). */
  cwd?: string;
  env?: Record<string, string>;
  logFile: string;
  readyPattern: RegExp;
  timeoutMs?: number;
}): Promise<Child> {
  hookExit();
  const fd = openSync(o.logFile, 'a');
  const argv = [...(o.nodeArgs ?? []), '--import', 'tsx', o.script, ...(o.args ?? [])];
  const child = spawn(process.execPath, argv, {
    cwd: o.cwd ?? ROOT,
    env: {...process.env, ...o.env},
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  children.add(child);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited (${signal ?? code})`;
    children.delete(child);
  });
  const stop = () => stopChild(child);
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    const text = readFileSync(o.logFile, 'utf8');
    const ready = o.readyPattern.exec(text);
    if (ready) {
      const started: Child = {name: o.name, pid: child.pid!, log: o.logFile, ready, stop};
      o.started?.push(started);
      return started;
    }
    if (exited || Date.now() > deadline) {
      const why = exited ?? 'did not start in time';
      await stop();
      throw new Error(`${o.name} (pid ${child.pid}) ${why}; its log ends:\n${text.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGTERM, then SIGKILL after 3 s; resolves when the child is gone. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Stops every child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map(stopChild));
}

/** The load generator process: `run(step)` sends a step and resolves with its figures. */
export interface LoadProcess {
  pid: number;
  run<T>(step: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function startLoadProcess(): Promise<LoadProcess> {
  hookExit();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/server/load-process.ts'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines = createInterface({input: child.stdout!})[Symbol.asyncIterator]();
  const nextLine = async () => {
    const {value, done} = await lines.next();
    if (done) throw new Error('the load generator exited');
    return value as string;
  };
  if ((await nextLine()) !== 'ready') throw new Error('the load generator did not start');
  return {
    pid: child.pid!,
    async run<T>(step: unknown): Promise<T> {
      child.stdin!.write(JSON.stringify(step) + '\n');
      const out = JSON.parse(await nextLine()) as T & {error?: string};
      if (out.error) throw new Error(`load generator: ${out.error}`);
      return out;
    },
    async stop() {
      child.stdin!.end();
      await stopChild(child);
    },
  };
}

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], {encoding: 'utf8'}).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of process `pid` so far, in ms (Linux /proc; 10 ms steps). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start with field 3, `state`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticksPerSecond;
}

/** A free TCP port on 127.0.0.1 (free when asked; the caller binds it soon after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const {port} = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
