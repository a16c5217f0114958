/**
 * The build's rewrite of credit-card-type's and card-validator's CommonJS modules into ES
 * modules (scripts/vite/credit-card-type-esm.ts): the brand table it writes builds the very
 * objects the package's table holds, the matching steps keep their code, card-validator's
 * modules run as ES modules answer as the package does, and a form it does not know is a
 * build error, never a module left half CommonJS. Also: the npm browser build's imports of
 * card-validator go through package.json "imports", to the package on Node and to those
 * ES modules anywhere else.
 */
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {pathToFileURL} from 'node:url';
import {
  CARD_VALIDATOR_IMPORT,
  creditCardTypeToEsm,
  toCardValidatorImports,
} from '../../../scripts/vite/credit-card-type-esm.js';

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

/** The modules of card-validator the form imports, and what they import in turn. */
const CARD_VALIDATOR_MODULES = [
  'card-number',
  'luhn-10',
  'expiration-date',
  'expiration-month',
  'expiration-year',
  'cvv',
  'lib/parse-date',
  'lib/is-array',
];
const CREDIT_CARD_TYPE_MODULES = [
  'index',
  'lib/card-types',
  'lib/add-matching-cards-to-results',
  'lib/is-valid-input-type',
  'lib/find-best-match',
  'lib/clone',
  'lib/matches',
];

describe("card-validator's modules as ES modules", () => {
  test('leave no CommonJS, import a module.exports as its default and the others whole', () => {
    for (const name of CARD_VALIDATOR_MODULES) {
      const file = require.resolve(`card-validator/dist/${name}.js`);
      const esm = creditCardTypeToEsm(readFileSync(file, 'utf8'), file);
      assert.doesNotMatch(esm, /\b(?:module|exports|require)\b/, name);
    }
    const file = require.resolve('card-validator/dist/card-number.js');
    const esm = creditCardTypeToEsm(readFileSync(file, 'utf8'), file);
    assert.match(esm, /^import luhn10 from "\.\/luhn-10\.js";$/m);
    assert.match(esm, /^import getCardTypes from "credit-card-type";$/m);
    assert.match(esm, /^export \{cardNumber\};$/m);
  });

  test('answer as the package does, run as ES modules', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pg-card-validator-esm-'));
    try {
      writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}');
      const write = (pkg: string, name: string, rewrite = (code: string) => code) => {
        const file = require.resolve(`${pkg}/dist/${name}.js`);
        const out = path.join(dir, pkg, 'dist', `${name}.js`);
        mkdirSync(path.dirname(out), {recursive: true});
        writeFileSync(out, rewrite(creditCardTypeToEsm(readFileSync(file, 'utf8'), file)));
      };
      for (const name of CREDIT_CARD_TYPE_MODULES) write('credit-card-type', name);
      // What the bundler does: the package name resolved to the module beside it.
      for (const name of CARD_VALIDATOR_MODULES)
        write('card-validator', name, (code) =>
          code.replace('from "credit-card-type"', 'from "../../credit-card-type/dist/index.js"'),
        );
      const load = (name: string) =>
        import(pathToFileURL(path.join(dir, 'card-validator/dist', `${name}.js`)).href);
      const esm = {
        ...(await load('card-number')),
        ...(await load('expiration-date')),
        ...(await load('cvv')),
      };
      const cjs = {
        ...require('card-validator/dist/card-number.js'),
        ...require('card-validator/dist/expiration-date.js'),
        ...require('card-validator/dist/cvv.js'),
      };
      for (const n of [
        '',
        '4',
        '4111111111111111',
        '378282246310005',
        '6221558812340000',
        '9804',
        'x',
      ])
        assert.deepEqual(esm.cardNumber(n), cjs.cardNumber(n), n);
      for (const d of [
        '',
        '1',
        '12',
        '134',
        '12034',
        '01/2034',
        '2034-10',
        '1 34',
        '13/30',
        '01/20',
      ])
        assert.deepEqual(esm.expirationDate(d), cjs.expirationDate(d), d);
      for (const [c, size] of [
        ['123', 3],
        ['123', 4],
        ['1234', [3, 4]],
        ['12a', 3],
      ] as const)
        assert.deepEqual(esm.cvv(c, size), cjs.cvv(c, size), c);
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  });

  test('the browser build imports them through package.json "imports": Node gets the package', () => {
    const built = 'import { cardNumber } from "card-validator/dist/card-number.js";';
    assert.equal(
      toCardValidatorImports(built),
      `import { cardNumber } from "${CARD_VALIDATOR_IMPORT}card-number.js";`,
    );
    const pkg = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as {imports: Record<string, Record<string, string>>; dependencies: Record<string, string>};
    assert.deepEqual(pkg.imports[`${CARD_VALIDATOR_IMPORT}*`], {
      node: 'card-validator/dist/*',
      default: './dist/browser/vendor/card-validator/dist/*',
    });
    assert.ok(pkg.dependencies['card-validator'], 'a dependency, so npm update brings its fixes');
  });
});
