/**
 * Orders as the merchant reaches them after creation: looking one up, cancelling an
 * unpaid hosted order, reading one operation's record, and resending a webhook.
 */
import {SANDBOX_CODES} from '../cards.js';
import {SandboxError, notFound} from '../errors.js';
import {emitOp, emitTxn} from './events.js';
import type {EngineState, Txn} from './model.js';
import {finish} from './payments.js';
import {operationRecord, paymentRecord} from './wire.js';

/** The order's primary transaction, or a not-found error. */
export function findOrder(s: EngineState, orderId: string): Txn {
  const txn = s.orders.get(orderId);
  if (!txn) throw notFound(`order ${JSON.stringify(orderId.slice(0, 64))}`);
  return txn;
}

export function cancelOrder(s: EngineState, orderId: string): Record<string, unknown>[] {
  const txn = findOrder(s, orderId);
  if (txn.mode !== 'hosted' || txn.status !== 'init') {
    throw new SandboxError(
      'P-420',
      `order: cannot be cancelled: only an unpaid (init) hosted purchase or auth can be cancelled; this one is ${txn.mode} with status ${txn.status}`,
    );
  }
  finish(s, txn, 'failure', SANDBOX_CODES.cancelled);
  return [paymentRecord(s, txn, 'cancel')];
}

/** The record of one operation of an order (`purchase`, `auth`, `capture`, `void`, `refund`). */
export function getOperation(
  s: EngineState,
  orderId: string,
  operation: string,
): Record<string, unknown> {
  const txn = findOrder(s, orderId);
  if (operation === txn.method) return paymentRecord(s, txn);
  const op = txn.operations.findLast((o) => o.method === operation);
  if (!op) throw notFound(`operation ${JSON.stringify(operation.slice(0, 32))} of this order`);
  return operationRecord(s, op);
}

/**
 * Resends the webhook of an operation (`callback=true`). For a subscription order,
 * `transactionId` picks one charge (by transaction or payment id); without it the
 * latest transaction of the subscription is used.
 */
export function resend(
  s: EngineState,
  orderId: string,
  operation: string,
  transactionId: string | undefined,
): Record<string, unknown> {
  const txn = findOrder(s, orderId);
  const sub = txn.subscription;
  if (sub && (operation === 'purchase' || operation === txn.method)) {
    const all = [sub.initial, ...sub.charges];
    const target = transactionId
      ? all.find((t) => t.transactionId === transactionId || t.paymentId === transactionId)
      : all[all.length - 1];
    if (!target)
      throw notFound(
        `transaction ${JSON.stringify(transactionId?.slice(0, 64))} of this subscription`,
      );
    emitTxn(s, target, {resend: true});
    return paymentRecord(s, target, 'recurring');
  }
  if (transactionId !== undefined) {
    throw new SandboxError(
      'V-400',
      'transactionId: is only for the purchase of a subscription order',
    );
  }
  if (operation === txn.method) {
    emitTxn(s, txn, {resend: true});
    return paymentRecord(s, txn);
  }
  const op = txn.operations.findLast((o) => o.method === operation);
  if (!op) throw notFound(`operation ${JSON.stringify(operation.slice(0, 32))} of this order`);
  emitOp(s, op, {resend: true});
  return operationRecord(s, op);
}

/** The order's records: the primary record first, then its secondary operations. */
export function getOrder(s: EngineState, orderId: string): Record<string, unknown>[] {
  const txn = findOrder(s, orderId);
  return [paymentRecord(s, txn), ...txn.operations.map((o) => operationRecord(s, o))];
}
