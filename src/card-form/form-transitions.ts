/**
 * How the card form's one state value moves: every step that can happen to a payment (Pay
 * pressed, the pay route's answer, the 3-D Secure element's outcome, a wait run out, the
 * customer correcting the card, the form reset) and, in one pure function, the state each
 * step leads to from each state. A step the state does not accept is refused: `transition`
 * gives `undefined` and nothing moves (a second Pay while paying, an answer after a reset,
 * a "waited" with no wait), never a state forced into shape. No DOM, no clock, no texts:
 * the element applies the result (`form-machine.ts`), and the events the form dispatches
 * are derived from the steps (`form-events.ts`).
 */
import type {PgErrorCode} from '../events/events.js';
import type {PayResponse} from '../protocol/checkout.js';
import type {PayError} from './pay.js';
import {waitState, waitingIn, type Followed, type FormState} from './form-state.js';

/** Something that happened to the payment; `type` names the transition. */
export type FormStep =
  /** Pay was pressed (or `reportValidity` called) with `fields` fields to correct. */
  | {type: 'invalid'; fields: number}
  /** A valid card is sent for `orderRef` as attempt `attemptId`. */
  | {type: 'pay'; orderRef: string; attemptId: string}
  /** The pay route: paid (`response.alreadyPaid`: by an earlier payment). */
  | {type: 'paid'; response: Extract<PayResponse, {outcome: 'success'}>}
  /** The pay route: declined (`abandoned`: the challenge of this attempt was cancelled). */
  | {type: 'declined'; response: Extract<PayResponse, {outcome: 'failure'}>}
  /** The pay route: 3-D Secure is needed. */
  | {type: 'challenged'; response: Extract<PayResponse, {outcome: '3ds_required'}>}
  /** The pay route: the gateway is still at it; the status route is asked. */
  | {type: 'processing'; orderRef: string}
  /**
   * The pay route could not be used (`error`), or the form cannot pay (`misconfigured`).
   * `orderRef` and `message` (the server's, else the form's text) are what `pg-error` says.
   */
  | {type: 'refused'; error: PayError; orderRef: string; message: string}
  /** The challenge opens in a dialog on this page. */
  | {type: 'framed'}
  /** "Check again": the status route is asked once more. */
  | {type: 'check'}
  /** The status route: paid. */
  | {type: 'confirmed'}
  /** The status route: failed for `reason` (`abandoned`: the challenge was cancelled). */
  | {type: 'unpaid'; reason: string | undefined}
  /**
   * The status is not known (`code`): `retryable` when asking again may tell, `processing`
   * when the bank was still at it when last asked.
   */
  | ({type: 'unknown'; code: PgErrorCode; retryable: boolean; processing: boolean} & Followed)
  /** The customer cancelled the challenge. */
  | {type: 'cancelled'}
  /** The wait the server asked for is over. */
  | {type: 'waited'}
  /** The customer typed into a field. */
  | {type: 'typed'}
  /** The merchant's form was reset. */
  | {type: 'reset'};

/** The name of a transition. */
export type FormStepType = FormStep['type'];

/** A state whose text the customer puts aside by typing: an outcome that did not pay. */
type Dismissible = Extract<FormState, {hushed?: boolean}>;
const DISMISSIBLE: readonly string[] = ['declined', 'cancelled', 'failed', 'rate-limited', 'busy'];
const dismissible = (state: FormState): state is Dismissible => DISMISSIBLE.includes(state.kind);

/** The state of a failure for `reason`: `abandoned` is a cancelled challenge. */
const failed = (reason: string | undefined): FormState =>
  reason === 'abandoned' ? {kind: 'cancelled'} : {kind: 'declined', reason};

/**
 * The state `step` leads to from `state`, or `undefined` when `state` refuses it. Pure: the
 * same two values always give the same answer, and neither is changed.
 */
export function transition(state: FormState, step: FormStep): FormState | undefined {
  const paying = state.kind === 'paying' ? state : undefined;
  // Pay can be pressed unless a payment is in flight, paid, or held by a wait.
  const payable = !paying && state.kind !== 'succeeded' && !waitingIn(state);
  const retry = 'retry' in state ? state.retry : undefined;
  switch (step.type) {
    case 'invalid':
      return paying ? undefined : {kind: 'invalid', fields: step.fields, ...(retry && {retry})};
    case 'pay':
      return payable ? {kind: 'paying', attemptId: step.attemptId} : undefined;
    case 'refused': {
      if (!paying && !payable) return undefined;
      const {code, retryAfter, retrySameAttempt} = step.error;
      // From the pay request: the same attempt again when the companion may hold it. Before
      // any request (misconfigured): the attempt to resend stays what it was.
      const again = paying ? (retrySameAttempt ? paying.attemptId : undefined) : retry;
      const next =
        code === 'busy' || code === 'rate_limited'
          ? waitState(code, retryAfter)
          : ({kind: 'failed', code, during: 'pay'} as const);
      return again ? {...next, retry: again} : next;
    }
    case 'waited':
      return (state.kind === 'busy' || state.kind === 'rate-limited') && state.waiting
        ? {...state, waiting: false}
        : undefined;
    case 'typed':
      // The customer is correcting: the old outcome no longer describes the form.
      return dismissible(state) ? {...state, hushed: true} : undefined;
    case 'reset':
      // A payment in flight is not undone by a reset: its answer is still shown and told.
      return paying ? undefined : {kind: 'idle'};
  }
  if (paying) {
    const {attemptId} = paying;
    switch (step.type) {
      case 'paid':
        return {kind: 'succeeded', before: step.response.alreadyPaid};
      case 'declined':
        return failed(step.response.reason);
      case 'challenged':
        return {kind: 'challenge', framed: false, orderRef: step.response.orderRef, attemptId};
      case 'processing':
        return {kind: 'checking', orderRef: step.orderRef, attemptId};
    }
    return undefined;
  }
  // An outcome of the status check: never over a payment in flight or one already paid.
  if (state.kind === 'succeeded') return undefined;
  switch (step.type) {
    case 'framed':
      return state.kind === 'challenge' ? {...state, framed: true} : undefined;
    case 'check':
      return state.kind === 'unconfirmed'
        ? {kind: 'checking', orderRef: state.orderRef, attemptId: state.attemptId}
        : undefined;
    case 'confirmed':
      return {kind: 'succeeded'};
    case 'unpaid':
      return failed(step.reason);
    case 'cancelled':
      return {kind: 'cancelled'};
    case 'unknown':
      // Out of time, not out of options: say what is known and offer to check again.
      return step.retryable
        ? {
            kind: 'unconfirmed',
            processing: step.processing,
            code: step.code,
            orderRef: step.orderRef,
            attemptId: step.attemptId,
          }
        : {kind: 'failed', code: step.code, during: 'check'};
  }
  return undefined;
}
