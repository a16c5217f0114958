/**
 * The modules pg-checkout.js loads pinned (scripts/vite/pinned-modules.ts): each is built
 * into one file named by its SRI hash, the hash of its exact bytes, that imports nothing and
 * hands its exports to the bundle by the `pg-checkout-module` event; a source that imports
 * something at run time is refused, as it could not run beside the bundle alone.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {buildPinnedModule} from '../../../scripts/vite/pinned-modules.js';
import {sriHash} from '../../../scripts/vite/subresource-integrity.js';

test('builds the saved-card view as one file named and pinned by the hash of its bytes', async () => {
  const built = await buildPinnedModule(
    'src/card-form/saved-cards/saved-cards-view.ts',
    'saved-cards',
  );
  assert.equal(built.integrity, sriHash(Buffer.from(built.code)));
  assert.equal(built.file, `saved-cards-${built.integrity.slice(7, 17).replace(/[+/]/g, '_')}.js`);
  assert.ok(built.code.startsWith('/*! pg-checkout | MIT */\n'));
  assert.doesNotMatch(built.code, /\bimport\s*[{*\w'"(]/, 'imports nothing');
  assert.match(built.code, /pg-checkout-module/);
  assert.match(built.code, /module:\{choice,offer\}/);
  // The same bytes from the same source: the hash the bundle carries is reproducible.
  const again = await buildPinnedModule(
    'src/card-form/saved-cards/saved-cards-view.ts',
    'saved-cards',
  );
  assert.equal(again.integrity, built.integrity);
  // Built in the disk's file: dist/cdn holds this very file when the CDN was built.
  const onDisk = path.join('dist/cdn', built.file);
  assert.equal(readFileSync(onDisk, 'utf8'), built.code);
});

test('refuses a module that imports something at run time, or exports nothing', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-pinned-'));
  try {
    const importing = path.join(dir, 'importing.ts');
    writeFileSync(
      importing,
      "import {html} from 'lit';\nexport function view() { return html``; }\n",
    );
    await assert.rejects(buildPinnedModule(importing, 'x'), /imports something at run time/);
    const typesOnly = path.join(dir, 'types.ts');
    writeFileSync(
      typesOnly,
      "import type {TemplateResult} from 'lit';\nexport function view(): TemplateResult | undefined { return undefined; }\n",
    );
    assert.match((await buildPinnedModule(typesOnly, 'x')).code, /module:\{view\}/);
    const empty = path.join(dir, 'empty.ts');
    writeFileSync(empty, 'const x = 1;\nconsole.log(x);\n');
    await assert.rejects(buildPinnedModule(empty, 'x'), /exports no function/);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});
