/**
 * The attempt state machine, as pure functions the stores run inside their transactions.
 * Rank: creating = unknown < init < pending < success = failure. A status of lower rank
 * never overwrites a higher one (a late `pending` webhook after `success` changes
 * nothing), and a final status never changes — with one exception: a `failure` we
 * inferred ourselves (`not_created`, the gateway did not know the order) gives way to
 * what the gateway later reports, because money the gateway took must never be lost.
 */
import type {TransactionRecord, WebhookPayload} from '../gateway/schemas.js';
import {definedOnly} from './defined.js';
import {recordJsonWithoutToken} from '../store/stored-tokens.js';
import type {
  AttemptMutation,
  AttemptRecord,
  AttemptState,
  FailureReason,
  NewPaymentUpdate,
  WriteOffReason,
} from '../store/payment-store.js';

const RANK: Record<AttemptState, number> = {
  creating: 0,
  unknown: 0,
  init: 1,
  pending: 2,
  success: 3,
  failure: 3,
};

/** True once an attempt's state will not change any more. */
export function isFinal(state: AttemptState): boolean {
  return state === 'success' || state === 'failure';
}

/** What the gateway said about an attempt, from a record, a webhook or a lookup. */
export type GatewayStatusInfo = Pick<
  AttemptRecord,
  'statusCode' | 'statusDescription' | 'userActionUrl' | 'paymentId' | 'cardMask' | 'recurringId'
> & {
  status: 'init' | 'pending' | 'success' | 'failure';
  /** The record or payload as JSON, without its card token (as the store keeps it). */
  raw: string;
  /**
   * The card token (`cc_token`), only to save the card in the transaction that stores the
   * success (`cardToKeep` in service/saved-cards.ts): never written to the attempt.
   */
  cardToken?: string;
  /** The token's expiry (`cc_token_expiration`), for saving the card. */
  cardTokenExpiration?: string;
};

/**
 * What a payment record or webhook payload says. `raw`: its JSON text as the store keeps
 * it, already without the card token (a webhook's, as received and redacted); by default
 * the record written without its token.
 */
export function statusInfoFromRecord(
  record: TransactionRecord | WebhookPayload,
  raw: string = recordJsonWithoutToken(record),
): GatewayStatusInfo {
  const r = record as Record<string, unknown>;
  const str = (k: string) =>
    typeof r[k] === 'string' && r[k] !== '' ? (r[k] as string) : undefined;
  const recurring = r['recurring'] as {id?: unknown} | null | undefined;
  return {
    status: record.status,
    raw,
    ...definedOnly({
      statusCode: str('status_code'),
      statusDescription: str('status_description'),
      userActionUrl: str('user_action_url'),
      paymentId: str('payment_id'),
      cardMask: str('cc_mask'),
      cardToken: str('cc_token'),
      cardTokenExpiration: str('cc_token_expiration'),
      recurringId: typeof recurring?.id === 'string' ? recurring.id : undefined,
    }),
  };
}

function baseUpdate(
  a: AttemptRecord,
  state: AttemptState,
  now: number,
  source: NewPaymentUpdate['source'],
): NewPaymentUpdate {
  return {
    kind: 'payment',
    orderRef: a.orderRef,
    attemptId: a.attemptId,
    gatewayOrderId: a.gatewayOrderId,
    state,
    previousState: a.state,
    amount: a.amount,
    currency: a.currency,
    source,
    at: new Date(now).toISOString(),
  };
}

/**
 * Applies a gateway status to an attempt. Returns `undefined` when nothing changes; a
 * patch without an update when only data (payment id, mask, raw record) is filled in.
 */
export function applyGatewayStatus(
  current: AttemptRecord,
  info: GatewayStatusInfo,
  now: number,
  source: NewPaymentUpdate['source'],
): AttemptMutation | undefined {
  const data = definedOnly({
    paymentId: current.paymentId ?? info.paymentId,
    cardMask: current.cardMask ?? info.cardMask,
    recurringId: current.recurringId ?? info.recurringId,
  });
  // A lookup is not news from the gateway: it must not postpone the next status check.
  const news = source === 'lookup' ? {} : {lastGatewayAt: now};
  const inferredFailure = current.state === 'failure' && current.failureReason === 'not_created';
  const overrides = !isFinal(current.state)
    ? RANK[info.status] > RANK[current.state]
    : inferredFailure;

  if (!overrides) {
    // Same or older status, or the attempt is final: keep the state; fill in missing data.
    const patch: AttemptMutation['patch'] = {...data, ...news};
    if (current.state === info.status && info.userActionUrl && !current.userActionUrl) {
      patch.userActionUrl = info.userActionUrl;
    }
    if (!current.raw && !isFinal(current.state)) patch.raw = info.raw;
    return {patch};
  }

  const state: AttemptState = info.status;
  const failureReason: FailureReason | undefined = state === 'failure' ? 'declined' : undefined;
  const patch: AttemptMutation['patch'] = {
    ...data,
    state,
    failureReason,
    statusCode: info.statusCode,
    statusDescription: info.statusDescription,
    userActionUrl: state === 'pending' || state === 'init' ? info.userActionUrl : undefined,
    raw: info.raw,
    ...news,
    updatedAt: now,
  };
  const next = {...current, ...patch};
  const update: NewPaymentUpdate = {
    ...baseUpdate(current, state, now, source),
    ...definedOnly({
      failureReason,
      statusCode: info.statusCode,
      statusDescription: info.statusDescription,
      paymentId: next.paymentId,
      cardMask: next.cardMask,
      recurringId: next.recurringId,
    }),
  };
  return {patch, update};
}

/** The code and text an unknown outcome is reported with, to the customer and the hook alike. */
export const NOT_CONFIRMED = {
  code: 'not_confirmed',
  description:
    'The bank did not confirm the payment in time. You can try again: this order cannot be charged twice.',
} as const;

/**
 * `creating` → `unknown`: the create call failed in a way that leaves the outcome open (a
 * timeout, a dropped connection, a crash while it was sent). Reported to `onPaymentUpdate`
 * as the customer hears it: `unknown`, `not_confirmed` — the customer may pay again.
 */
export function markUnknown(current: AttemptRecord, now: number): AttemptMutation | undefined {
  if (current.state !== 'creating') return undefined;
  return {
    patch: {state: 'unknown', updatedAt: now},
    update: {
      ...baseUpdate(current, 'unknown', now, 'reconcile'),
      statusCode: NOT_CONFIRMED.code,
      statusDescription: NOT_CONFIRMED.description,
    },
  };
}

/**
 * `creating`/`unknown` → `failure` (`not_created`): the gateway refused the first create
 * request of this `order_id`, so nothing was charged and a new attempt is allowed. Never
 * inferred from a lookup's 404: a slow gateway may still create the payment.
 */
export function markNotCreated(
  current: AttemptRecord,
  now: number,
  statusCode: string,
  statusDescription: string,
): AttemptMutation | undefined {
  if (current.state !== 'creating' && current.state !== 'unknown') return undefined;
  const patch: AttemptMutation['patch'] = {
    state: 'failure',
    failureReason: 'not_created',
    statusCode,
    statusDescription,
    updatedAt: now,
  };
  return {
    patch,
    update: {
      ...baseUpdate(current, 'failure', now, 'reconcile'),
      failureReason: 'not_created',
      statusCode,
      statusDescription,
    },
  };
}

/** Records that the gateway was asked about the attempt (rate limit and sweep backoff). */
export function markChecked(current: AttemptRecord, now: number): AttemptMutation {
  return {patch: {lastCheckAt: now, checks: (current.checks ?? 0) + 1}};
}

/**
 * `unknown` → `creating` again: the customer pays again after an unknown outcome, and the
 * create is re-sent with the same gateway `order_id` (the gateway refuses a second payment
 * for it with `P-409`). `undefined` when the attempt is no longer `unknown`.
 */
export function markRecreating(current: AttemptRecord, now: number): AttemptMutation | undefined {
  if (current.state !== 'unknown') return undefined;
  return {
    patch: {
      state: 'creating',
      createSentAt: now,
      createCount: (current.createCount ?? 1) + 1,
      updatedAt: now,
    },
  };
}

/**
 * An attempt the gateway created and left open (`init`/`pending`: a 3-D Secure challenge)
 * stops blocking its order: the customer abandoned the challenge, or it outlived the
 * configured age. Only those: an attempt whose creation is unknown (`creating`/`unknown`)
 * stays live, since its `order_id` is what keeps a late create from charging twice. The
 * first reason stays.
 */
export function markWrittenOff(
  current: AttemptRecord,
  now: number,
  reason: WriteOffReason,
): AttemptMutation | undefined {
  if (current.state !== 'init' && current.state !== 'pending') return undefined;
  if (current.writtenOff !== undefined) return undefined;
  return {patch: {writtenOff: reason, writtenOffAt: now, updatedAt: now}};
}
