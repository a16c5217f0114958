/**
 * How the sandbox writes its state on the wire: payment, operation and subscription
 * records as the gateway's API answers them, and the payload of a payment's webhook.
 * Records carry a card's mask and token, never its number or CVV.
 */
import {amountFromMinor, formatGatewayTimestamp} from '../../src/server/gateway/index.js';
import {firstChargeIndex, occurrence, utcDate} from '../schedule.js';
import {tokenLastSecond} from './model.js';
import type {EngineState, Operation, StoredCard, Subscription, Txn} from './model.js';

/** Customer fields of a payment record (null in the cancel response when absent). */
const CUSTOMER_FIELDS = [
  'customer_id',
  'customer_ip',
  'customer_fname',
  'customer_lname',
  'customer_patronym',
  'customer_email',
  'customer_phone',
  'customer_country',
  'customer_city',
  'customer_birthday',
] as const;

/** Fields of the spec's primary webhook table (plus `recurring` for subscriptions). */
const PRIMARY_WEBHOOK_FIELDS = [
  'payment_id',
  'order_id',
  'gateway_order_id',
  'billing_order_id',
  'transaction_id',
  'pos_id',
  'mode',
  'method',
  'amount',
  'currency',
  'payway',
  'eci',
  'status',
  'status_code',
  'status_description',
  'cc_mask',
  'cc_token',
  'cc_token_expiration',
  'customer_id',
  'customer_phone',
  'created_at',
  'payload',
  'recurring',
] as const;

/** The subscription a transaction belongs to (created it, or is a charge of it). */
export function recurringOf(t: Txn): {id: string; status: Subscription['status']} | undefined {
  const sub = t.subscription ?? t.chargeOf;
  return sub ? {id: sub.id, status: sub.status} : undefined;
}

/** `cc_token_expiration`: the token's last second, the one `tokenExpiredAt` checks. */
function tokenExpiration(card: StoredCard): string {
  return formatGatewayTimestamp(tokenLastSecond(card), false);
}

/**
 * A payment record. `api`: what creation and lookups answer (absent fields left out);
 * `cancel`: the cancel response, with null for absent fields and `processed_at`;
 * `recurring`: a recurring record (subscription transactions and resend), as `api` but
 * with `processed_at`, as the spec names the field for recurring records.
 */
export function paymentRecord(
  s: EngineState,
  t: Txn,
  style: 'api' | 'cancel' | 'recurring' = 'api',
): Record<string, unknown> {
  const ok = t.status === 'success';
  const pending3ds = t.status === 'pending' && t.threeDS === 'challenge';
  const f = t.fields;
  const rec: Record<string, unknown> = {
    payment_id: t.paymentId,
    order_id: t.orderId,
    gateway_order_id: t.status === 'init' ? null : `SBX${String(t.seq).padStart(9, '0')}`,
    billing_order_id: null,
    transaction_id: t.transactionId,
    pos_id: s.o.posId,
    mode: t.mode,
    method: t.method,
    amount: amountFromMinor(t.amountMinor),
    currency: t.currency,
    description: t.description,
    payway: typeof f['payway'] === 'string' ? f['payway'] : 'card',
    status: t.status,
    status_code: t.code.code === '' ? null : t.code.code,
    status_description: t.code.description,
    user_action_required: pending3ds,
    user_action_url: pending3ds ? `${s.o.publicUrl()}/sandbox/3ds/${t.paymentId}` : null,
    eci: t.eci ?? null,
    mcc: typeof f['merchant_mcc'] === 'string' ? f['merchant_mcc'] : '5999',
    options_3ds: t.threeDS === 'none' ? null : t.threeDS === 'external' ? 'external' : 'challenge',
    cc_mask: t.card?.mask ?? null,
    cc_token: ok && t.token ? t.token : null,
    cc_token_expiration: ok && t.token && t.card ? tokenExpiration(t.card) : null,
  };
  for (const k of CUSTOMER_FIELDS) rec[k] = f[k] ?? null;
  rec['result_url'] = f['result_url'] ?? null;
  rec['created_at'] = s.ts(t.createdAt);
  rec[style === 'api' ? 'processing_time' : 'processed_at'] = s.ts(t.processedAt);
  rec['payload'] = f['payload'] ?? null;
  const recurring = recurringOf(t);
  if (recurring) rec['recurring'] = recurring;
  if (style !== 'cancel') {
    for (const [k, v] of Object.entries(rec)) if (v === null) delete rec[k];
  }
  return rec;
}

/** The webhook payload of a primary transaction (the spec's primary webhook fields). */
export function paymentWebhook(s: EngineState, t: Txn): Record<string, unknown> {
  const r = paymentRecord(s, t);
  const out: Record<string, unknown> = {};
  for (const k of PRIMARY_WEBHOOK_FIELDS) if (r[k] !== undefined) out[k] = r[k];
  out['processed_at'] = r['processing_time'];
  return out;
}

/**
 * An operation record; in a webhook and in a recurring record the processing time is
 * named `processed_at`, elsewhere `processing_time`.
 */
export function operationRecord(
  s: EngineState,
  op: Operation,
  style: 'api' | 'webhook' | 'recurring' = 'api',
): Record<string, unknown> {
  const t = op.payment;
  return {
    operation_id: op.operationId,
    payment_id: t.paymentId,
    order_id: t.orderId,
    transaction_id: op.transactionId,
    pos_id: s.o.posId,
    mode: 'direct',
    method: op.method,
    amount: amountFromMinor(op.amountMinor),
    currency: t.currency,
    status: op.status,
    status_code: op.code.code,
    status_description: op.code.description,
    created_at: s.ts(op.createdAt),
    [style === 'api' ? 'processing_time' : 'processed_at']: s.ts(op.processedAt),
  };
}

/** Unix ms of a subscription's first scheduled charge. */
function firstCharge(sub: Subscription): number {
  const {interval_unit: unit, interval_count: count, start_date: start} = sub.config;
  return occurrence(sub.anchor, unit, count, firstChargeIndex(start));
}

export function subscriptionRecord(s: EngineState, sub: Subscription): Record<string, unknown> {
  const t = sub.initial;
  const c = sub.config;
  return {
    recurring_payment: {
      pos_id: s.o.posId,
      company_id: s.o.companyId,
      order_id: t.orderId,
      amount: amountFromMinor(sub.amountMinor),
      currency: t.currency,
      cc_token: sub.token ? `rcr:${sub.token}` : null,
      description: t.description,
      payway: typeof t.fields['payway'] === 'string' ? t.fields['payway'] : 'card',
      server_url: t.fields['server_url'] ?? null,
    },
    recurring_config: {
      interval_unit: c.interval_unit,
      interval_count: c.interval_count,
      retry_attempts: c.retry_attempts,
      retry_interval_hours: c.retry_interval_hours,
      // The spec defines start_date as the first scheduled charge: without one sent, that
      // is one interval after creation (see `createSubscription`).
      start_date: c.start_date ?? utcDate(firstCharge(sub)),
      expiry_date: c.expiry_date ?? null,
      time: c.time ?? new Date(sub.createdAt).toISOString().slice(11, 19),
    },
    recurring_status: sub.status,
    metadata: {
      id: sub.id,
      created_at: s.ts(sub.createdAt),
      updated_at: s.ts(sub.updatedAt),
    },
  };
}
