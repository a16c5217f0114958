/**
 * Attempt rows for the tests of pure service functions (order state, answers): a new
 * attempt of order `os-1` in a given state, numbered in sequence, with overrides; and for
 * the store tests, a new `creating` attempt with a given id and order.
 */
import type {AttemptRecord, AttemptState} from '../../../src/server/index.js';

let seq = 0;

/** A new attempt row of order `os-1` in `state`, one later than the last one made. */
export function attempt(state: AttemptState, extra: Partial<AttemptRecord> = {}): AttemptRecord {
  seq++;
  return {
    attemptId: `a-${seq}`,
    orderRef: 'os-1',
    gatewayOrderId: `os-1-${seq}-abcd`,
    seq,
    method: 'purchase',
    amount: '1.50',
    currency: 'XTS',
    state,
    createdAt: 1000 * seq,
    updatedAt: 1000 * seq,
    ...extra,
  };
}

/** A new `creating` attempt `id` of `orderRef` (gateway order id `<orderRef>-<id>`), as stored. */
export function storedAttempt(
  id: string,
  orderRef: string,
  extra: Partial<AttemptRecord> = {},
): AttemptRecord {
  return {
    attemptId: id,
    orderRef,
    gatewayOrderId: `${orderRef}-${id}`,
    seq: 1,
    method: 'purchase',
    amount: '1.50',
    currency: 'XTS',
    state: 'creating',
    createdAt: 1000,
    updatedAt: 1000,
    createSentAt: 1000,
    ...extra,
  };
}
