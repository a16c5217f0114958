/**
 * The sandbox's inspection views, for tests and `GET /sandbox/payments` and
 * `/sandbox/subscriptions`: every primary payment with its operations (no card number, no
 * CVV), and every subscription with its next charge time.
 */
import {amountFromMinor} from '../../src/server/gateway/index.js';
import type {EngineState, Status} from './model.js';
import {subscriptionRecord} from './wire.js';

/** A primary payment as `Sandbox.payments()` lists it: no card number, no CVV. */
export interface SandboxPayment {
  paymentId: string;
  transactionId: string;
  orderId: string;
  mode: 'direct' | 'hosted';
  method: 'purchase' | 'auth';
  amount: number;
  currency: string;
  status: Status;
  statusCode: string;
  statusDescription: string;
  ccMask: string | null;
  /** A direct payment's card: typed in (`card`: number, expiry, code) or a `cc_token`. */
  paidWith: 'card' | 'token' | null;
  recurringId: string | null;
  subscriptionCharge: boolean;
  createdAt: string;
  processedAt: string;
  heldAmount: number;
  capturedAmount: number;
  refundedAmount: number;
  operations: readonly {
    operationId: string;
    method: 'capture' | 'void' | 'refund';
    amount: number;
    status: Status;
    statusCode: string;
    createdAt: string;
  }[];
}

export function listPayments(s: EngineState): readonly SandboxPayment[] {
  return s.primaries.map((t) =>
    Object.freeze({
      paymentId: t.paymentId,
      transactionId: t.transactionId,
      orderId: t.orderId,
      mode: t.mode,
      method: t.method,
      amount: amountFromMinor(t.amountMinor),
      currency: t.currency,
      status: t.status,
      statusCode: t.code.code,
      statusDescription: t.code.description,
      ccMask: t.card?.mask ?? null,
      paidWith:
        t.mode === 'hosted' || t.chargeOf !== undefined ? null : t.paidByToken ? 'token' : 'card',
      recurringId: (t.subscription ?? t.chargeOf)?.id ?? null,
      subscriptionCharge: t.chargeOf !== undefined,
      createdAt: s.ts(t.createdAt),
      processedAt: s.ts(t.processedAt),
      heldAmount: t.heldMinor === 0 ? 0 : amountFromMinor(t.heldMinor),
      capturedAmount: t.capturedMinor === 0 ? 0 : amountFromMinor(t.capturedMinor),
      refundedAmount: t.refundedMinor === 0 ? 0 : amountFromMinor(t.refundedMinor),
      operations: Object.freeze(
        t.operations.map((o) =>
          Object.freeze({
            operationId: o.operationId,
            method: o.method,
            amount: amountFromMinor(o.amountMinor),
            status: o.status,
            statusCode: o.code.code,
            createdAt: s.ts(o.createdAt),
          }),
        ),
      ),
    }),
  );
}

/** Subscriptions, for the inspection endpoint. */
export function listSubscriptions(s: EngineState): Record<string, unknown>[] {
  return [...s.subscriptions.values()].map((sub) => ({
    ...subscriptionRecord(s, sub),
    next_charge_at: sub.next ? s.ts(sub.next.at) : null,
    charges: sub.charges.length,
  }));
}
