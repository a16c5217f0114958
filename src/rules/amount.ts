/**
 * The amount rule, once for the project: positive, at most two fractional digits, sent as
 * an exact decimal (`gateway-spec.md`, Limits; `gateway-facts.md`, Amounts: one public
 * integration sent `1.0400000000000000355…`). The gateway model's `Amount` is built on
 * {@link amountText}; anything that shows or builds an amount uses the same functions.
 *
 * Pure and dependency-free: no DOM, no Node, no zod.
 */

/** `12`, `12.3`, `12.34`: what an amount may look like on the wire. */
export const AMOUNT_PATTERN = /^(0|[1-9]\d{0,14})(\.\d{1,2})?$/;

/**
 * Converts an amount to the exact decimal text the gateway gets, or `undefined` when it is
 * not a positive amount with at most two fractional digits. Numbers are read through
 * their shortest round-trip text (`String(x)`), so binary float noise such as
 * `0.1 + 0.2` is rejected instead of being sent as `0.30000000000000004`.
 */
export function amountText(value: number | string): string | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (typeof text !== 'string' || !AMOUNT_PATTERN.test(text)) return undefined;
  const number = Number(text);
  if (!(number > 0)) return undefined;
  // The number sent must carry this decimal exactly: too many significant digits for a
  // double (e.g. "999999999999999.99") would be rounded on the way, so they are refused.
  return String(number) === canonicalDecimal(text) ? text : undefined;
}

/** `10.10` → `10.1`, `10.00` → `10`: the text `String(Number(x))` gives for a plain decimal. */
function canonicalDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * Turns a minor-unit integer (cents, kopiykas) into the gateway's decimal amount:
 * `amountFromMinor(1040)` is `10.4`. Use it instead of dividing floats.
 *
 * @example
 * ```ts
 * import {amountFromMinor} from 'pg-checkout/server';
 *
 * amountFromMinor(1040); // 10.4
 * ```
 */
export function amountFromMinor(minor: number): number {
  if (!Number.isSafeInteger(minor) || minor <= 0) {
    throw new RangeError(`amount in minor units must be a positive safe integer, got ${minor}`);
  }
  const whole = Math.trunc(minor / 100);
  const cents = minor % 100;
  const text = canonicalDecimal(`${whole}.${String(cents).padStart(2, '0')}`);
  const amount = Number(text);
  if (String(amount) !== text) {
    throw new RangeError('amount in minor units is too large to be sent as an exact decimal');
  }
  return amount;
}

/**
 * Amount in minor units (an exact integer) of a valid gateway amount.
 *
 * @example
 * ```ts
 * import {amountToMinor} from 'pg-checkout/server';
 *
 * amountToMinor('10.40'); // 1040
 * amountToMinor(12.5); // 1250
 * ```
 */
export function amountToMinor(value: number | string): number {
  const text = amountText(value);
  if (text === undefined) throw new RangeError('not a valid gateway amount');
  const [whole, frac = ''] = text.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}
