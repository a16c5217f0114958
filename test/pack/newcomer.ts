/**
 * A guide, done as a newcomer does it: from an empty folder, its numbered steps (`## 1. …`) in
 * order, each shell block's commands typed as written and each block that names a file
 * (```ts [checkout.ts]) saved under that name — from the file its `<!-- snippet: … -->` marker
 * names, the one the site and GitHub show (scripts/docs/snippets.mjs keeps them equal).
 * Blocks outside the numbered steps (alternatives, reference) are not steps. Commands run
 * through `sh`, with three liberties a test needs and a reader does not notice: `npm install
 * pg-checkout` installs the packed tarball in its place; npm works from its cache where it can
 * (`prefer-offline`, no audit) and refuses to fetch a command the guide did not install
 * (`npx` without `--yes`); and better-sqlite3's prebuilt binary, which prebuild-install
 * downloads from GitHub for a merchant, comes from a local file here (GitHub is out of reach):
 * the repository's own build of the same version, else npm compiles it, as it would. A
 * command that keeps running (a server) is started in the background until it prints what
 * the test waits for. Every step is timed.
 */
import {execFileSync, spawn, type ChildProcess} from 'node:child_process';
import {createHash} from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {Locator, Page} from 'playwright';

const repo = fileURLToPath(new URL('../../', import.meta.url));

export interface GuideStep {
  /** The numbered section it is in (`2. Install`). */
  section: string;
  kind: 'command' | 'file';
  /** A command's text (continuation lines joined), or a file's content. */
  text: string;
  /** A file's name, from its block's title. */
  name?: string;
}

/** The shell commands of a block: one per line, `\`-continued lines joined, blank lines left out. */
export function commandsOf(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The steps of a guide (docs/guides/<name>.md), in order. */
export function guideSteps(guide: string): GuideStep[] {
  const lines = readFileSync(path.join(repo, 'docs/guides', guide), 'utf8').split('\n');
  const steps: GuideStep[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^## (.*)$/.exec(lines[i]!);
    if (heading) {
      section = /^\d+\. /.test(heading[1]!) ? heading[1]! : '';
      continue;
    }
    const open = /^(`{3,})(\w*)\s*(?:\[(.*)\])?\s*$/.exec(lines[i]!);
    if (!open) continue;
    const close = lines.findIndex((l, j) => j > i && l === open[1]);
    if (close === -1) throw new Error(`${guide}:${i + 1}: a code block is never closed`);
    const marker = /^<!-- snippet: (\S+) -->$/.exec(lines[i - 1] ?? '')?.[1];
    const text = marker
      ? readFileSync(path.join(repo, marker), 'utf8')
      : `${lines.slice(i + 1, close).join('\n')}\n`;
    const [, , language, title] = open;
    i = close;
    if (!section) continue;
    if (title) steps.push({section, kind: 'file', name: title, text});
    else if (language === 'sh') {
      for (const command of commandsOf(text)) steps.push({section, kind: 'command', text: command});
    }
  }
  return steps;
}

/** What a step's command prints, and how long it took. */
export interface Ran {
  command: string;
  ms: number;
  output: string;
}

/** A command left running (a server): its output so far, and how to stop it. */
export interface Running {
  command: string;
  output(): string;
  /** Resolves with the first match of `pattern` in its output; rejects if it exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

/** The prebuilt binary of better-sqlite3 a merchant downloads, from this repository's build. */
function betterSqlite3Prebuilds(work: string): string {
  const dir = path.join(work, 'prebuilds');
  mkdirSync(dir, {recursive: true});
  const pkg = path.join(repo, 'node_modules/better-sqlite3');
  const {version} = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as {
    version: string;
  };
  const binary = path.join(pkg, 'build/Release/better_sqlite3.node');
  if (existsSync(binary)) {
    // prebuild-install's name for it: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz
    const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    execFileSync('tar', [
      '-czf',
      path.join(dir, name),
      '-C',
      pkg,
      'build/Release/better_sqlite3.node',
    ]);
  }
  return dir;
}

export class Newcomer {
  /** The project folder, empty at first. */
  readonly dir: string;
  /** Each step's time; `extra` marks a check of the test's own, not a step of the guide. */
  readonly timings: {step: string; ms: number; extra?: boolean}[] = [];
  private readonly work: string;
  private readonly env: Record<string, string>;
  private readonly running = new Set<ChildProcess>();

  /** `tarball`: the packed pg-checkout that `npm install pg-checkout` installs. */
  constructor(readonly tarball: string) {
    this.work = mkdtempSync(path.join(tmpdir(), 'pg-newcomer-'));
    this.dir = path.join(this.work, 'shop');
    mkdirSync(this.dir);
    const env: Record<string, string> = {};
    for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'npm_config_cache']) {
      if (process.env[key] !== undefined) env[key] = process.env[key]!;
    }
    this.env = {
      ...env,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_yes: 'false',
      npm_config_better_sqlite3_local_prebuilds: betterSqlite3Prebuilds(this.work),
    };
  }

  /** The command as the test types it: the tarball in pg-checkout's place in an npm install. */
  private typed(command: string): string {
    if (!/^npm (?:install|i)\b/.test(command)) return command;
    return command.replace(/(?<=\s)pg-checkout(?=\s|$)/, this.tarball);
  }

  /** Runs one command to its end; throws with its output when it fails. */
  run(command: string, env: Record<string, string> = {}, extra = false): Ran {
    const t0 = Date.now();
    let output: string;
    try {
      output = execFileSync('sh', ['-c', this.typed(command)], {
        cwd: this.dir,
        env: {...this.env, ...env},
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 64 * 1024 * 1024,
        timeout: 10 * 60_000,
      });
    } catch (error) {
      const e = error as {stdout?: string; stderr?: string; status?: number};
      throw new Error(
        `\`${command}\` failed (${e.status ?? 'signal'}) in ${this.dir}:\n${e.stdout ?? ''}${e.stderr ?? ''}`,
      );
    }
    const ms = Date.now() - t0;
    this.timings.push({step: command, ms, extra});
    return {command, ms, output};
  }

  /**
   * Starts a command that keeps running, in a process group of its own; `label` names it in
   * the timings (the command as the guide writes it), which hold the time to its first
   * awaited output.
   */
  start(command: string, env: Record<string, string> = {}, label = command): Running {
    const t0 = Date.now();
    const child = spawn('sh', ['-c', this.typed(command)], {
      cwd: this.dir,
      env: {...this.env, ...env},
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.running.add(child);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const timings = this.timings;
    let timed = false;
    return {
      command,
      output: () => output,
      async waitFor(pattern, timeoutMs = 60_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const m = pattern.exec(output);
          if (m) {
            if (!timed)
              timings.push({step: `${label} (until ${pattern.source})`, ms: Date.now() - t0});
            timed = true;
            return m;
          }
          if (child.exitCode !== null || child.signalCode !== null) {
            throw new Error(`\`${command}\` exited (${child.exitCode}):\n${output}`);
          }
          if (Date.now() > deadline)
            throw new Error(`\`${command}\`: no ${pattern} in time:\n${output}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) {
          process.kill(-child.pid!, 'SIGTERM');
          await exited;
        }
        this.running.delete(child);
      },
    };
  }

  /** Saves a file of the guide under its name. */
  write(name: string, text: string, extra = false): void {
    const t0 = Date.now();
    const file = path.join(this.dir, name);
    mkdirSync(path.dirname(file), {recursive: true});
    writeFileSync(file, text);
    this.timings.push({step: `write ${name}`, ms: Date.now() - t0, extra});
  }

  /**
   * Makes the (empty) project folder a copy of `from`, timed as `label`: its own files
   * copied (`cp -a`), node_modules hard-linked (`cp -al`, a tenth of a copy's time) but for
   * npm's record of it, node_modules/.package-lock.json, which npm rewrites in place. npm
   * replaces the packages it installs or removes, never writes into them, and nothing else
   * the guides run writes there; scripts/run-pack-tests.mjs checks that `from`'s node_modules
   * is unchanged after the run. `from` must sit as deep below the temporary folder as this
   * project does: npm wrote the tarball's place in package.json relative to it.
   */
  copyFrom(from: string, label: string): void {
    const t0 = Date.now();
    if (path.dirname(path.dirname(from)) !== path.dirname(this.work)) {
      throw new Error(`${from} is not a project folder beside ${this.dir}`);
    }
    for (const entry of readdirSync(from)) {
      const flags = entry === 'node_modules' ? '-al' : '-a';
      execFileSync('cp', [flags, path.join(from, entry), path.join(this.dir, entry)]);
    }
    const record = path.join(this.dir, 'node_modules/.package-lock.json');
    if (existsSync(record)) {
      rmSync(record);
      copyFileSync(path.join(from, 'node_modules/.package-lock.json'), record);
    }
    this.timings.push({step: label, ms: Date.now() - t0});
  }

  read(name: string): string {
    return readFileSync(path.join(this.dir, name), 'utf8');
  }

  /** Stops what is still running (the process groups this started) and removes the folder. */
  async remove(keep = false): Promise<void> {
    for (const child of this.running) {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    if (!keep) rmSync(this.work, {recursive: true, force: true});
  }
}

/** Does the steps in order: each file saved under its name, each command run to its end. */
export function doSteps(shop: Newcomer, steps: readonly GuideStep[]): void {
  for (const step of steps) {
    if (step.kind === 'file') shop.write(step.name!, step.text);
    else shop.run(step.text);
  }
}

/** The steps before the first command that is `command` (all of them when there is none). */
export function stepsBefore(steps: readonly GuideStep[], command: string): GuideStep[] {
  const at = steps.findIndex((s) => s.kind === 'command' && s.text === command);
  return steps.slice(0, at === -1 ? steps.length : at);
}

/** first-payment.md's steps 1 to 4: the packages, the files, the bundled page. */
export const firstPaymentSteps = (): GuideStep[] =>
  stepsBefore(guideSteps('first-payment.md'), 'npx tsc --noEmit');

/** The SHA-256 of a file (the tarball a prepared project was installed from), hex. */
export const sha256Of = (file: string): string =>
  createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * A first-payment project made once per run (scripts/run-pack-tests.mjs makes it with
 * test/pack/prepare-first-payment.ts, and names it in install.json): its folder, and the
 * hash of the tarball it installed.
 */
export interface PreparedProject {
  dir: string;
  tarballSha256: string;
}

/**
 * The project of first-payment.md, as far as its step 4 (the packages, the files, the bundled
 * page): where the guides that say they start from it start. With `prepared` (made once per
 * run from the same tarball: its hash must match), a copy of it (Newcomer.copyFrom: each
 * guide's own steps change only its copy); without, the steps done here. The whole guide is done
 * from `npm init -y` by newcomer-first-payment.test.ts.
 */
export function firstPaymentProject(shop: Newcomer, prepared?: PreparedProject): void {
  if (!prepared) {
    doSteps(shop, firstPaymentSteps());
    return;
  }
  if (prepared.tarballSha256 !== sha256Of(shop.tarball)) {
    throw new Error(`${prepared.dir} was installed from another tarball than ${shop.tarball}`);
  }
  shop.copyFrom(prepared.dir, "copy of first-payment.md's project, steps 1-4 (made once)");
  // npm wrote the tarball's place relative to the project (`file:../../…`): it must still
  // resolve from the copy, for the guides' own npm installs.
  const spec = (JSON.parse(shop.read('package.json')) as {dependencies: Record<string, string>})
    .dependencies['pg-checkout'];
  const file = spec?.startsWith('file:') ? path.resolve(shop.dir, spec.slice(5)) : undefined;
  if (!file || sha256Of(file) !== prepared.tarballSha256) {
    throw new Error(`the copy's pg-checkout (${spec}) is not the packed tarball`);
  }
}

/**
 * The guide's type check as written (`npx tsc --noEmit`, with the settings `tsc --init`
 * wrote), then once more, as the test's own check, with `skipLibCheck: false`: the
 * declarations need nothing the guides did not install.
 */
export function typeCheck(shop: Newcomer): void {
  const tsconfig = shop.read('tsconfig.json');
  if (!/"exactOptionalPropertyTypes": true/.test(tsconfig)) {
    throw new Error("tsconfig.json is not tsc --init's strict set");
  }
  shop.run('npx tsc --noEmit');
  shop.write(
    'tsconfig.json',
    tsconfig.replace('"skipLibCheck": true', '"skipLibCheck": false'),
    true,
  );
  try {
    shop.run('npx tsc --noEmit', {}, true);
  } finally {
    shop.write('tsconfig.json', tsconfig, true);
  }
}

export const isSandboxCommand = (command: string) => /^npx pg-checkout-sandbox\b/.test(command);
export const isServerCommand = (command: string) => /\bnpx tsx server\.ts\b/.test(command);

/** The sandbox and the shop's server, started with a guide's commands. */
export interface Shop {
  sandbox: Running;
  sandboxUrl: string;
  server: Running;
  /** Where the server listens (the guide's `http://localhost:3000`, on a free port). */
  origin: string;
  /** The server's command as the test ran it, to start it again. */
  serverCommand: string;
}

/**
 * Starts the sandbox and the server with the guide's commands (try-sandbox.sh), on free
 * ports: the sandbox on port 0, the server on `port`, the guide's 4010 and 3000 replaced
 * in its variables. `env` adds variables to the server's.
 */
export async function startShop(
  shop: Newcomer,
  steps: readonly GuideStep[],
  port: number,
  env: Record<string, string> = {},
): Promise<Shop> {
  const commands = steps.filter((s) => s.kind === 'command').map((s) => s.text);
  const sandboxCommand = commands.find(isSandboxCommand);
  const written = commands.find(isServerCommand);
  if (!sandboxCommand || !written) throw new Error('the guide starts no sandbox and no server');
  const sandbox = shop.start(sandboxCommand, {SANDBOX_PORT: '0'});
  const [, sandboxUrl] = await sandbox.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const origin = `http://localhost:${port}`;
  if (!written.includes('http://127.0.0.1:4010') || !written.includes('http://localhost:3000')) {
    throw new Error(`the server command names other addresses: ${written}`);
  }
  const serverCommand = written
    .replace('http://127.0.0.1:4010', sandboxUrl!)
    .replace('http://localhost:3000', origin);
  const server = shop.start(serverCommand, {PORT: String(port), ...env}, written);
  await server.waitFor(new RegExp(`listening on ${origin}`));
  return {sandbox, sandboxUrl: sandboxUrl!, server, origin, serverCommand};
}

/** Types a card into a `<pg-card-form>` as a customer does: number, an expiry two years on, a code. */
export async function typeCard(form: Locator, number = '4242424242424242'): Promise<void> {
  await form.locator('input[name="cc-number"]').pressSequentially(number);
  const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
  await form.locator('input[name="cc-exp"]').pressSequentially(`12${year}`);
  await form.locator('input[name="cc-csc"]').pressSequentially('123');
}

/**
 * What went wrong on a page while a test drove it: console errors, uncaught errors and
 * answers of 400 or more (Chromium's own /favicon.ico request aside: the guides' pages name
 * none). Read it at the end: it should be empty.
 */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) {
      problems.push(`console: ${m.text()} (${m.location().url})`);
    }
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) {
      problems.push(`${r.status()} ${r.url()}`);
    }
  });
  return problems;
}

/** Waits for `<pg-3ds-redirect>` on the result page to say how the order ended; its text. */
export async function resultOf(page: Page): Promise<string> {
  await page.waitForFunction(() => {
    const state = (document.querySelector('pg-3ds-redirect') as {state?: string} | null)?.state;
    return state === 'success' || state === 'failure' || state === 'error';
  });
  return (await page.locator('pg-3ds-redirect [part~="status"]').innerText()).trim();
}
