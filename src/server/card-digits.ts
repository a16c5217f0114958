/**
 * The one rule that keeps card numbers out of what a browser sends us and we keep or log:
 * text is percent-decoded (again and again, until nothing changes, a bad escape left as it
 * is), NFKC-normalised (full-width, circled, bold digits become ASCII) and then every run
 * of 12 or more digits joined by anything but letters and digits (spaces, `.`, `_`, `/`,
 * `+`, `-`, two spaces, an escaped space…) is replaced by `[digits]`. A run longer than a
 * card number is masked whole, so a number hidden inside one leaves no part behind. The
 * CSP report fields (security-report-records.ts) are stored so (`cardSafeText`); the strings of
 * every log line (logger.ts) are masked by the same rule, where a run holds 12 to 19 digits
 * in a row that pass the Luhn check (`maskCardDigits`: ids and timestamps in the log stay
 * readable; a card number always passes). So a skimmer's URL blocked by the page's policy
 * leaves no number in the database or the log.
 */
import {luhnValid} from '../rules/card.js';

/** What a masked run reads. */
export const MASKED_DIGITS = '[digits]';

/**
 * A run of at least 12 digits (any script's decimal digits), each joined to the next by at
 * most 5 characters that are neither letters nor digits. The joins and the digits cannot
 * overlap, so each start position is tried once along its run: linear in the text.
 */
const DIGIT_RUN = /\p{Nd}(?:[^\p{L}\p{N}]{0,5}\p{Nd}){11,}/gu;
/** One or more percent escapes in a row (one UTF-8 character may take several). */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;
/** More rounds of decoding than this is an attacker's nesting: the rest is cut. */
const MAX_ROUNDS = 8;
/** Lenient UTF-8: a broken sequence becomes U+FFFD rather than an error. */
const UTF8 = new TextDecoder('utf-8');

/** Percent escapes decoded once; one that does not decode is left as it is. */
function decodeOnce(text: string): string {
  return text.replace(ESCAPES, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    return UTF8.decode(bytes);
  });
}

/**
 * `text` percent-decoded and NFKC-normalised, again until it stops changing (a full-width
 * `％` becomes a `%` that may start an escape), at most `MAX_ROUNDS` times.
 */
export function decodedText(text: string): string {
  let current = text.normalize('NFKC');
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (!current.includes('%')) return current;
    const next = decodeOnce(current).normalize('NFKC');
    if (next === current) return current;
    current = next;
  }
  // Still changing: whatever escapes are left cannot be trusted to hide nothing.
  return current.replace(/%/g, ' ');
}

/**
 * True when `text` cannot hold a run of 12 digits in any spelling: fewer than 12 of its
 * characters are an ASCII digit, `%` or outside ASCII (every spelling of a digit has one).
 * The fast path of log lines, whose strings almost never come close.
 */
function tooFewDigits(text: string): boolean {
  if (text.length < 12) return true;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 48 && code <= 57) || code === 37 || code > 127) {
      if (++n >= 12) return false;
    }
  }
  return true;
}

/**
 * `text` decoded and normalised (`decodedText`), every run of 12 or more digits masked:
 * what a report's field is stored as.
 *
 * @example
 * ```ts
 * cardSafeText('https://evil.example/c/4242%204242%204242%204242');
 * // 'https://evil.example/c/[digits]'
 * ```
 */
export function cardSafeText(text: string): string {
  return decodedText(text).replace(DIGIT_RUN, MASKED_DIGITS);
}

/** Longest run whose windows are each checked; a longer one is masked without a look. */
const MAX_CHECKED_RUN = 256;

/** True when some 12 to 19 digits in a row of `run` pass the Luhn check (or cannot be read). */
function holdsCardNumber(run: string): boolean {
  const digits = run.replace(/[^\p{Nd}]/gu, '');
  if (!/^[0-9]*$/.test(digits) || digits.length > MAX_CHECKED_RUN) return true;
  for (let start = 0; start + 12 <= digits.length; start++) {
    for (let length = 12; length <= 19 && start + length <= digits.length; length++) {
      if (luhnValid(digits.slice(start, start + length))) return true;
    }
  }
  return false;
}

/**
 * What the log does to each string of a line: `text` itself, unless it holds a card
 * number in some spelling — a run of `cardSafeText`'s that holds 12 to 19 digits in a row
 * passing the Luhn check — and then `text` decoded and normalised with those runs masked.
 * Text that cannot hold a run costs one look at its characters.
 */
export function maskCardDigits(text: string): string {
  if (tooFewDigits(text)) return text;
  let masked = false;
  const out = decodedText(text).replace(DIGIT_RUN, (run) => {
    if (!holdsCardNumber(run)) return run;
    masked = true;
    return MASKED_DIGITS;
  });
  return masked ? out : text;
}
