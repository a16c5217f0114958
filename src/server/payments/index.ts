/**
 * The payment service behind the checkout routes (see `payment-service.ts` for its
 * parts): what the rest of the companion imports from it.
 */
export {PaymentService} from './payment-service.js';
export {
  DUPLICATE_CHARGE_POLICIES,
  type CheckoutGateway,
  type DuplicateChargePolicy,
  type HostedResult,
  type PayContext,
  type ResolveOrder,
  type ServiceConfig,
  type SweepResult,
} from './service-config.js';
export {answerFor} from './answers.js';
export {statusFor} from './order-state.js';
export {errorSummary} from './background.js';
