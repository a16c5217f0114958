/**
 * The card form's state and what follows from it (src/card-form/form-state.ts, `viewOf`):
 * for every kind of state, the public phase, the status line, the Pay button's label and
 * hold, "Check again" and `retryable`, derived in that one place. Each row is a promise the
 * form makes to the customer (a declined card is not offered "Try again" unless paying again
 * is safe; a misconfigured form never is; a wait the server asked for holds the button as
 * long as the text says), so a wrong derivation fails here by name.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {
  CARD_FORM_PHASES,
  MAX_BUSY_SECONDS,
  viewOf,
  waitState,
  type FormState,
  type FormView,
} from '../../../src/card-form/form-state.js';
import {en} from '../../../src/i18n/locales/en.js';
import {uk} from '../../../src/i18n/locales/uk.js';

const ROWS: Array<[FormState, Omit<FormView, 'message'>, string]> = [
  [
    {kind: 'idle'},
    {phase: 'idle', label: 'pay', held: false, retryable: false, checkAgain: false},
    '',
  ],
  [
    {kind: 'invalid', fields: 2},
    {phase: 'idle', label: 'pay', held: false, retryable: false, checkAgain: false},
    'Please correct 2 fields.',
  ],
  [
    {kind: 'paying', attemptId: 'a-1'},
    {phase: 'pending', label: 'paying', held: true, retryable: false, checkAgain: false},
    en.paying,
  ],
  [
    {kind: 'challenge', framed: false, orderRef: 'o-1', attemptId: 'a-1'},
    {phase: 'three-ds', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.threeDSRedirecting,
  ],
  [
    {kind: 'challenge', framed: true, orderRef: 'o-1', attemptId: 'a-1'},
    {phase: 'three-ds', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.threeDSTitle,
  ],
  [
    {kind: 'checking', orderRef: 'o-1', attemptId: 'a-1'},
    {phase: 'processing', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.checking,
  ],
  [
    {kind: 'unconfirmed', processing: true, code: 'timeout', orderRef: 'o-1', attemptId: 'a-1'},
    {phase: 'processing', label: 'pay', held: false, retryable: false, checkAgain: true},
    en.stillProcessing,
  ],
  [
    {kind: 'unconfirmed', processing: false, code: 'timeout', orderRef: 'o-1', attemptId: 'a-1'},
    {phase: 'processing', label: 'pay', held: false, retryable: false, checkAgain: true},
    en.timeout,
  ],
  [
    {kind: 'unconfirmed', processing: false, code: 'network', orderRef: 'o-1', attemptId: 'a-1'},
    {phase: 'processing', label: 'pay', held: false, retryable: false, checkAgain: true},
    en.networkError,
  ],
  [
    {kind: 'succeeded'},
    {phase: 'success', label: 'paid', held: false, retryable: false, checkAgain: false},
    en.success,
  ],
  [
    {kind: 'declined', reason: 'insufficient_funds'},
    {phase: 'failure', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.declinedFunds,
  ],
  [
    {kind: 'declined', reason: 'not_confirmed'},
    {phase: 'failure', label: 'retry', held: false, retryable: true, checkAgain: false},
    en.notConfirmed,
  ],
  [
    {kind: 'declined', reason: undefined},
    {phase: 'failure', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.failure,
  ],
  [
    {kind: 'cancelled'},
    {phase: 'failure', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.threeDSCancelled,
  ],
  [
    {kind: 'failed', code: 'network', during: 'pay'},
    {phase: 'error', label: 'retry', held: false, retryable: true, checkAgain: false},
    en.networkError,
  ],
  [
    {kind: 'failed', code: 'store_unavailable', during: 'pay'},
    {phase: 'error', label: 'retry', held: false, retryable: true, checkAgain: false},
    en.gatewayUnavailable,
  ],
  [
    {kind: 'failed', code: 'misconfigured', during: 'pay'},
    {phase: 'error', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.serverError,
  ],
  [
    {kind: 'failed', code: 'missing_order', during: 'check'},
    {phase: 'error', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.missingOrder,
  ],
  [
    {kind: 'failed', code: 'internal', during: 'check'},
    {phase: 'error', label: 'pay', held: false, retryable: false, checkAgain: false},
    en.serverError,
  ],
  [
    {kind: 'rate-limited', seconds: 30, waiting: true},
    {phase: 'error', label: 'retry', held: true, retryable: true, checkAgain: false},
    'Too many attempts. Try again in 30 s.',
  ],
  [
    {kind: 'rate-limited', seconds: 30, waiting: false},
    {phase: 'error', label: 'retry', held: false, retryable: true, checkAgain: false},
    'Too many attempts. Try again in 30 s.',
  ],
  [
    {kind: 'rate-limited', seconds: 0, waiting: false},
    {phase: 'error', label: 'retry', held: false, retryable: true, checkAgain: false},
    en.serverError,
  ],
  [
    {kind: 'busy', seconds: 5, waiting: true},
    {phase: 'error', label: 'retry', held: true, retryable: true, checkAgain: false},
    'The shop is busy. Nothing was charged; try again in 5 s.',
  ],
  [
    {kind: 'busy', seconds: 5, waiting: false},
    {phase: 'error', label: 'retry', held: false, retryable: true, checkAgain: false},
    'The shop is busy. Nothing was charged; try again in 5 s.',
  ],
];

describe('viewOf: what follows from each state', () => {
  for (const [state, view, message] of ROWS) {
    it(`${JSON.stringify(state)}`, () => {
      assert.deepEqual(viewOf(state, en, 'en'), {...view, message});
    });
  }

  it('covers every kind of state and only public phases', () => {
    const kinds = new Set(ROWS.map(([s]) => s.kind));
    assert.deepEqual([...kinds].sort(), [
      'busy',
      'cancelled',
      'challenge',
      'checking',
      'declined',
      'failed',
      'idle',
      'invalid',
      'paying',
      'rate-limited',
      'succeeded',
      'unconfirmed',
    ]);
    for (const [state] of ROWS) assert.ok(CARD_FORM_PHASES.includes(viewOf(state, en, 'en').phase));
  });

  it('says it in the texts it is given: the same state reads in Ukrainian once its table is there', () => {
    assert.equal(
      viewOf({kind: 'busy', seconds: 5, waiting: true}, uk, 'uk').message,
      uk.busy.replace('{n}', '5'),
    );
    assert.equal(viewOf({kind: 'declined', reason: 'wrong_cvv'}, uk, 'uk').message, uk.declinedCvv);
  });

  it('hushes an outcome once the customer corrects the card, but never a wait still running', () => {
    const declined: FormState = {kind: 'declined', reason: 'not_confirmed', hushed: true};
    assert.deepEqual(
      [viewOf(declined, en, 'en').message, viewOf(declined, en, 'en').label],
      ['', 'retry'],
    );
    const failed: FormState = {kind: 'failed', code: 'network', during: 'pay', hushed: true};
    assert.equal(viewOf(failed, en, 'en').message, '');
    const waiting: FormState = {kind: 'busy', seconds: 5, waiting: true, hushed: true};
    assert.equal(
      viewOf(waiting, en, 'en').message,
      en.busy.replace('{n}', '5'),
      'the hold is explained',
    );
    assert.equal(viewOf({...waiting, waiting: false}, en, 'en').message, '');
  });
});

describe('waitState: the wait a refusal asks for', () => {
  it('busy: the server’s Retry-After, at least 1 s and at most the cap, rounded up', () => {
    assert.deepEqual(waitState('busy', 2.2), {kind: 'busy', seconds: 3, waiting: true});
    assert.deepEqual(waitState('busy', undefined), {kind: 'busy', seconds: 1, waiting: true});
    assert.deepEqual(waitState('busy', 0), {kind: 'busy', seconds: 1, waiting: true});
    assert.deepEqual(waitState('busy', 3600), {
      kind: 'busy',
      seconds: MAX_BUSY_SECONDS,
      waiting: true,
    });
  });

  it('rate_limited: as long as the server counts; without a wait, nothing held', () => {
    assert.deepEqual(waitState('rate_limited', 900), {
      kind: 'rate-limited',
      seconds: 900,
      waiting: true,
    });
    assert.deepEqual(waitState('rate_limited', undefined), {
      kind: 'rate-limited',
      seconds: 0,
      waiting: false,
    });
  });
});
