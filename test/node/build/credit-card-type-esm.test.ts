/**
 * The build's rewrite of credit-card-type's CommonJS modules into ES modules
 * (scripts/vite/credit-card-type-esm.ts): the brand table it writes builds the very objects
 * the package's table holds, the matching steps keep their code, and a form it does not
 * know is a build error, never a module left half CommonJS.
 */
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {creditCardTypeToEsm} from '../../../scripts/vite/credit-card-type-esm.js';

const require = createRequire(import.meta.url);
const LIB = 'credit-card-type/dist/lib/';
const source = (name: string) => {
  const file = require.resolve(`${LIB}${name}.js`);
  return {file, code: readFileSync(file, 'utf8')};
};

/** Runs an ES module text that imports nothing and returns its default export. */
const defaultExport = (esm: string): unknown => {
  assert.equal((esm.match(/^export default /gm) ?? []).length, 1);
  return new Function(esm.replace(/^export default /m, 'return '))();
};

describe('creditCardTypeToEsm', () => {
  test('the brand table it writes holds the same brands, keys and values, in order', () => {
    const {file, code} = source('card-types');
    const esm = creditCardTypeToEsm(code, file);
    assert.doesNotMatch(esm, /\b(?:module|exports|require)\b/);
    const table = defaultExport(esm) as Record<string, unknown>;
    const original = require(`${LIB}card-types.js`) as Record<string, unknown>;
    assert.deepEqual(table, original);
    // The order of brands and of keys is what credit-card-type's JSON clones carry.
    assert.equal(JSON.stringify(table), JSON.stringify(original));
    assert.ok(Object.keys(table).length >= 15);
  });

  test('a table entry of another shape keeps the table as written', () => {
    const code =
      '"use strict";\nvar cardTypes = {\n    visa: { niceType: "Visa", type: "visa", extra: 1 },\n};\nmodule.exports = cardTypes;\n';
    const esm = creditCardTypeToEsm(code, '/x/credit-card-type/dist/lib/card-types.js');
    assert.match(esm, /^export default cardTypes;$/m);
    assert.deepEqual(defaultExport(esm), {
      visa: {niceType: 'Visa', type: 'visa', extra: 1},
    });
  });

  test('the matching steps become imports and named exports', () => {
    const {file, code} = source('add-matching-cards-to-results');
    const esm = creditCardTypeToEsm(code, file);
    assert.match(esm, /^import \* as clone_1 from "\.\/clone\.js";$/m);
    assert.match(esm, /^import \* as matches_1 from "\.\/matches\.js";$/m);
    assert.match(esm, /^export \{addMatchingCardsToResults\};$/m);
    assert.doesNotMatch(esm, /\b(?:module|exports|require)\b/);
  });

  test('CommonJS it does not know is an error naming the module', () => {
    assert.throws(
      () => creditCardTypeToEsm('module.exports.x = require(name);', '/x/lib/odd.js'),
      /\/x\/lib\/odd\.js: CommonJS this build does not rewrite/,
    );
  });
});
