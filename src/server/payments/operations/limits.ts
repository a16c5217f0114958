/**
 * What an order's payment still allows — how much may be captured or refunded, whether
 * it may be voided — from the companion's operation intents that have not failed and the
 * operations made elsewhere that webhooks reported; and the refusal a request gets when
 * it asks for more. Pure functions, run inside the store's transaction (`operations.ts`).
 */
import {amountText, amountToMinor} from '../../gateway/primitives.js';
import type {
  AttemptRecord,
  IntentKind,
  OperationIntent,
  StoredOperation,
} from '../../store/payment-store.js';

/** An amount (exact decimal text or number) in minor units; 0 when absent or invalid. */
export const minor = (v: string | number | null | undefined): number => {
  if (v === undefined || v === null) return 0;
  const text = amountText(v);
  return text === undefined ? 0 : amountToMinor(text);
};

/** Minor units as exact decimal text. */
const text = (m: number): string => {
  const whole = Math.trunc(m / 100);
  return `${whole}.${String(m % 100).padStart(2, '0')}`;
};

/** What an order's payment allows, from its intents and the operations the gateway reported. */
export function operationLimits(
  attempt: AttemptRecord,
  intents: readonly OperationIntent[],
  operations: readonly StoredOperation[],
): {capturable: number; voidable: boolean; refundable: number} {
  const mine = intents.filter((i) => i.gatewayOrderId === attempt.gatewayOrderId);
  const claimed = new Set(mine.map((i) => i.operationId).filter(Boolean));
  // Intents that may still move money, and operations made elsewhere (the gateway's
  // dashboard) that webhooks reported.
  const live = mine.filter((i) => i.state !== 'failure');
  const foreign = operations.filter(
    (o) =>
      o.gatewayOrderId === attempt.gatewayOrderId &&
      o.status === 'success' &&
      !claimed.has(o.operationId) &&
      (o.kind === 'capture' || o.kind === 'void' || o.kind === 'refund'),
  );
  const sum = (kind: IntentKind) =>
    live.filter((i) => i.kind === kind).reduce((s, i) => s + minor(i.amount), 0) +
    [
      ...new Map(foreign.filter((o) => o.kind === kind).map((o) => [o.operationId, o])).values(),
    ].reduce((s, o) => s + minor(o.amount), 0);
  const any = (kind: IntentKind) =>
    live.some((i) => i.kind === kind) || foreign.some((o) => o.kind === kind);
  const paid = attempt.state === 'success' ? minor(attempt.amount) : 0;
  if (attempt.method === 'auth') {
    const voided = any('void');
    const captured = sum('capture');
    return {
      capturable: voided || any('capture') ? 0 : paid,
      voidable: paid > 0 && !voided && !any('capture'),
      refundable: Math.max(0, captured - sum('refund')),
    };
  }
  return {capturable: 0, voidable: false, refundable: Math.max(0, paid - sum('refund'))};
}

/** A refusal, as the store's `createIntent` check returns it. */
export interface Refusal {
  code: string;
  message: string;
}

/**
 * The amount an operation of `kind` moves on `attempt` (the whole hold for a void; what
 * was `requested`, or everything left), or why it is refused.
 */
export function allowance(
  attempt: AttemptRecord,
  kind: IntentKind,
  requested: string | undefined,
  intents: readonly OperationIntent[],
  operations: readonly StoredOperation[],
): {amount: string} | {refused: Refusal} {
  const limits = operationLimits(attempt, intents, operations);
  if (kind === 'void') {
    if (!limits.voidable) {
      return {
        refused: {
          code: 'not_voidable',
          message: 'only a held payment that was not captured or voided can be voided',
        },
      };
    }
    return {amount: attempt.amount};
  }
  const want = requested === undefined ? undefined : minor(requested);
  const left = kind === 'capture' ? limits.capturable : limits.refundable;
  if (left === 0) {
    return {
      refused:
        kind === 'capture'
          ? {
              code: 'not_capturable',
              message: 'only a held payment that was not captured or voided can be captured',
            }
          : {code: 'nothing_to_refund', message: 'nothing is left to refund on this payment'},
    };
  }
  if (want !== undefined && want > left) {
    return {
      refused: {
        code: kind === 'capture' ? 'over_capture' : 'over_refund',
        message: `amount: must be at most what is left, ${text(left)}`,
      },
    };
  }
  return {amount: text(want ?? left)};
}

/** What makes two requests under one key the same operation. */
export function fingerprint(
  kind: IntentKind,
  gatewayOrderId: string,
  requested: string | undefined,
): string {
  return `${kind}|${gatewayOrderId}|${requested === undefined ? 'all' : text(minor(requested))}`;
}
