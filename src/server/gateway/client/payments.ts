/**
 * Payments: creating one (`POST /api/v1/payment`, direct or hosted) and cancelling a
 * created, unpaid hosted one. A creation is never retried: on a 5xx, a timeout or a
 * dropped connection its outcome is unknown.
 */
import * as z from 'zod';
import {GatewayProtocolError} from '../errors.js';
import {CancelResponse, PaymentRecord} from '../schemas.js';
import {parseJson, readJson, readRecord, shapeError, type Answer} from './answers.js';
import {
  CheckedPaymentRequest,
  paymentRequestSchema,
  type CreatePaymentInput,
} from './checked-payment.js';
import {OrderId, validate} from './requests.js';
import type {ClientContext} from './transport.js';

/** The answer to a payment creation. */
export type CreatePaymentResult =
  | {kind: 'direct'; record: PaymentRecord}
  | {kind: 'hosted'; checkoutUrl: string; record?: PaymentRecord};

/** Creates a payment; see `GatewayClient.createPayment`. */
export async function createPayment(
  ctx: ClientContext,
  request: CreatePaymentInput,
  checked?: CheckedPaymentRequest,
): Promise<CreatePaymentResult> {
  const {posId, hostedContacts} = ctx.settings;
  // A request checked by `checkPaymentRequest` is not validated twice: its JSON text,
  // made from the validated request when it was checked, is what is sent.
  const prepared =
    checked !== undefined && CheckedPaymentRequest.isCheckOf(checked, request, hostedContacts)
      ? checked
      : undefined;
  const body =
    prepared?.data ??
    validate('payment request', paymentRequestSchema(hostedContacts), {
      pos_id: posId,
      ...request,
    });
  const answer = await ctx.transport.send(
    {
      endpoint: 'createPayment',
      body,
      ...(prepared ? {bodyText: prepared.json} : {}),
      failure: 'write',
      orderId: body.order_id,
      what: 'payment creation',
    },
    request,
  );
  if (body.mode === 'direct') {
    return {kind: 'direct', record: readRecord(answer, PaymentRecord, 'payment record')};
  }
  return hostedAnswer(answer);
}

/** The checkout address of a hosted creation: the 3xx `location`, or a JSON `redirect_url`. */
function hostedAnswer(answer: Answer): CreatePaymentResult {
  const location = answer.headers.get('location');
  if (answer.status >= 300 && answer.status < 400) {
    if (!location) {
      throw new GatewayProtocolError(
        `the gateway answered ${answer.status} to a hosted payment without a location header`,
        {status: answer.status},
      );
    }
    const json = parseJson(answer.body);
    return withRecord(new URL(location, answer.url).href, json.ok ? json.value : undefined);
  }
  const value = readJson(answer, 'hosted payment answer');
  const redirect =
    typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)['redirect_url']
      : undefined;
  if (typeof redirect !== 'string' || !URL.canParse(redirect, answer.url)) {
    throw new GatewayProtocolError(
      'the gateway answered a hosted payment with neither a 303 location nor a redirect_url',
      {status: answer.status, issues: [{field: 'redirect_url', message: 'is required'}]},
    );
  }
  return withRecord(new URL(redirect, answer.url).href, value);
}

/** A hosted result, with the payment record when the body is one. */
function withRecord(checkoutUrl: string, value: unknown): CreatePaymentResult {
  const record = PaymentRecord.safeParse(value);
  return record.success
    ? {kind: 'hosted', checkoutUrl, record: record.data}
    : {kind: 'hosted', checkoutUrl};
}

/** Cancels a created, unpaid hosted payment; see `GatewayClient.cancelOrder`. */
export async function cancelOrder(ctx: ClientContext, orderId: string): Promise<PaymentRecord> {
  validate('order cancel', z.strictObject({orderId: OrderId}), {orderId});
  const answer = await ctx.transport.send({
    endpoint: 'cancelOrder',
    params: {posId: ctx.settings.posId, orderId},
    failure: 'write',
    orderId,
    what: 'order cancel',
  });
  const value = readJson(answer, 'cancel answer');
  const list = Array.isArray(value) ? value : [value];
  const parsed = CancelResponse.safeParse(list);
  if (!parsed.success) throw shapeError(answer, 'cancel answer', parsed.error, list);
  return parsed.data[0]!;
}
