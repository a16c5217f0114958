/**
 * The card form's state as one value, and what the customer sees of it: the status line
 * (its look follows the phase: `status--error`, `--failure`, `--success`), the Pay button's label and whether it can be pressed, "Check again", and
 * whether the attempt may be tried again (`retryable`, also `pg-error`'s) — all derived
 * here, in `viewOf`, and nowhere else. The state holds facts (a reason, an error code, the
 * seconds the server asked to wait), never a text: the texts are looked up when the form
 * renders, so a language that loads or changes later shows at once. Pure: no DOM. How the
 * state moves is `form-transitions.ts`.
 */
import {errorText, failureText} from '../i18n/outcome-text.js';
import {fill, type CheckoutMessages} from '../i18n/messages.js';
import type {PgErrorCode} from '../events/events.js';

/** Where the form is in its life, as the public `state` names it. */
export const CARD_FORM_PHASES = [
  'idle',
  'pending',
  'success',
  'failure',
  'three-ds',
  'processing',
  'error',
] as const;
/**
 * The card form's `state` as a merchant's page reads it: `idle` (nothing sent), `pending`
 * (paying), `three-ds` (the customer is in 3-D Secure), `processing` (the gateway is still
 * working), `success`, `failure` (declined or refused: the message says why) or `error`
 * (nothing was decided: the customer may try again).
 */
export type CardFormPhase = (typeof CARD_FORM_PHASES)[number];

/** An outcome the customer can put aside by correcting the card: typing hides its text. */
interface Dismissible {
  /** The customer typed since: its text is no longer shown. */
  hushed?: boolean;
}

/** After an error the companion may have seen: Pay resends this very attempt. */
interface Retry {
  /** The attempt id "Try again" sends again (none: a new attempt). */
  retry?: string;
}

/** A refusal that asks the customer to wait: trying again is possible from `until` on. */
interface Wait extends Dismissible, Retry {
  /** The seconds the server asked for, as said to the customer. */
  seconds: number;
  /** The wait is still running: the Pay button cannot be pressed yet. */
  waiting: boolean;
}

/** A payment the pay route answered and the 3-D Secure element follows. */
export interface Followed {
  /** The order the status route is asked about. */
  orderRef: string;
  /** The attempt answered (told to the abandon route when the challenge is cancelled). */
  attemptId: string;
}

/**
 * The form's state: the one value the form keeps of its payment. Every fact a later step
 * needs (the attempt to resend, the order to check again) lives in the state it belongs to,
 * so leaving that state forgets it. It moves only through `transition` (`form-transitions.ts`).
 */
export type FormState =
  /** Nothing to say. */
  | {kind: 'idle'}
  /** The customer pressed Pay with `fields` fields to correct. */
  | ({kind: 'invalid'; fields: number} & Retry)
  /** The payment request of `attemptId` is in flight. */
  | {kind: 'paying'; attemptId: string}
  /** 3-D Secure: the customer is sent to the bank (`framed`: in a dialog on this page). */
  | ({kind: 'challenge'; framed: boolean} & Followed)
  /** Asking the status route how a payment still processing ended. */
  | ({kind: 'checking'} & Followed)
  /**
   * The status check ran out of time: "Check again" asks once more. `processing`: the bank
   * was still at it when last asked; else `code` says what went wrong.
   */
  | ({kind: 'unconfirmed'; processing: boolean; code: PgErrorCode} & Followed)
  /** Paid. `before`: by an earlier payment; nothing was charged now, no card was saved. */
  | {kind: 'succeeded'; before?: boolean | undefined}
  /** The payment failed for `reason` (`not_confirmed`: unknown, paying again is safe). */
  | ({kind: 'declined'; reason: string | undefined} & Dismissible)
  /** The customer cancelled the 3-D Secure challenge. */
  | ({kind: 'cancelled'} & Dismissible)
  /**
   * An error: of the pay request (`during: 'pay'`, the same attempt may be sent again
   * unless the form is misconfigured), or of the status check that cannot be retried.
   */
  | ({kind: 'failed'; code: PgErrorCode; during: 'pay' | 'check'} & Dismissible & Retry)
  /** Too many attempts (`rate_limited`): the server said how long to wait, if it did. */
  | ({kind: 'rate-limited'} & Wait)
  /** The companion is saturated (`busy`, 503 with `Retry-After`): try again after a moment. */
  | ({kind: 'busy'} & Wait);

/** What the customer sees of a state. */
export interface FormView {
  /** The public phase (`PgCardForm.state`). */
  phase: CardFormPhase;
  /** The status line's text; empty for none. */
  message: string;
  /** The Pay button's label: its own (the amount), `paying`, `retry` or `paid`. */
  label: 'pay' | 'paying' | 'retry' | 'paid';
  /** The Pay button cannot be pressed: a payment in flight, or a wait the server asked for. */
  held: boolean;
  /** The attempt may be tried again: the button says "Try again". */
  retryable: boolean;
  /** "Check again" is offered. */
  checkAgain: boolean;
}

/** The phase and the status line's text of `state`. */
function facts(
  state: FormState,
  t: CheckoutMessages,
  lang: string,
): [phase: CardFormPhase, message: string] {
  switch (state.kind) {
    case 'idle':
      return ['idle', ''];
    case 'invalid':
      return ['idle', fill(t.fixFields, state.fields, lang)];
    case 'paying':
      return ['pending', t.paying];
    case 'challenge':
      return ['three-ds', state.framed ? t.threeDSTitle : t.threeDSRedirecting];
    case 'checking':
      return ['processing', t.checking];
    case 'unconfirmed':
      return [
        'processing',
        state.processing
          ? t.stillProcessing
          : state.code === 'timeout'
            ? t.timeout
            : errorText(t, state.code),
      ];
    case 'succeeded':
      return ['success', state.before ? t.alreadyPaid : t.success];
    case 'declined':
      return ['failure', failureText(t, state.reason)];
    case 'cancelled':
      return ['failure', t.threeDSCancelled];
    case 'failed':
      return ['error', errorText(t, state.code)];
    case 'rate-limited':
      return ['error', errorText(t, 'rate_limited', state.seconds)];
    case 'busy':
      return ['error', errorText(t, 'busy', state.seconds)];
  }
}

/**
 * Whether the attempt of `state` may be tried again (the button says "Try again"; also
 * `pg-error`'s `retryable`): a refusal that asks for a wait, an error of the pay request
 * unless the form is misconfigured, and a payment the companion could not confirm.
 */
export function retryableOf(state: FormState): boolean {
  return state.kind === 'failed'
    ? state.during === 'pay' && state.code !== 'misconfigured'
    : state.kind === 'declined'
      ? state.reason === 'not_confirmed'
      : state.kind === 'busy' || state.kind === 'rate-limited';
}

/** Whether `state` holds the Pay button for a wait the server asked for. */
export function waitingIn(state: FormState): boolean {
  return 'waiting' in state && state.waiting;
}

/** What the customer sees of `state`, in the texts `t` of language `lang`. */
export function viewOf(state: FormState, t: CheckoutMessages, lang: string): FormView {
  const [phase, text] = facts(state, t, lang);
  const retryable = retryableOf(state);
  const waiting = waitingIn(state);
  return {
    phase,
    message: 'hushed' in state && state.hushed && !waiting ? '' : text,
    label:
      phase === 'success' ? 'paid' : phase === 'pending' ? 'paying' : retryable ? 'retry' : 'pay',
    held: phase === 'pending' || waiting,
    retryable,
    checkAgain: state.kind === 'unconfirmed',
  };
}

/**
 * Longest wait of `busy`, in seconds: a saturated instance asks for a moment (its queue
 * drains in seconds); a longer `Retry-After` (a proxy's, a mistake) would leave the
 * customer before a held button for minutes, when trying again soon costs one quick 503.
 */
export const MAX_BUSY_SECONDS = 30;

/**
 * The state of a refusal that asks the customer to wait (`retryAfter`, in seconds): the
 * button is held that long, as long as the text says. `busy` waits at least 1 s and at
 * most {@link MAX_BUSY_SECONDS}; `rate_limited` as long as the server counts, and without a
 * wait says only that something went wrong, holding nothing.
 */
export function waitState(
  code: 'busy' | 'rate_limited',
  retryAfter: number | undefined,
): Extract<FormState, {kind: 'busy' | 'rate-limited'}> {
  const seconds = retryAfter && retryAfter > 0 ? Math.ceil(retryAfter) : 0;
  return code === 'busy'
    ? {kind: 'busy', seconds: Math.min(Math.max(seconds, 1), MAX_BUSY_SECONDS), waiting: true}
    : {kind: 'rate-limited', seconds, waiting: seconds > 0};
}
