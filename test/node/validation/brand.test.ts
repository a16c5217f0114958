/**
 * `brandOf` (src/validation/brand.ts) reads credit-card-type's brand table without the
 * package entries, to keep the CDN bundle small. It must answer exactly as the entry it
 * replaced, card-validator's `cardNumber(digits).card`: every prefix of up to five digits,
 * every prefix of known card numbers, and random numbers of every length. `brandOfName`
 * takes a brand the server names only when it is one of that table's.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import * as fc from 'fast-check';
import {cardNumber} from 'card-validator/dist/card-number.js';
import {SavedCardViewSchema} from '../../../src/protocol/schemas.js';
import {brandOf, brandOfName} from '../../../src/validation/brand.js';
import {validateNumber} from '../../../src/validation/card.js';

/** What card-validator says, reduced to the brand's type (or null). */
const expected = (digits: string) => cardNumber(digits).card?.type ?? null;
const actual = (digits: string) => brandOf(digits)?.type ?? null;

describe('brandOf', () => {
  it('agrees with card-validator on every number of up to five digits', () => {
    let compared = 0;
    for (let length = 1; length <= 5; length++) {
      for (let n = 0; n < 10 ** length; n++) {
        const digits = String(n).padStart(length, '0');
        assert.equal(actual(digits), expected(digits), digits);
        compared++;
      }
    }
    assert.equal(compared, 111_110);
  });

  it('agrees on every prefix of test numbers of each brand, and names them', () => {
    const cards: Record<string, string> = {
      '4242424242424242': 'visa',
      '5555555555554444': 'mastercard',
      '2223003122003222': 'mastercard',
      '378282246310005': 'american-express',
      '36227206271667': 'diners-club',
      '6011111111111117': 'discover',
      '3566002020360505': 'jcb',
      '6200000000000005': 'unionpay',
      '6759649826438453': 'maestro',
      '6362970000457013': 'elo',
      '6062821086773091': 'hipercard',
      '2200000000000004': 'mir',
      '9792000000000001': 'troy',
    };
    for (const [number, type] of Object.entries(cards)) {
      for (let i = 1; i <= number.length; i++) {
        const prefix = number.slice(0, i);
        assert.equal(actual(prefix), expected(prefix), prefix);
      }
      assert.equal(actual(number), type, number);
      // The whole brand, as card-validator gives it: gaps, lengths and code.
      assert.deepEqual(brandOf(number), cardNumber(number).card, number);
    }
  });

  it('agrees on random numbers of 1 to 19 digits', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,19}$/), (digits) => {
        assert.equal(actual(digits), expected(digits));
      }),
      {numRuns: 20_000},
    );
  });

  it('knows no brand for nothing, or for what is not digits', () => {
    for (const text of ['', ' ', '4242 4242', '4x', '-4', '٤٢٤٢']) {
      assert.equal(brandOf(text), null, JSON.stringify(text));
    }
  });
});

describe('brandOfName: a brand the server names (a saved card)', () => {
  it('knows every brand the number rules can tell, by its card-validator type', () => {
    for (const digits of ['4242424242424242', '5555555555554444', '378282246310005']) {
      const told = validateNumber(digits).brand!;
      assert.deepEqual(brandOfName(told.type), told);
    }
    assert.equal(brandOfName(' Visa ')?.type, 'visa');
  });

  it('answers null for a name it does not know, whatever the text', () => {
    for (const name of ['', 'space-card', '__proto__', 'constructor', 'toString', '<b>visa</b>']) {
      assert.equal(brandOfName(name), null, name);
    }
    fc.assert(
      fc.property(fc.string(), (name) => {
        const brand = brandOfName(name);
        assert.ok(brand === null || brand.type === name.trim().toLowerCase());
      }),
    );
  });
});

describe('the saved-card entry of the order answer', () => {
  const entry = {
    id: 'sc_0123456789abcdef01234567',
    mask: '424242******4242',
    expMonth: 12,
    expYear: 2030,
    expired: false,
  };
  it('takes an optional brand, a short non-empty name', () => {
    assert.equal(SavedCardViewSchema.safeParse(entry).success, true);
    assert.equal(SavedCardViewSchema.safeParse({...entry, brand: 'visa'}).success, true);
    assert.equal(SavedCardViewSchema.safeParse({...entry, brand: ''}).success, false);
    assert.equal(SavedCardViewSchema.safeParse({...entry, brand: 'x'.repeat(33)}).success, false);
    assert.equal(SavedCardViewSchema.safeParse({...entry, token: 't'}).success, false);
  });
});
