/**
 * The events of `<pg-card-form>`'s payment, derived from its transitions: one table from a
 * transition (`form-transitions.ts`) to the event it announces, and nothing else dispatches
 * them. A transition without a row announces nothing (a status outcome is told by the
 * `<pg-3ds-redirect>` that learnt it, whose events bubble out of the form). `pg-submit`
 * asks first: it goes out before its transition, and cancelling it refuses the transition;
 * every other event goes out once the form is in the new state, so a listener reading
 * `state` sees it. Field events (`pg-validity-change`, `pg-brand-change`) belong to the
 * fields' controllers, not to the payment.
 */
import {
  PgErrorEvent,
  PgFailureEvent,
  PgSubmitEvent,
  PgSuccessEvent,
  PgThreeDSRequiredEvent,
} from '../events/events.js';
import {retryableOf, type FormState} from './form-state.js';
import type {FormStep, FormStepType} from './form-transitions.js';

/** Makes the event of a transition of type `K`, given the step and the state it led to. */
type EventOf<K extends FormStepType> = (
  step: Extract<FormStep, {type: K}>,
  next: FormState,
) => Event;

/** The event each transition announces. */
export const TRANSITION_EVENTS: {readonly [K in FormStepType]?: EventOf<K>} = {
  pay: ({orderRef, attemptId}) => new PgSubmitEvent({orderRef, attemptId}),
  // The answer as the detail: orderRef, code, message, cardMask, alreadyPaid.
  paid: ({response: {outcome: _outcome, cardSaved: _saved, ...detail}}) =>
    new PgSuccessEvent(detail),
  declined: ({response: {orderRef, code, message}}) =>
    new PgFailureEvent({orderRef, code, message}),
  challenged: ({response: {orderRef, userActionUrl}}) =>
    new PgThreeDSRequiredEvent({orderRef, userActionUrl}),
  refused: ({error: {code, status}, orderRef, message}, next) =>
    new PgErrorEvent({
      orderRef,
      code,
      message,
      retryable: retryableOf(next),
      ...(status ? {status} : {}),
    }),
};

/** The transitions whose event asks first: cancelling it refuses the transition. */
export const ASKING: readonly FormStepType[] = ['pay'];

/** The event `step` announces on its way to `next`, if any. */
export function eventOf(step: FormStep, next: FormState): Event | undefined {
  // One row per type, so the row of `step.type` takes `step` (TypeScript cannot pair them).
  const make = TRANSITION_EVENTS[step.type] as ((s: FormStep, n: FormState) => Event) | undefined;
  return make?.(step, next);
}
