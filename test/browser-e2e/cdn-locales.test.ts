/**
 * What dist/cdn/ holds, as the build wrote it: each CDN bundle is one file with the code
 * every page runs — the brand marks and the 3-D Secure dialog's styles built in — and
 * English; the other shipped locales are JSON files in dist/cdn/locales/, pinned by the
 * bundle (it carries the hash of their index, which carries each file's hash:
 * src/i18n/pinned-locales.ts); the saved-card view, which few pages show, is a file of its
 * own beside pg-checkout.js, named and pinned by the hash pg-checkout.js carries
 * (src/internal/pinned-module.ts), and built into pg-checkout-hydrate.js. Nothing else
 * beside them but the SRI files and the script inventory. And the bundles stay within their
 * gzip budgets (vite.config.ts).
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

const BUDGET_GZIP = 28 * 1024 + 64 + 832; // vite.config.ts, CDN_BUDGET_GZIP
const HYDRATE_BUDGET_GZIP = 31 * 1024 + 832; // vite.config.ts, CDN_HYDRATE_BUDGET_GZIP
const BUNDLES = ['pg-checkout.js', 'pg-checkout-hydrate.js'];
const read = (file: string) => readFileSync(`dist/cdn/${file}`);
const bundle = read('pg-checkout.js').toString();
/** The saved-card view beside pg-checkout.js. */
const savedCards = readdirSync('dist/cdn').find((f) => /^saved-cards-[\w-]+\.js$/.test(f));

describe('the CDN bundle and its locales', () => {
  it('stays within its gzip budget', () => {
    const gzip = gzipSync(bundle, {level: 9}).length;
    assert.ok(gzip <= BUDGET_GZIP, `${gzip} B gzip, over the ${BUDGET_GZIP} B budget`);
    const hydrate = gzipSync(read('pg-checkout-hydrate.js'), {level: 9}).length;
    assert.ok(hydrate <= HYDRATE_BUDGET_GZIP, `hydrate: ${hydrate} B gzip, over the budget`);
  });

  it('holds English, and no other language', () => {
    assert.ok(bundle.includes(en.threeDSCancelled));
    assert.ok(!bundle.includes(uk.threeDSCancelled), 'the Ukrainian table is in the bundle');
    assert.ok(!bundle.includes(pl.threeDSCancelled), 'the Polish table is in the bundle');
  });

  it('holds the code every page runs and imports nothing; the saved-card view only pinned beside pg-checkout.js', () => {
    for (const file of BUNDLES) {
      const code = read(file).toString();
      const imports = /\bimport\s*[(`'"{*]|\bimport\s+\w+\s+from\b/.exec(code);
      assert.equal(imports, null, `${file} imports a module`);
      assert.ok(code.includes('#1a1f71'), `${file} lacks the brand marks (Visa's blue)`);
      assert.ok(code.includes('dialog::backdrop'), `${file} lacks the 3-D Secure dialog's styles`);
    }
    assert.ok(read('pg-checkout-hydrate.js').includes('pg-saved-card'), 'hydrate: no saved cards');
    assert.ok(!bundle.includes('pg-saved-card'), 'pg-checkout.js builds the saved-card view in');
    assert.ok(savedCards, 'no saved-card view beside pg-checkout.js');
    const view = read(savedCards);
    assert.ok(view.includes('pg-saved-card'));
    assert.equal(/\bimport\s*[(`'"{*]|\bimport\s+\w+\s+from\b/.exec(view.toString()), null);
    // pg-checkout.js names it and carries its hash, so it runs only as built.
    const integrity = sriHash(view);
    assert.equal(savedCards, `saved-cards-${integrity.slice(7, 17).replace(/[+/]/g, '_')}.js`);
    assert.ok(bundle.includes(integrity) && bundle.includes(savedCards));
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
      // pg-checkout.js also pins the saved-card view beside it.
      const pinned =
        file === 'pg-checkout.js' ? [indexHash, sriHash(read(savedCards!))] : [indexHash];
      assert.deepEqual(
        hashes?.sort(),
        pinned.sort(),
        `${file} carries the hashes of what it pins, and only them`,
      );
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

  it('has nothing else beside it: the bundles, their SRI files, the loader, the saved-card view and the inventory', () => {
    const top = readdirSync('dist/cdn').filter((f) => f !== 'locales');
    const expected = [
      ...['pg-checkout', 'pg-checkout-hydrate', 'pg-checkout-hydrate-after-paint'].flatMap(
        (name) => [`${name}.integrity.json`, `${name}.js`, `${name}.js.sri`],
      ),
      'pg-checkout.inventory.json',
      savedCards!,
    ];
    assert.deepEqual(top.sort(), expected.sort());
  });
});
