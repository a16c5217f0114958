/**
 * Where the packed package is, for the tests of test/pack: `scripts/run-pack-tests.mjs`
 * builds a copy of the tree, packs it, installs the tarball into a browser-only app and a
 * server app in a temporary folder, and names that folder in PG_PACK_DIR. Also the small
 * tools those tests share: importing a module as an app would (through the package's
 * `exports`), running a command in an app, and a static page server in front of the
 * companion.
 */
import {execFile} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import type {PreparedProject} from './newcomer.js';

export interface Packed {
  tarball: string;
  /** The built copy of the tree that was packed. */
  tree: string;
  /** An app with only `npm i <tarball>`. */
  browser: string;
  /** An app with the tarball and hono, pino, zod, @hono/node-server. */
  server: string;
  browserInstall: {ms: number; bytes: number; packages: string[]};
  /**
   * first-payment.md's project as far as its step 4, made once for this run when a guide
   * that starts from it is among the tests (test/pack/prepare-first-payment.ts).
   */
  firstPayment?: PreparedProject;
}

const dir = process.env['PG_PACK_DIR'];
if (!dir) throw new Error('PG_PACK_DIR is not set: run these tests with npm run test:pack');
export const PACK_DIR = dir;
export const packed = JSON.parse(readFileSync(path.join(dir, 'install.json'), 'utf8')) as Packed;

/** Every file of a package.json "exports" value, through nested conditions (`{import: {types, default}}`). */
export const exportFiles = (target: unknown): string[] =>
  typeof target === 'string'
    ? [target]
    : target && typeof target === 'object'
      ? Object.values(target).flatMap(exportFiles)
      : [];

/** The installed package's folder inside `app`. */
export const installedPackage = (app: string) => path.join(app, 'node_modules', 'pg-checkout');

let loaders = 0;
/** Imports `specifier` as a module of `app` would: resolved from there, through `exports`. */
export async function importFrom<T>(app: string, specifier: string): Promise<T> {
  const file = path.join(app, `load-${process.pid}-${loaders++}.mjs`);
  writeFileSync(file, `export * from ${JSON.stringify(specifier)};\n`);
  return (await import(pathToFileURL(file).href)) as T;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <args>` in `cwd` and collects its output. */
export function runNode(cwd: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, {cwd, timeout: 30_000}, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({code, stdout, stderr});
    });
  });
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

/**
 * A loopback server: `handle` answers what it knows (returning true), everything else goes
 * to `fallback` (the companion).
 */
export async function serve(
  handle: Handler,
  fallback: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{server: Server; origin: string}> {
  const server = createServer((req, res) => {
    void (async () => {
      if (!(await handle(req, res))) fallback(req, res);
    })().catch((error: unknown) => {
      res.writeHead(500, {'content-type': 'text/plain'});
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`};
}
