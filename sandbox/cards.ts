/**
 * The sandbox's test cards and status codes: which card number leads to which outcome,
 * and the four-digit status codes (with their descriptions) the sandbox answers. Codes
 * named in `gateway-facts.md` are the live gateway's; the ones marked `sandbox: true` are
 * the sandbox's own documented choices, because no public list of the gateway's codes exists.
 */
import {STATUS_CODES} from '../src/server/gateway/index.js';

/** What charging a card does. */
export type CardOutcome =
  'success' | 'three_ds' | 'generic_decline' | 'insufficient_funds' | 'wrong_cvv';

/** Status codes the sandbox answers, with their descriptions. */
export const SANDBOX_CODES = {
  success: {code: STATUS_CODES.success, description: 'Transaction successful', sandbox: false},
  authSuccess: {
    code: STATUS_CODES.authSuccess,
    description: 'Authorization successful, funds held',
    sandbox: false,
  },
  refundSuccess: {
    code: STATUS_CODES.refundSuccess,
    description: 'Refund successful',
    sandbox: false,
  },
  wrongCvv: {code: STATUS_CODES.wrongCvv, description: 'Wrong CVV2', sandbox: false},
  threeDSRequired: {
    code: STATUS_CODES.threeDSRequired,
    description: '3-D Secure verification required',
    sandbox: false,
  },
  threeDSFailed: {
    code: '2123',
    description: '3-D Secure verification failed: declined by the cardholder',
    sandbox: true,
  },
  insufficientFunds: {code: '5105', description: 'Insufficient funds', sandbox: true},
  issuerDecline: {
    code: STATUS_CODES.issuerError,
    description: 'Authorization error, contact issuer bank',
    sandbox: false,
  },
  cancelled: {code: STATUS_CODES.cancelled, description: 'Payment cancelled', sandbox: false},
  expired: {
    code: '6009',
    description: 'Order expired: order_timeout passed before the payment was made',
    sandbox: true,
  },
} as const;
export type SandboxCode = (typeof SANDBOX_CODES)[keyof typeof SANDBOX_CODES];

/** One documented test card. */
export interface TestCard {
  number: string;
  brand: string;
  outcome: CardOutcome;
  status: 'success' | 'pending' | 'failure';
  statusCode: string;
  description: string;
}

const card = (number: string, outcome: CardOutcome, code: SandboxCode, description: string) =>
  ({
    number,
    brand: cardBrand(number),
    outcome,
    status:
      outcome === 'success' ? 'success' : outcome === 'three_ds' ? 'pending' : ('failure' as const),
    statusCode: code.code,
    description,
  }) satisfies TestCard;

/** Card network of a card number, as the reports' `paymentSystem` names it ('' when unknown). */
export function cardBrand(number: string): string {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  return '';
}

/** The documented test cards. Any other Luhn-valid number behaves like the first one. */
export const TEST_CARDS: readonly TestCard[] = [
  card('4242424242424242', 'success', SANDBOX_CODES.success, 'Succeeds at once, no 3-D Secure'),
  card('5454545454545454', 'success', SANDBOX_CODES.success, 'Succeeds at once, no 3-D Secure'),
  card(
    '4000000000003220',
    'three_ds',
    SANDBOX_CODES.threeDSRequired,
    'Pending: the 3-D Secure page at user_action_url decides (Approve → 1000, Decline → 2123)',
  ),
  card(
    '4000000000000002',
    'generic_decline',
    SANDBOX_CODES.issuerDecline,
    'Declined by the issuer (generic decline)',
  ),
  card(
    '4000000000009995',
    'insufficient_funds',
    SANDBOX_CODES.insufficientFunds,
    'Declined: insufficient funds',
  ),
  card('4000000000000127', 'wrong_cvv', SANDBOX_CODES.wrongCvv, 'Declined: wrong CVV2'),
];

/** What a card number does; numbers outside the table succeed. */
export function cardOutcome(number: string): CardOutcome {
  return TEST_CARDS.find((c) => c.number === number)?.outcome ?? 'success';
}

/** The masked card number the gateway shows: first six, stars, last four. */
export function maskCard(number: string): string {
  return `${number.slice(0, 6)}${'*'.repeat(Math.max(0, number.length - 10))}${number.slice(-4)}`;
}
