/**
 * The card fields' rules, once for the project: the card number, the expiry and the
 * security code. `<pg-card-form>` checks what the customer typed with them, the checkout
 * protocol's schemas check what the browser sent with them, and the gateway model checks
 * what goes on the wire with them, so the three cannot disagree. Each rule is the
 * gateway's own (`gateway-spec.md`, "Create payment", rule 2: the Luhn algorithm, a valid
 * expiration date, a CVV of digits only); where customers type more than the gateway takes
 * (spaces in a card number), the `normalise…` function says what is removed, and the
 * `check…` function applies it before the rule.
 *
 * Pure and dependency-free: no DOM, no Node, no zod. Card brands (card-validator) shape
 * what the form lets the customer type, but no brand table decides what is valid.
 */

/** The outcome of a field rule: the value to send, or why there is none. */
export type RuleResult<T, P extends string> = {ok: true; value: T} | {ok: false; problem: P};

// ---- card number -------------------------------------------------------------------

/** Fewest digits of a card number (ISO/IEC 7812 payment cards; the gateway model's bound). */
export const CARD_NUMBER_MIN_LENGTH = 12;
/** Most digits of a card number. */
export const CARD_NUMBER_MAX_LENGTH = 19;
/** A card number on the wire: 12 to 19 ASCII digits, nothing else. */
export const CARD_NUMBER_PATTERN = /^\d{12,19}$/;

/** Why a card number is refused. */
export type CardNumberProblem = 'required' | 'characters' | 'length' | 'luhn';

/** True when `digits` (digits only) passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Removes what customers put between the digits of a card number: spaces and dashes. */
export function normaliseCardNumber(text: string): string {
  return text.replace(/[\s-]+/g, '');
}

/** What is wrong with a card number as sent (no normalisation), or `undefined`. */
export function cardNumberProblem(digits: string): CardNumberProblem | undefined {
  if (digits === '') return 'required';
  if (!/^\d+$/.test(digits)) return 'characters';
  if (!CARD_NUMBER_PATTERN.test(digits)) return 'length';
  return luhnValid(digits) ? undefined : 'luhn';
}

/** Normalises a typed card number and checks it: the digits to send, or the problem. */
export function checkCardNumber(text: string): RuleResult<string, CardNumberProblem> {
  const digits = normaliseCardNumber(text);
  const problem = cardNumberProblem(digits);
  return problem ? {ok: false, problem} : {ok: true, value: digits};
}

// ---- expiry --------------------------------------------------------------------------

/** Expiry months: 1 to 12. */
export const EXP_MONTH_MIN = 1;
export const EXP_MONTH_MAX = 12;
/**
 * Expiry years: four digits, 2000 to 2099 (the gateway model's bound; the spec types
 * `exp_year` only as a Number). A two-digit year typed as `YY` is always inside it.
 */
export const EXP_YEAR_MIN = 2000;
export const EXP_YEAR_MAX = 2099;

/** Why an expiry is refused: no real month, no four-digit year, or a month that is over. */
export type ExpiryProblem = 'month' | 'year' | 'past';

/**
 * How far the earliest time zone (UTC−12) lags behind UTC: a date or a local time without a
 * zone (a card's month, the gateway's token expiry) is not over anywhere until then.
 */
export const EARLIEST_ZONE_MS = 12 * 3600_000;

/** The year and month (1–12) it is now in the earliest time zone, UTC−12. */
export function earliestMonth(now: Date = new Date()): {year: number; month: number} {
  const earliest = new Date(now.getTime() - EARLIEST_ZONE_MS);
  return {year: earliest.getUTCFullYear(), month: earliest.getUTCMonth() + 1};
}

/**
 * True when a card expiring at the end of `month`/`year` is still usable now. Compared at
 * UTC−12, the earliest time zone, so a card is never refused while it is still valid
 * somewhere (the customer's clock and the server's may be in any zone).
 */
export function cardNotExpired(month: number, year: number, now: Date = new Date()): boolean {
  const current = earliestMonth(now);
  return year * 12 + (month - 1) >= current.year * 12 + (current.month - 1);
}

/** True for a whole month number, 1 to 12. */
export function isExpMonth(month: unknown): month is number {
  return (
    Number.isInteger(month) &&
    (month as number) >= EXP_MONTH_MIN &&
    (month as number) <= EXP_MONTH_MAX
  );
}

/** True for a whole four-digit year, 2000 to 2099. */
export function isExpYear(year: unknown): year is number {
  return (
    Number.isInteger(year) && (year as number) >= EXP_YEAR_MIN && (year as number) <= EXP_YEAR_MAX
  );
}

/** What is wrong with an expiry month and year, or `undefined`. `now` is for tests. */
export function expiryProblem(
  month: number,
  year: number,
  now: Date = new Date(),
): ExpiryProblem | undefined {
  if (!isExpMonth(month)) return 'month';
  if (!isExpYear(year)) return 'year';
  return cardNotExpired(month, year, now) ? undefined : 'past';
}

// ---- security code ---------------------------------------------------------------------

/** A security code (CVV2, CVC2, CID): 3 or 4 ASCII digits, whatever the brand. */
export const CVV_PATTERN = /^\d{3,4}$/;

/** Why a security code is refused. */
export type CvvProblem = 'required' | 'invalid';

/** Removes what may surround a typed code: leading and trailing white space. */
export function normaliseCvv(text: string): string {
  return text.trim();
}

/** What is wrong with a security code as sent (no normalisation), or `undefined`. */
export function cvvProblem(code: string): CvvProblem | undefined {
  if (code === '') return 'required';
  return CVV_PATTERN.test(code) ? undefined : 'invalid';
}

/** Normalises a typed security code and checks it. */
export function checkCvv(text: string): RuleResult<string, CvvProblem> {
  const code = normaliseCvv(text);
  const problem = cvvProblem(code);
  return problem ? {ok: false, problem} : {ok: true, value: code};
}
