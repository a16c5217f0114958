/**
 * The figures the documentation states about the build are the build's: the CDN file's
 * gzip and brotli sizes in docs/guides/csp-and-sri.md are those dist/cdn/
 * pg-checkout.integrity.json records (`npm run build`). It said 28,593 B gzip while the
 * build wrote 28,602. `node scripts/docs/figures.mjs --write` rewrites them from the build.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {checkFigures} from '../../../scripts/docs/figures.mjs';

test("the documentation's figures are the build's", () => {
  assert.deepEqual(checkFigures(), []);
});
