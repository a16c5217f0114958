/**
 * The pay button's text when the merchant tells the form the order's total: `Pay ₴1,250.00`
 * in the form's language, through the catalogue's one amount formatter (`formatAmount`: the
 * exact decimal string straight to `Intl.NumberFormat`, never through a float). A total
 * that is not a positive amount with at most two fractional digits, or a currency Intl
 * does not know, leaves the plain "Pay".
 */
import {formatAmount} from '../i18n/format.js';
import type {CheckoutMessages} from '../i18n/messages.js';
import {AMOUNT_PATTERN} from '../rules/amount.js';

/** `amount` in `currency` as `locale` writes it, or `undefined` when it cannot be shown. */
function totalText(amount: string, currency: string, locale: string): string | undefined {
  if (!AMOUNT_PATTERN.test(amount) || !/[1-9]/.test(amount) || !/^[A-Z]{3}$/i.test(currency)) {
    return undefined;
  }
  try {
    return formatAmount(amount, currency.toUpperCase(), locale);
  } catch {
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
  const total = amount && currency ? totalText(amount, currency, locale) : undefined;
  return total ? t.payAmount.replace('{amount}', total) : t.pay;
}
