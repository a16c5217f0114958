/**
 * The locales as the CDN build writes them (scripts/vite/pinned-locales.ts): each table of
 * src/i18n/locales but English, evaluated and written as JSON under the name the browser
 * derives from its hash (src/i18n/pinned-locales.ts, one definition for both), with the
 * index of their hashes; a table module that imports something at run time is refused (a
 * table is data: the JSON must be all of it).
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {localeIndex, pinnedLocales} from '../../../scripts/vite/pinned-locales.js';
import {sriHash} from '../../../scripts/vite/subresource-integrity.js';
import {pinnedLocaleFile} from '../../../src/i18n/pinned-locales.js';
import {pl} from '../../../src/i18n/locales/pl.js';

test('writes each table but the built-in ones as JSON, named by its hash, and an index of the hashes', async () => {
  const locales = await pinnedLocales('src/i18n/locales', ['en']);
  assert.equal(
    locales.some((l) => l.code === 'en'),
    false,
  );
  const polish = locales.find((l) => l.code === 'pl')!;
  assert.deepEqual(JSON.parse(polish.source), pl);
  assert.equal(polish.integrity, sriHash(Buffer.from(polish.source)));
  assert.equal(polish.fileName, pinnedLocaleFile('pl', polish.integrity));
  assert.match(polish.fileName, /^locales\/pl-[\w-]{10}\.json$/);
  const index = localeIndex(locales);
  assert.equal(index.fileName, pinnedLocaleFile('index', index.integrity));
  assert.deepEqual(
    JSON.parse(index.source),
    Object.fromEntries(locales.map((l) => [l.code, l.integrity])),
  );
});

test('refuses a table that imports something, or exports no table of its name', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-locales-'));
  try {
    writeFileSync(path.join(dir, 'xx.ts'), "import {en} from './en.js';\nexport const xx = en;\n");
    await assert.rejects(pinnedLocales(dir, []), /xx\.ts imports something/);
    writeFileSync(path.join(dir, 'xx.ts'), 'export const yy = {};\n');
    await assert.rejects(pinnedLocales(dir, []), /exports no xx/);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});
