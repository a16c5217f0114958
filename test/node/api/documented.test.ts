/**
 * The check that every public export carries a doc comment (scripts/docs/undocumented.mjs,
 * run by `npm run lint` over pg-checkout, pg-checkout/server and pg-checkout/sandbox), on
 * entries written here: it follows re-exports (named, renamed, `export *`) to the
 * declaration, takes what TypeScript's own reader (an editor's hover) takes as a
 * description, and names each export without one by its entry, name and file.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {
  exampleCode,
  exportsWithoutExample,
  undocumentedExports,
} from '../../../scripts/docs/undocumented.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'pg-documented-'));
after(() => rmSync(dir, {recursive: true, force: true}));

function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), {recursive: true});
    writeFileSync(path.join(dir, name), text);
  }
}

// No default library: the check reads declarations and their comments, which need none,
// and TypeScript's (lib.esnext.full.d.ts and the DOM's) took most of this file's time,
// loaded again for each of its five programs.
const OPTIONS = {
  strict: true,
  noEmit: true,
  noLib: true,
  target: 99,
  module: 199,
  moduleResolution: 99,
  types: [],
};

const check = (entries: Record<string, string>): string[] =>
  undocumentedExports(entries, OPTIONS, dir);

describe('every export has a doc comment: the check', () => {
  write({
    'lib/a.ts': `/** Adds two numbers. */
export function add(a: number, b: number): number { return a + b; }
export function bare(): void {}
/**
 * @param n a number
 */
export function paramsOnly(n: number): number { return n; }
/** A point. */
export interface Point { x: number }
export interface Size { w: number }
/** Colours. */
export const COLOURS = ['red'] as const;
export type Colour = (typeof COLOURS)[number];
/** A widget. */
export class Widget {}
export class Gadget {}
`,
    'lib/b.ts': `/** Said once. */
export const once = 1;
export const never = 2;
`,
    'entry.ts': `export {add, bare, paramsOnly as renamed, type Point, type Size} from './lib/a.js';
export {COLOURS, type Colour, Widget, Gadget} from './lib/a.js';
export * from './lib/b.js';
/** Declared in the entry itself. */
export const local = true;
export const localBare = false;
`,
    'clean.ts': `export {add, Widget} from './lib/a.js';\n`,
  });

  test('names each export without a description, by entry, name and file, through re-exports', () => {
    assert.deepEqual(check({pkg: 'entry.ts'}), [
      'pkg: Colour (lib/a.ts)',
      'pkg: Gadget (lib/a.ts)',
      'pkg: Size (lib/a.ts)',
      'pkg: bare (lib/a.ts)',
      'pkg: localBare (entry.ts)',
      'pkg: never (lib/b.ts)',
      'pkg: renamed (lib/a.ts)',
    ]);
  });

  test('an entry whose every export is described passes', () => {
    assert.deepEqual(check({'pkg/clean': 'clean.ts'}), []);
  });

  test('a missing entry file is an error, not a pass', () => {
    assert.throws(() => check({pkg: 'missing.ts'}), /missing\.ts is not in the program/);
  });

  test('every function and class of pg-checkout/server shows an @example with code; its errors need none', () => {
    write({
      'server.ts': `/**
 * Starts it.
 *
 * @example
 * \`\`\`ts
 * start(1);
 * \`\`\`
 */
export function start(n: number): number { return n; }
/** Stops it. */
export function stop(): void {}
/**
 * Prose only.
 *
 * @example Call it.
 */
export function prose(): void {}
/** A client. */
export class Client {}
/** Refused. */
export class RefusedError extends Error {}
/** Options. */
export interface Options { n: number }
`,
    });
    assert.deepEqual(exportsWithoutExample({'pg-checkout/server': 'server.ts'}, OPTIONS, dir), [
      'pg-checkout/server: Client (server.ts)',
      'pg-checkout/server: prose (server.ts)',
      'pg-checkout/server: stop (server.ts)',
    ]);
    assert.deepEqual(exportsWithoutExample({'pg-checkout': 'server.ts'}, OPTIONS, dir), []);
    assert.deepEqual(exampleCode({'pg-checkout/server': 'server.ts'}, OPTIONS, dir), [
      {where: 'pg-checkout/server: start (server.ts)', code: 'start(1);\n'},
    ]);
  });
});
