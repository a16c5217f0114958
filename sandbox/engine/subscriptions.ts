/**
 * Subscriptions: created by an initial payment with `init_recurring`, activated when it
 * succeeds, then charged by token on their schedule (on the sandbox clock), with retries
 * after a declined charge, until cancelled or past their expiry date. Charges go through
 * `payments.ts` like any payment, which in turn activates a subscription here.
 */
import {randomUUID} from 'node:crypto';
import {SubscriptionTransactionsQuery, amountToMinor} from '../../src/server/gateway/index.js';
import type {InitRecurring} from '../../src/server/gateway/index.js';
import {notFound} from '../errors.js';
import {anchorOf, firstChargeIndex, occurrence, utcDate} from '../schedule.js';
import {newTxn, record} from './model.js';
import type {EngineState, RequestFields, Subscription, Txn} from './model.js';
import {charge} from './payments.js';
import {validate} from './validate.js';
import {operationRecord, paymentRecord, subscriptionRecord} from './wire.js';

/** The subscription an initial payment asks for; it stays `init` until the payment succeeds. */
export function createSubscription(
  s: EngineState,
  txn: Txn,
  config: InitRecurring,
  now: number,
): void {
  const sub: Subscription = {
    id: randomUUID(),
    initial: txn,
    config,
    status: 'init',
    token: undefined,
    amountMinor: config.amount === undefined ? txn.amountMinor : amountToMinor(config.amount),
    createdAt: now,
    updatedAt: now,
    anchor: anchorOf(new Date(now), config.start_date, config.time),
    k: firstChargeIndex(config.start_date),
    charges: [],
    next: undefined,
    retry: undefined,
  };
  txn.subscription = sub;
  s.subscriptions.set(sub.id, sub);
}

/** The initial payment succeeded: keep its token and schedule the first charge. */
export function activate(s: EngineState, sub: Subscription): void {
  sub.status = 'active';
  sub.token = sub.initial.token;
  sub.updatedAt = s.now();
  scheduleNext(s, sub);
}

function scheduleNext(s: EngineState, sub: Subscription): void {
  if (sub.status !== 'active') return;
  const {interval_unit: unit, interval_count: count, expiry_date: expiry} = sub.config;
  const now = s.now();
  let at = occurrence(sub.anchor, unit, count, sub.k);
  while (at <= now) at = occurrence(sub.anchor, unit, count, ++sub.k);
  if (expiry !== undefined && utcDate(at) > expiry) {
    sub.next = undefined;
    return;
  }
  sub.next = s.o.clock.schedule(at, () => {
    sub.k++;
    sub.next = undefined;
    if (sub.status !== 'active') return;
    sub.retry?.cancel();
    sub.retry = undefined;
    chargeSubscription(s, sub, sub.config.retry_attempts);
    scheduleNext(s, sub);
  });
}

function chargeSubscription(s: EngineState, sub: Subscription, retriesLeft: number): void {
  if (sub.status !== 'active' || !sub.token) return;
  const card = s.tokens.get(sub.token);
  const initial = sub.initial;
  const fields: RequestFields = {...initial.fields};
  delete fields['result_url'];
  const txn = newTxn(s, {
    orderId: initial.orderId,
    mode: 'direct',
    method: 'purchase',
    amountMinor: sub.amountMinor,
    currency: initial.currency,
    description: initial.description,
    fields,
    card,
    token: sub.token,
    now: s.now(),
  });
  txn.chargeOf = sub;
  sub.charges.push(txn);
  record(s, txn);
  const decline = s.o.faults.take('decline', {
    orderId: initial.orderId,
    cardLast4: card?.last4,
    recurringId: sub.id,
  });
  charge(s, txn, {viaToken: true, merchantInitiated: true, decline});
  if (txn.status === 'failure' && retriesLeft > 0) {
    const at = s.now() + sub.config.retry_interval_hours * 3600_000;
    sub.retry = s.o.clock.schedule(at, () => {
      sub.retry = undefined;
      chargeSubscription(s, sub, retriesLeft - 1);
    });
  }
}

function findSubscription(s: EngineState, id: string): Subscription {
  const sub = s.subscriptions.get(id);
  if (!sub) throw notFound(`subscription ${JSON.stringify(id.slice(0, 64))}`);
  return sub;
}

/** Cancels a subscription: no further charges. */
export function cancelSubscription(s: EngineState, id: string): Record<string, unknown> {
  const sub = findSubscription(s, id);
  if (sub.status !== 'canceled') {
    sub.status = 'canceled';
    sub.updatedAt = s.now();
    sub.next?.cancel();
    sub.retry?.cancel();
    sub.next = sub.retry = undefined;
  }
  return subscriptionRecord(s, sub);
}

/** Transactions of a subscription: its payments (initial and charges) and refunds. */
export function subscriptionTransactions(
  s: EngineState,
  id: string,
  query: Record<string, string>,
): Record<string, unknown>[] {
  const q = validate(SubscriptionTransactionsQuery, query, 'query');
  const sub = findSubscription(s, id);
  const wanted = (e: {method: string; status: string}): boolean =>
    (q.method === undefined || q.method === e.method) &&
    (q.status === undefined || q.status === e.status);
  const out: Record<string, unknown>[] = [];
  for (const t of [sub.initial, ...sub.charges]) {
    if (wanted(t)) out.push(paymentRecord(s, t, 'recurring'));
    for (const op of t.operations) if (wanted(op)) out.push(operationRecord(s, op, 'recurring'));
  }
  return out;
}
