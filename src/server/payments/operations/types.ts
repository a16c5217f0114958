/**
 * What capture, void and refund (`operations.ts`) take and answer: the merchant's request
 * and its result, and what the operations need from the gateway and the service.
 */
import type {CheckoutLogger} from '../../telemetry/logger.js';
import type {OperationRecord, TransactionRecord} from '../../gateway/schemas.js';
import type {CaptureInput, RefundInput, VoidInput} from '../../gateway/client/index.js';
import type {
  IntentKind,
  IntentReason,
  NewPaymentUpdate,
  OperationIntent,
  PaymentStore,
} from '../../store/payment-store.js';

/** The gateway calls secondary operations need (`GatewayClient` has them). */
export interface OperationsGateway {
  capture(request: CaptureInput): Promise<OperationRecord>;
  void(request: VoidInput): Promise<OperationRecord>;
  refund(request: RefundInput): Promise<OperationRecord>;
  getOrder(orderId: string): Promise<TransactionRecord[]>;
}

/** A capture, void or refund the merchant asks for. */
export interface OperationRequest {
  orderRef: string;
  /**
   * The idempotency key: the same key is the same operation (make one per button press or
   * job, and send it again when retrying). 1-100 characters `A-Z a-z 0-9 _ . : -`.
   */
  key: string;
  /** Which payment of the order; default: the order's successful one. */
  gatewayOrderId?: string;
  /** Exact decimal; default: everything left (capture, refund). Not for void. */
  amount?: string | number;
}

/** An operation as the merchant sees it (no baseline or fingerprint). */
export interface OperationResult {
  key: string;
  orderRef: string;
  gatewayOrderId: string;
  kind: IntentKind;
  reason: IntentReason;
  amount: string;
  currency: string;
  /** `unknown`: the gateway's answer was lost; it is settled through the order lookup. */
  state: OperationIntent['state'];
  operationId?: string;
  statusCode?: string;
  statusDescription?: string;
  /** True when the key was seen before: this is the earlier operation, not a new one. */
  repeated: boolean;
}

export interface OperationsDeps {
  store: PaymentStore;
  gateway: OperationsGateway | undefined;
  logger: CheckoutLogger;
  now: () => number;
  /** Runs `fn` with the order's in-process lock held. */
  withOrderLock<T>(orderRef: string, fn: () => Promise<T>): Promise<T>;
  /** Drops the update when nobody listens (see the service's `outboxed`). */
  notify(update: NewPaymentUpdate): NewPaymentUpdate | undefined;
  kickOutbox(): void;
}

/** What the merchant sees of an intent: not its baseline, fingerprint or times. */
export function publicResult(i: OperationIntent, repeated: boolean): OperationResult {
  const {baseline: _b, fingerprint: _f, createdAt: _c, updatedAt: _u, ...rest} = i;
  return {...rest, repeated};
}
