/**
 * Pure card-field helpers for `<pg-card-form>` (also `pg-checkout/validation`): brand
 * detection, validation and as-you-type formatting of the card number, the `MM / YY` expiry
 * (expiry.ts) and the security code. The answers are card-validator's, run at run time
 * (its `cardNumber`, `expirationDate` and `cvv`): a number is valid only at a length its
 * brand has, a code only at its brand's length (4 for American Express), and while the
 * customer types, what could still become valid is not called wrong. The gateway's rules
 * (src/rules/card.ts: digits only, 12 to 19 of them, Luhn for every brand, a month not over
 * in UTC−12) sit on top: the stricter of the two wins. The differences from card-validator
 * are few and written down (docs/elements/card-form.md, "What it accepts"), and
 * test/node/validation/oracle.property.test.ts fails on any other:
 *
 * - UnionPay numbers that fail Luhn: card-validator skips Luhn for UnionPay, the gateway
 *   does not (the form passes card-validator its own `luhnValidateUnionPay` option).
 * - A number no brand of card-validator's table claims (Prostir `9804…`, a new range):
 *   card-validator calls it invalid from the first digit; the form takes it by the
 *   gateway's rule alone, so a domestic scheme's card is never refused.
 * - A code while the brand is not known yet: 3 or 4 digits, as the gateway takes.
 * - Expiry spellings card-validator does not read itself (expiry.ts).
 *
 * No DOM, no state.
 */
import {cardNumber} from 'card-validator/dist/card-number.js';
import {cvv as cvvVerdict} from 'card-validator/dist/cvv.js';
import {brandOf, toCardBrand} from './brand.js';
import {CARD_NUMBER_MAX_LENGTH, cardNumberProblem, cvvProblem} from '../rules/card.js';

export {
  EXPIRY_SEPARATOR,
  formatExpiry,
  parseExpiry,
  validateExpiry,
  type ExpiryProblem,
  type ExpiryValidity,
} from './expiry.js';

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

/** A field's verdict: valid as typed, or not yet but it could become valid with more typing. */
export interface Validity {
  /** Complete and correct. */
  isValid: boolean;
  /** Could still become valid by typing more. */
  isPotentiallyValid: boolean;
}

export interface NumberValidity extends Validity {
  brand: CardBrand | null;
  /**
   * Why the number is not valid: `length`, not a length its brand has (`brand` says which
   * lengths it has); `gateway`, a number card-validator takes that the gateway refuses (a
   * UnionPay number failing Luhn); `number`, anything else (Luhn, no digits, too short or
   * long).
   */
  problem?: 'length' | 'gateway' | 'number';
}

const DEFAULT_GAPS = [4, 8, 12] as const;
/** Longest card number of any brand. */
export const MAX_NUMBER_LENGTH = CARD_NUMBER_MAX_LENGTH;

/** Keeps the ASCII digits of `value`. */
export function digitsOnly(value: string): string {
  return value.replace(/\D+/g, '');
}

/**
 * Validates a card number (digits only) and detects its brand: card-validator's
 * `cardNumber` with Luhn for UnionPay too, and the gateway's number rule. A number no
 * brand claims is judged by the gateway's rule alone: valid at 12 to 19 digits passing
 * Luhn, potentially valid while shorter.
 */
export function validateNumber(digits: string): NumberValidity {
  const verdict = cardNumber(digits, {luhnValidateUnionPay: true});
  const brand = toCardBrand(verdict.card);
  const isValid = cardNumberProblem(digits) === undefined && (!brand || verdict.isValid);
  if (isValid) return {isValid, isPotentiallyValid: true, brand};
  return {
    isValid,
    isPotentiallyValid: brand
      ? verdict.isPotentiallyValid
      : /^\d*$/.test(digits) && digits.length < MAX_NUMBER_LENGTH,
    brand,
    problem: !brand
      ? 'number'
      : !brand.lengths.includes(digits.length)
        ? 'length'
        : cardNumber(digits).isValid
          ? 'gateway'
          : 'number',
  };
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
  const brand = toCardBrand(brandOf(digits));
  digits = digits.slice(0, maxNumberLength(brand));
  return {digits, brand};
}

/** The code lengths a card of `brand` may have: its own, or 3 and 4 while it is unknown. */
function cvvLengths(brand: CardBrand | null): number[] {
  return brand ? [brand.codeSize] : [3, 4];
}

/**
 * Validates a security code: card-validator's `cvv` at the brand's length (3, or 4 for
 * American Express; 3 or 4 while the brand is not known), and the gateway's rule.
 */
export function validateCvv(value: string, brand: CardBrand | null): Validity {
  const verdict = cvvVerdict(value, cvvLengths(brand));
  return {
    isValid: verdict.isValid && cvvProblem(value) === undefined,
    isPotentiallyValid: verdict.isPotentiallyValid,
  };
}

/** Digits a code of `brand` can have (4 while the brand is unknown). */
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
