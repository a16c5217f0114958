/**
 * The oracle: card-validator's published behaviour, run from its package (card-validator
 * 10, as installed), against the form's answers (src/validation/: what `<pg-card-form>`
 * decides) over generated inputs: numbers of every brand in its table at every length
 * from 12 to 19, whole and partial, Luhn-valid and not, and numbers of no brand; expiry
 * dates in every spelling the form takes, key by key (each prefix) and whole, around the
 * clock's months and years; codes of every brand and of none. For each input the form's
 * `isValid` and `isPotentiallyValid` (and the number's brand) must equal card-validator's,
 * or the difference must be one of the short list below, each a rule of the gateway's or a
 * spelling card-validator does not read (docs/elements/card-form.md, "What it accepts"). Any other difference
 * fails, naming the input.
 *
 * The figures (vectors run, agreed, each documented exception) are printed as diagnostics.
 */
import {after, describe, test, type TestContext} from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {cardNumber} from 'card-validator/dist/card-number.js';
import {expirationDate} from 'card-validator/dist/expiration-date.js';
import {cvv} from 'card-validator/dist/cvv.js';
import creditCardType from 'credit-card-type/dist/index.js';
import {luhnValid, normaliseCardNumber} from '../../../src/rules/card.js';
import {
  formatExpiry,
  validateCvv,
  validateExpiry,
  validateNumber,
  type CardBrand,
} from '../../../src/validation/card.js';
import {brandOfName} from '../../../src/validation/brand.js';

// card-validator reads the month and year on the local clock: pin its zone, so that the
// clocks generated below mean the same month to it and to the gateway's rule.
process.env.TZ = 'UTC';

type Verdict = {isValid: boolean; isPotentiallyValid: boolean; brand?: string | null};

/** The documented differences, by name: when each applies, given the input. */
const EXCEPTIONS = {
  /** The gateway checks Luhn on every brand; card-validator skips it on UnionPay. */
  unionpayLuhn: 'UnionPay number failing Luhn: refused by the gateway',
  /** No brand of card-validator's table: the gateway's rule alone (12–19 digits, Luhn). */
  noBrand: 'number of no brand card-validator knows: taken by the gateway rule',
  /** While the brand is unknown the code may be 3 or 4 digits, as the gateway takes. */
  codeWithoutBrand: 'code with no brand yet: 3 or 4 digits',
  /** `-` and `.` between month and year, which card-validator does not read. */
  separator: 'expiry with - or . between month and year: read as /',
  /** `2034`, `2034-`, `2028-1`: a year on its way to `YYYY-MM`, not called wrong part-way. */
  isoOnItsWay: 'expiry YYYY on its way to YYYY-MM',
} as const;
type Exception = keyof typeof EXCEPTIONS;

/** Vectors run and agreed, and the disagreements each exception covered. */
const figures = {run: 0, agreed: 0, exceptions: {} as Partial<Record<Exception, number>>};

after(() => {
  const lines = [
    `card-validator oracle: ${figures.run} vectors run, ${figures.agreed} agreed`,
    ...Object.entries(figures.exceptions).map(
      ([name, n]) => `  ${n} by documented exception: ${EXCEPTIONS[name as Exception]}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});

/**
 * Compares the form's verdict with card-validator's on `input`. Equal: agreed. Else the
 * documented exception `excuse` names must apply and explain the difference; a difference
 * nothing excuses fails, naming the input and both verdicts.
 */
function judge(
  what: string,
  input: string,
  form: Verdict,
  oracle: Verdict,
  excuse: (form: Verdict, oracle: Verdict) => Exception | undefined,
): void {
  figures.run++;
  const same =
    form.isValid === oracle.isValid &&
    form.isPotentiallyValid === oracle.isPotentiallyValid &&
    (form.brand === undefined || form.brand === oracle.brand);
  if (same) {
    figures.agreed++;
    return;
  }
  const exception = excuse(form, oracle);
  assert.ok(
    exception,
    `${what} ${JSON.stringify(input)}: the form says ${JSON.stringify(form)}, card-validator ${JSON.stringify(oracle)}`,
  );
  figures.exceptions[exception] = (figures.exceptions[exception] ?? 0) + 1;
}

// ---- numbers ------------------------------------------------------------------------------

const BRANDS = Object.values(creditCardType.types) as string[];

/** A prefix a pattern of `type` stands for: one of its numbers, or one inside its range. */
const brandPrefix = (type: string) =>
  fc
    .constantFrom(...creditCardType.getTypeInfo(type).patterns)
    .chain((pattern) =>
      Array.isArray(pattern)
        ? fc.integer({min: pattern[0]!, max: pattern[1]!}).map(String)
        : fc.constant(String(pattern)),
    );

const digits = (length: number) =>
  fc.string({unit: fc.constantFrom(...'0123456789'), minLength: length, maxLength: length});

/** Completes `payload` to pass Luhn. */
function withCheckDigit(payload: string): string {
  for (let d = 0; d < 10; d++) if (luhnValid(payload + d)) return payload + d;
  throw new Error('unreachable');
}

/** A number of `type` of `length` digits (12–19), Luhn-valid or not. */
const brandNumber = (type: string, length: number) =>
  fc.tuple(brandPrefix(type), digits(length), fc.boolean()).map(([prefix, rest, luhn]) => {
    const body = (prefix + rest).slice(0, length);
    return luhn ? withCheckDigit(body.slice(0, -1)) : body;
  });

function numberVerdicts(input: string) {
  // The form's number field holds digits and the spaces it groups them with; card-validator
  // drops spaces and dashes too.
  const form = validateNumber(normaliseCardNumber(input));
  const oracle = cardNumber(input);
  judge(
    'number',
    input,
    {...form, brand: form.brand?.type ?? null},
    {...oracle, brand: oracle.card?.type ?? null},
    () => {
      if (oracle.card?.type === 'unionpay' && !luhnValid(input) && oracle.isValid)
        return 'unionpayLuhn';
      // At the longest UnionPay length card-validator also keeps it potentially valid.
      if (oracle.card?.type === 'unionpay' && !luhnValid(input) && oracle.isPotentiallyValid)
        return 'unionpayLuhn';
      // The digits the field keeps (spaces and dashes dropped, as card-validator drops them).
      const kept = normaliseCardNumber(input);
      if (oracle.card === null && form.brand === null && /^\d+$/.test(kept)) return 'noBrand';
      return undefined;
    },
  );
  return form;
}

describe('numbers: the form against card-validator', () => {
  for (const type of BRANDS) {
    test(`${type}: every length from 12 to 19, whole and key by key`, () => {
      fc.assert(
        fc.property(
          fc.integer({min: 12, max: 19}).chain((n) => brandNumber(type, n)),
          (n) => {
            for (let i = 1; i <= n.length; i++) numberVerdicts(n.slice(0, i));
            const whole = validateNumber(n);
            const info = creditCardType.getTypeInfo(type);
            // A brand is told and valid only at a length it has.
            if (whole.isValid && whole.brand) assert.ok(whole.brand.lengths.includes(n.length));
            if (whole.brand?.type === type && !info.lengths.includes(n.length))
              assert.equal(whole.isValid, false, `${n}: ${type} has no ${n.length} digits`);
          },
        ),
        {numRuns: 150},
      );
    });
  }

  test('numbers of no brand, and any digits', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({min: 1, max: 19}).chain(digits),
          fc.integer({min: 11, max: 18}).chain(digits).map(withCheckDigit),
          fc
            .constantFrom('9804', '1', '7', '0', '99')
            .chain((p) =>
              fc
                .integer({min: 11, max: 18})
                .chain((n) => digits(n).map((d) => withCheckDigit(p + d))),
            ),
          fc.string({maxLength: 22}),
        ),
        (n) => void numberVerdicts(n),
      ),
      {numRuns: 3000},
    );
  });

  test('card-validator’s own kinds of vector: partial, whole, UnionPay, too long, not digits', () => {
    for (const n of [
      '',
      '6',
      '60',
      '601',
      '6011',
      '4',
      '41',
      'x',
      '123',
      '4012888888881881',
      '62123456789002',
      '6221558812340000',
      '6011000990139424',
      '411111y',
      '41111111111111111111',
      '4111111111111112',
      '378282246310005',
      '37828224631000',
      '4222222222222',
      '5555555555554',
      '9804000000000009',
    ])
      numberVerdicts(n);
  });

  test('a length the brand does not have is refused, with the brand named', () => {
    const visa13 = validateNumber('4222222222222');
    assert.deepEqual(
      [visa13.isValid, visa13.problem, visa13.brand?.type],
      [false, 'length', 'visa'],
    );
    const mastercard15 = validateNumber('555555555555442');
    assert.deepEqual(
      [mastercard15.isValid, mastercard15.problem, mastercard15.brand?.type],
      [false, 'length', 'mastercard'],
    );
    const unionpay = validateNumber('6221558812340000');
    assert.deepEqual([unionpay.isValid, unionpay.problem], [false, 'gateway']);
  });
});

// ---- expiry -------------------------------------------------------------------------------

/** A spelling: how a month and a four-digit year are typed, and card-validator's reading. */
interface Spelling {
  name: string;
  /** The text typed. */
  write(month: number, year: number): string;
  /**
   * The same text as card-validator reads it, prefix for prefix, when it does not read this
   * one itself (`01-34` → `01/34`); and the exception that covers the difference.
   */
  asRead?: {text(typed: string): string; exception: Exception};
}

const mm = (m: number) => String(m).padStart(2, '0');
const yy = (y: number) => String(y % 100).padStart(2, '0');
const toSlash = (typed: string) => typed.replace(/\s*[-.]\s*/, '/');

const SPELLINGS: Spelling[] = [
  {name: 'MM/YY', write: (m, y) => `${mm(m)}/${yy(y)}`},
  {name: 'MM / YY', write: (m, y) => `${mm(m)} / ${yy(y)}`},
  {name: 'MM/YYYY', write: (m, y) => `${mm(m)}/${y}`},
  {name: 'MM / YYYY', write: (m, y) => `${mm(m)} / ${y}`},
  {name: 'M/YY', write: (m, y) => `${m}/${yy(y)}`},
  {name: 'M/YYYY', write: (m, y) => `${m}/${y}`},
  {name: 'MMYY', write: (m, y) => `${mm(m)}${yy(y)}`},
  {name: 'MMYYYY', write: (m, y) => `${mm(m)}${y}`},
  {name: 'MM YY', write: (m, y) => `${mm(m)} ${yy(y)}`},
  {name: 'MM YYYY', write: (m, y) => `${mm(m)} ${y}`},
  {name: 'M YY', write: (m, y) => `${m} ${yy(y)}`},
  {
    name: 'MM-YY',
    write: (m, y) => `${mm(m)}-${yy(y)}`,
    asRead: {text: toSlash, exception: 'separator'},
  },
  {
    name: 'MM.YYYY',
    write: (m, y) => `${mm(m)}.${y}`,
    asRead: {text: toSlash, exception: 'separator'},
  },
  {
    name: 'M-YY',
    write: (m, y) => `${m}-${yy(y)}`,
    asRead: {text: toSlash, exception: 'separator'},
  },
  {
    name: 'M.YY',
    write: (m, y) => `${m}.${yy(y)}`,
    asRead: {text: toSlash, exception: 'separator'},
  },
  {name: 'YYYY-MM', write: (m, y) => `${y}-${mm(m)}`},
  {name: 'YYYY-M', write: (m, y) => `${y}-${m}`},
];

/** Why the form's verdict on expiry text `typed` may differ from card-validator's. */
function expiryExcuse(typed: string, spelling: Spelling | undefined) {
  return (form: Verdict, oracle: Verdict): Exception | undefined => {
    // A year first, the month not typed yet (or only its `1` of 10–12): the form waits.
    if (/^20\d{0,2}(?:-1?)?$/.test(typed) && !form.isValid && !oracle.isValid) return 'isoOnItsWay';
    const asRead = spelling?.asRead ?? {text: toSlash, exception: 'separator' as const};
    if (spelling?.asRead || /^\s*\d{1,2}\s*[-.]\s*\d*$/.test(typed)) {
      const read = expirationDate(asRead.text(typed));
      if (read.isValid === form.isValid && read.isPotentiallyValid === form.isPotentiallyValid)
        return asRead.exception;
    }
    return undefined;
  };
}

function expiryVerdicts(typed: string, spelling?: Spelling) {
  const form = validateExpiry(typed);
  judge('expiry', typed, form, expirationDate(typed), expiryExcuse(typed, spelling));
  return form;
}

/** Pins `Date` (card-validator reads the clock itself). */
const pinClock = (t: TestContext, at: number) => t.mock.timers.enable({apis: ['Date'], now: at});

describe('expiry dates: the form against card-validator', () => {
  test('every spelling, key by key and whole, around the clock’s months and years', (t) => {
    pinClock(t, Date.UTC(2026, 10, 27, 12));
    fc.assert(
      fc.property(
        // From this year on: card-validator's reading of `12r` (`1 / 2r`) leaves no December
        // typed MMYY stuck only in the years 2020 to 2025, when `2r` could be this year.
        fc.date({min: new Date(Date.UTC(2026, 0, 1)), max: new Date(Date.UTC(2075, 11, 31))}),
        fc.integer({min: 0, max: 13}),
        fc.integer({min: -3, max: 22}),
        fc.constantFrom(...SPELLINGS),
        (at, month, ahead, spelling) => {
          if (Number.isNaN(at.getTime())) return;
          t.mock.timers.setTime(at.getTime());
          const year = at.getUTCFullYear() + ahead;
          const whole = spelling.write(month, year);
          for (let i = 1; i <= whole.length; i++) expiryVerdicts(whole.slice(0, i), spelling);
          // No valid spelling is called wrong part-way: every prefix of a valid date may
          // still become valid (unless a shorter reading is itself whole: `1/2` of `1/2034`).
          if (validateExpiry(whole).isValid) {
            for (let i = 1; i < whole.length; i++) {
              const part = validateExpiry(whole.slice(0, i));
              assert.ok(part.isPotentiallyValid, `${spelling.name} ${whole}: ${whole.slice(0, i)}`);
            }
          }
        },
      ),
      {numRuns: 3000},
    );
  });

  test('any text typed or pasted, as the field shows it', (t) => {
    pinClock(t, Date.UTC(2026, 10, 27, 12));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({unit: fc.constantFrom(...'0123456789 /-.'), maxLength: 10}),
          fc.string({maxLength: 10}),
        ),
        fc.boolean(),
        (text, typing) => void expiryVerdicts(formatExpiry(text, typing)),
      ),
      {numRuns: 3000},
    );
  });

  test('card-validator’s own kinds of vector: slashes, spaces, none, dashes, malformed', (t) => {
    pinClock(t, Date.UTC(2026, 10, 27, 12));
    for (const text of [
      '11 / 2027',
      '002/34',
      '0012 / 2034',
      '10/2027',
      '1 / 2027',
      '01 / 27',
      '2027-10',
      '2027-1',
      '2027-00',
      '2027-13',
      '1999-01',
      '2100-01',
      '11 / 11',
      '00 / 2027',
      '13 / 2027',
      '01 / 1999',
      '10/123',
      '11 / 1',
      '01 / 201',
      '01 / 211',
      '02/20',
      '102027',
      '12027',
      '927',
      '1227',
      '01 2030',
      '1 2031',
      '1 2',
      '1 202',
      '1 ',
      '12 2',
      '12 ',
      '1111',
      '002027',
      '011999',
      '011',
      '111',
      '2202',
      '1202',
      '01201',
      '02 20',
      '',
      '/',
      ' / ',
      'foo',
      '0120197',
      '1.2',
      ' 1',
      '01 / 20015',
      '15 / 2026',
      '01 / 2016 / 2016',
    ])
      expiryVerdicts(text);
  });

  test('the issue’s spellings are valid whole and never expired part-way', (t) => {
    pinClock(t, Date.UTC(2026, 10, 27, 12));
    for (const text of [
      '01/2034',
      '01 / 2034',
      '012034',
      '1/2034',
      '10 / 2034',
      '1 34',
      '2034-10',
    ]) {
      const whole = validateExpiry(text);
      assert.equal(whole.isValid, true, text);
      for (let i = 1; i < text.length; i++) {
        const part = validateExpiry(text.slice(0, i));
        assert.notEqual(
          part.isPotentiallyValid ? undefined : part.problem,
          'past',
          text.slice(0, i),
        );
      }
    }
  });
});

// ---- codes --------------------------------------------------------------------------------

describe('security codes: the form against card-validator', () => {
  const brands: Array<CardBrand | null> = [...BRANDS.map((type) => brandOfName(type)), null];

  test('every brand, and none: codes of 0 to 5 digits and other text', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...brands),
        fc.oneof(fc.integer({min: 0, max: 5}).chain(digits), fc.string({maxLength: 6})),
        (brand, code) => {
          const form = validateCvv(code, brand);
          // card-validator's answer for the brand's code size (its default, 3, for none).
          const oracle = brand ? cvv(code, brand.codeSize) : cvv(code);
          judge('code', `${brand?.type ?? 'no brand'} ${code}`, form, oracle, () =>
            brand === null && /^\d{4}$/.test(code) ? 'codeWithoutBrand' : undefined,
          );
        },
      ),
      {numRuns: 2000},
    );
  });

  test('American Express asks for 4 digits: 3 are not enough', () => {
    const amex = brandOfName('american-express');
    assert.deepEqual(validateCvv('123', amex), {isValid: false, isPotentiallyValid: true});
    assert.deepEqual(validateCvv('1234', amex), {isValid: true, isPotentiallyValid: true});
    assert.deepEqual(validateCvv('1234', brandOfName('visa')), {
      isValid: false,
      isPotentiallyValid: false,
    });
  });
});
