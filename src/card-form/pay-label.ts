/**
 * The pay button's text when the merchant tells the form the order's total: `Pay ₴1,250.00`
 * in the form's language. The amount stays an exact decimal string from the attribute to
 * `Intl.NumberFormat` (which formats a decimal string without going through a float), and
 * one the amount rule's pattern (`src/protocol/rules/amount.ts`: positive, at most two
 * fractional digits) refuses is not shown at all.
 */
import type {CheckoutMessages} from '../i18n/messages.js';
import {AMOUNT_PATTERN} from '../protocol/rules/amount.js';

/**
 * `amount` (`"1250.00"`) in `currency` (ISO 4217, `UAH`) as `locale` writes it, or
 * `undefined` when either is not valid.
 */
export function formatAmount(amount: string, currency: string, locale: string): string | undefined {
  if (!AMOUNT_PATTERN.test(amount) || !/[1-9]/.test(amount) || !/^[A-Z]{3}$/i.test(currency))
    return;
  try {
    return new Intl.NumberFormat(locale, {style: 'currency', currency}).format(
      amount as `${number}`,
    );
  } catch {
    // A `lang` Intl does not take: plain "Pay".
    return undefined;
  }
}

/** The idle pay button's text: `t.payAmount` with the total when it is known, else `t.pay`. */
export function payLabel(
  t: CheckoutMessages,
  amount: string,
  currency: string,
  locale: string,
): string {
  const total = amount && currency ? formatAmount(amount, currency, locale) : undefined;
  return total ? t.payAmount.replace('{amount}', total) : t.pay;
}
