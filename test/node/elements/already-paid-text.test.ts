/**
 * An order paid before reads "already paid" in every shipped language, never the text of
 * a payment made now: `viewOf` of a success paid `before` gives the locale's own
 * `alreadyPaid` (nothing charged now, no card saved), distinct from its `success`.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {viewOf} from '../../../src/card-form/form-state.js';
import type {CheckoutMessages} from '../../../src/i18n/messages.js';

const LOCALES = readdirSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/i18n/locales'),
).map((f) => f.replace(/\.ts$/, ''));

test('every locale says "already paid" apart from "Payment successful"', async () => {
  assert.equal(LOCALES.length, 12);
  for (const code of LOCALES) {
    const t = ((await import(`../../../src/i18n/locales/${code}.js`)) as Record<string, unknown>)[
      code
    ] as CheckoutMessages;
    const paid = viewOf({kind: 'succeeded', before: true}, t, code);
    const now = viewOf({kind: 'succeeded'}, t, code);
    assert.equal(paid.phase, 'success', code);
    assert.equal(paid.label, 'paid', code);
    assert.equal(paid.message, t.alreadyPaid, code);
    assert.equal(now.message, t.success, code);
    assert.notEqual(t.alreadyPaid, t.success, `${code}: already paid reads as success`);
  }
});
