/**
 * Every shipped locale's table is complete: the same keys as English, in English's order,
 * with the same placeholders, and a plural branch for each plural category the locale has
 * (`Intl.PluralRules`). A failure names the locale and the key. Also: the catalogue ships
 * exactly the tables in src/i18n/locales/, and one loaded on demand reads once loaded.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {
  SHIPPED_LOCALES,
  loadMessages,
  messagesFor,
  messagesReady,
} from '../../../src/i18n/catalogue.js';
import {placeholdersOf, pluralSelectorsOf} from '../../../src/i18n/format.js';
import type {CheckoutMessages} from '../../../src/i18n/messages.js';
import {en} from '../../../src/i18n/locales/en.js';

const LOCALES_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../src/i18n/locales',
);

/** The locales the issue asks for: the gateway's market, English, ten more, one RTL. */
const REQUIRED = ['uk', 'en', 'pl', 'de', 'fr', 'es', 'it', 'pt', 'ro', 'cs', 'tr', 'ar'];

async function tableOf(code: string): Promise<Record<string, unknown>> {
  const module = (await import(`../../../src/i18n/locales/${code}.js`)) as Record<
    string,
    Record<string, unknown>
  >;
  const table = module[code];
  assert.ok(table, `src/i18n/locales/${code}.ts exports no \`${code}\` table`);
  return table;
}

/** What is wrong with `table` compared with English, one line per key. */
function problemsOf(code: string, table: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const keys = Object.keys(en) as Array<keyof CheckoutMessages>;
  const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories as string[];
  for (const key of keys) {
    const text = table[key];
    if (text === undefined) {
      problems.push(`${code}.${key}: missing`);
      continue;
    }
    if (typeof text !== 'string' || text.trim() === '') {
      problems.push(`${code}.${key}: not a text`);
      continue;
    }
    const want = placeholdersOf(en[key]).join(', ');
    const got = placeholdersOf(text).join(', ');
    if (want !== got) problems.push(`${code}.${key}: placeholders {${got}}, English has {${want}}`);
    for (const selectors of pluralSelectorsOf(text)) {
      const named = selectors.filter((s) => !s.startsWith('='));
      const unknown = named.filter((s) => !categories.includes(s));
      const lacking = categories.filter((c) => !named.includes(c));
      if (unknown.length) problems.push(`${code}.${key}: no plural category ${unknown.join(', ')}`);
      if (lacking.length) problems.push(`${code}.${key}: no branch for ${lacking.join(', ')}`);
    }
  }
  for (const key of Object.keys(table)) {
    if (!(key in en)) problems.push(`${code}.${key}: not an English key`);
  }
  const order = Object.keys(table).filter((k) => k in en);
  const expected = keys.filter((k) => k in table);
  if (order.join() !== expected.join()) problems.push(`${code}: keys not in the order of en.ts`);
  return problems;
}

describe('the shipped locales', () => {
  test('include the twelve the checkout promises, one of them right to left', () => {
    for (const code of REQUIRED) assert.ok(SHIPPED_LOCALES.includes(code), `${code} not shipped`);
  });

  test('are exactly the tables in src/i18n/locales/', () => {
    const files = readdirSync(LOCALES_DIR)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .sort();
    assert.deepEqual([...SHIPPED_LOCALES].sort(), files);
  });

  for (const code of REQUIRED) {
    test(`${code}: every English key, no other, same placeholders, every plural form`, async () => {
      assert.deepEqual(problemsOf(code, await tableOf(code)), []);
    });
  }
});

describe('the completeness check', () => {
  test('names the locale and key of a missing, extra or mistranslated text', () => {
    const {cardNumber: _dropped, ...rest} = en;
    const broken = {...rest, cvvInvalid: 'Enter digits.', shout: 'Pay!'};
    assert.deepEqual(problemsOf('xx', broken), [
      'xx.cardNumber: missing',
      'xx.cvvInvalid: placeholders {}, English has {n}',
      'xx.shout: not an English key',
    ]);
  });

  test('names a plural form a locale lacks', () => {
    const table = {...en, fixFields: '{n, plural, one {# pole} other {# pól}}'};
    assert.deepEqual(problemsOf('pl', table), ['pl.fixFields: no branch for few, many']);
  });
});

describe('a locale loaded on demand', () => {
  test('reads in English until loaded, then in its language, region tags included', async () => {
    assert.equal(messagesReady('cs-CZ'), false);
    assert.equal(messagesFor('cs-CZ').cardNumber, 'Card number');
    await loadMessages('cs-CZ');
    assert.equal(messagesReady('cs'), true);
    assert.equal(messagesFor('cs-CZ').cardNumber, 'Číslo karty');
    assert.equal(messagesFor('CS').pay, 'Zaplatit');
  });

  test('an unknown language reads in English and loads nothing', async () => {
    assert.equal(messagesReady('xx'), true);
    await loadMessages('xx-YY');
    assert.equal(messagesFor('xx-YY').cardNumber, 'Card number');
  });
});
