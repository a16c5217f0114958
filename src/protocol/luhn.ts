/**
 * The Luhn check, once for the whole project: the protocol schemas validate the card form's
 * number with it, and the gateway model (which re-exports it) validates `cc_number` with it.
 * Pure and dependency-free.
 */

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
