/**
 * The pay button's text when the merchant tells the form the order's total: `Pay ₴1,250.00`
 * in the form's language. The amount stays an exact decimal string from the attribute to
 * `Intl.NumberFormat` (which formats a decimal string without going through a float), and
 * one the amount rule (`src/protocol/rules/amount.ts`) refuses is not shown at all.
 */
import type {CheckoutMessages} from '../i18n/messages.js';
import {amountText} from '../protocol/rules/amount.js';

/**
 * `amount` (`"1250.00"`) in `currency` (ISO 4217, `UAH`) as `locale` writes it, or
 * `undefined` when either is not valid.
 */
export function formatAmount(amount: string, currency: string, locale: string): string | undefined {
  const text = amountText(amount);
  if (text === undefined || !/^[A-Za-z]{3}$/.test(currency)) return undefined;
  const options = {style: 'currency', currency} as const;
  try {
    return new Intl.NumberFormat(locale, options).format(text as `${number}`);
  } catch {
    // A `lang` Intl does not take: the browser's own language still writes it right.
    return new Intl.NumberFormat(undefined, options).format(text as `${number}`);
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
