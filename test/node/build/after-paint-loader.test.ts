/**
 * pg-checkout-hydrate-after-paint.js (src/hydrate-after-paint.ts, built by
 * scripts/vite/after-paint-loader.ts): it loads pg-checkout-hydrate.js checked against the
 * hash it carries, so that hash must be the hash of the file beside it, and its own SRI files
 * must describe its own bytes. A hydrating file rebuilt without its loader fails here.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {gzipSync} from 'node:zlib';
import {sriHash} from '../../../scripts/vite/subresource-integrity.js';
import {UNAVAILABLE_TEXTS} from '../../../src/i18n/unavailable.js';

const cdn = (file: string) => readFileSync(`dist/cdn/${file}`);
const LOADER = 'pg-checkout-hydrate-after-paint.js';

test('the loader carries the SRI hash of the pg-checkout-hydrate.js beside it, and no other', () => {
  const loader = cdn(LOADER).toString();
  const hashes = [...new Set(loader.match(/sha384-[A-Za-z0-9+/=]+/g) ?? [])];
  assert.deepEqual(hashes, [sriHash(cdn('pg-checkout-hydrate.js'))]);
  assert.match(loader, /new URL\(`\.\/pg-checkout-hydrate\.js`,import\.meta\.url\)/);
});

test('its .sri and .integrity.json describe its own bytes; it is within its 1.4 kB gzip budget and exports nothing', () => {
  const bytes = cdn(LOADER);
  assert.equal(cdn(`${LOADER}.sri`).toString().trim(), sriHash(bytes));
  const json = JSON.parse(cdn('pg-checkout-hydrate-after-paint.integrity.json').toString()) as {
    file: string;
    integrity: string;
    bytes: number;
  };
  assert.deepEqual([json.file, json.integrity, json.bytes], [LOADER, sriHash(bytes), bytes.length]);
  assert.ok(gzipSync(bytes, {level: 9}).length <= 1440); // vite.config.ts
  assert.equal(/\bexport\b/.test(bytes.toString()), false);
  assert.match(bytes.toString(), /^\/\*! pg-checkout \| MIT \*\/\n/);
});

test("its word to the customer of a form rendered without renderCardForm's text is English's", () => {
  // A refused module leaves the form saying `data-pg-unavailable`, else this text.
  assert.ok(cdn(LOADER).toString().includes(`\`${UNAVAILABLE_TEXTS['en']}\``));
});
