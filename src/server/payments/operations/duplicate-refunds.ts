/**
 * The order-level invariant's second line: when an order has more than one successful
 * payment (a 3-D Secure challenge the customer abandoned and completed later, say), every
 * one but the kept one is refunded (a hold: voided), exactly once, by the
 * `duplicateCharges` policy. Each is logged at error level and reported to
 * `onPaymentUpdate` (the compensation itself is a secondary operation: `operations.ts`).
 */
import type {CheckoutLogger} from '../../telemetry/logger.js';
import type {SecondaryOperations} from './operations.js';
import type {PaymentStore} from '../../store/payment-store.js';
import {errorSummary} from '../background.js';
import type {DuplicateChargePolicy} from '../service-config.js';

export interface DuplicatesDeps {
  store: PaymentStore;
  policy: DuplicateChargePolicy;
  operations: SecondaryOperations;
  logger: CheckoutLogger;
}

/** Compensates every success of `orderRef` but the kept one (see the module comment). */
export async function compensateDuplicates(d: DuplicatesDeps, orderRef: string): Promise<void> {
  const successes = (await d.store.listAttempts(orderRef))
    .filter((a) => a.state === 'success')
    .sort((a, b) => a.updatedAt - b.updatedAt || a.seq - b.seq);
  if (successes.length < 2) return;
  const {policy, logger} = d;
  const keep = policy === 'refund-earlier' ? successes.at(-1)! : successes[0]!;
  for (const a of successes) {
    if (a === keep) continue;
    logger.error(
      {orderRef, kept: keep.gatewayOrderId, duplicate: a.gatewayOrderId, policy},
      'order charged twice',
    );
    if (policy === 'alert-only') continue;
    try {
      const r = await d.operations.compensate(a, keep);
      if (!r.repeated) {
        logger.error(
          {orderRef, gatewayOrderId: a.gatewayOrderId, kind: r.kind, state: r.state},
          'double charge compensated automatically',
        );
      }
    } catch (error) {
      logger.error(
        {orderRef, gatewayOrderId: a.gatewayOrderId, error: errorSummary(error)},
        'compensating a double charge failed: it is tried again by the next sweep',
      );
    }
  }
}
