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
 * differs from card-validator is listed in docs/elements/card-form.md, "What it accepts" and checked by
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
 * What an expiry text says. `date`: a month then a year, each as typed (`1` and `34` of
 * `1/34` or of `134`). `iso`: a year first (`2034`, `2034-`, `2034-1`). `open`: digits whose
 * month is not settled yet (`1`, `12`, `0`, `2`), in `month`. `bad`: not an expiry spelling.
 * `text` is what card-validator is asked (`01/34`, `134`, `2034-1`; empty for a year on
 * its own), or, when `bad`, the text as the field shows it.
 */
export interface ExpiryParts {
  kind: 'empty' | 'bad' | 'open' | 'iso' | 'date';
  month: string;
  year: string;
  text: string;
}

const parts = (
  kind: ExpiryParts['kind'],
  month = '',
  year = '',
  text = month + year,
): ExpiryParts => ({kind, month, year, text});

/** The separator shown between month and year. */
export const EXPIRY_SEPARATOR = ' / ';

/** A four-digit year of this century, which the field shows as its last two digits. */
const CENTURY_YEAR = /^20\d\d$/;

/** Reads expiry text: leading space dropped, runs of space read as one. */
export function parseExpiry(raw: string): ExpiryParts {
  const text = raw.trimStart().replace(/\s+/g, ' ');
  // Nothing, or a separator alone: no month yet (card-validator: `/`, ` / `).
  if (/^\/? ?$/.test(text)) return parts('empty');
  // `2034-10`, `2034/1`, `2034 . 10`: a year of this century first.
  let match = /^(20\d\d) ?[-./] ?(\d{0,2})$/.exec(text);
  if (match) return parts('iso', match[2], match[1], `${match[1]}-${match[2]}`);
  // `01/34`, `1 - 34`, `01.2034`, `1 34`, `01 / `: a month, then up to four year digits;
  // zeros before a month of two digits are dropped, as card-validator does (`002/34`).
  match = /^(?:0+(?=\d\d))?(\d\d?) ?(?:[-./] ?| )(\d{0,4})$/.exec(text);
  if (match) return parts('date', match[1], match[2], `${match[1]}/${match[2]}`);
  if (!/^\d{1,6}$/.test(text)) return parts('bad', '', '', text);
  // `20`, `203`, `2034`: no month and year begin so (`2 / 0…` is over), `2034-10` does;
  // a digit more is no date (`2 / 0345`).
  if (/^20\d*$/.test(text))
    return text.length < 5 ? parts('iso', '', text, '') : parts('bad', '', '', text);
  // A month not settled: `1` (or `10`–`12`), `0` (`01`–`09`), `2` (`02`, or `2034-…`),
  // `12` (`12 / …`, or card-validator's `1 / 2…`).
  if (/^([012]|12)$/.test(text)) return parts('open', text);
  // `10`, `11`: card-validator reads `1 / 0`, `1 / 1`, years over; the field shows the month.
  if (/^1[01]$/.test(text)) return parts('date', text);
  const {month, year} = parseDate(text);
  return year.length > 4 ? parts('bad', '', '', text) : parts('date', month, year);
}

/**
 * What the field understood from `raw`: its reading, or that of the digits and separators in
 * it (`Exp. 12/34` pasted); else that text, shown as it is and refused, never read as
 * another date.
 */
export function readExpiry(raw: string): ExpiryParts {
  const read = parseExpiry(raw);
  return read.kind === 'bad'
    ? parseExpiry(raw.replace(/[^\d\s/.-]+/g, '').replace(/^[\s/.-]+|\s+$/g, ''))
    : read;
}

/** A two- or four-digit year as a four-digit one (card-validator's two digits are 20xx). */
const fullYear = (year: string): number => Number(year) + (year.length === 2 ? 2000 : 0);

/** Why `parts` are not a valid expiry, judged by month, then year, at `now` (local clock). */
function problemOf({kind, month, year}: ExpiryParts, now: Date): ExpiryProblem {
  const settled = kind === 'date' || month.length === 2;
  const m = Number(month);
  if (settled && !(m >= 1 && m <= 12)) return 'month';
  if (!/^(?:\d\d){1,2}$/.test(year)) return 'format';
  const y = fullYear(year);
  const thisYear = now.getFullYear();
  if (y < thisYear || (y === thisYear && settled && m <= now.getMonth())) return 'past';
  // card-validator's window: this year and the 19 after it.
  return y > thisYear + 19 ? 'far' : 'format';
}

/**
 * Validates expiry text: card-validator's answer, then the gateway's rule on a valid one
 * (src/rules/card.ts). `now` is for the gateway's rule and the reason given; card-validator
 * reads the clock itself.
 */
export function validateExpiry(text: string, now: Date = new Date()): ExpiryValidity {
  const read = parseExpiry(text);
  const {kind, month, year} = read;
  // A year on its own is on its way to `YYYY-MM`: could it still be one card-validator takes?
  const verdict =
    kind === 'iso' && !month
      ? {isValid: false, isPotentiallyValid: expirationYear(year).isPotentiallyValid}
      : expirationDate(kind === 'bad' ? null : read.text);
  if ('month' in verdict && verdict.isValid) {
    const m = Number(verdict.month);
    const y = fullYear(verdict.year!);
    const refused = gatewayExpiryProblem(m, y, now);
    if (!refused) return {isValid: true, isPotentiallyValid: true, month: m, year: y};
    return {
      isValid: false,
      isPotentiallyValid: false,
      problem: refused === 'past' ? 'past' : 'far',
    };
  }
  return {
    isValid: false,
    // `2028-1` (January, over) is on its way to `2028-12` too (and 10, 11 when 12 is).
    isPotentiallyValid:
      verdict.isPotentiallyValid ||
      (kind === 'iso' && month === '1' && expirationDate(read.text + '2').isValid),
    problem: problemOf(read, now),
  };
}

/**
 * What the field shows for `parts`: `MM / YY` once the month is settled, else what was
 * typed. `trailing` (while inserting): a settled month is followed by the separator, so
 * the customer types straight on; an impossible month keeps its separator anyway (`40 / `:
 * read again without it, `40` would be `04 / 0`). A month of one digit is padded (`1/` →
 * `01 / `) unless `pad` is false (the customer is changing the month in place: `1| / 34`
 * may become `11 / 34`); `0` never is, being on its way to `0x`.
 */
export function showExpiry(read: ExpiryParts, trailing = true, pad = true): string {
  const {kind, month, year} = read;
  if (kind === 'iso' && month.length === 2) return showExpiry(parts('date', month, year), trailing);
  if (kind !== 'date') return kind === 'iso' ? read.text || year : read.text;
  const mm = pad && month !== '0' ? month.padStart(2, '0') : month;
  // A four-digit year of this century shows as the two the card prints.
  const yy = CENTURY_YEAR.test(year) ? year.slice(2) : year;
  return yy || trailing || !(+mm >= 1 && +mm <= 12) ? mm + EXPIRY_SEPARATOR + yy : mm;
}

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
  return v.isValid ? showExpiry(parts('date', String(v.month), String(v.year))) : raw;
}
