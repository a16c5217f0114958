/**
 * The customer's text for an outcome the server answered as a code: a failure's reason
 * (`PayFailureReason`) or an error's code (`CheckoutErrorCode`, or the browser's own
 * `network`/`timeout`), looked up in the message catalogue. The server's own sentences
 * never reach the customer; a code this version does not know reads as the generic text.
 */
import type {PayFailureReason} from '../protocol/checkout.js';
import {fill, type CheckoutMessages} from './messages.js';

const REASON_TEXT: Record<PayFailureReason, keyof CheckoutMessages> = {
  declined: 'failure',
  insufficient_funds: 'declinedFunds',
  wrong_cvv: 'declinedCvv',
  expired_card: 'declinedExpired',
  issuer_declined: 'declinedIssuer',
  three_ds_failed: 'declinedThreeDS',
  cancelled: 'threeDSCancelled',
  abandoned: 'threeDSCancelled',
  expired: 'paymentExpired',
  not_created: 'notCreated',
  not_confirmed: 'notConfirmed',
  saved_card_unknown: 'savedCardUnknown',
  saved_card_removed: 'savedCardGone',
  saved_card_expired: 'savedCardTokenExpired',
};

/** The text of a failure with `reason` (absent or unknown: "Payment declined."). */
export function failureText(t: CheckoutMessages, reason: string | undefined): string {
  return t[
    reason && Object.hasOwn(REASON_TEXT, reason)
      ? REASON_TEXT[reason as PayFailureReason]
      : 'failure'
  ];
}

/**
 * The text of an error with `code`; `retryAfter` is the wait, in seconds, of `rate_limited`
 * and `busy`.
 */
export function errorText(t: CheckoutMessages, code: string, retryAfter?: number): string {
  switch (code) {
    case 'network':
    case 'timeout':
      return t.networkError;
    // The merchant's payment database is down: nothing reached the gateway either.
    case 'gateway_unavailable':
    case 'store_unavailable':
      return t.gatewayUnavailable;
    case 'invalid_request':
      return t.checkDetails;
    case 'rate_limited':
      return retryAfter ? fill(t.rateLimited, Math.ceil(retryAfter)) : t.serverError;
    // The companion is saturated (not down): nothing was charged, a moment later may work.
    case 'busy':
      return fill(t.busy, Math.ceil(retryAfter ?? 1));
    case 'missing_order':
      return t.missingOrder;
    default:
      return t.serverError;
  }
}
