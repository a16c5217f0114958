/**
 * The one table from the gateway's status codes to the checkout protocol's failure reasons
 * (`PAY_FAILURE_REASONS`): what the browser is told, as a stable code it renders in the
 * customer's language. The gateway publishes no full list of its codes (gateway-spec.md,
 * gateway-facts.md name a few; the sandbox documents its own in `sandbox/cards.ts`); a code
 * not in the table is a plain `declined`. No code is known for an expired card: the gateway
 * refuses its request (`not_created`), and the form says so at the expiry field before that.
 */
import type {PayFailureReason} from '../../protocol/checkout.js';
import {STATUS_CODES} from '../gateway/schemas.js';

/** Gateway status code → reason. */
export const GATEWAY_REASONS: Readonly<Record<string, PayFailureReason>> = {
  [STATUS_CODES.wrongCvv]: 'wrong_cvv', // 2007: wrong CVV2
  '2123': 'three_ds_failed', // the sandbox's: 3-D Secure declined by the cardholder
  '5105': 'insufficient_funds', // the sandbox's: insufficient funds
  [STATUS_CODES.issuerError]: 'issuer_declined', // 5152: authorization error, contact issuer
  [STATUS_CODES.cancelled]: 'cancelled', // 6007: payment cancelled
  '6009': 'expired', // the sandbox's: order_timeout passed before the payment was made
};

/** The reason for a failed payment with the gateway's `statusCode` (if it sent one). */
export function reasonOf(statusCode: string | undefined): PayFailureReason {
  const code = statusCode?.trim() ?? '';
  return Object.hasOwn(GATEWAY_REASONS, code) ? GATEWAY_REASONS[code]! : 'declined';
}

/** Why a saved card cannot pay: the reason the browser is told (its text is the form's). */
export const SAVED_CARD_REFUSALS = {
  /** No saved card of this order's customer has the id (another customer's, or none). */
  unknown: 'saved_card_unknown',
  /** The customer or the merchant removed the card. */
  removed: 'saved_card_removed',
  /** The token's expiry has passed. */
  expired: 'saved_card_expired',
} as const satisfies Readonly<Record<string, PayFailureReason>>;
export type SavedCardRefusal = (typeof SAVED_CARD_REFUSALS)[keyof typeof SAVED_CARD_REFUSALS];
