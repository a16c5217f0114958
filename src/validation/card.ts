/**
 * Pure card-field helpers for `<pg-card-form>`: brand detection, validation and
 * as-you-type formatting of the card number, the `MM / YY` expiry and the CVV. Number and
 * CVV validation is card-validator's (Luhn, lengths per brand); each of its modules is
 * imported on its own so bundles carry only what is used. The expiry window (not past,
 * at most 20 years ahead) is checked here: card-validator's `expirationDate` cannot say
 * which end was missed, and its date parser is dead weight once `parseExpiry` has run.
 * No DOM, no state.
 */
import {cardNumber} from 'card-validator/dist/card-number.js';
import {cvv as cvvValidator} from 'card-validator/dist/cvv.js';

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

/** Why an expiry is not valid: no real month, a past month, or too many years ahead. */
export type ExpiryProblem = 'month' | 'past' | 'too-far';

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
export const MAX_NUMBER_LENGTH = 19;
/** How many years ahead an expiry may lie. */
export const MAX_EXPIRY_YEARS_AHEAD = 20;

/** Keeps the ASCII digits of `value`. */
export function digitsOnly(value: string): string {
  return value.replace(/\D+/g, '');
}

/** Validates a card number (digits only) and detects its brand. */
export function validateNumber(digits: string): NumberValidity {
  const result = cardNumber(digits);
  const card = result.card;
  const brand: CardBrand | null = card
    ? {
        type: card.type,
        niceType: card.niceType,
        gaps: card.gaps,
        lengths: card.lengths,
        codeName: card.code.name,
        codeSize: card.code.size,
      }
    : null;
  return {isValid: result.isValid, isPotentiallyValid: result.isPotentiallyValid, brand};
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
 * `4` → `04`, `1/29` → `01`+`29`, `13` → `01`+`3`, `12/2029` → `12`+`29`.
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
    } else if (digits[0] === '1' && digits.length > 1 && digits[1]! > '2') {
      month = '01';
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
 * Validates `MM / YY` text: a real month, not before the current month (the card is valid
 * through the end of its month), at most 20 years ahead. `now` is for tests.
 */
export function validateExpiry(text: string, now: Date = new Date()): ExpiryValidity {
  const {month, year} = parseExpiry(text);
  const m = Number(month);
  if (month.length === 2 && (m < 1 || m > 12)) {
    return {isValid: false, isPotentiallyValid: false, problem: 'month'};
  }
  if (month.length < 2 || year === '') return {isValid: false, isPotentiallyValid: true};
  const thisYear = now.getFullYear();
  const lastYear = thisYear + MAX_EXPIRY_YEARS_AHEAD;
  if (year.length === 1) {
    // Could a second digit still land the year inside the window?
    const first = 2000 + Number(year) * 10;
    if (first + 9 < thisYear) return {isValid: false, isPotentiallyValid: false, problem: 'past'};
    if (first > lastYear) return {isValid: false, isPotentiallyValid: false, problem: 'too-far'};
    return {isValid: false, isPotentiallyValid: true};
  }
  const fullYear = 2000 + Number(year);
  if (fullYear < thisYear || (fullYear === thisYear && m < now.getMonth() + 1)) {
    return {isValid: false, isPotentiallyValid: false, problem: 'past'};
  }
  if (fullYear > lastYear) return {isValid: false, isPotentiallyValid: false, problem: 'too-far'};
  return {isValid: true, isPotentiallyValid: true, month: m, year: fullYear};
}

/** Validates a CVV: digits only, the brand's length (3, or 4 for Amex; 3–4 when unknown). */
export function validateCvv(value: string, brand: CardBrand | null): Validity {
  if (/\D/.test(value)) return {isValid: false, isPotentiallyValid: false};
  const result = cvvValidator(value, brand ? brand.codeSize : [3, 4]);
  return {isValid: result.isValid, isPotentiallyValid: result.isPotentiallyValid};
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
