/**
 * A merchant's project in a temporary folder, with pg-checkout installed the way npm
 * installs a `file:` dependency: `node_modules/pg-checkout` holds this repository's
 * package.json and a fresh build of `dist/browser` (built here, into the temporary folder,
 * so the repository's own `dist/` is neither needed nor touched), and every other
 * dependency is this repository's `node_modules`, linked. Imports of `pg-checkout/…` then
 * resolve through package.json "exports" exactly as in a merchant's app.
 */
import {execFile} from 'node:child_process';
import {cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

/** Runs a Node script of this repository (tsc, vite) and fails with its whole output. */
export async function node(args: string[], cwd = ROOT): Promise<string> {
  try {
    const {stdout, stderr} = await run(process.execPath, args, {cwd, maxBuffer: 1 << 24});
    return stdout + stderr;
  } catch (error) {
    const e = error as {stdout?: string; stderr?: string; message: string};
    throw new Error(`${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

export interface MerchantProject {
  /** The project folder: its `node_modules` has pg-checkout and the repository's packages. */
  dir: string;
  remove(): void;
}

/**
 * Creates the project from `files` (copied in, if given) and installs pg-checkout with
 * what `build` asks for: the browser modules (Vite library mode, vite.config.ts), the
 * declarations (tsc -p tsconfig.browser.json), or both.
 */
export async function merchantProject(
  build: {modules?: boolean; declarations?: boolean},
  files?: string,
): Promise<MerchantProject> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-merchant-'));
  if (files) {
    cpSync(files, dir, {recursive: true, filter: (f) => !/[\\/](node_modules|dist)$/.test(f)});
  }
  const modules = path.join(dir, 'node_modules');
  mkdirSync(modules, {recursive: true});
  for (const name of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || name === 'pg-checkout') continue;
    symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name), 'dir');
  }
  const pkg = path.join(modules, 'pg-checkout');
  const out = path.join(pkg, 'dist/browser');
  mkdirSync(out, {recursive: true});
  cpSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'));
  await Promise.all([
    build.modules &&
      node(['node_modules/vite/bin/vite.js', 'build', '--outDir', out, '--logLevel', 'warn']),
    build.declarations &&
      node([
        'node_modules/typescript/bin/tsc',
        '-p',
        'tsconfig.browser.json',
        '--emitDeclarationOnly',
        '--noCheck', // checking the sources is the lint's job; the emitted files get checked
        '--declarationMap',
        'false',
        '--outDir',
        out,
      ]),
  ]);
  return {dir, remove: () => rmSync(dir, {recursive: true, force: true})};
}
