/**
 * The payment counter's reading of an attempt: each create request the companion sends
 * to the gateway is counted once, when its outcome is known, by what the customer is told
 * (`pg_checkout.payment.outcome`: `success`, `failure`, `3ds_required`, `processing`, or
 * `error` when the request failed with an error answer such as `gateway_unavailable`),
 * with the protocol's failure reason (`declined`, `not_created`, `not_confirmed`, …) and
 * the gateway's status code. Repeats of a pay request that join a running or settled
 * attempt are not counted again. The pay route's span is remembered for the order's
 * webhook as the create is sent (see `Telemetry.tagOrder`).
 */
import type {AttemptOutcome} from './attempt.js';
import {answerFor} from './answers.js';
import {errorType, telemetry, type PaymentOutcome, type Telemetry} from '../telemetry/telemetry.js';

/** What the counter records of an attempt's outcome. */
export function paymentOutcomeOf(outcome: AttemptOutcome): PaymentOutcome {
  const answer = outcome.kind === 'refused' ? outcome.response : answerFor(outcome.attempt);
  if (answer.outcome !== 'failure') return {outcome: answer.outcome};
  return {outcome: 'failure', reason: answer.reason, statusCode: answer.code};
}

/**
 * Awaits a sent create's outcome and counts it (a thrown error is counted as `error`);
 * without `@opentelemetry/api`, answers `sent` itself.
 */
export function countedPayment(
  mode: 'direct' | 'hosted',
  orderRef: string,
  sent: Promise<AttemptOutcome>,
  t: Telemetry = telemetry,
): Promise<AttemptOutcome> {
  if (!t.enabled) return sent;
  t.rememberPayTrace(orderRef);
  return count(mode, orderRef, sent, t);
}

async function count(
  mode: 'direct' | 'hosted',
  orderRef: string,
  sent: Promise<AttemptOutcome>,
  t: Telemetry,
): Promise<AttemptOutcome> {
  let outcome: AttemptOutcome;
  try {
    outcome = await sent;
  } catch (error) {
    t.countPayment(mode, orderRef, {outcome: 'error', reason: errorType(error)});
    throw error;
  }
  const counted = paymentOutcomeOf(outcome);
  t.countPayment(mode, orderRef, counted);
  if (mode === 'direct' && counted.outcome === '3ds_required') t.countThreeDs('started');
  return outcome;
}
