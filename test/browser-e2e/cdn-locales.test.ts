/**
 * The CDN bundle carries English only (every table's fallback): the other shipped locales,
 * Ukrainian included, are files of their own in dist/cdn/locales/, one per locale, so a
 * page pays for no language it does not use; the brand marks, needed only once the
 * customer starts, are a file beside it. So the bundle stays within its gzip budget
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

  it('has the brand marks beside it, a module that imports nothing, and not inside', () => {
    const files = readdirSync('dist/cdn').filter((file) => statSync(`dist/cdn/${file}`).isFile());
    const marks = files.filter((file) => file.startsWith('brand-marks-'));
    assert.equal(marks.length, 1, files.join(', '));
    const code = readFileSync(`dist/cdn/${marks[0]}`, 'utf8');
    assert.doesNotMatch(code, /\bimport\b/, 'the marks import something (a second Lit?)');
    assert.match(code, /lengthAdjust="spacingAndGlyphs"/);
    assert.match(code, /#1a1f71/); // Visa's blue
    assert.doesNotMatch(bundle, /lengthAdjust|#1a1f71/, 'the marks are in the bundle');
    assert.ok(bundle.includes(`import(\`./${marks[0]}\`)`), 'the bundle does not load them');
    // Beside pg-checkout.js, nothing else: the bundle, its hashes, the marks.
    assert.deepEqual(files.sort(), [
      marks[0],
      'pg-checkout.integrity.json',
      'pg-checkout.js',
      'pg-checkout.js.sri',
    ]);
  });
});
