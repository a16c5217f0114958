// Property-based tests (fast-check) of the pure card helpers in src/validation/card.ts:
// formatting round-trips, caret mapping, Luhn-valid numbers of every brand length, CVV
// characters and lengths, and the expiry rule, each checked over many generated inputs.
// (That the form, the protocol and the gateway model agree is test/node/rules/.)
import {expect} from '@open-wc/testing';
import fc from 'fast-check';
import {
  caretAfterDigits,
  digitsOnly,
  formatExpiry,
  formatNumber,
  normaliseNumber,
  parseExpiry,
  validateCvv,
  validateExpiry,
  validateNumber,
} from '../../src/validation/card.js';

/** Runs a property; fast-check's report (seed, counterexample) becomes the failure. */
const check = <Ts extends unknown[]>(property: fc.IProperty<Ts>, numRuns = 300) =>
  fc.assert(property, {numRuns});

const digits = (min: number, max: number) =>
  fc.string({unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max});

/** Appends the Luhn check digit to `payload`. */
function withLuhnDigit(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return payload + String((10 - (sum % 10)) % 10);
}

/** A prefix that only one brand claims, per brand (the matrix plus Mir). */
const BRAND_PREFIXES: Array<[string, string]> = [
  ['visa', '4242'],
  ['mastercard', '5555'],
  ['mastercard', '2223'],
  ['american-express', '37'],
  ['discover', '6011'],
  ['jcb', '3530'],
  ['diners-club', '36'],
  ['unionpay', '6200'],
  ['maestro', '6759'],
  ['mir', '2200'],
];

describe('card helpers, property-based', () => {
  it('formatting a number and stripping it gives back the digits, whatever the brand', () => {
    check(
      fc.property(digits(0, 19), (d) => {
        const brand = validateNumber(d).brand;
        const formatted = formatNumber(d, brand);
        expect(digitsOnly(formatted)).to.equal(d);
        expect(formatted).to.not.match(/^ | $| {2}/);
      }),
    );
  });

  it('normalising any mix of digits, spaces and dashes keeps the digits, cut to the brand maximum', () => {
    const noisy = fc.array(fc.oneof(fc.constantFrom(' ', '-', '  '), digits(1, 4)), {
      maxLength: 12,
    });
    check(
      fc.property(noisy, (pieces) => {
        const raw = pieces.join('');
        const {digits: kept, brand} = normaliseNumber(raw);
        expect(digitsOnly(raw).startsWith(kept)).to.equal(true);
        expect(kept.length).to.be.at.most(brand ? Math.max(...brand.lengths) : 19);
        expect(normaliseNumber(formatNumber(kept, brand)).digits).to.equal(kept);
      }),
    );
  });

  it('maps a digit count to a caret inside the text with exactly that many digits before it', () => {
    check(
      fc.property(digits(0, 19), fc.integer({min: -2, max: 22}), (d, count) => {
        const formatted = formatNumber(d, validateNumber(d).brand);
        const caret = caretAfterDigits(formatted, count);
        expect(caret).to.be.within(0, formatted.length);
        const expected = Math.max(0, Math.min(count, d.length));
        expect(digitsOnly(formatted.slice(0, caret)).length).to.equal(expected);
        // Inside the number the caret sits right after a digit, never after a space.
        if (expected > 0 && expected < d.length) expect(formatted[caret - 1]).to.match(/\d/);
      }),
    );
  });

  it('maps expiry carets the same way', () => {
    check(
      fc.property(digits(0, 4), fc.boolean(), fc.integer({min: 0, max: 5}), (d, trailing, n) => {
        const formatted = formatExpiry(d, trailing);
        const caret = caretAfterDigits(formatted, n);
        expect(caret).to.be.within(0, formatted.length);
        expect(digitsOnly(formatted.slice(0, caret)).length).to.equal(
          Math.min(n, digitsOnly(formatted).length),
        );
      }),
    );
  });

  for (const [brand, prefix] of BRAND_PREFIXES) {
    it(`accepts Luhn-valid ${brand} numbers (${prefix}…) of every length the brand allows, and no other`, () => {
      const lengths = validateNumber(prefix).brand!.lengths;
      check(
        fc.property(
          fc.constantFrom(...lengths),
          digits(19, 19),
          fc.integer({min: 1, max: 9}),
          (length, filler, offset) => {
            const payload = (prefix + filler).slice(0, length - 1);
            const number = withLuhnDigit(payload);
            const result = validateNumber(number);
            expect(result.brand?.type, number).to.equal(brand);
            expect(result.isValid, number).to.equal(true);
            // Any other check digit breaks Luhn, for every brand: the gateway holds UnionPay
            // to Luhn too.
            const wrong = payload + String((Number(number.at(-1)) + offset) % 10);
            expect(validateNumber(wrong).isValid, wrong).to.equal(false);
          },
        ),
        100,
      );
    });
  }

  it('rejects a CVV with any letter in it, for every brand', () => {
    const brands = [null, validateNumber('4242').brand, validateNumber('37').brand];
    check(
      fc.property(
        digits(0, 3),
        fc.constantFrom(...'abcxyzABCXYZєїі'),
        digits(0, 3),
        fc.constantFrom(...brands),
        (head, letter, tail, brand) => {
          const result = validateCvv(head + letter + tail, brand);
          expect(result.isValid).to.equal(false);
          expect(result.isPotentiallyValid).to.equal(false);
        },
      ),
    );
  });

  it('accepts a CVV of its brand’s length (3 or 4 with no brand yet), and no other', () => {
    const brands = [null, validateNumber('4242').brand!, validateNumber('37').brand!];
    check(
      fc.property(fc.constantFrom(...brands), digits(1, 6), (brand, code) => {
        const lengths = brand ? [brand.codeSize] : [3, 4];
        expect(validateCvv(code, brand).isValid).to.equal(lengths.includes(code.length));
      }),
    );
  });

  it('accepts an expiry not over on this clock nor in UTC−12, at most 19 years ahead, and names what is wrong', () => {
    // card-validator reads the browser's own clock; the gateway's rule, `now`.
    const now = new Date();
    const year = now.getFullYear();
    check(
      fc.property(fc.integer({min: 1, max: 12}), fc.integer({min: 0, max: 99}), (m, yy) => {
        const text = `${String(m).padStart(2, '0')} / ${String(yy).padStart(2, '0')}`;
        const result = validateExpiry(text, now);
        const full = 2000 + yy;
        const earliest = new Date(now.getTime() - 12 * 3600_000);
        const past =
          full < year ||
          (full === year && m < now.getMonth() + 1) ||
          full < earliest.getUTCFullYear() ||
          (full === earliest.getUTCFullYear() && m < earliest.getUTCMonth() + 1);
        const far = full > year + 19;
        expect(result.isValid, text).to.equal(!past && !far);
        // A two-digit 20 may still become 20xx: not over part-way.
        if (past && yy !== 20) expect(result.problem, text).to.equal('past');
        if (far) expect(result.problem, text).to.equal('far');
        if (result.isValid) {
          expect(result.month).to.equal(m);
          expect(result.year).to.equal(full);
        }
      }),
    );
  });

  it('formats any expiry text as MM / YY or what is still open, idempotently', () => {
    const typed = fc.string({unit: fc.constantFrom(...'0123456789/ -.'), maxLength: 8});
    // Month-shaped text: one or two digits, separators, then maybe a year ("40.", "13/2").
    const monthFirst = fc
      .tuple(
        fc.stringMatching(/^\d{1,2}$/),
        fc.string({unit: fc.constantFrom(...'/ -.'), minLength: 1, maxLength: 3}),
        fc.stringMatching(/^\d{0,4}$/),
      )
      .map((parts) => parts.join(''));
    const anything = fc.oneof(
      typed,
      monthFirst,
      fc.string({maxLength: 12}),
      fc.string({unit: 'grapheme', maxLength: 8}),
    );
    check(
      fc.property(anything, fc.boolean(), (raw, trailing) => {
        const once = formatExpiry(raw, trailing);
        // `MM / YY` (a year of this century on its way: `MM / 203`), or what is still open:
        // a month digit or two (`1`, `12`; `0 / ` before its second), a year first (`2034`,
        // `2034-1`). Other text is
        // shown as pasted, less what no expiry has (letters), and refused.
        if (parseExpiry(raw).kind !== 'bad')
          expect(once, JSON.stringify(raw)).to.match(
            /^(\d{0,2}|20\d{0,2}|20\d\d-\d?|(\d\d|0) \/ \d{0,4})$/,
          );
        // Every output is a fixed point, impossible months ("40.", "13/") included: they
        // keep their separator, so re-reading them does not split them ("04 / 0").
        expect(formatExpiry(once, trailing), JSON.stringify(raw)).to.equal(once);
        // What the field shows is judged as what was typed, when that was an expiry.
        if (parseExpiry(raw).kind !== 'bad') {
          const typed = validateExpiry(raw);
          const shown = validateExpiry(once);
          expect(shown.isValid, JSON.stringify(raw)).to.equal(typed.isValid);
          if (typed.isValid)
            expect([shown.month, shown.year]).to.deep.equal([typed.month, typed.year]);
        }
      }),
    );
  });
});
