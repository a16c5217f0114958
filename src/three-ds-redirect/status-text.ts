/**
 * The text of `<pg-3ds-redirect>`'s status line for each of its states, in the element's
 * texts: what it is doing (redirecting, in the challenge, checking) and how the payment
 * ended. The status route decides the outcome; this only words it.
 */
import {ALREADY_PAID_QUERY_PARAM} from '../protocol/checkout.js';
import type {CheckoutMessages} from '../i18n/messages.js';
import {failureText} from '../i18n/outcome-text.js';
import type {RedirectState} from './three-ds-redirect.js';

/**
 * The status line of `state`: `reason` is the status route's failure reason, `error` the
 * text of the error shown.
 */
export function statusText(
  state: RedirectState,
  t: CheckoutMessages,
  reason: string | undefined,
  error: string,
): string {
  switch (state) {
    case 'redirecting':
      return t.threeDSRedirecting;
    case 'challenge':
      return t.threeDSTitle;
    case 'checking':
      return t.checking;
    case 'success':
      // The hosted route sent the customer here for an order paid before: "already paid".
      // Only the wording; the status route decides the outcome.
      return location.search.includes(ALREADY_PAID_QUERY_PARAM) ? t.alreadyPaid : t.success;
    case 'failure':
      return failureText(t, reason);
    case 'error':
      return error;
    default:
      return '';
  }
}
