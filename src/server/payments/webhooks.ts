/**
 * Webhooks: a notification is verified on its raw `data` (a bad signature is recorded
 * and refused), stored once (its hash is the event key, so a repeat changes nothing) and
 * applied in the same transaction — to the attempt for a payment, or as an operation for
 * a capture, void, refund or subscription renewal. A signed webhook that contradicts the
 * stored payment (another point of sale, currency or amount) is kept, flagged and not
 * applied; signed data of an unknown shape is kept and acknowledged. What is kept has no
 * card token: the event key is the hash of the `data` as received, the stored copy is
 * re-encoded without `cc_token` (`stored-tokens.ts`).
 */
import {createHash} from 'node:crypto';
import {WebhookDecodeError, WebhookSignatureError} from '../gateway/errors.js';
import {amountText, amountToMinor} from '../gateway/primitives.js';
import type {WebhookPayload} from '../gateway/schemas.js';
import {parseWebhookForm, verifyWebhookText} from '../gateway/webhook.js';
import {CheckoutForbiddenError} from '../errors.js';
import {KeptOrCounted} from '../defences/kept-or-counted.js';
import type {AttemptRecord, NewPaymentUpdate, WebhookEventInput} from '../store/payment-store.js';
import {jsonWithoutToken, webhookDataFor, webhookDataWithoutToken} from '../store/stored-tokens.js';
import {isFinal, statusInfoFromRecord} from './attempt-transitions.js';
import type {AttemptWrites} from './attempt-writes.js';
import {ServicePart, type ServiceConfig} from './service-config.js';
import type {Outbox} from './outbox.js';
import {telemetry} from '../telemetry/telemetry.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export type WebhooksConfig = Pick<
  ServiceConfig,
  | 'store'
  | 'gateway'
  | 'webhookSecret'
  | 'webhookAllowedIps'
  | 'guard'
  | 'webhookRejections'
  | 'logger'
  | 'now'
>;

/** The guard store's counters of refused webhooks: `-kept` one by one, and `-counted`. */
const REJECTED = 'webhook:rejected';

export interface WebhooksDeps {
  cfg: WebhooksConfig;
  writes: AttemptWrites;
  outbox: Outbox;
}

export class Webhooks extends ServicePart<WebhooksDeps> {
  /** True when webhooks from `ip` are accepted (always, without an allow-list). */
  sourceAllowed(ip: string | undefined): boolean {
    const list = this.cfg.webhookAllowedIps;
    return !list || (ip !== undefined && list.includes(ip));
  }

  /** The bound on refused webhooks (kept-or-counted.ts), shared with the CSP reports. */
  readonly #rejections = new KeptOrCounted(
    this.cfg.guard,
    REJECTED,
    this.cfg.webhookRejections,
    this.cfg.now,
  );

  /**
   * Records a refused webhook (its body only as a hash), within bounds: anyone can post to
   * the route, so at most `webhookRejections.perMinute` refusals a minute are kept one by
   * one, shop-wide (a rate the guard store counts across processes), and only the newest
   * `rows` of them; past the rate a refusal is only counted, per minute, for
   * `countedMinutes` (`rejectedWebhookCounts()`). So a flood leaves at most `rows` rows in
   * `rejected_webhooks` and `countedMinutes` rows of counts.
   */
  async reject(ip: string | undefined, reason: string, body: string): Promise<void> {
    telemetry.countWebhook('refused', reason);
    const limits = this.cfg.webhookRejections;
    const size = Buffer.byteLength(body);
    const {kept, firstCounted} = await this.#rejections.write(async () => {
      await this.cfg.store.recordRejectedWebhook({
        receivedAt: this.cfg.now(),
        ip: ip ?? 'unknown',
        reason,
        bodySha256: sha256(body),
        size,
      });
      await this.cfg.guard.trimRejectedWebhooks(limits.rows);
    });
    if (kept) {
      this.log.warn({ip, reason, size}, 'webhook refused');
    } else if (firstCounted) {
      this.log.warn(
        {ip, reason, perMinute: limits.perMinute},
        'webhooks refused past the rate kept this minute: counted, not kept',
      );
    }
  }

  /** Refused webhooks counted and not kept, over the minutes still kept. */
  rejectedCounts(): Promise<{kept: number; counted: number}> {
    return this.#rejections.counts();
  }

  /**
   * Verifies a webhook on its raw `data`, stores it and applies it. Resolves once it is
   * durably stored (then the route acknowledges it); throws `CheckoutForbiddenError` for a bad
   * signature (after recording it).
   */
  async receive(rawBody: string, ip: string | undefined): Promise<void> {
    const form = parseWebhookForm(rawBody);
    let payload: WebhookPayload;
    let raw: string;
    const now = this.cfg.now();
    const base = {eventKey: sha256(form.data), receivedAt: now, data: form.data};
    try {
      ({payload, json: raw} = verifyWebhookText(form, this.cfg.webhookSecret));
      // Left out once, for the event's `data` and the attempt's `raw` alike.
      const redacted = jsonWithoutToken(raw);
      base.data = webhookDataFor(form.data, raw, redacted);
      raw = redacted;
    } catch (error) {
      if (error instanceof WebhookSignatureError) {
        await this.reject(ip, 'bad_signature', rawBody);
        throw new CheckoutForbiddenError('the webhook signature is not valid');
      }
      if (error instanceof WebhookDecodeError) {
        // Signed by the gateway but not a payload we know: keep it, acknowledge it.
        const data = webhookDataWithoutToken(form.data);
        const stored = await this.cfg.store.recordEvent({...base, data, kind: 'undecodable'});
        this.log.warn(
          {stored, error: error.message},
          'signed webhook with an unknown payload kept',
        );
        return;
      }
      throw error;
    }
    const event: WebhookEventInput = {
      ...base,
      kind: payload.kind,
      gatewayOrderId: payload.order_id,
      status: payload.status,
    };
    const logFields = {
      gatewayOrderId: payload.order_id,
      kind: payload.kind,
      status: payload.status,
    };

    const attempt = await this.cfg.store.getAttemptByGatewayOrderId(payload.order_id);
    if (attempt) telemetry.tagOrder(attempt.orderRef);
    const mismatch = attempt && this.#mismatch(payload, attempt);
    if (mismatch) {
      // Signed, so it is the gateway's, but it does not describe the payment we stored:
      // keep it for a person to look at, and change nothing.
      const stored = await this.cfg.store.recordEvent({...event, flag: mismatch});
      this.log.error(
        {...logFields, orderRef: attempt.orderRef, mismatch, duplicate: !stored},
        'signed webhook does not match the stored payment: kept, flagged, not applied',
      );
      return;
    }
    if (payload.kind === 'primary' || payload.kind === 'subscription_charge') {
      // Only a subscription charge needs the attempt to tell a first charge from a renewal.
      const isInitial =
        payload.kind === 'primary' ||
        !attempt ||
        attempt.paymentId === payload.payment_id ||
        (attempt.paymentId === undefined && !isFinal(attempt.state));
      if (isInitial) {
        const info = statusInfoFromRecord(payload, raw);
        const r = await this.d.writes.applyStatus(
          {gatewayOrderId: payload.order_id},
          info,
          'webhook',
          event,
        );
        if (r.duplicateEvent) telemetry.countWebhook('duplicate');
        if (r.duplicateEvent) this.log.info(logFields, 'duplicate webhook ignored');
        else if (!r.attempt)
          this.log.warn(logFields, 'webhook for an order this app did not create');
        else
          this.log.info(
            {...logFields, state: r.attempt.state, changed: r.changed},
            'webhook applied',
          );
        return;
      }
      await this.#recordOperation(attempt, payload, raw, event, 'subscription_charge');
      return;
    }
    if (!attempt) {
      await this.cfg.store.recordEvent(event);
      this.log.warn(logFields, 'operation webhook for an order this app did not create');
      return;
    }
    await this.#recordOperation(attempt, payload, raw, event, payload.kind);
  }

  /**
   * What in a signed webhook contradicts the stored attempt: another point of sale, or —
   * for the payment itself — another currency or amount. `undefined` when it agrees.
   */
  #mismatch(payload: WebhookPayload, attempt: AttemptRecord): string | undefined {
    const p = payload as Record<string, unknown>;
    const posId = p['pos_id'];
    if (typeof posId === 'string' && posId !== this.cfg.gateway.posId) return 'pos_id';
    const currency = p['currency'];
    if (typeof currency === 'string' && currency !== attempt.currency) return 'currency';
    if (payload.kind === 'primary') {
      const amount = p['amount'];
      const given =
        typeof amount === 'number' || typeof amount === 'string' ? amountText(amount) : undefined;
      if (amount !== undefined && amount !== null) {
        if (given === undefined || amountToMinor(given) !== amountToMinor(attempt.amount)) {
          return 'amount';
        }
      }
    }
    return undefined;
  }

  async #recordOperation(
    attempt: AttemptRecord,
    payload: WebhookPayload,
    raw: string,
    event: WebhookEventInput,
    kind: 'capture' | 'void' | 'refund' | 'subscription_charge',
  ): Promise<void> {
    const p = payload as Record<string, unknown>;
    const operationId = String(
      p['operation_id'] ??
        p['transaction_id'] ??
        `${String(p['payment_id'])}:${String(p['created_at'])}`,
    );
    const now = this.cfg.now();
    const statusCode = typeof p['status_code'] === 'string' ? p['status_code'] : undefined;
    const amount =
      p['amount'] === undefined || p['amount'] === null ? undefined : String(p['amount']);
    const currency = typeof p['currency'] === 'string' ? p['currency'] : undefined;
    const recurring = p['recurring'] as {id?: string} | undefined;
    const update: NewPaymentUpdate = {
      kind,
      orderRef: attempt.orderRef,
      attemptId: attempt.attemptId,
      gatewayOrderId: attempt.gatewayOrderId,
      state: payload.status,
      operationId,
      source: 'webhook',
      at: new Date(now).toISOString(),
      ...(statusCode ? {statusCode} : {}),
      ...(typeof p['status_description'] === 'string'
        ? {statusDescription: p['status_description']}
        : {}),
      ...(typeof p['payment_id'] === 'string' ? {paymentId: p['payment_id']} : {}),
      ...(amount ? {amount} : {}),
      ...(currency ? {currency} : {}),
      ...(recurring?.id ? {recurringId: recurring.id} : {}),
    };
    const r = await this.cfg.store.recordOperation(
      {
        gatewayOrderId: attempt.gatewayOrderId,
        orderRef: attempt.orderRef,
        kind,
        operationId,
        status: payload.status,
        ...(statusCode ? {statusCode} : {}),
        ...(amount ? {amount} : {}),
        ...(currency ? {currency} : {}),
        raw,
        createdAt: now,
      },
      update,
      event,
    );
    if (r.outboxId !== undefined) this.d.outbox.kick();
    this.log.info(
      {
        gatewayOrderId: attempt.gatewayOrderId,
        kind,
        status: payload.status,
        duplicate: !r.inserted,
      },
      'operation webhook recorded',
    );
  }
}
