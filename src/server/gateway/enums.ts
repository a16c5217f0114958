/**
 * The gateway's enumerations (modes, methods, statuses, interval units, register fields,
 * status codes) as lists and zod enums: part of the gateway model (`schemas.ts`).
 */
import * as z from 'zod';

/**
 * A payment's `mode`: `direct` (the card comes through your server) or `hosted` (the gateway's
 * page).
 */
export const MODES = ['direct', 'hosted'] as const;
/**
 * The `method` of a payment you create: `purchase` (charged at once) or `auth` (held, then captured
 * or voided).
 */
export const CREATE_METHODS = ['auth', 'purchase'] as const;
export const PRIMARY_METHODS = ['purchase', 'auth', 'credit', 'p2p', 'lookup'] as const;
export const SECONDARY_METHODS = ['capture', 'void', 'refund'] as const;
/** The transaction methods a register (`RegisterInput.methods`) can select. */
export const REGISTER_METHODS = [
  'auth',
  'purchase',
  'capture',
  'void',
  'p2p',
  'credit',
  'lookup',
  'refund',
  'dispute',
  'recurrent',
] as const;
/** A transaction's `status`: `init`, `pending`, then `success` or `failure` (final). */
export const STATUSES = ['init', 'pending', 'success', 'failure'] as const;
/**
 * A subscription's status at the gateway: `init` until its first payment succeeds, `active`,
 * `canceled`.
 */
export const RECURRING_STATUSES = ['init', 'active', 'canceled'] as const;
/** The units of a subscription's `interval_unit` (`init_recurring`). */
export const INTERVAL_UNITS = ['day', 'week', 'month', 'quarter', 'year'] as const;
/** Values of `order_3ds_bypass` seen in real traffic; the full list is not published. */
export const ORDER_3DS_BYPASS_VALUES = ['supported', 'always', 'never'] as const;
/** Fields a register can select (`transaction_details`). */
export const REGISTER_FIELDS = [
  'projectId',
  'orderId',
  'paymentId',
  'amount',
  'currency',
  'method',
  'status',
  'dateTime',
  'cardMask',
  'payway',
  'customerFee',
  'merchantFee',
  'entityName',
  'projectName',
  'originalAmount',
  'exchangeAmount',
  'exchangeCurrency',
  'exchangeRate',
  'tokenizationKind',
  'authCode',
  'rrnCode',
  'description',
  'payload',
  'paymentSystem',
  'recipientCardMask',
  'reserveAmount',
  'receiverName',
  'receiverAmount',
  'receiverFee',
] as const;

/** Status codes the spec and the facts file name. The full list is not published. */
export const STATUS_CODES = {
  success: '1000',
  authSuccess: '1002',
  refundSuccess: '1004',
  wrongCvv: '2007',
  threeDSRequired: '2122',
  issuerError: '5152',
  cancelled: '6007',
} as const;

export const Mode = z.enum(MODES, {error: `must be one of ${MODES.join(', ')}`});
export const CreateMethod = z.enum(CREATE_METHODS, {
  error: `must be one of ${CREATE_METHODS.join(', ')}`,
});
export const Status = z.enum(STATUSES, {error: `must be one of ${STATUSES.join(', ')}`});
export const RecurringStatus = z.enum(RECURRING_STATUSES, {
  error: `must be one of ${RECURRING_STATUSES.join(', ')}`,
});
export const IntervalUnit = z.enum(INTERVAL_UNITS, {
  error: `must be one of ${INTERVAL_UNITS.join(', ')}`,
});
export const RegisterMethod = z.enum(REGISTER_METHODS, {
  error: `must be one of ${REGISTER_METHODS.join(', ')}`,
});
export const RegisterField = z.enum(REGISTER_FIELDS, {
  error: 'must be a register field of the spec',
});
