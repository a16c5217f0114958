/**
 * The pnpm and Yarn tabs of the site's install commands (scripts/docs/package-managers.mjs):
 * written from npm's, for blocks of install commands only, and every such block of the
 * pages becomes tabs.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  packageManagerCommands,
  packageManagerTabs,
} from '../../../scripts/docs/package-managers.mjs';
import {docPages, readPage} from './code-blocks.js';

describe('package-manager tabs', () => {
  test('npm install, -D and bare install become pnpm add and yarn add, comments kept', () => {
    assert.deepEqual(
      packageManagerCommands(
        'npm install pg-checkout hono\nnpm install -D typescript @types/node@20 # the tools\nnpm i\n',
      ),
      {
        npm: [
          'npm install pg-checkout hono',
          'npm install -D typescript @types/node@20 # the tools',
          'npm i',
        ],
        pnpm: [
          'pnpm add pg-checkout hono',
          'pnpm add -D typescript @types/node@20 # the tools',
          'pnpm install',
        ],
        yarn: [
          'yarn add pg-checkout hono',
          'yarn add -D typescript @types/node@20 # the tools',
          'yarn install',
        ],
      },
    );
  });

  test('a block with anything but installs is left as it is', () => {
    assert.equal(packageManagerCommands('npm init -y\nnpm install hono\n'), undefined);
    assert.equal(packageManagerCommands('npx pg-checkout-sandbox\n'), undefined);
    assert.equal(packageManagerCommands('npm install --global x\n'), undefined);
    const page = '# A\n\n```sh\nnpm init -y\n```\n\n```ts\nnpm install x\n```\n';
    assert.equal(packageManagerTabs(page), page);
  });

  test('a block of installs becomes a code group of three titled blocks', () => {
    assert.equal(
      packageManagerTabs('<!-- snippet: x.sh -->\n```sh\nnpm install hono\n```\nafter\n'),
      [
        '<!-- snippet: x.sh -->',
        '::: code-group',
        '```sh [npm]',
        'npm install hono',
        '```',
        '```sh [pnpm]',
        'pnpm add hono',
        '```',
        '```sh [yarn]',
        'yarn add hono',
        '```',
        ':::',
        'after',
        '',
      ].join('\n'),
    );
  });

  test('every install block of the guides gets tabs', () => {
    const installs = docPages().flatMap((page) =>
      [...readPage(page).matchAll(/^```sh[^\n]*\n((?:npm (?:install|i)\b[^\n]*\n)+)```$/gm)].map(
        (m) => `${page}: ${m[1]!.trim()}`,
      ),
    );
    assert.ok(installs.length >= 4, installs.join('\n'));
    for (const install of installs) {
      const code = install.slice(install.indexOf(': ') + 2);
      assert.ok(packageManagerCommands(code), install);
    }
  });
});
