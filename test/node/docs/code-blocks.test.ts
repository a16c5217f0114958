/**
 * Every block of code on the site that a reader is meant to copy compiles as written, in a
 * merchant's project, and so does every `@example` of the package's TSDoc (the reference
 * shows them; scripts/docs/undocumented.mjs finds them): the README snippets' machinery
 * (test/node/readme/merchant-project.ts) installs pg-checkout from this package's build, resolved through its `exports`, with only
 * the packages the install lines name; the blocks sit beside docs/snippets/ (so a guide may
 * import `./checkout.js`), server blocks with Node's types, browser blocks with the DOM's,
 * all with `tsc --init`'s strict set (`exactOptionalPropertyTypes` and the rest).
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {
  installedBy,
  merchantProject,
  typecheck,
  type MerchantProject,
} from '../readme/merchant-project.js';
import {
  DOCUMENTED_ENTRIES,
  exampleCode,
  projectOptions,
} from '../../../scripts/docs/undocumented.mjs';
import {blockFile, codeBlocks, docPages, readPage, DOCS, type CodeBlock} from './code-blocks.js';

/** What the guides tell a reader to install: the server line, and React's for the frameworks guide. */
const INSTALL = [
  ...installedBy(readFileSync(path.join(DOCS, 'snippets/install-server.sh'), 'utf8')),
  ...installedBy('npm install pg-checkout react @lit/react'),
  '@types/react',
  // The several-instances guide's driver, which the PostgreSQL examples use.
  ...installedBy('npm install pg'),
  '@types/pg',
];

/** `tsc --init`'s strict set (TypeScript 5.9), as a merchant's new project has it. */
const COMPILER = {
  target: 'ES2022',
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noUncheckedSideEffectImports: true,
  moduleDetection: 'force',
  skipLibCheck: true,
  noEmit: true,
};

function writeProject(project: MerchantProject, blocks: CodeBlock[]): void {
  const files = {server: [] as string[], browser: [] as string[]};
  blocks.forEach((block, i) => {
    const {name, text} = blockFile(block, i);
    writeFileSync(path.join(project.dir, name), text);
    files[block.side].push(name);
  });
  const config = (side: 'server' | 'browser') =>
    side === 'server'
      ? {
          ...COMPILER,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023'],
          types: ['node'],
        }
      : {
          ...COMPILER,
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          types: [],
          jsx: 'react-jsx',
        };
  for (const side of ['server', 'browser'] as const) {
    writeFileSync(
      path.join(project.dir, `tsconfig.docs-${side}.json`),
      JSON.stringify({compilerOptions: config(side), files: files[side]}, null, 2),
    );
  }
}

const pages = docPages();
/** The TSDoc examples, as blocks: on the server side when they import a server entry. */
const examples: CodeBlock[] = exampleCode(DOCUMENTED_ENTRIES, projectOptions()).map(
  ({where, code}, i) => ({
    where: `tsdoc:${i}:${where.replace(/ \(.*\)$/, '')}`,
    language: 'ts',
    code,
    side: /from 'pg-checkout\/(?:server|sandbox)'/.test(code) ? 'server' : 'browser',
  }),
);
const blocks = [...pages.flatMap((page) => codeBlocks(page, readPage(page))), ...examples];
let project: MerchantProject;

before(() => {
  project = merchantProject(INSTALL);
  writeProject(project, blocks);
});
after(() => project?.remove());

describe("the site's code blocks", () => {
  test('the guides and element pages hold copyable TypeScript, on both sides', () => {
    assert.ok(blocks.length >= 15, `only ${blocks.length} blocks`);
    assert.ok(blocks.some((b) => b.side === 'server') && blocks.some((b) => b.side === 'browser'));
    assert.ok(blocks.some((b) => b.language === 'tsx'));
  });

  test('the TSDoc examples are among them: one of each function and class of pg-checkout/server', () => {
    const server = examples.filter((b) => b.where.includes('pg-checkout/server: '));
    for (const name of ['createCheckoutApp', 'GatewayClient', 'verifyWebhook', 'amountToMinor']) {
      assert.ok(
        server.some((b) => b.where.endsWith(`pg-checkout/server: ${name}`)),
        `${name}'s example`,
      );
    }
  });

  test("a file's marked copy is left out: its file is checked where it lives", () => {
    const page = [
      '<!-- snippet: docs/snippets/orders.ts -->',
      '```ts [orders.ts]',
      'export const x = 1;',
      '```',
      '',
      '```ts',
      'export const y = 2;',
      '```',
      '',
    ].join('\n');
    assert.deepEqual(
      codeBlocks('guides/marked.md', page).map((b) => b.where),
      ['guides/marked.md:6'],
    );
  });

  test('every server block type-checks against pg-checkout as installed', () => {
    const result = typecheck(project.dir, 'tsconfig.docs-server.json');
    assert.ok(result.ok, result.output);
  });

  test('every browser block type-checks against pg-checkout as installed', () => {
    const result = typecheck(project.dir, 'tsconfig.docs-browser.json');
    assert.ok(result.ok, result.output);
  });

  test('a block that does not compile is reported with its page and line; no-check blocks are left out', () => {
    const page = [
      '# A page',
      '',
      '```ts',
      "import {createCheckoutApp} from 'pg-checkout/server';",
      "createCheckoutApp({gateway: 'nope'});",
      '```',
      '',
      '```ts no-check',
      'const fragment = …',
      '```',
      '',
    ].join('\n');
    const found = codeBlocks('guides/bad.md', page);
    assert.equal(found.length, 1);
    assert.equal(found[0]!.side, 'server');
    const {name, text} = blockFile(found[0]!, 99);
    writeFileSync(path.join(project.dir, name), text);
    writeFileSync(
      path.join(project.dir, 'tsconfig.bad.json'),
      readFileSync(path.join(project.dir, 'tsconfig.docs-server.json'), 'utf8').replace(
        /"files": \[[^\]]*\]/,
        `"files": ["${name}"]`,
      ),
    );
    const result = typecheck(project.dir, 'tsconfig.bad.json');
    assert.equal(result.ok, false);
    assert.match(
      result.output,
      new RegExp(`${name.replace(/\./g, '\\.')}\\(\\d+,\\d+\\): error TS`),
    );
    assert.match(text, /^\/\/ guides\/bad\.md:3\n/);
  });
});
