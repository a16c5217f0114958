/**
 * Pure card-field helpers for `<pg-card-form>`: brand detection, validation and
 * as-you-type formatting of the card number, the `MM / YY` expiry and the CVV. What is
 * valid is decided by the project's field rules (`src/rules/card.ts`), the same ones the
 * checkout protocol and the gateway model apply: 12 to 19 digits passing Luhn, a real
 * month of a year from 2000 to 2099 that is not over, a code of 3 or 4 digits. The brand
 * (card-validator's `card-number` module, imported on its own so bundles carry only what
 * is used) shapes the input only: grouping, how many digits may be typed, the name and
 * length of the code, and when a number can no longer become valid. No DOM, no state.
 */
import {brandOf, toCardBrand} from './brand.js';
import {
  CARD_NUMBER_MAX_LENGTH,
  cardNumberProblem,
  cvvProblem,
  earliestMonth,
  expiryProblem,
  isExpMonth,
} from '../rules/card.js';

/** What the form needs to know about a card brand. */
export interface CardBrand {
  /** card-validator's type: `visa`, `mastercard`, `american-express`, `diners-club`, … */
  type: string;
  /** Display name: `Visa`, `American Express`, … */
  niceType: string;
  /** Positions after which the number is grouped, e.g. `[4, 10]` for Amex (4-6-5). */
  gaps: readonly number[];
  /** Valid lengths of the number. */
  lengths: readonly number[];
  /** Name of the security code on this brand (`CVV`, `CID`, `CVC`, …). */
  codeName: string;
  /** Digits in the security code: 3, or 4 for Amex. */
  codeSize: number;
}

export interface Validity {
  /** Complete and correct. */
  isValid: boolean;
  /** Could still become valid by typing more. */
  isPotentiallyValid: boolean;
}

export interface NumberValidity extends Validity {
  brand: CardBrand | null;
}

/** Why an expiry is not valid: no real month, or a month that is over everywhere. */
export type ExpiryProblem = 'month' | 'past';

export interface ExpiryValidity extends Validity {
  /** 1–12, when the expiry is valid. */
  month?: number;
  /** Four-digit year, when the expiry is valid. */
  year?: number;
  /** Set when the expiry can no longer become valid. */
  problem?: ExpiryProblem;
}

const DEFAULT_GAPS = [4, 8, 12] as const;
/** Longest card number of any brand. */
export const MAX_NUMBER_LENGTH = CARD_NUMBER_MAX_LENGTH;

/** Keeps the ASCII digits of `value`. */
export function digitsOnly(value: string): string {
  return value.replace(/\D+/g, '');
}

/**
 * Validates a card number (digits only) and detects its brand. Valid: the card number
 * rule (12 to 19 digits, Luhn), whatever the brand, so a card card-validator does not
 * know (a domestic scheme, a new range) is not refused. Potentially valid: digits that
 * more typing could still make valid, up to the brand's longest number.
 */
export function validateNumber(digits: string): NumberValidity {
  const brand = toCardBrand(brandOf(digits));
  const isValid = cardNumberProblem(digits) === undefined;
  const isPotentiallyValid =
    isValid || (/^\d*$/.test(digits) && digits.length < maxNumberLength(brand));
  return {isValid, isPotentiallyValid, brand};
}

/** The most digits a number of `brand` can have (19 while the brand is unknown). */
export function maxNumberLength(brand: CardBrand | null): number {
  return brand ? Math.max(...brand.lengths) : MAX_NUMBER_LENGTH;
}

/**
 * Groups digits for display: `4242 4242 4242 4242`, Amex `3782 822463 10005`; numbers
 * longer than 16 digits on a 4-4-4-4 brand get a fifth group (`… 0000 019`).
 */
export function formatNumber(digits: string, brand: CardBrand | null): string {
  let gaps: readonly number[] = brand?.gaps ?? DEFAULT_GAPS;
  if (digits.length > 16 && gaps.length === 3 && gaps[2] === 12) gaps = [...gaps, 16];
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && gaps.includes(i)) out += ' ';
    out += digits[i];
  }
  return out;
}

/** Keeps the digits of a typed or pasted number, cut to the brand's maximum length. */
export function normaliseNumber(raw: string): {digits: string; brand: CardBrand | null} {
  let digits = digitsOnly(raw).slice(0, MAX_NUMBER_LENGTH);
  const brand = validateNumber(digits).brand;
  digits = digits.slice(0, maxNumberLength(brand));
  return {digits, brand};
}

/** The separator shown between month and year. */
export const EXPIRY_SEPARATOR = ' / ';

/**
 * Splits typed or pasted expiry text into month and two-digit year digits.
 * `4` → `04`, `1/29` → `01`+`29`, `12/2029` → `12`+`29`. A leading `1` is never split from
 * the digit after it: `13` stays month `13` (and `1330` is `13`+`30`), an impossible month
 * the form refuses with a message, never another date (`01 / 33`).
 */
export function parseExpiry(raw: string): {month: string; year: string} {
  const text = raw.trim();
  const separated = /^(\d{1,2})\s*[/.\-\s]+\s*(\d*)/.exec(text);
  let month: string;
  let rest: string;
  if (separated) {
    month = separated[1]!.length === 1 ? `0${separated[1]}` : separated[1]!;
    rest = separated[2]!;
  } else {
    const digits = digitsOnly(text);
    if (digits === '') return {month: '', year: ''};
    if (digits[0]! >= '2') {
      month = `0${digits[0]}`;
      rest = digits.slice(1);
    } else {
      month = digits.slice(0, 2);
      rest = digits.slice(2);
    }
  }
  let year = digitsOnly(rest);
  if (year.length > 2 && year.startsWith('20')) year = year.slice(2);
  return {month, year: year.slice(0, 2)};
}

/**
 * Formats expiry text as `MM / YY`. With `trailing` (while inserting), a complete month
 * is followed by the separator so the customer can type straight on. An impossible month
 * typed with its separator (`40/`, `13.`) keeps the separator even without `trailing`:
 * read again without it, `40` would mean `04 / 0`. So formatting is idempotent:
 * `formatExpiry(formatExpiry(x, t), t) === formatExpiry(x, t)` for every text.
 */
export function formatExpiry(raw: string, trailing = true): string {
  const {month, year} = parseExpiry(raw);
  if (month.length < 2) return month;
  if (year === '')
    return trailing || !/^(0\d|1[0-2])$/.test(month) ? month + EXPIRY_SEPARATOR : month;
  return month + EXPIRY_SEPARATOR + year;
}

/**
 * Validates `MM / YY` text with the expiry rule: a real month, not over (the card is
 * valid through the end of its month, and while that month lasts in the earliest time
 * zone, UTC−12). A two-digit year is 2000–2099, the years the rule takes. `now` is for
 * tests.
 */
export function validateExpiry(text: string, now: Date = new Date()): ExpiryValidity {
  const {month, year} = parseExpiry(text);
  const m = Number(month);
  if (month.length === 2 && !isExpMonth(m)) {
    return {isValid: false, isPotentiallyValid: false, problem: 'month'};
  }
  if (month.length < 2 || year === '') return {isValid: false, isPotentiallyValid: true};
  if (year.length === 1) {
    // Could a second digit still make the year one that is not over?
    if (2000 + Number(year) * 10 + 9 < earliestMonth(now).year) {
      return {isValid: false, isPotentiallyValid: false, problem: 'past'};
    }
    return {isValid: false, isPotentiallyValid: true};
  }
  const fullYear = 2000 + Number(year);
  const problem = expiryProblem(m, fullYear, now);
  if (problem) {
    // The month is real and a two-digit year is always in 2000–2099: only 'past' is left.
    return {
      isValid: false,
      isPotentiallyValid: false,
      problem: problem === 'month' ? 'month' : 'past',
    };
  }
  return {isValid: true, isPotentiallyValid: true, month: m, year: fullYear};
}

/**
 * Validates a CVV with the security code rule: 3 or 4 digits, whatever the brand (the
 * gateway takes either). Potentially valid while it is digits shorter than the brand's
 * code (3, or 4 for Amex; 4 when the brand is unknown).
 */
export function validateCvv(value: string, brand: CardBrand | null): Validity {
  const isValid = cvvProblem(value) === undefined;
  const isPotentiallyValid = isValid || (/^\d*$/.test(value) && value.length < cvvLength(brand));
  return {isValid, isPotentiallyValid};
}

/** Digits a CVV of `brand` can have. */
export function cvvLength(brand: CardBrand | null): number {
  return brand ? brand.codeSize : 4;
}

/**
 * Where the caret belongs in `formatted` so that `digitCount` digits precede it. At the
 * end of the digits it goes to the very end (past a trailing separator).
 */
export function caretAfterDigits(formatted: string, digitCount: number): number {
  if (digitCount <= 0) return 0;
  let seen = 0;
  for (let i = 0; i < formatted.length; i++) {
    const c = formatted.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      seen++;
      if (seen === digitCount) {
        return seen === digitsOnly(formatted).length ? formatted.length : i + 1;
      }
    }
  }
  return formatted.length;
}
