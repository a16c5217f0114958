/**
 * Secondary operations on a paid order: capturing or voiding a held auth, and refunding
 * a purchase or a captured auth, in full or in part. Each is recorded on the ledger and
 * announced by webhook.
 */
import {randomUUID} from 'node:crypto';
import type * as z from 'zod';
import {amountToMinor} from '../../src/server/gateway/index.js';
import {SANDBOX_CODES} from '../cards.js';
import {SandboxError} from '../errors.js';
import {splitFaults, webhookCopies} from '../faults.js';
import type {Fault} from '../faults.js';
import {emitOp} from './events.js';
import {minorText} from './model.js';
import type {Code, EngineState, Operation, Txn} from './model.js';
import {findOrder} from './orders.js';
import {validate} from './validate.js';
import {operationRecord} from './wire.js';

/** Validates an operation request and finds its order, whose currency it must name. */
function target<S extends z.ZodType<{order_id: string; order_currency: string}>>(
  s: EngineState,
  schema: S,
  body: unknown,
  what: string,
): {req: z.output<S>; txn: Txn} {
  const req = validate(schema, body, what);
  const txn = findOrder(s, req.order_id);
  if (req.order_currency !== txn.currency) {
    throw new SandboxError('P-460', `order_currency: must be the order's currency ${txn.currency}`);
  }
  return {req, txn};
}

export function capture(
  s: EngineState,
  body: unknown,
  faults: readonly Fault[],
): Record<string, unknown> {
  const {req, txn} = target(s, s.requests.CaptureRequest, body, 'capture request');
  const captured = txn.operations.some((o) => o.method === 'capture');
  if (txn.method !== 'auth' || txn.status !== 'success' || txn.voided || captured) {
    throw new SandboxError(
      'P-430',
      'order_id: cannot be captured: only a successful auth (1002) that was not voided or captured yet can be captured',
    );
  }
  const amount = req.order_amount === undefined ? txn.heldMinor : amountToMinor(req.order_amount);
  if (amount > txn.heldMinor) {
    throw new SandboxError(
      'P-431',
      `order_amount: must be at most the held amount ${minorText(txn.heldMinor)}`,
    );
  }
  txn.capturedMinor = amount;
  txn.heldMinor = 0;
  s.charges++;
  return operation(s, txn, 'capture', amount, SANDBOX_CODES.success, req.server_url, faults);
}

export function voidAuth(
  s: EngineState,
  body: unknown,
  faults: readonly Fault[],
): Record<string, unknown> {
  const {req, txn} = target(s, s.requests.VoidRequest, body, 'void request');
  if (txn.method !== 'auth' || txn.status !== 'success' || txn.voided || txn.heldMinor === 0) {
    throw new SandboxError(
      'P-440',
      'order_id: cannot be voided: only a held auth (1002) that was not captured or voided yet can be voided',
    );
  }
  const amount = txn.heldMinor;
  txn.heldMinor = 0;
  txn.voided = true;
  return operation(s, txn, 'void', amount, SANDBOX_CODES.success, req.server_url, faults);
}

export function refund(
  s: EngineState,
  body: unknown,
  faults: readonly Fault[],
): Record<string, unknown> {
  const {req, txn} = target(s, s.requests.RefundRequest, body, 'refund request');
  const base =
    txn.status !== 'success' ? 0 : txn.method === 'purchase' ? txn.amountMinor : txn.capturedMinor;
  if (base === 0) {
    throw new SandboxError(
      'P-450',
      'order_id: cannot be refunded: only a successful purchase or a captured auth can be refunded',
    );
  }
  const left = base - txn.refundedMinor;
  const amount = req.refund_amount === undefined ? left : amountToMinor(req.refund_amount);
  if (left === 0 || amount > left) {
    throw new SandboxError(
      'P-451',
      `refund_amount: must be at most what is left to refund, ${minorText(left)}`,
    );
  }
  txn.refundedMinor += amount;
  return operation(s, txn, 'refund', amount, SANDBOX_CODES.refundSuccess, req.server_url, faults);
}

/** Records a successful operation, announces it and answers its record. */
function operation(
  s: EngineState,
  txn: Txn,
  method: Operation['method'],
  amountMinor: number,
  code: Code,
  serverUrl: string | undefined,
  faults: readonly Fault[],
): Record<string, unknown> {
  const now = s.now();
  const op: Operation = {
    operationId: randomUUID(),
    transactionId: randomUUID(),
    payment: txn,
    seq: ++s.seq,
    method,
    amountMinor,
    status: 'success',
    code,
    createdAt: now,
    processedAt: now,
    serverUrl,
    webhookCopies: webhookCopies(splitFaults(faults).webhook),
    lastEvent: undefined,
  };
  txn.operations.push(op);
  s.ledger.push(op);
  emitOp(s, op);
  return operationRecord(s, op);
}
