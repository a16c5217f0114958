/**
 * An order's state, derived in one place (`service/order-state.ts`) from its attempts:
 * which attempt answers for the order, and what the status route says — tested directly
 * on attempt rows, including the written-off and double-success cases.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {attempt} from './attempt-rows.js';
import {answerFor} from '../../../src/server/payments/answers.js';
import {
  currentAttempt,
  isStaleChallenge,
  orderState,
  paidAttempt,
  statusFor,
} from '../../../src/server/payments/order-state.js';

describe('orderState', () => {
  test('no attempts: none, and a new attempt may start', () => {
    assert.deepEqual(orderState('os-1', []), {
      current: undefined,
      status: {orderRef: 'os-1', state: 'none', final: false},
    });
  });

  test('a success answers for the order, before any other attempt', () => {
    const failed = attempt('failure', {statusCode: '5152', statusDescription: 'declined'});
    const paid = attempt('success', {statusCode: '1000', statusDescription: 'Approved'});
    const {current, status} = orderState('os-1', [failed, paid]);
    assert.equal(current, paid);
    assert.deepEqual(status, {
      orderRef: 'os-1',
      state: 'success',
      final: true,
      code: '1000',
      message: 'Approved',
    });
    assert.equal(paidAttempt([failed, paid]), paid);
  });

  test('charged twice: the first success answers (the one refund-later keeps)', () => {
    const first = attempt('success', {statusDescription: 'first'});
    const second = attempt('success', {statusDescription: 'second'});
    assert.equal(currentAttempt([first, second]), first);
    assert.equal(statusFor('os-1', [first, second]).message, 'first');
  });

  test('a success that was written off (an abandoned challenge paid later) still answers', () => {
    const late = attempt('success', {writtenOff: 'abandoned'});
    const failed = attempt('failure');
    assert.equal(currentAttempt([late, failed]), late);
    assert.equal(statusFor('os-1', [late, failed]).state, 'success');
  });

  test('a live 3-D Secure attempt: pending, with its challenge address', () => {
    const challenge = attempt('pending', {userActionUrl: 'https://gw.example/3ds/1'});
    const {current, status} = orderState('os-1', [attempt('failure'), challenge]);
    assert.equal(current, challenge);
    assert.deepEqual(status, {
      orderRef: 'os-1',
      state: 'pending',
      final: false,
      message: 'The payment is being processed.',
      userActionUrl: 'https://gw.example/3ds/1',
    });
  });

  test('a creating attempt: processing, and it still answers for the order', () => {
    const open = attempt('creating');
    const {current, status} = orderState('os-1', [open]);
    assert.equal(current, open);
    assert.equal(status.state, 'processing');
    assert.equal(status.final, false);
    assert.equal(paidAttempt([open]), undefined);
  });

  test('an unknown attempt: not confirmed, pay again (as pay answers), and it still answers for the order', () => {
    const open = attempt('unknown');
    const {current, status} = orderState('os-1', [open]);
    assert.equal(current, open, 'its order_id is what the next create re-sends');
    assert.deepEqual(status, {
      orderRef: 'os-1',
      state: 'failure',
      final: true,
      code: 'not_confirmed',
      reason: 'not_confirmed',
      message:
        'The bank did not confirm the payment in time. You can try again: this order cannot be charged twice.',
    });
    const paid = answerFor(open);
    assert.equal(paid.outcome, 'failure');
    assert.equal((paid as {reason: string}).reason, status.reason, 'pay and status agree');
    assert.equal(paidAttempt([open]), undefined);
  });

  test('a written-off challenge no longer answers: the order failed, saying why', () => {
    const abandoned = attempt('pending', {writtenOff: 'abandoned'});
    const {current, status} = orderState('os-1', [abandoned]);
    assert.equal(current, undefined);
    assert.deepEqual(status, {
      orderRef: 'os-1',
      state: 'failure',
      final: true,
      code: 'abandoned',
      reason: 'abandoned',
      message: 'The payment was cancelled. You can try again.',
    });
    const expired = attempt('init', {writtenOff: 'expired'});
    assert.equal(statusFor('os-1', [abandoned, expired]).code, 'expired', 'the last one speaks');
  });

  test('every attempt failed: the last failure speaks, and a new attempt may start', () => {
    const refused = attempt('failure', {failureReason: 'not_created'});
    const declined = attempt('failure', {statusCode: '2007', statusDescription: 'Wrong CVV'});
    assert.equal(currentAttempt([refused, declined]), undefined);
    assert.deepEqual(statusFor('os-1', [declined, refused]), {
      orderRef: 'os-1',
      state: 'failure',
      final: true,
      code: 'not_created',
      reason: 'not_created',
      message: 'The payment was not made and no money was taken. You can try again.',
    });
    assert.equal(statusFor('os-1', [refused, declined]).code, '2007');
  });
});

describe('isStaleChallenge', () => {
  test('only an open 3-D Secure attempt without news for abandonAfterMs', () => {
    const now = 100_000;
    const quiet = attempt('pending', {createdAt: 0, lastGatewayAt: 40_000});
    assert.equal(isStaleChallenge(quiet, now, 60_000), true);
    assert.equal(isStaleChallenge(quiet, now, 60_001), false, 'news counts from the last one');
    assert.equal(isStaleChallenge({...quiet, writtenOff: 'abandoned'}, now, 1), false);
    assert.equal(isStaleChallenge({...quiet, state: 'unknown'}, now, 1), false);
    assert.equal(isStaleChallenge({...quiet, state: 'success'}, now, 1), false);
  });
});
