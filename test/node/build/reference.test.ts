/**
 * The site's `pg-checkout/server` reference is written from the built declarations
 * (dist/server/*.d.ts, `npm run build`) without a single TypeDoc warning: a link that
 * resolves to nothing (`{@link CheckoutApp.close}` on a type alias's member resolved to
 * `CheckoutApp.__type.close`) or a type referenced but not exported is a page that reads
 * wrong, so scripts/docs/reference.mjs treats warnings as errors, and this runs it.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {writeServerReference} from '../../../scripts/docs/reference.mjs';

test('TypeDoc writes the server reference with no warning', async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'pg-reference-'));
  try {
    await writeServerReference(out);
    const index = readFileSync(path.join(out, 'index.md'), 'utf8');
    assert.match(index, /CheckoutCloseOptions/);
    assert.match(index, /CheckoutCloseResult/);
  } finally {
    rmSync(out, {recursive: true, force: true});
  }
});
