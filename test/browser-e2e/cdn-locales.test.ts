/**
 * What dist/cdn/ holds, as the build wrote it: each CDN bundle is one file with all the code
 * it can run — the brand marks, the saved-card modules and the 3-D Secure dialog's styles
 * built in — and English; the other shipped locales are JSON files in dist/cdn/locales/,
 * pinned by the bundle (it carries the hash of their index, which carries each file's
 * hash: src/i18n/pinned-locales.ts). Nothing else beside it but the SRI files and the
 * script inventory. And the bundle stays within its gzip budget (vite.config.ts).
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync, readdirSync} from 'node:fs';
import {gzipSync} from 'node:zlib';
import {SHIPPED_LOCALES} from '../../src/i18n/catalogue.js';
import {pinnedLocaleFile} from '../../src/i18n/pinned-locales.js';
import {en} from '../../src/i18n/locales/en.js';
import {pl} from '../../src/i18n/locales/pl.js';
import {uk} from '../../src/i18n/locales/uk.js';
import {sriHash} from '../../scripts/vite/subresource-integrity.js';

const BUDGET_GZIP = 26 * 1024; // vite.config.ts, CDN_BUDGET_GZIP
const BUNDLES = ['pg-checkout.js', 'pg-checkout-hydrate.js'];
const read = (file: string) => readFileSync(`dist/cdn/${file}`);
const bundle = read('pg-checkout.js').toString();

describe('the CDN bundle and its locales', () => {
  it('stays within its gzip budget', () => {
    const gzip = gzipSync(bundle, {level: 9}).length;
    assert.ok(gzip <= BUDGET_GZIP, `${gzip} B gzip, over the ${BUDGET_GZIP} B budget`);
  });

  it('holds English, and no other language', () => {
    assert.ok(bundle.includes(en.threeDSCancelled));
    assert.ok(!bundle.includes(uk.threeDSCancelled), 'the Ukrainian table is in the bundle');
    assert.ok(!bundle.includes(pl.threeDSCancelled), 'the Polish table is in the bundle');
  });

  it('holds every module the elements load on demand, and loads no code: each bundle imports nothing', () => {
    for (const file of BUNDLES) {
      const code = read(file).toString();
      const imports = /\bimport\s*[(`'"{*]|\bimport\s+\w+\s+from\b/.exec(code);
      assert.equal(imports, null, `${file} imports a module`);
      assert.ok(code.includes('#1a1f71'), `${file} lacks the brand marks (Visa's blue)`);
      assert.ok(code.includes('dialog::backdrop'), `${file} lacks the 3-D Secure dialog's styles`);
      assert.ok(code.includes('pg-saved-card'), `${file} lacks the saved-card view`);
    }
  });

  it('has one JSON file per other shipped locale, each that table, pinned through the index the bundles carry', async () => {
    const files = readdirSync('dist/cdn/locales').sort();
    const index = files.find((f) => f.startsWith('index-'))!;
    const indexBytes = read(`locales/${index}`);
    const indexHash = sriHash(indexBytes);
    assert.equal(`locales/${index}`, pinnedLocaleFile('index', indexHash));
    for (const file of BUNDLES) {
      const hashes = read(file)
        .toString()
        .match(/sha384-[A-Za-z0-9+/=]+/g);
      assert.deepEqual(hashes, [indexHash], `${file} carries the index's hash, and only it`);
    }
    const hashes = JSON.parse(indexBytes.toString()) as Record<string, string>;
    const lazy = SHIPPED_LOCALES.filter((code) => code !== 'en').sort();
    assert.deepEqual(Object.keys(hashes).sort(), lazy);
    assert.deepEqual(
      files.filter((f) => f !== index),
      lazy.map((code) => pinnedLocaleFile(code, hashes[code]!).slice('locales/'.length)).sort(),
    );
    for (const code of lazy) {
      const bytes = read(pinnedLocaleFile(code, hashes[code]!));
      assert.equal(sriHash(bytes), hashes[code], `${code}: its hash in the index`);
      const source = (await import(`../../src/i18n/locales/${code}.js`)) as Record<string, unknown>;
      assert.deepEqual(JSON.parse(bytes.toString()), source[code], `${code}: not its table`);
    }
  });

  it('has nothing else beside it: the bundles, their SRI files, the loader and the inventory', () => {
    const top = readdirSync('dist/cdn').filter((f) => f !== 'locales');
    const expected = [
      ...['pg-checkout', 'pg-checkout-hydrate', 'pg-checkout-hydrate-after-paint'].flatMap(
        (name) => [`${name}.integrity.json`, `${name}.js`, `${name}.js.sri`],
      ),
      'pg-checkout.inventory.json',
    ];
    assert.deepEqual(top.sort(), expected.sort());
  });
});
