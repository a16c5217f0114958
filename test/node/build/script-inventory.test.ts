/**
 * The script inventory the CDN build writes (scripts/vite/script-inventory.ts): every file
 * of dist/cdn/ a page may load is in it with the SRI hash and size of its bytes on disk, its
 * kind, what loads it and whose hash pins it; the SRI files and the inventory itself are
 * not (a page never loads them); and a file it cannot describe fails, so a new kind of file
 * cannot reach the CDN without a purpose written down.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {gzipSync} from 'node:zlib';
import {inventoryOf, type Inventory} from '../../../scripts/vite/script-inventory.js';
import {sriHash} from '../../../scripts/vite/subresource-integrity.js';

const inventory = JSON.parse(
  readFileSync('dist/cdn/pg-checkout.inventory.json', 'utf8'),
) as Inventory;

test('lists every file of dist/cdn a page may load, with the hash and size of its bytes', () => {
  const onDisk = readdirSync('dist/cdn', {recursive: true, encoding: 'utf8'})
    .filter((f) => statSync(path.join('dist/cdn', f)).isFile())
    .filter((f) => !/\.sri$|\.integrity\.json$|^pg-checkout\.inventory\.json$/.test(f))
    .sort();
  assert.deepEqual(
    inventory.files.map((f) => f.file),
    onDisk,
  );
  for (const entry of inventory.files) {
    const bytes = readFileSync(path.join('dist/cdn', entry.file));
    assert.equal(entry.integrity, sriHash(bytes), entry.file);
    assert.equal(entry.bytes, bytes.length, entry.file);
    assert.equal(entry.gzip, gzipSync(bytes, {level: 9}).length, entry.file);
    assert.ok(entry.purpose.length > 20, `${entry.file}: a purpose`);
  }
  assert.equal(
    inventory.version,
    (JSON.parse(readFileSync('package.json', 'utf8')) as {version: string}).version,
  );
});

test('says what runs and what pins what: the scripts by the page, the saved-card view by pg-checkout.js, the locales by the index the bundles carry', () => {
  const byFile = new Map(inventory.files.map((f) => [f.file, f]));
  const scripts = inventory.files.filter((f) => f.kind === 'script').map((f) => f.file);
  const savedCards = scripts.find((f) => /^saved-cards-[\w-]+\.js$/.test(f));
  assert.ok(savedCards, 'the saved-card view beside pg-checkout.js');
  assert.deepEqual(scripts.sort(), [
    'pg-checkout-hydrate-after-paint.js',
    'pg-checkout-hydrate.js',
    'pg-checkout.js',
    savedCards,
  ]);
  assert.deepEqual(byFile.get('pg-checkout.js')!.pinnedBy, ['page']);
  // The view is pinned by the hash pg-checkout.js carries; the hydrating file builds it in.
  const view = byFile.get(savedCards)!;
  assert.deepEqual([view.loadedBy, view.pinnedBy], [['pg-checkout.js'], ['pg-checkout.js']]);
  assert.ok(readFileSync('dist/cdn/pg-checkout.js', 'utf8').includes(view.integrity));
  assert.ok(!readFileSync('dist/cdn/pg-checkout-hydrate.js', 'utf8').includes(savedCards));
  assert.deepEqual(byFile.get('pg-checkout-hydrate.js')!.pinnedBy, [
    'page',
    'pg-checkout-hydrate-after-paint.js',
  ]);
  const index = inventory.files.find((f) => f.file.startsWith('locales/index-'))!;
  assert.deepEqual(index.pinnedBy, ['pg-checkout.js', 'pg-checkout-hydrate.js']);
  const hashes = JSON.parse(readFileSync(path.join('dist/cdn', index.file), 'utf8')) as Record<
    string,
    string
  >;
  for (const entry of inventory.files.filter((f) => f.kind === 'data' && f !== index)) {
    assert.deepEqual(entry.pinnedBy, [index.file], entry.file);
    const code = /^locales\/(\w+)-/.exec(entry.file)![1]!;
    assert.equal(hashes[code], entry.integrity, `${entry.file}: its hash in the index`);
  }
});

test('fails on a file it cannot describe', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-inventory-'));
  try {
    writeFileSync(path.join(dir, 'pg-checkout.js'), 'export {};\n');
    writeFileSync(path.join(dir, 'pg-checkout.js.sri'), 'sha384-x\n');
    assert.deepEqual(
      inventoryOf(dir, '1.0.0').files.map((f) => f.file),
      ['pg-checkout.js'],
    );
    writeFileSync(path.join(dir, 'brand-marks-abc.js'), 'export {};\n');
    assert.throws(
      () => inventoryOf(dir, '1.0.0'),
      /brand-marks-abc\.js: the script inventory cannot say what it is/,
    );
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});
