/**
 * An order's state, derived in this one place from its attempts (oldest first, as the
 * store lists them): which attempt answers for the order — the one pay and hosted pay
 * answer with, the one secondary operations act on — and what the status route says.
 *
 * The store keeps at most one live attempt per order besides successful ones (it inserts
 * a new attempt only when the order has none: `isLiveAttempt`), so "the order's attempt"
 * is its first success, else its live attempt, else none (every attempt failed or was
 * written off, and the customer may pay again).
 */
import type {PayFailure, StatusResponse} from '../../protocol/checkout.js';
import {isLiveAttempt, type AttemptRecord} from '../store/payment-store.js';
import {
  NOT_CONFIRMED_CODE,
  NOT_CONFIRMED_MESSAGE,
  PROCESSING_PENDING,
  PROCESSING_UNKNOWN,
  answerFor,
} from './answers.js';

/** What an order's attempts add up to. */
export interface OrderState {
  /**
   * The attempt that answers for the order: its first successful one, else its live one
   * (which blocks a new attempt); `undefined` when a new attempt may start.
   */
  current: AttemptRecord | undefined;
  /** The order's state as the status route tells it. */
  status: StatusResponse;
}

/** The order's state from its attempts (oldest first). */
export function orderState(orderRef: string, attempts: readonly AttemptRecord[]): OrderState {
  const current = currentAttempt(attempts);
  return {current, status: statusOf(orderRef, current, attempts.at(-1))};
}

/** The attempt that answers for the order (see {@link OrderState.current}). */
export function currentAttempt(attempts: readonly AttemptRecord[]): AttemptRecord | undefined {
  return attempts.find((a) => a.state === 'success') ?? attempts.find(isLiveAttempt);
}

/** The order's state for the status route, from its attempts (oldest first). */
export function statusFor(orderRef: string, attempts: readonly AttemptRecord[]): StatusResponse {
  return orderState(orderRef, attempts).status;
}

/** The order's paid attempt (its first success), if any. */
export function paidAttempt(attempts: readonly AttemptRecord[]): AttemptRecord | undefined {
  const current = currentAttempt(attempts);
  return current?.state === 'success' ? current : undefined;
}

function statusOf(
  orderRef: string,
  current: AttemptRecord | undefined,
  last: AttemptRecord | undefined,
): StatusResponse {
  if (current?.state === 'success') {
    return {
      orderRef,
      state: 'success',
      final: true,
      code: current.statusCode ?? '1000',
      message: current.statusDescription ?? 'Payment successful',
    };
  }
  if (current?.state === 'pending' || current?.state === 'init') {
    return {
      orderRef,
      state: 'pending',
      final: false,
      message: PROCESSING_PENDING,
      ...(current.userActionUrl ? {userActionUrl: current.userActionUrl} : {}),
    };
  }
  if (current?.state === 'unknown') {
    // The gateway never confirmed the create (a timeout, a crash while it was sent): the
    // answer pay gives, so "check again" has an end. Paying again is safe: the create is
    // sent again with the same `order_id`, which the gateway charges at most once. Final
    // for the customer — nothing more to wait for — though a late confirmation of the
    // create (a webhook, a lookup, the next payment's P-409) still turns it into `success`.
    return {
      orderRef,
      state: 'failure',
      final: true,
      code: NOT_CONFIRMED_CODE,
      reason: 'not_confirmed',
      message: NOT_CONFIRMED_MESSAGE,
    };
  }
  // `creating`: this process's create call runs (bounded by the gateway client's timeout),
  // or another process's (made `unknown` after CREATE_GRACE_MS without a trace of it).
  if (current) return {orderRef, state: 'processing', final: false, message: PROCESSING_UNKNOWN};
  if (last) {
    // Failed, or written off: the last attempt's answer says why.
    const {code, reason, message} = answerFor(last) as PayFailure;
    return {orderRef, state: 'failure', final: true, code, ...(reason ? {reason} : {}), message};
  }
  return {orderRef, state: 'none', final: false};
}

/** How long an attempt has gone without news from the gateway (milliseconds). */
export function sinceNews(a: AttemptRecord, now: number): number {
  return now - Math.max(a.createdAt, a.lastGatewayAt ?? 0);
}

/**
 * True when a 3-D Secure attempt (`init`/`pending`, not yet written off) has gone without
 * news for `abandonAfterMs`: it stops blocking its order (`markWrittenOff(…, 'expired')`).
 */
export function isStaleChallenge(a: AttemptRecord, now: number, abandonAfterMs: number): boolean {
  return (
    (a.state === 'init' || a.state === 'pending') &&
    !a.writtenOff &&
    sinceNews(a, now) >= abandonAfterMs
  );
}

/**
 * True when the gateway may be asked about an `unknown` attempt again (status route,
 * return route, sweep): its lookups back off as the sweep's do (`initialBackoffMs`,
 * doubling with each lookup, up to `maxBackoffMs`) and stop after `maxLookups` (with the
 * defaults, 10 lookups over about 43 minutes). The customer was told it is not confirmed
 * and may pay again; paying again still asks (and re-sends the create with the same
 * `order_id`), and a webhook still settles it.
 */
export function unknownLookupDue(
  a: Pick<AttemptRecord, 'checks' | 'lastCheckAt'>,
  now: number,
  backoff: {initialBackoffMs: number; maxBackoffMs: number},
  maxLookups: number,
): boolean {
  const checks = a.checks ?? 0;
  if (checks >= maxLookups) return false;
  if (a.lastCheckAt === undefined) return true;
  return now - a.lastCheckAt >= lookupBackoff(checks, backoff);
}

/** The wait after an attempt's `checks`-th lookup before the next (the sweep's backoff). */
export function lookupBackoff(
  checks: number,
  b: {initialBackoffMs: number; maxBackoffMs: number},
): number {
  return Math.min(b.maxBackoffMs, b.initialBackoffMs * 2 ** Math.min(30, Math.max(0, checks - 1)));
}
