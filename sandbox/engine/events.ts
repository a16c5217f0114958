/**
 * The status changes that become webhooks: one event per change of a payment or an
 * operation, its number of copies decided by request faults and `webhook` fault rules,
 * handed to the webhook dispatcher. A resend is one extra copy of the current status.
 */
import {webhookCopies} from '../faults.js';
import type {WebhookEvent} from '../webhooks.js';
import type {EngineState, Operation, Txn} from './model.js';
import {operationRecord, paymentWebhook, recurringOf} from './wire.js';

/** Announces the current status of a primary transaction. */
export function emitTxn(s: EngineState, t: Txn, opts: {resend?: boolean} = {}): void {
  const url = t.chargeOf?.config.notification_url ?? t.fields['server_url'];
  if (typeof url !== 'string') return;
  const payload = paymentWebhook(s, t);
  const recurring = recurringOf(t);
  const event: WebhookEvent = {
    eventId: `evt_${++s.events}`,
    url,
    payload,
    summary: {
      method: t.method,
      status: t.status,
      status_code: t.code.code || null,
      order_id: t.orderId,
      payment_id: t.paymentId,
      operation_id: null,
      recurring_id: recurring?.id ?? null,
    },
  };
  const ruled = s.o.faults.take('webhook', {
    orderId: t.orderId,
    cardLast4: t.card?.last4,
    recurringId: recurring?.id,
  });
  const copies = webhookCopies(ruled) ?? (opts.resend ? 1 : t.webhookCopies);
  const previous = opts.resend ? undefined : t.lastEvent;
  if (!opts.resend) t.lastEvent = event;
  s.o.webhooks.send(event, {copies, previous, resend: opts.resend ?? false});
}

/** Announces the status of a secondary operation. */
export function emitOp(s: EngineState, op: Operation, opts: {resend?: boolean} = {}): void {
  const t = op.payment;
  const url = op.serverUrl ?? t.fields['server_url'];
  if (typeof url !== 'string') return;
  const event: WebhookEvent = {
    eventId: `evt_${++s.events}`,
    url,
    payload: operationRecord(s, op, 'webhook'),
    summary: {
      method: op.method,
      status: op.status,
      status_code: op.code.code,
      order_id: t.orderId,
      payment_id: t.paymentId,
      operation_id: op.operationId,
      recurring_id: recurringOf(t)?.id ?? null,
    },
  };
  const ruled = s.o.faults.take('webhook', {orderId: t.orderId, cardLast4: t.card?.last4});
  const copies = webhookCopies(ruled) ?? (opts.resend ? 1 : op.webhookCopies);
  const previous = opts.resend ? undefined : op.lastEvent;
  if (!opts.resend) op.lastEvent = event;
  s.o.webhooks.send(event, {copies, previous, resend: opts.resend ?? false});
}
