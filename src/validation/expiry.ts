/**
 * The expiry field: what a customer's text means, how the field shows it and whether it
 * is valid. The answers are card-validator's, run at run time: its `expirationDate` decides
 * valid and potentially valid (two- and four-digit years, a month not over on the
 * customer's own clock, a year at most 19 ahead) and its `parseDate` reads a date typed
 * without a separator (`134` is `1 / 34`, `122034` is `12 / 2034`). On top sit the spellings
 * card-validator does not read itself, turned into one it does: `-` and `.` as separators
 * (`01-34`, `1.34`) and ISO `YYYY-MM` while it is being typed (`2034` is on its way to
 * `2034-10`); and the gateway's own rule (src/rules/card.ts: a month that is not over in
 * UTC−12, a four-digit year on the wire). Where the two disagree the stricter wins; what
 * differs from card-validator is listed in docs/guides/card-rules.md and checked by
 * test/node/validation/oracle.property.test.ts.
 *
 * The field shows what it understood as `MM / YY`: `1/34`, `01 2034`, `2034-10` and `1034`
 * all read `10 / 34` or `01 / 34` once whole; while the month is still open (`1` may become
 * `12`; `2` may begin `2034-10`) the digits stay as typed. No DOM, no state.
 */
import {expirationDate} from 'card-validator/dist/expiration-date.js';
import {expirationYear} from 'card-validator/dist/expiration-year.js';
import {parseDate} from 'card-validator/dist/lib/parse-date.js';
import {expiryProblem as gatewayExpiryProblem} from '../rules/card.js';

/**
 * Why an expiry is not valid: no such month (`13 / 30`), a month that is over, a year
 * further ahead than any card's (card-validator's 19 years), or text that is not a date.
 */
export type ExpiryProblem = 'month' | 'past' | 'far' | 'format';

export interface ExpiryValidity {
  /** Complete and correct. */
  isValid: boolean;
  /** Could still become valid by typing more. */
  isPotentiallyValid: boolean;
  /** 1–12, when the expiry is valid. */
  month?: number;
  /** Four-digit year, when the expiry is valid. */
  year?: number;
  /** Why it is not valid (also while it is still potentially valid: what blur would say). */
  problem?: ExpiryProblem;
}

/**
 * What an expiry text says. `open`: only digits so far, and the month is not settled (`1`,
 * `12`, `0`, `2`). `iso`: a year first (`2034`, `2034-`, `2034-1`). `date`: a month then a
 * year, each as typed (`1` and `34` for `1/34`). `bad`: not an expiry spelling.
 */
export type ExpiryParts =
  | {kind: 'empty'}
  | {kind: 'bad'; text: string}
  | {kind: 'open'; digits: string}
  | {kind: 'iso'; year: string; month: string; separated: boolean}
  | {kind: 'date'; month: string; year: string; digitsOnly: boolean};

/** The separator shown between month and year. */
export const EXPIRY_SEPARATOR = ' / ';

/** Most digits an expiry is typed with: `MMYYYY`. */
const MAX_DIGITS = 6;
/** A year as typed: up to four digits (card-validator reads two or four). */
const YEAR = /^\d{0,4}$/;
/** `2034-10`, `2034/1`, `2034 . 10`: a year of this century first. */
const ISO = /^(20\d\d) ?[-./] ?(\d{0,2})$/;
/** `01/34`, `1 - 34`, `01.2034`, `1 34`, `01 / `: one or two month digits, then the year. */
const SEPARATED = /^(\d{1,2}) ?(?:[-./] ?| )(\d*)$/;

/** Reads expiry text: leading space dropped, runs of space read as one. */
export function parseExpiry(raw: string): ExpiryParts {
  const text = raw.replace(/^\s+/, '').replace(/\s+/g, ' ');
  // Nothing, or a separator alone: no month yet (card-validator: `/`, ` / `).
  if (/^(?:\/ ?)?$/.test(text)) return {kind: 'empty'};
  const iso = ISO.exec(text);
  if (iso) return {kind: 'iso', year: iso[1]!, month: iso[2]!, separated: true};
  const separated = SEPARATED.exec(text);
  if (separated) {
    const [, month, year] = separated as unknown as [string, string, string];
    return YEAR.test(year) ? {kind: 'date', month, year, digitsOnly: false} : {kind: 'bad', text};
  }
  if (!/^\d+$/.test(text) || text.length > MAX_DIGITS) return {kind: 'bad', text};
  // `20`, `203`, `2034`: no month and year begin so (`2 / 0…` is over), `2034-10` does.
  if (/^20\d{0,2}$/.test(text)) return {kind: 'iso', year: text, month: '', separated: false};
  // A month not settled yet: `1` (or `10`–`12`), `0` (`01`–`09`), `2` (`02`, or `2034-…`),
  // `12` (`12 / …`, or card-validator's `1 / 2…`).
  if (/^(?:[012]|12)$/.test(text)) return {kind: 'open', digits: text};
  // `10`, `11`: card-validator reads `1 / 0`, `1 / 1`, years over; the field shows the month.
  if (/^1[01]$/.test(text)) return {kind: 'date', month: text, year: '', digitsOnly: true};
  const {month, year} = parseDate(text);
  return YEAR.test(year) ? {kind: 'date', month, year, digitsOnly: true} : {kind: 'bad', text};
}

/**
 * What the field understood from `raw`: its reading, or that of the digits and separators in
 * it (`Exp. 12/34` pasted); else that text, shown as it is and refused, never read as
 * another date.
 */
export function readExpiry(raw: string): ExpiryParts {
  const parts = parseExpiry(raw);
  if (parts.kind !== 'bad') return parts;
  const kept = raw
    .replace(/[^\d\s/.-]+/g, '')
    .replace(/^[\s/.-]+/, '')
    .trim();
  const again = parseExpiry(kept);
  return again.kind === 'bad' ? {kind: 'bad', text: kept.replace(/\s+/g, ' ')} : again;
}

/** The text card-validator is asked about, for parts that it reads. */
function validatorText(parts: ExpiryParts): string | undefined {
  switch (parts.kind) {
    case 'open':
      return parts.digits;
    case 'iso':
      return parts.month ? `${parts.year}-${parts.month}` : undefined;
    case 'date':
      // A one-digit month is card-validator's own (`1/34`); so is `0`, a month on its way.
      return parts.digitsOnly ? parts.month + parts.year : `${parts.month}/${parts.year}`;
    default:
      return undefined;
  }
}

/** A two- or four-digit year as a four-digit one (card-validator's two digits are 20xx). */
const fullYear = (year: string): number => (year.length === 2 ? 2000 + Number(year) : Number(year));

/** Why `parts` are not a valid expiry, judged by month, then year, at `now` (local clock). */
function problemOf(parts: ExpiryParts, now: Date): ExpiryProblem {
  if (parts.kind !== 'date' && parts.kind !== 'iso') return 'format';
  const settled = parts.kind === 'iso' ? parts.month.length === 2 : parts.month !== '';
  const month = Number(parts.month);
  if (settled && !(month >= 1 && month <= 12)) return 'month';
  if (parts.year.length !== 2 && parts.year.length !== 4) return 'format';
  const year = fullYear(parts.year);
  const thisYear = now.getFullYear();
  if (year < thisYear || (year === thisYear && settled && month < now.getMonth() + 1))
    return 'past';
  // card-validator's window: this year and the 19 after it.
  if (year > thisYear + 19) return 'far';
  return 'format';
}

/**
 * Validates expiry text: card-validator's answer, then the gateway's rule on a valid one
 * (src/rules/card.ts). `now` is for the gateway's rule and the reason given; card-validator
 * reads the clock itself.
 */
export function validateExpiry(text: string, now: Date = new Date()): ExpiryValidity {
  const parts = parseExpiry(text);
  if (parts.kind === 'empty') return {isValid: false, isPotentiallyValid: true, problem: 'format'};
  const asked = validatorText(parts);
  const verdict =
    asked !== undefined
      ? expirationDate(asked)
      : parts.kind === 'iso'
        ? // A year on its way to `YYYY-MM`: could it still be one card-validator takes?
          {isValid: false, isPotentiallyValid: expirationYear(parts.year).isPotentiallyValid}
        : {isValid: false, isPotentiallyValid: false};
  if (parts.kind === 'iso' && parts.month.length === 1 && !verdict.isPotentiallyValid) {
    // `2028-1` (January, over) is on its way to `2028-10`, `2028-11` or `2028-12` too.
    const grows = [0, 1, 2].some((d) => expirationDate(`${asked}${d}`).isValid);
    if (grows) return {isValid: false, isPotentiallyValid: true, problem: problemOf(parts, now)};
  }
  if ('month' in verdict && verdict.isValid && verdict.month && verdict.year) {
    const month = Number(verdict.month);
    const year = fullYear(verdict.year);
    const refused = gatewayExpiryProblem(month, year, now);
    if (!refused) return {isValid: true, isPotentiallyValid: true, month, year};
    return {
      isValid: false,
      isPotentiallyValid: false,
      problem: refused === 'past' ? 'past' : 'far',
    };
  }
  return {
    isValid: false,
    isPotentiallyValid: verdict.isPotentiallyValid,
    problem: problemOf(parts, now),
  };
}

/** `MM / YY` of a month and four-digit year. */
export const expiryText = (month: number, year: number): string =>
  `${String(month).padStart(2, '0')}${EXPIRY_SEPARATOR}${String(year % 100).padStart(2, '0')}`;

/**
 * What the field shows for `parts`. `trailing` (while inserting): a settled month is
 * followed by the separator, so the customer types straight on; an impossible month keeps
 * its separator anyway (`40 / `: read again without it, `40` would be `04 / 0`). A month of
 * one digit is padded (`1/` → `01 / `) unless `pad` is false (the customer is changing the
 * month in place: `1| / 34` may become `11 / 34`); `0` never is, being on its way to `0x`.
 */
export function showExpiry(parts: ExpiryParts, trailing = true, pad = true): string {
  switch (parts.kind) {
    case 'empty':
      return '';
    case 'bad':
      return parts.text;
    case 'open':
      return parts.digits;
    case 'iso':
      if (parts.month.length === 2) return showExpiry(dateOf(parts), trailing);
      return parts.separated ? `${parts.year}-${parts.month}` : parts.year;
    case 'date': {
      const month = pad && parts.month !== '0' ? parts.month.padStart(2, '0') : parts.month;
      // A four-digit year of this century shows as the two the card prints.
      const year = /^20\d\d$/.test(parts.year) ? parts.year.slice(2) : parts.year;
      if (year !== '') return month + EXPIRY_SEPARATOR + year;
      const real = /^(?:0?[1-9]|1[0-2])$/.test(month);
      return trailing || !real ? month + EXPIRY_SEPARATOR : month;
    }
  }
}

/** ISO parts with a whole month, as a date. */
const dateOf = (parts: {year: string; month: string}): ExpiryParts => ({
  kind: 'date',
  month: parts.month,
  year: parts.year,
  digitsOnly: false,
});

/**
 * Formats expiry text as the field shows it (`MM / YY` once the month is settled).
 * `formatExpiry(formatExpiry(x, t), t) === formatExpiry(x, t)` for every text.
 */
export function formatExpiry(raw: string, trailing = true): string {
  return showExpiry(readExpiry(raw), trailing);
}

/**
 * The field's text once the customer has left it: `MM / YY` of a valid expiry however it
 * was typed (`2034-1` → `01 / 34`), else the text as it stands.
 */
export function settleExpiry(raw: string): string {
  const v = validateExpiry(raw);
  return v.isValid ? expiryText(v.month!, v.year!) : raw;
}

/**
 * How many digits of the shown text come before the `typed`-th digit of what was typed:
 * a padded month adds one (`1/` → `01 / `), a four-digit year shows two (`2034` → `34`).
 */
export function shownDigitsBefore(parts: ExpiryParts, typed: number, padded = true): number {
  if (parts.kind === 'iso' && parts.month.length === 2) return typed >= 6 ? 4 : 0;
  if (parts.kind !== 'date' || typed <= 0) return typed;
  const month = parts.month.length;
  const pad = padded && month === 1 && parts.month !== '0' ? 1 : 0;
  if (typed <= month) return typed + pad;
  const intoYear = typed - month;
  return month + pad + (/^20\d\d$/.test(parts.year) ? Math.max(0, intoYear - 2) : intoYear);
}
