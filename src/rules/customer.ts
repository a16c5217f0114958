/**
 * The customer fields' rules, once for the project: first and last name, the name on the
 * card, email and phone. `<pg-card-form>`, the checkout protocol's schemas and the gateway
 * model all use them, so the form refuses exactly what the gateway would refuse, before
 * anything is sent.
 *
 * The spec types `customer_fname`, `customer_lname`, `customer_email` and `customer_phone`
 * as plain strings; the gateway model holds them to the rules below (a name of 1 to 256
 * characters, an ASCII address, a phone of digits with an optional `+`). Customers type
 * more freely than that: `(050) 123-45-67`, `+380.50.123.4567`, a name with a space after
 * it. What can be removed without changing the meaning is removed by the `normalise…`
 * functions, once, before the rule; what cannot (`оля@приклад.укр`) is refused with its own
 * problem code, so the form can say what to change.
 *
 * Pure and dependency-free: no DOM, no Node, no zod.
 */
import type {RuleResult} from './card.js';

// ---- names ---------------------------------------------------------------------------

/** Longest first or last name (`customer_fname`, `customer_lname`). */
export const NAME_MAX_LENGTH = 256;
/** Longest name on the card (the protocol's `card.holder`; not sent to the gateway). */
export const HOLDER_MAX_LENGTH = 128;

/** Why a name is refused. */
export type NameProblem = 'required' | 'too-long';

/** Removes white space before and after a name. */
export function normaliseName(text: string): string {
  return text.trim();
}

/**
 * What is wrong with a name as sent, or `undefined`. Lengths count code points (an emoji
 * is one character), as the gateway model's zod `max` does.
 */
export function nameProblem(name: string, max: number = NAME_MAX_LENGTH): NameProblem | undefined {
  if (name === '') return 'required';
  return codePoints(name) > max ? 'too-long' : undefined;
}

/** The number of Unicode code points in `text`. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Normalises a typed name and checks it against `max` characters. */
export function checkName(
  text: string,
  max: number = NAME_MAX_LENGTH,
): RuleResult<string, NameProblem> {
  const name = normaliseName(text);
  const problem = nameProblem(name, max);
  return problem ? {ok: false, problem} : {ok: true, value: name};
}

// ---- email -----------------------------------------------------------------------------

/**
 * An email address as the gateway model takes it: zod's `z.email()` pattern, which the
 * model used before the rule moved here (a test holds the two equal), ASCII only, a
 * dot-separated domain ending in at least two letters.
 */
export const EMAIL_PATTERN = new RegExp(
  // Character for character as zod writes it (escapes included), so the test can compare.
  String.raw`^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`,
);

/**
 * Why an email address is refused: empty, a letter outside ASCII (a Cyrillic address, an
 * internationalised domain: the gateway takes neither), or not an address.
 */
export type EmailProblem = 'required' | 'latin' | 'format';

/** Removes white space before and after an address. */
export function normaliseEmail(text: string): string {
  return text.trim();
}

/** What is wrong with an email address as sent, or `undefined`. */
export function emailProblem(email: string): EmailProblem | undefined {
  if (email === '') return 'required';
  if (EMAIL_PATTERN.test(email)) return undefined;
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(email) ? 'latin' : 'format';
}

/** Normalises a typed email address and checks it. */
export function checkEmail(text: string): RuleResult<string, EmailProblem> {
  const email = normaliseEmail(text);
  const problem = emailProblem(email);
  return problem ? {ok: false, problem} : {ok: true, value: email};
}

// ---- phone -----------------------------------------------------------------------------

/**
 * A phone number as the gateway model takes it: an optional `+`, a digit, then 5 to 30
 * more digits, spaces, parentheses or dashes. Normalised numbers have no separators left,
 * so for them this is `+` (optional) and 6 to 31 digits.
 */
export const PHONE_PATTERN = /^\+?[0-9][0-9 ()-]{5,30}$/;
/** Fewest and most digits of a normalised phone number. */
export const PHONE_MIN_DIGITS = 6;
export const PHONE_MAX_DIGITS = 31;

/**
 * What customers put between the digits of a phone number: white space (including the
 * no-break space), parentheses, dots, slashes, hyphens and the other Unicode dashes.
 */
const PHONE_SEPARATORS = /[\s()./\u2010-\u2015\u2212-]+/g;

/**
 * Why a phone number is refused: empty, a character that is neither a digit nor a
 * separator (a letter, an extension, a `+` not at the start), or too few or many digits.
 */
export type PhoneProblem = 'required' | 'characters' | 'too-short' | 'too-long';

/** Removes the separators from a typed phone number: `(050) 123-45-67` → `0501234567`. */
export function normalisePhone(text: string): string {
  return text.replace(PHONE_SEPARATORS, '');
}

/** What is wrong with a phone number as sent, or `undefined`. */
export function phoneProblem(phone: string): PhoneProblem | undefined {
  if (phone === '') return 'required';
  if (PHONE_PATTERN.test(phone)) return undefined;
  const digits = normalisePhone(phone);
  if (!/^\+?\d*$/.test(digits)) return 'characters';
  const count = digits.length - (digits.startsWith('+') ? 1 : 0);
  if (count > PHONE_MAX_DIGITS) return 'too-long';
  // Fewer than the minimum, or separators before the first digit (`(050) …` unnormalised).
  return count < PHONE_MIN_DIGITS ? 'too-short' : 'characters';
}

/** Normalises a typed phone number and checks it: the digits (and `+`) to send. */
export function checkPhone(text: string): RuleResult<string, PhoneProblem> {
  if (text.trim() === '') return {ok: false, problem: 'required'};
  const phone = normalisePhone(text);
  // Separators and nothing else (`( )`): typed, but no digits yet.
  const problem = phone === '' ? 'too-short' : phoneProblem(phone);
  return problem ? {ok: false, problem} : {ok: true, value: phone};
}
