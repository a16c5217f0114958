/**
 * What the sandbox's own pages drive: the 3-D Secure challenge the cardholder approves or
 * declines, and the hosted checkout page where the customer enters a card. The card is
 * checked here (Luhn, expiry, CVV shape) and then kept only as a stored card.
 */
import {luhnValid} from '../../src/server/gateway/index.js';
import {SANDBOX_CODES, cardBrand, cardOutcome, maskCard} from '../cards.js';
import {minorText} from './model.js';
import type {EngineState, Status} from './model.js';
import {charge, finish, succeed} from './payments.js';

/** What a sandbox page shows of a payment. */
export interface PageInfo {
  paymentId: string;
  orderId: string;
  amount: string;
  currency: string;
  description: string;
  cardMask: string | null;
  status: Status;
  statusCode: string;
  statusDescription: string;
}

/** The payment behind a 3DS or checkout page. */
export type PagePayment = Readonly<
  PageInfo & {
    mode: 'direct' | 'hosted';
    method: 'purchase' | 'auth';
    challenge: boolean;
    resultUrl: string | undefined;
  }
>;

/** The payment behind a 3DS or checkout page; `undefined` when unknown. */
export function pagePayment(s: EngineState, paymentId: string): PagePayment | undefined {
  const txn = s.byPaymentId.get(paymentId);
  if (!txn) return undefined;
  return {
    paymentId: txn.paymentId,
    orderId: txn.orderId,
    amount: minorText(txn.amountMinor),
    currency: txn.currency,
    description: txn.description,
    cardMask: txn.card?.mask ?? null,
    status: txn.status,
    statusCode: txn.code.code,
    statusDescription: txn.code.description,
    mode: txn.mode,
    method: txn.method,
    challenge: txn.threeDS === 'challenge' && txn.status === 'pending',
    resultUrl: typeof txn.fields['result_url'] === 'string' ? txn.fields['result_url'] : undefined,
  };
}

/**
 * The cardholder's answer on the 3DS page. `changed` is false when the payment was no
 * longer waiting for it (opened twice, or already final): then nothing changes.
 */
export function threeDSDecision(
  s: EngineState,
  paymentId: string,
  approve: boolean,
): {changed: boolean} | undefined {
  const txn = s.byPaymentId.get(paymentId);
  if (!txn) return undefined;
  if (txn.threeDS !== 'challenge' || txn.status !== 'pending') return {changed: false};
  if (approve) {
    txn.threeDS = 'approved';
    succeed(s, txn);
  } else {
    txn.threeDS = 'declined';
    finish(s, txn, 'failure', SANDBOX_CODES.threeDSFailed);
  }
  return {changed: true};
}

/**
 * The customer pays on the hosted checkout page. Returns `invalid` with a message for
 * bad card data (nothing changes), `final` when the payment was no longer payable.
 */
export function checkoutPay(
  s: EngineState,
  paymentId: string,
  form: {cc_number: string; exp_month: string; exp_year: string; card_cvv: string},
): {result: 'invalid'; message: string} | {result: 'final' | 'paid' | 'challenge'} | undefined {
  const txn = s.byPaymentId.get(paymentId);
  if (!txn) return undefined;
  if (txn.mode !== 'hosted' || txn.status !== 'init') return {result: 'final'};
  const number = form.cc_number.replace(/[\s-]/g, '');
  const month = Number(form.exp_month);
  let year = Number(form.exp_year);
  if (year < 100) year += 2000;
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
    return {
      result: 'invalid',
      message: 'The card number is not valid (it fails the Luhn check).',
    };
  }
  if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year)) {
    return {result: 'invalid', message: 'The expiry date is not valid.'};
  }
  const now = new Date(s.now());
  if (year * 12 + month - 1 < now.getUTCFullYear() * 12 + now.getUTCMonth()) {
    return {result: 'invalid', message: 'The card has expired.'};
  }
  if (!/^\d{3,4}$/.test(form.card_cvv)) {
    return {result: 'invalid', message: 'The CVV must be 3 or 4 digits.'};
  }
  txn.card = {
    mask: maskCard(number),
    last4: number.slice(-4),
    brand: cardBrand(number),
    outcome: cardOutcome(number),
    expMonth: month,
    expYear: year,
  };
  const decline = s.o.faults.take('decline', {
    orderId: txn.orderId,
    cardLast4: txn.card.last4,
  });
  charge(s, txn, {viaToken: false, merchantInitiated: false, decline});
  return {result: txn.threeDS === 'challenge' ? 'challenge' : 'paid'};
}
