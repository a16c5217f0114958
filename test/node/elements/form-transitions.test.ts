/**
 * The card form's transitions (src/card-form/form-transitions.ts, `transition`) and the
 * events derived from them (form-events.ts): for every state and every step, the state the
 * step leads to, or a refusal (`undefined`, nothing moves) — never a state forced into
 * shape. The table below is the whole machine: a step added or a state accepting a step it
 * should refuse fails here by name. Then the events: which transition announces which
 * event, with which detail, and that a refused step announces nothing.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import type {FormState} from '../../../src/card-form/form-state.js';
import {transition, type FormStep} from '../../../src/card-form/form-transitions.js';
import {ASKING, TRANSITION_EVENTS, eventOf} from '../../../src/card-form/form-events.js';
import type {PayError} from '../../../src/card-form/pay.js';

const F = {orderRef: 'o-1', attemptId: 'a-1'};

/** One state of every kind (and the variants a step tells apart). */
const STATES: Record<string, FormState> = {
  idle: {kind: 'idle'},
  invalid: {kind: 'invalid', fields: 2},
  'invalid (retry)': {kind: 'invalid', fields: 1, retry: 'r-1'},
  paying: {kind: 'paying', attemptId: 'a-1'},
  challenge: {kind: 'challenge', framed: false, ...F},
  checking: {kind: 'checking', ...F},
  unconfirmed: {kind: 'unconfirmed', processing: true, code: 'timeout', ...F},
  succeeded: {kind: 'succeeded'},
  declined: {kind: 'declined', reason: 'wrong_cvv'},
  cancelled: {kind: 'cancelled'},
  failed: {kind: 'failed', code: 'network', during: 'pay', retry: 'r-1'},
  'busy (waiting)': {kind: 'busy', seconds: 3, waiting: true, retry: 'r-1'},
  busy: {kind: 'busy', seconds: 3, waiting: false, retry: 'r-1'},
  'rate-limited (waiting)': {kind: 'rate-limited', seconds: 60, waiting: true},
};

const error = (code: PayError['code'], extra: Partial<PayError> = {}): PayError => ({
  outcome: 'error',
  code,
  message: '',
  retrySameAttempt: ['network', 'busy', 'rate_limited'].includes(code),
  ...extra,
});

/** One step of every type. */
const STEPS: Record<string, FormStep> = {
  invalid: {type: 'invalid', fields: 3},
  pay: {type: 'pay', orderRef: 'o-1', attemptId: 'a-2'},
  paid: {
    type: 'paid',
    response: {outcome: 'success', orderRef: 'o-1', code: '1000', message: 'Approved'},
  },
  declined: {
    type: 'declined',
    response: {
      outcome: 'failure',
      orderRef: 'o-1',
      code: '2001',
      message: 'No',
      reason: 'insufficient_funds',
    },
  },
  challenged: {
    type: 'challenged',
    response: {outcome: '3ds_required', orderRef: 'o-9', userActionUrl: 'https://bank.test/'},
  },
  processing: {type: 'processing', orderRef: 'o-9'},
  'refused (network)': {type: 'refused', error: error('network'), orderRef: 'o-1', message: 'm'},
  'refused (busy)': {
    type: 'refused',
    error: error('busy', {retryAfter: 5}),
    orderRef: 'o-1',
    message: 'm',
  },
  framed: {type: 'framed'},
  check: {type: 'check'},
  confirmed: {type: 'confirmed'},
  unpaid: {type: 'unpaid', reason: 'expired'},
  unknown: {type: 'unknown', code: 'timeout', retryable: true, processing: false, ...F},
  cancelled: {type: 'cancelled'},
  waited: {type: 'waited'},
  typed: {type: 'typed'},
  reset: {type: 'reset'},
};

/** Where each step leads from each state; a missing cell is a refusal. */
const MACHINE: Record<string, Partial<Record<string, FormState>>> = {
  invalid: {
    idle: {kind: 'invalid', fields: 3},
    invalid: {kind: 'invalid', fields: 3},
    'invalid (retry)': {kind: 'invalid', fields: 3, retry: 'r-1'},
    challenge: {kind: 'invalid', fields: 3},
    checking: {kind: 'invalid', fields: 3},
    unconfirmed: {kind: 'invalid', fields: 3},
    succeeded: {kind: 'invalid', fields: 3},
    declined: {kind: 'invalid', fields: 3},
    cancelled: {kind: 'invalid', fields: 3},
    failed: {kind: 'invalid', fields: 3, retry: 'r-1'},
    'busy (waiting)': {kind: 'invalid', fields: 3, retry: 'r-1'},
    busy: {kind: 'invalid', fields: 3, retry: 'r-1'},
    'rate-limited (waiting)': {kind: 'invalid', fields: 3},
  },
  pay: Object.fromEntries(
    [
      'idle',
      'invalid',
      'invalid (retry)',
      'challenge',
      'checking',
      'unconfirmed',
      'declined',
      'cancelled',
      'failed',
      'busy',
    ].map((s) => [s, {kind: 'paying', attemptId: 'a-2'}]),
  ),
  paid: {paying: {kind: 'succeeded', before: undefined}},
  declined: {paying: {kind: 'declined', reason: 'insufficient_funds'}},
  challenged: {paying: {kind: 'challenge', framed: false, orderRef: 'o-9', attemptId: 'a-1'}},
  processing: {paying: {kind: 'checking', orderRef: 'o-9', attemptId: 'a-1'}},
  'refused (network)': {
    // From the request: the same attempt again. Before any request: the retry kept.
    paying: {kind: 'failed', code: 'network', during: 'pay', retry: 'a-1'},
    idle: {kind: 'failed', code: 'network', during: 'pay'},
    invalid: {kind: 'failed', code: 'network', during: 'pay'},
    'invalid (retry)': {kind: 'failed', code: 'network', during: 'pay', retry: 'r-1'},
    challenge: {kind: 'failed', code: 'network', during: 'pay'},
    checking: {kind: 'failed', code: 'network', during: 'pay'},
    unconfirmed: {kind: 'failed', code: 'network', during: 'pay'},
    declined: {kind: 'failed', code: 'network', during: 'pay'},
    cancelled: {kind: 'failed', code: 'network', during: 'pay'},
    failed: {kind: 'failed', code: 'network', during: 'pay', retry: 'r-1'},
    busy: {kind: 'failed', code: 'network', during: 'pay', retry: 'r-1'},
  },
  'refused (busy)': {
    paying: {kind: 'busy', seconds: 5, waiting: true, retry: 'a-1'},
    idle: {kind: 'busy', seconds: 5, waiting: true},
    invalid: {kind: 'busy', seconds: 5, waiting: true},
    'invalid (retry)': {kind: 'busy', seconds: 5, waiting: true, retry: 'r-1'},
    challenge: {kind: 'busy', seconds: 5, waiting: true},
    checking: {kind: 'busy', seconds: 5, waiting: true},
    unconfirmed: {kind: 'busy', seconds: 5, waiting: true},
    declined: {kind: 'busy', seconds: 5, waiting: true},
    cancelled: {kind: 'busy', seconds: 5, waiting: true},
    failed: {kind: 'busy', seconds: 5, waiting: true, retry: 'r-1'},
    busy: {kind: 'busy', seconds: 5, waiting: true, retry: 'r-1'},
  },
  framed: {challenge: {kind: 'challenge', framed: true, ...F}},
  check: {unconfirmed: {kind: 'checking', ...F}},
  // The status check's outcomes: over anything but a payment in flight or one paid.
  ...Object.fromEntries(
    (
      [
        ['confirmed', {kind: 'succeeded'}],
        ['unpaid', {kind: 'declined', reason: 'expired'}],
        ['cancelled', {kind: 'cancelled'}],
        ['unknown', {kind: 'unconfirmed', processing: false, code: 'timeout', ...F}],
      ] as const
    ).map(([step, next]) => [
      step,
      Object.fromEntries(
        Object.keys(STATES)
          .filter((s) => s !== 'paying' && s !== 'succeeded')
          .map((s) => [s, next]),
      ),
    ]),
  ),
  waited: {
    'busy (waiting)': {kind: 'busy', seconds: 3, waiting: false, retry: 'r-1'},
    'rate-limited (waiting)': {kind: 'rate-limited', seconds: 60, waiting: false},
  },
  typed: {
    declined: {kind: 'declined', reason: 'wrong_cvv', hushed: true},
    cancelled: {kind: 'cancelled', hushed: true},
    failed: {kind: 'failed', code: 'network', during: 'pay', retry: 'r-1', hushed: true},
    'busy (waiting)': {kind: 'busy', seconds: 3, waiting: true, retry: 'r-1', hushed: true},
    busy: {kind: 'busy', seconds: 3, waiting: false, retry: 'r-1', hushed: true},
    'rate-limited (waiting)': {kind: 'rate-limited', seconds: 60, waiting: true, hushed: true},
  },
  reset: Object.fromEntries(
    Object.keys(STATES)
      .filter((s) => s !== 'paying')
      .map((s) => [s, {kind: 'idle'}]),
  ),
};

describe('transition: every state × every step', () => {
  it('the table names every step type and every state kind', () => {
    assert.deepEqual(Object.keys(MACHINE).sort(), Object.keys(STEPS).sort());
    const kinds = new Set(Object.values(STATES).map((s) => s.kind));
    assert.equal(kinds.size, 12, 'one state of each of the 12 kinds');
  });

  for (const [stepName, step] of Object.entries(STEPS)) {
    for (const [stateName, state] of Object.entries(STATES)) {
      const expected = MACHINE[stepName]![stateName];
      it(`${stepName} from ${stateName}: ${expected ? expected.kind : 'refused'}`, () => {
        const before = structuredClone(state);
        assert.deepEqual(transition(state, step), expected);
        assert.deepEqual(state, before, 'the state given is not changed');
      });
    }
  }

  it('a refused step is refused, not forced: the same state and step refuse again', () => {
    const paying: FormState = {kind: 'paying', attemptId: 'a-1'};
    assert.equal(transition(paying, {type: 'pay', orderRef: 'o', attemptId: 'x'}), undefined);
    assert.equal(transition(paying, {type: 'typed'}), undefined);
    assert.equal(transition({kind: 'idle'}, STEPS.paid!), undefined, 'no answer without a request');
  });

  it('a refusal from the pay request that may not be resent starts a new attempt', () => {
    const next = transition(
      {kind: 'paying', attemptId: 'a-1'},
      {type: 'refused', error: error('invalid_request'), orderRef: 'o', message: ''},
    );
    assert.deepEqual(next, {kind: 'failed', code: 'invalid_request', during: 'pay'});
  });

  it('a cancelled challenge, told by the pay route or the status route, is `cancelled`', () => {
    const abandoned = {
      ...STEPS.declined,
      response: {...(STEPS.declined as {response: object}).response, reason: 'abandoned'},
    } as FormStep;
    assert.deepEqual(transition({kind: 'paying', attemptId: 'a'}, abandoned), {kind: 'cancelled'});
    assert.deepEqual(transition(STATES.challenge!, {type: 'unpaid', reason: 'abandoned'}), {
      kind: 'cancelled',
    });
  });

  it('a status error that cannot be retried fails the check, not the payment', () => {
    assert.deepEqual(
      transition(STATES.checking!, {
        ...(STEPS.unknown as FormStep & {type: 'unknown'}),
        code: 'missing_order',
        retryable: false,
      }),
      {kind: 'failed', code: 'missing_order', during: 'check'},
    );
  });
});

describe('events derived from transitions', () => {
  it('only these transitions announce an event, and only pg-submit asks first', () => {
    assert.deepEqual(Object.keys(TRANSITION_EVENTS).sort(), [
      'challenged',
      'declined',
      'paid',
      'pay',
      'refused',
    ]);
    assert.deepEqual(ASKING, ['pay']);
  });

  const cases: Array<[string, string, Record<string, unknown>]> = [
    ['pay', 'pg-submit', {orderRef: 'o-1', attemptId: 'a-2'}],
    ['paid', 'pg-success', {orderRef: 'o-1', code: '1000', message: 'Approved'}],
    ['declined', 'pg-failure', {orderRef: 'o-1', code: '2001', message: 'No'}],
    ['challenged', 'pg-3ds-required', {orderRef: 'o-9', userActionUrl: 'https://bank.test/'}],
    ['refused (busy)', 'pg-error', {orderRef: 'o-1', code: 'busy', message: 'm', retryable: true}],
  ];
  for (const [stepName, type, detail] of cases) {
    it(`${stepName} announces ${type} with its detail`, () => {
      const step = STEPS[stepName]!;
      const from: FormState =
        stepName === 'pay' ? {kind: 'idle'} : {kind: 'paying', attemptId: 'a-1'};
      const next = transition(from, step)!;
      const event = eventOf(step, next) as Event & {detail: unknown};
      assert.equal(event.type, type);
      assert.deepEqual({...(event.detail as object)}, detail);
      assert.equal(event.cancelable, type === 'pg-submit' || type === 'pg-3ds-required');
    });
  }

  it('pg-error says retryable as the state it led to does', () => {
    const misconfigured: FormStep = {
      type: 'refused',
      error: error('misconfigured'),
      orderRef: 'o',
      message: 'm',
    };
    const next = transition({kind: 'idle'}, misconfigured)!;
    assert.equal(
      (eventOf(misconfigured, next) as Event & {detail: {retryable: boolean}}).detail.retryable,
      false,
    );
    const withStatus: FormStep = {...misconfigured, error: error('internal', {status: 500})};
    const event = eventOf(withStatus, transition({kind: 'paying', attemptId: 'a'}, withStatus)!);
    assert.equal((event as Event & {detail: {status?: number}}).detail.status, 500);
  });

  it('the success event never carries the answer’s outcome or cardSaved', () => {
    const step: FormStep = {
      type: 'paid',
      response: {
        outcome: 'success',
        orderRef: 'o',
        code: '1000',
        message: 'ok',
        cardMask: '4242',
        alreadyPaid: true,
        cardSaved: false,
      },
    };
    const event = eventOf(step, {kind: 'succeeded', before: true}) as Event & {detail: object};
    assert.deepEqual(
      {...event.detail},
      {orderRef: 'o', code: '1000', message: 'ok', cardMask: '4242', alreadyPaid: true},
    );
  });

  it('the status outcomes and the form’s own moves announce nothing', () => {
    for (const name of [
      'confirmed',
      'unpaid',
      'unknown',
      'cancelled',
      'framed',
      'check',
      'waited',
      'typed',
      'reset',
      'invalid',
      'processing',
    ]) {
      assert.equal(eventOf(STEPS[name]!, {kind: 'idle'}), undefined, name);
    }
  });
});
