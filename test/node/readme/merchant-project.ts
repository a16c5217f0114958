/**
 * A merchant's project in a temporary folder, as `npm install` would leave it, for the
 * README's snippets: pg-checkout installed from this repository's built package (its
 * package.json and the `files` it publishes, copied, so imports resolve through its
 * `exports` exactly as a merchant's do), the packages the README's install line names and
 * the ones npm installs with pg-checkout (its dependencies and required peers) linked from
 * node_modules, `@types/node`, and every file of docs/snippets/ beside them. Nothing else
 * is there: a package the install line forgets is missing, as it would be for a merchant.
 */
import {execFileSync} from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SNIPPETS = path.join(ROOT, 'docs/snippets');

interface PackageJson {
  name: string;
  version: string;
  exports: unknown;
  files: string[];
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, {optional?: boolean}>;
}

export function packageJson(): PackageJson {
  return JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;
}

/** Every file the package's `exports` point at (all conditions), relative to the package. */
export function exportTargets(pkg: PackageJson): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.add(path.normalize(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(pkg.exports);
  return [...out].sort();
}

/** The packages a shell line `npm install a b c` installs, in order. */
export function installedBy(line: string): string[] {
  const m = /^npm install ((?:[@\w./-]+\s*)+)$/.exec(line.trim());
  if (!m) throw new Error(`not a plain npm install line: ${line}`);
  return m[1]!.trim().split(/\s+/);
}

/** The package a bare import specifier names (`@hono/node-server/serve-static` → `@hono/node-server`). */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The bare (package) imports of a TypeScript source, without `node:` built-ins. */
export function bareImports(source: string): string[] {
  const specs = [...source.matchAll(/(?:^|\s)(?:import|from)\s*['"]([^'"]+)['"]/gm)].map(
    (m) => m[1]!,
  );
  return [
    ...new Set(specs.filter((s) => !s.startsWith('.') && !s.startsWith('node:')).map(packageOf)),
  ].sort();
}

const newestIn = (dir: string): number =>
  existsSync(dir)
    ? readdirSync(dir, {recursive: true})
        .map((f) => path.join(dir, String(f)))
        .filter((f) => /\.(ts|css)$/.test(f))
        .reduce((m, f) => Math.max(m, statSync(f).mtimeMs), 0)
    : 0;

/** Whether every file the package's `exports` name is built, and newer than the sources. */
function builtAndFresh(dir: string): boolean {
  const sources = Math.max(newestIn(path.join(dir, 'src')), newestIn(path.join(dir, 'sandbox')));
  return exportTargets(packageJson())
    .filter((t) => t !== 'package.json')
    .map((t) => path.join(dir, t))
    .every((t) => existsSync(t) && statSync(t).mtimeMs >= sources);
}

/** What a build of the package reads: the tree without what it writes or installs. */
const BUILD_INPUT_SKIP = new Set(['node_modules', 'dist', '.git', 'data', 'test-results']);

/**
 * The folder to install pg-checkout from: this repository when its build is complete and
 * fresh (CI builds before it tests); otherwise a private copy, built there with
 * `npm run build`, so this never rebuilds dist/ under someone else's feet.
 */
function builtPackage(): {dir: string; remove(): void} {
  if (builtAndFresh(ROOT)) return {dir: ROOT, remove: () => {}};
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-package-'));
  for (const entry of readdirSync(ROOT)) {
    if (!BUILD_INPUT_SKIP.has(entry)) {
      cpSync(path.join(ROOT, entry), path.join(dir, entry), {recursive: true});
    }
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  try {
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], {
      cwd: dir,
      stdio: 'pipe',
    });
  } catch (error) {
    rmSync(dir, {recursive: true, force: true});
    const e = error as {stdout?: Buffer; stderr?: Buffer};
    throw new Error(`npm run build failed:\n${String(e.stdout ?? '')}${String(e.stderr ?? '')}`);
  }
  return {dir, remove: () => rmSync(dir, {recursive: true, force: true})};
}

/** A listing of `dir` (names and sizes), to tell whether a build changed it meanwhile. */
const listing = (dir: string): string =>
  readdirSync(dir, {recursive: true})
    .map(String)
    .sort()
    .map((f) => {
      const s = statSync(path.join(dir, f));
      return `${f}:${s.isFile() ? s.size : 'dir'}:${s.mtimeMs}`;
    })
    .join('\n');

export interface MerchantProject {
  dir: string;
  /** The packages the README's server install line names. */
  installLine: string[];
  remove(): void;
}

/** Makes the project. `installLine` is the README's `npm install ...` line for servers. */
export function merchantProject(installLine: string[]): MerchantProject {
  const built = builtPackage();
  try {
    return install(built.dir, installLine);
  } finally {
    built.remove();
  }
}

function install(source: string, installLine: string[]): MerchantProject {
  const pkg = packageJson();
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-merchant-'));
  const modules = path.join(dir, 'node_modules');
  const installed = path.join(modules, pkg.name);

  // pg-checkout as npm installs it: package.json and its `files`. Copied (a snapshot), and
  // again if a build elsewhere changed dist/ meanwhile.
  for (let tries = 0; ; tries++) {
    const before = listing(path.join(source, 'dist'));
    rmSync(installed, {recursive: true, force: true});
    mkdirSync(installed, {recursive: true});
    cpSync(path.join(source, 'package.json'), path.join(installed, 'package.json'));
    for (const entry of pkg.files) {
      if (existsSync(path.join(source, entry))) {
        cpSync(path.join(source, entry), path.join(installed, entry), {recursive: true});
      }
    }
    if (listing(path.join(source, 'dist')) === before) break;
    if (tries >= 5) throw new Error('dist/ kept changing while it was copied (a build running?)');
  }
  const missing = exportTargets(pkg).filter((t) => !existsSync(path.join(installed, t)));
  if (missing.length) {
    throw new Error(`the installed package lacks what its exports name: ${missing.join(', ')}`);
  }

  // What npm puts beside it: the install line, pg-checkout's dependencies, required peers.
  const requiredPeers = Object.keys(pkg.peerDependencies ?? {}).filter(
    (p) => !pkg.peerDependenciesMeta?.[p]?.optional,
  );
  const linked = new Set([
    ...installLine.filter((p) => p !== pkg.name),
    ...Object.keys(pkg.dependencies ?? {}),
    ...requiredPeers,
    '@types/node',
  ]);
  for (const name of linked) {
    const target = path.join(ROOT, 'node_modules', name);
    if (!existsSync(target)) throw new Error(`${name} is not installed in this repository`);
    mkdirSync(path.dirname(path.join(modules, name)), {recursive: true});
    symlinkSync(target, path.join(modules, name), 'dir');
  }

  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({name: 'merchant-shop', private: true, type: 'module'}, null, 2)}\n`,
  );
  cpSync(SNIPPETS, dir, {recursive: true});
  return {dir, installLine, remove: () => rmSync(dir, {recursive: true, force: true})};
}

/** Runs `tsc -p <project>/<tsconfig>`; returns its output ('' when clean). */
export function typecheck(dir: string, tsconfig: string): {ok: boolean; output: string} {
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(dir, tsconfig)], {
      cwd: dir,
      stdio: 'pipe',
    });
    return {ok: true, output: ''};
  } catch (error) {
    const e = error as {stdout?: Buffer; stderr?: Buffer};
    return {ok: false, output: `${String(e.stdout ?? '')}${String(e.stderr ?? '')}`};
  }
}
