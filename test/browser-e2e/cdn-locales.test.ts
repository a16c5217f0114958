/**
 * The CDN bundle carries English only (every table's fallback): the other shipped locales,
 * Ukrainian included, are files of their own in dist/cdn/locales/, one per locale, so a
 * page pays for no language it does not use; the brand marks (needed only once the
 * customer starts), the saved-card modules and the 3-D Secure dialog's styles are files
 * beside it. So the bundle stays within its gzip budget
 * (vite.config.ts).
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync, readdirSync, statSync} from 'node:fs';
import {gzipSync} from 'node:zlib';
import {SHIPPED_LOCALES} from '../../src/i18n/catalogue.js';
import {en} from '../../src/i18n/locales/en.js';
import {pl} from '../../src/i18n/locales/pl.js';
import {uk} from '../../src/i18n/locales/uk.js';

const BUDGET_GZIP = 24 * 1024; // vite.config.ts, CDN_BUDGET_GZIP
const bundle = readFileSync('dist/cdn/pg-checkout.js', 'utf8');

/** The files beside it that a bundle imports on demand (`import(`./name-hash.js`)`). */
const loadedBy = (code: string): string[] =>
  [...code.matchAll(/import\(`\.\/([\w.-]+\.js)`\)/g)].map((m) => m[1]!);

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

  it('has one module beside it per other shipped locale, each just that table', () => {
    const files = readdirSync('dist/cdn/locales').sort();
    const lazy = SHIPPED_LOCALES.filter((code) => code !== 'en').sort();
    assert.deepEqual(
      files.map((file) => file.split('-')[0]),
      lazy,
    );
    for (const file of files) {
      const code = readFileSync(`dist/cdn/locales/${file}`, 'utf8');
      assert.doesNotMatch(code, /\bimport\b/, `${file} imports something`);
    }
    const polish = readFileSync(`dist/cdn/locales/${files.find((f) => f.startsWith('pl-'))}`);
    assert.ok(polish.includes(pl.threeDSCancelled));
  });

  it('has the modules it loads on demand beside it, each importing nothing, and not inside', () => {
    const files = readdirSync('dist/cdn').filter((file) => statSync(`dist/cdn/${file}`).isFile());
    const chunks = loadedBy(bundle);
    assert.deepEqual(chunks.map((file) => file.replace(/-[\w-]{8}\.js$/, '')).sort(), [
      'brand-marks',
      'challenge-dialog.styles',
      'order-request',
      'saved-cards-view',
    ]);
    for (const file of chunks) {
      const code = readFileSync(`dist/cdn/${file}`, 'utf8');
      assert.doesNotMatch(code, /\bimport\b/, `${file} imports something (a second Lit?)`);
    }
    const marks = readFileSync(`dist/cdn/${chunks.find((f) => f.startsWith('brand-marks-'))}`);
    assert.match(String(marks), /lengthAdjust="?spacingAndGlyphs/);
    assert.match(String(marks), /#1a1f71/); // Visa's blue
    assert.doesNotMatch(bundle, /lengthAdjust|#1a1f71/, 'the marks are in the bundle');
    assert.doesNotMatch(bundle, /dialog::backdrop/, "the 3-D Secure dialog's styles are in it");
    // Beside pg-checkout.js, nothing else: the bundle, its hashes and its modules; the same
    // for the hydrating bundle of server-rendered pages, and its after-paint loader.
    const hydrating = readFileSync('dist/cdn/pg-checkout-hydrate.js', 'utf8');
    const expected = new Set([
      ...chunks,
      ...loadedBy(hydrating),
      ...['pg-checkout', 'pg-checkout-hydrate', 'pg-checkout-hydrate-after-paint'].flatMap(
        (name) => [`${name}.integrity.json`, `${name}.js`, `${name}.js.sri`],
      ),
    ]);
    assert.deepEqual(files.sort(), [...expected].sort());
  });
});
