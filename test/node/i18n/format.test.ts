/**
 * The checkout's texts filled in the customer's language: plural forms by
 * `Intl.PluralRules` (Slavic and Arabic have several), counts and money amounts by
 * `Intl.NumberFormat` from the exact decimal string, and each locale's writing direction.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {fill, formatAmount, localeDirection, placeholdersOf} from '../../../src/i18n/format.js';
import {ar} from '../../../src/i18n/locales/ar.js';
import {cs} from '../../../src/i18n/locales/cs.js';
import {de} from '../../../src/i18n/locales/de.js';
import {en} from '../../../src/i18n/locales/en.js';
import {pl} from '../../../src/i18n/locales/pl.js';
import {ro} from '../../../src/i18n/locales/ro.js';
import {uk} from '../../../src/i18n/locales/uk.js';

/** `fixFields` for each count, in `locale`. */
const fixing = (template: string, locale: string, counts: number[]) =>
  counts.map((n) => fill(template, n, locale));

describe('plural forms', () => {
  test('English: 1 field, 2 fields', () => {
    assert.deepEqual(fixing(en.fixFields, 'en', [1, 2]), [
      'Please correct 1 field.',
      'Please correct 2 fields.',
    ]);
  });

  test('Ukrainian: 1 поле, 2 поля, 5 полів, 21 поле, 11 полів', () => {
    assert.deepEqual(fixing(uk.fixFields, 'uk', [1, 2, 5, 21, 11]), [
      'Виправте 1 поле.',
      'Виправте 2 поля.',
      'Виправте 5 полів.',
      'Виправте 21 поле.',
      'Виправте 11 полів.',
    ]);
  });

  test('Polish: 1 pole, 2 pola, 5 pól, 12 pól, 22 pola', () => {
    assert.deepEqual(fixing(pl.fixFields, 'pl', [1, 2, 5, 12, 22]), [
      'Popraw 1 pole.',
      'Popraw 2 pola.',
      'Popraw 5 pól.',
      'Popraw 12 pól.',
      'Popraw 22 pola.',
    ]);
  });

  test('Czech: 1 pole, 3 pole, 5 polí', () => {
    assert.deepEqual(fixing(cs.fixFields, 'cs', [1, 3, 5]), [
      'Opravte 1 pole.',
      'Opravte 3 pole.',
      'Opravte 5 polí.',
    ]);
  });

  test('Romanian: 1 câmp, 2 câmpuri, 20 de câmpuri', () => {
    assert.deepEqual(fixing(ro.fixFields, 'ro', [1, 2, 20]), [
      'Corectați 1 câmp.',
      'Corectați 2 câmpuri.',
      'Corectați 20 de câmpuri.',
    ]);
  });

  test('Arabic: one, two, few (3–10), many (11–99) and other (100) each their own form', () => {
    const [one, two, three, eleven, hundred] = fixing(ar.fixFields, 'ar', [1, 2, 3, 11, 100]);
    const digits = (n: number) => new Intl.NumberFormat('ar').format(n);
    assert.equal(one, 'يرجى تصحيح حقل واحد.');
    assert.equal(two, 'يرجى تصحيح حقلين.');
    assert.equal(three, `يرجى تصحيح ${digits(3)} حقول.`);
    assert.equal(eleven, `يرجى تصحيح ${digits(11)} حقلًا.`);
    assert.equal(hundred, `يرجى تصحيح ${digits(100)} حقل.`);
  });

  test('an exact branch wins over the category; a missing category reads `other`', () => {
    const template = '{n, plural, =0 {Nothing to fix.} one {# field} other {# fields}}';
    assert.equal(fill(template, 0, 'en'), 'Nothing to fix.');
    assert.equal(fill(template, 3, 'pl'), '3 fields');
  });

  test('a plain {n} template, as merchants wrote them, still fills', () => {
    assert.equal(fill('Please correct {n} field(s).', 2), 'Please correct 2 field(s).');
    assert.equal(fill('{n} / {n}', 1234, 'de'), '1.234 / 1.234');
  });

  test('named values; an unknown name stays as written; a bad tag reads as English', () => {
    assert.equal(fill('Pay {amount}', {amount: 'UAH 5.00'}), 'Pay UAH 5.00');
    assert.equal(fill('{missing} and {n}', 3), '{missing} and 3');
    assert.equal(fill(en.fixFields, 2, 'not a tag!'), 'Please correct 2 fields.');
  });

  test('placeholders are read through plural arguments', () => {
    assert.deepEqual(placeholdersOf(en.fixFields), ['n']);
    assert.deepEqual(placeholdersOf('{amount}: {n, plural, one {# item} other {# items}}'), [
      'amount',
      'n',
    ]);
  });
});

describe('formatAmount', () => {
  const NBSP = '\u00a0';
  const NNBSP = '\u202f';

  test('shows the currency minor digits from the exact decimal string', () => {
    assert.equal(formatAmount('0.10', 'UAH', 'en'), `UAH${NBSP}0.10`);
    assert.equal(formatAmount('12.5', 'UAH', 'en'), `UAH${NBSP}12.50`);
    assert.equal(formatAmount('1234.50', 'UAH', 'uk'), `1${NBSP}234,50${NBSP}₴`);
    assert.equal(formatAmount('1234.50', 'EUR', 'de'), `1.234,50${NBSP}€`);
    assert.equal(formatAmount('1234.50', 'EUR', 'fr'), `1${NNBSP}234,50${NBSP}€`);
    assert.equal(formatAmount('0.10', 'PLN', 'pl'), `0,10${NBSP}zł`);
    assert.equal(formatAmount('1000', 'JPY', 'en'), '¥1,000');
  });

  test('never rounds through a float, nor for display', () => {
    // As a float, 12345678901234567.89 is 12345678901234568.
    assert.equal(formatAmount('12345678901234567.89', 'USD', 'en'), '$12,345,678,901,234,567.89');
    assert.equal(formatAmount('0.125', 'UAH', 'en'), `UAH${NBSP}0.125`);
    assert.equal(formatAmount('-5.05', 'USD', 'en'), '-$5.05');
  });

  test('refuses anything but a plain decimal', () => {
    for (const bad of ['', '1e3', '12,50', ' 12.50', '12.', '.5', 'NaN', '0x10']) {
      assert.throws(() => formatAmount(bad, 'UAH', 'en'), RangeError, JSON.stringify(bad));
    }
  });

  test('goes into the Pay button text in the language`s own word order', () => {
    const pay = (t: {payAmount: string}, locale: string, currency: string) =>
      fill(t.payAmount, {amount: formatAmount('12.50', currency, locale)}, locale);
    assert.equal(pay(en, 'en', 'UAH'), `Pay UAH${NBSP}12.50`);
    assert.equal(pay(de, 'de', 'EUR'), `12,50${NBSP}€ bezahlen`);
    assert.equal(pay(pl, 'pl', 'PLN'), `Zapłać 12,50${NBSP}zł`);
  });
});

describe('localeDirection', () => {
  test('right to left for Arabic and Hebrew scripts, left to right otherwise', () => {
    assert.equal(localeDirection('ar'), 'rtl');
    assert.equal(localeDirection('ar-EG'), 'rtl');
    assert.equal(localeDirection('he-IL'), 'rtl');
    assert.equal(localeDirection('fa'), 'rtl');
    assert.equal(localeDirection('az-Arab'), 'rtl');
    for (const lang of ['en', 'uk', 'pl', 'tr', 'az', 'xx', '', 'not a tag!']) {
      assert.equal(localeDirection(lang), 'ltr', lang);
    }
  });
});
