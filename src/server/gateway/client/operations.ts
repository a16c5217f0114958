/**
 * An order's operations: reading one operation or all of them, asking for a webhook
 * again, and the secondary operations capture, void and refund (beyond the spec, from
 * gateway-facts.md), which are writes and never retried.
 */
import * as z from 'zod';
import {GatewayProtocolError} from '../errors.js';
import {
  CaptureRequest,
  isOperationRecord,
  OperationRecord,
  OrderTransactions,
  PaymentRecord,
  RefundRequest,
  SECONDARY_METHODS,
  TransactionRecord,
  VoidRequest,
} from '../schemas.js';
import {parseJson, readJson, readRecord, shapeError} from './answers.js';
import {
  Identifier,
  Operation,
  OrderId,
  validate,
  type CaptureInput,
  type RefundInput,
  type VoidInput,
} from './requests.js';
import type {ClientContext} from './transport.js';

/** The record of one operation of an order; see `GatewayClient.getOperation`. */
export async function getOperation(
  ctx: ClientContext,
  orderId: string,
  operation: string,
): Promise<TransactionRecord> {
  validate('operation lookup', z.strictObject({orderId: OrderId, operation: Operation}), {
    orderId,
    operation,
  });
  const answer = await ctx.transport.send({
    endpoint: 'getOperation',
    params: {posId: ctx.settings.posId, orderId, operation},
    failure: 'read',
    what: 'operation lookup',
  });
  const secondary = (SECONDARY_METHODS as readonly string[]).includes(operation);
  return secondary
    ? readRecord(answer, OperationRecord, 'operation record')
    : readRecord(answer, PaymentRecord, 'payment record');
}

/** Asks for an operation's webhook again; see `GatewayClient.resendWebhook`. */
export async function resendWebhook(
  ctx: ClientContext,
  orderId: string,
  operation: string,
  options: {transactionId?: string} = {},
): Promise<TransactionRecord | undefined> {
  validate(
    'webhook resend',
    z.strictObject({orderId: OrderId, operation: Operation, transactionId: Identifier.optional()}),
    {orderId, operation, ...options},
  );
  const query: Record<string, string> = {callback: 'true'};
  if (options.transactionId !== undefined) query['transactionId'] = options.transactionId;
  const answer = await ctx.transport.send({
    endpoint: 'resendWebhook',
    params: {posId: ctx.settings.posId, orderId, operation},
    query,
    failure: 'read',
    what: 'webhook resend',
  });
  const json = parseJson(answer.body);
  if (!json.ok) return undefined;
  const record = TransactionRecord.safeParse(json.value);
  return record.success ? record.data : undefined;
}

/** Every transaction of an order; see `GatewayClient.getOrder`. */
export async function getOrder(ctx: ClientContext, orderId: string): Promise<TransactionRecord[]> {
  validate('order lookup', z.strictObject({orderId: OrderId}), {orderId});
  const answer = await ctx.transport.send({
    endpoint: 'getOrder',
    params: {posId: ctx.settings.posId, orderId},
    failure: 'read',
    what: 'order lookup',
  });
  const value = readJson(answer, 'order transactions');
  const parsed = OrderTransactions.safeParse(value);
  if (!parsed.success) throw shapeError(answer, 'order transactions', parsed.error, value);
  return parsed.data;
}

/** The request check of each secondary operation. */
const SECONDARY = {
  capture: CaptureRequest,
  void: VoidRequest,
  refund: RefundRequest,
} as const;

/** Captures, voids or refunds; see `GatewayClient.capture`, `void` and `refund`. */
export async function secondary<K extends keyof typeof SECONDARY>(
  ctx: ClientContext,
  endpoint: K,
  request: K extends 'capture' ? CaptureInput : K extends 'void' ? VoidInput : RefundInput,
): Promise<OperationRecord> {
  const schema: z.ZodType<{order_id: string}> = SECONDARY[endpoint];
  const body = validate(`${endpoint} request`, schema, {
    pos_id: ctx.settings.posId,
    ...request,
  });
  const answer = await ctx.transport.send({
    endpoint,
    body,
    failure: 'write',
    orderId: body.order_id,
    what: endpoint,
  });
  const record = readRecord(answer, TransactionRecord, `${endpoint} record`);
  if (!isOperationRecord(record)) {
    throw new GatewayProtocolError(`the ${endpoint} record is not an operation record`, {
      status: answer.status,
      issues: [{field: 'operation_id', message: 'is required'}],
    });
  }
  return record;
}
