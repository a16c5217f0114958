/**
 * What callers pass in: the input types of the endpoints (a request whose `pos_id` the
 * client fills in), the checks of path parameters (order ids, operations, subscription
 * and report ids), and `validate`, which turns a failed check into a
 * `GatewayRequestValidationError` naming every field and rule, never a value, before anything
 * is sent.
 */
import * as z from 'zod';
import {GatewayRequestValidationError} from '../errors.js';
import {text} from '../primitives.js';
import {
  CaptureRequest,
  parseOrIssues,
  RefundRequest,
  REGISTER_METHODS,
  RegisterRequest,
  VoidRequest,
} from '../schemas.js';

/** A request with `pos_id` optional: the client fills in its own. */
export type WithOptionalPosId<T> = T extends unknown
  ? Omit<T, 'pos_id'> & {pos_id?: string}
  : never;

/** `capture`, `void` and `refund` inputs (beyond the spec; see gateway-facts.md). */
export type CaptureInput = WithOptionalPosId<z.input<typeof CaptureRequest>>;
/** A void of an `auth` hold (`GatewayClient.void`); `pos_id` defaults to the client's. */
export type VoidInput = WithOptionalPosId<z.input<typeof VoidRequest>>;
/**
 * A refund, whole or part, of a settled payment (`GatewayClient.refund`); `pos_id` defaults to the
 * client's.
 */
export type RefundInput = WithOptionalPosId<z.input<typeof RefundRequest>>;
/** A register request; `project_id` defaults to the client's project. */
export type RegisterInput = Omit<z.input<typeof RegisterRequest>, 'project_id'> & {
  project_id?: string;
};

/** An order's `order_id` in a path. */
export const OrderId = text(256);
/** A subscription, transaction or report id in a path. */
export const Identifier = text(256);
/** An operation of an order in a path (`purchase`, `auth`, `capture`, ...). */
export const Operation = z.enum(REGISTER_METHODS, {
  error: `must be one of ${REGISTER_METHODS.join(', ')}`,
});

/** `input` checked with `schema`, or a `GatewayRequestValidationError` naming each field and rule. */
export function validate<S extends z.ZodType>(
  what: string,
  schema: S,
  input: unknown,
): z.output<S> {
  const parsed = parseOrIssues(schema, input);
  if (!parsed.ok) throw new GatewayRequestValidationError(what, parsed.issues);
  return parsed.data;
}
