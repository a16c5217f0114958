/**
 * The JSX typings and the React components' types, as a merchant's compiler sees them: the
 * files in examples/jsx/ (one per framework) and the React example are compiled with
 * `tsc --strict --noEmit`, each framework with its own JSX options, against pg-checkout
 * installed from this repository's build (merchant.ts), so the package's "exports", its
 * emitted declarations and their module augmentations are what is checked. Each file's
 * `@ts-expect-error` lines are mistakes the typings must refuse: tsc fails if one is
 * accepted, and if a correct line is refused.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {ROOT, merchantProject, node, type MerchantProject} from './merchant.js';

let project: MerchantProject;

before(async () => {
  project = await merchantProject({declarations: true}, path.join(ROOT, 'examples'));
});

after(() => project?.remove());

const STRICT = {
  strict: true,
  noEmit: true,
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'bundler',
  lib: ['ES2023', 'DOM', 'DOM.Iterable'],
  types: [],
};

/** Compiles `file` of the project with `jsx` options; resolves with tsc's output. */
async function compile(file: string, jsx: Record<string, string>): Promise<void> {
  const config = path.join(project.dir, `tsconfig.${path.basename(file)}.json`);
  writeFileSync(config, JSON.stringify({compilerOptions: {...STRICT, ...jsx}, files: [file]}));
  await node([path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], project.dir);
}

describe('JSX typings (tsc --strict)', () => {
  test('React 19: pg-checkout/jsx/react and the pg-checkout/react components', () =>
    compile('jsx/react.tsx', {jsx: 'react-jsx', jsxImportSource: 'react'}));

  test('Preact: pg-checkout/jsx/preact', () =>
    compile('jsx/preact.tsx', {jsx: 'react-jsx', jsxImportSource: 'preact'}));

  test('Solid: pg-checkout/jsx/solid', () =>
    compile('jsx/solid.tsx', {jsx: 'preserve', jsxImportSource: 'solid-js'}));

  test('Vue: pg-checkout/jsx/vue (TSX and GlobalComponents)', () =>
    compile('jsx/vue.tsx', {jsx: 'preserve', jsxImportSource: 'vue'}));

  test('the React example compiles with its own tsconfig', () =>
    node(
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'react/tsconfig.json'],
      project.dir,
    ).then((output) => assert.equal(output, '')));
});
