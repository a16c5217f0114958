/**
 * V8's compile hint in the CDN files (vite.config.ts, COMPILE_HINT): on the bundle that
 * renders the card form in the browser, whose whole code runs before the form takes input;
 * not on the hydrating bundle of server-rendered pages, whose form is typeable before it
 * arrives and whose eager compile would share the CPU with the page's first paint.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';

const HINT = '//# allFunctionsCalledOnLoad';
const lines = (file: string) => readFileSync(`dist/cdn/${file}`, 'utf8').split('\n', 3);

test('pg-checkout.js carries the hint on its second line, after the licence', () => {
  const [licence, hint] = lines('pg-checkout.js');
  assert.match(licence!, /^\/\*! pg-checkout \| MIT/);
  assert.equal(hint, HINT);
});

test('pg-checkout-hydrate.js compiles lazily: no hint anywhere in it', () => {
  const text = readFileSync('dist/cdn/pg-checkout-hydrate.js', 'utf8');
  assert.match(text, /^\/\*! pg-checkout \| MIT/);
  assert.equal(text.includes(HINT), false);
});
