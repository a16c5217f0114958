/**
 * What the browser is told: the checkout protocol's answer for an attempt as it stands,
 * and the wording of every answer the service gives. Pure functions; the order-level
 * answer (the status route's) is derived in `order-state.ts` from these.
 */
import type {PayFailure, PayResponse, PaySuccess} from '../../protocol/checkout.js';
import type {AttemptRecord} from '../store/payment-store.js';
import {NOT_CONFIRMED, isFinal} from './attempt-transitions.js';
import {reasonOf} from './failure-reasons.js';
import type {HostedResult} from './service-config.js';

export const PROCESSING_UNKNOWN =
  'We could not confirm the payment with the bank yet: the status will be updated shortly.';
export const PROCESSING_PENDING = 'The payment is being processed.';
const NOT_CREATED_CODE = 'not_created';
const NOT_CREATED_MESSAGE = 'The payment was not made and no money was taken. You can try again.';
export const NOT_CONFIRMED_CODE = NOT_CONFIRMED.code;
export const NOT_CONFIRMED_MESSAGE = NOT_CONFIRMED.description;

/** The protocol answer for an attempt's current state. */
export function answerFor(a: AttemptRecord): PayResponse {
  switch (a.state) {
    case 'success':
      return {
        outcome: 'success',
        orderRef: a.orderRef,
        code: a.statusCode ?? '1000',
        message: a.statusDescription ?? 'Payment successful',
        ...(a.cardMask ? {cardMask: a.cardMask} : {}),
      };
    case 'failure':
      return a.failureReason === 'not_created'
        ? {
            outcome: 'failure',
            orderRef: a.orderRef,
            code: NOT_CREATED_CODE,
            reason: 'not_created',
            message: NOT_CREATED_MESSAGE,
          }
        : {
            outcome: 'failure',
            orderRef: a.orderRef,
            code: a.statusCode ?? 'declined',
            reason: reasonOf(a.statusCode),
            message: a.statusDescription ?? 'The payment was declined.',
          };
    case 'init':
    case 'pending':
      if (a.writtenOff) return writtenOffAnswer(a);
      return a.userActionUrl
        ? {outcome: '3ds_required', orderRef: a.orderRef, userActionUrl: a.userActionUrl}
        : {outcome: 'processing', orderRef: a.orderRef, message: PROCESSING_PENDING};
    case 'unknown':
      // Safe to retry: paying again re-sends the create with this attempt's order id, and
      // the gateway charges at most one of them. (Not "no money was taken": it may be.)
      return {
        outcome: 'failure',
        orderRef: a.orderRef,
        code: NOT_CONFIRMED_CODE,
        reason: 'not_confirmed',
        message: NOT_CONFIRMED_MESSAGE,
      };
    default:
      return {outcome: 'processing', orderRef: a.orderRef, message: PROCESSING_UNKNOWN};
  }
}

/** The message of an answer to a request that found its order paid before it. */
export const ALREADY_PAID_MESSAGE = 'The order was already paid: nothing was charged now.';

/**
 * The answer to a pay request that found its order paid by an earlier attempt (`paid`):
 * the order is paid, so the outcome is `success`, but marked `alreadyPaid`, with its own
 * message; a request that asked to save the card (`saveCard`) is told it was not saved.
 */
export function alreadyPaidAnswer(paid: AttemptRecord, saveCard: boolean): PaySuccess {
  return {
    outcome: 'success',
    orderRef: paid.orderRef,
    code: paid.statusCode ?? '1000',
    message: saveCard ? `${ALREADY_PAID_MESSAGE} The card was not saved.` : ALREADY_PAID_MESSAGE,
    ...(paid.cardMask ? {cardMask: paid.cardMask} : {}),
    alreadyPaid: true,
    ...(saveCard ? {cardSaved: false as const} : {}),
  };
}

/** An open attempt that no longer blocks its order: the customer may pay again. */
function writtenOffAnswer(a: AttemptRecord): PayFailure {
  return {
    outcome: 'failure',
    orderRef: a.orderRef,
    code: a.writtenOff === 'abandoned' ? 'abandoned' : 'expired',
    reason: a.writtenOff === 'abandoned' ? 'abandoned' : 'expired',
    message:
      a.writtenOff === 'abandoned'
        ? 'The payment was cancelled. You can try again.'
        : 'The payment was not completed in time. You can try again.',
  };
}

/** The gateway refused the card data of a create request (a 400): nothing was charged. */
export function refusedAnswer(orderRef: string, code: string): PayFailure {
  return {
    outcome: 'failure',
    orderRef,
    code,
    reason: 'not_created',
    message: 'The payment was refused. No money was taken; check the card details and try again.',
  };
}

/**
 * Where a hosted payment sends the customer for an attempt: on to the gateway's page
 * while the attempt is open there, else to the return page with the attempt's answer.
 */
export function hostedAnswer(a: AttemptRecord): HostedResult {
  return a.userActionUrl && !isFinal(a.state)
    ? {kind: 'redirect', url: a.userActionUrl}
    : {kind: 'settled', response: answerFor(a)};
}
