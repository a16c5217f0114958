/**
 * Payments: creating one from a request (direct or hosted, by card or by token), the
 * `order_id` claim a create request holds while in flight, and a primary transaction's
 * way to its outcome (charged, declined, challenged by 3-D Secure, expired). Subscription
 * charges go the same way; a successful initial payment activates its subscription, so
 * this module and `subscriptions.ts` call each other (functions only, no load-time use).
 */
import {randomUUID} from 'node:crypto';
import {WireHostedPaymentRequest, amountToMinor} from '../../src/server/gateway/index.js';
import {SANDBOX_CODES, cardBrand, cardOutcome, maskCard} from '../cards.js';
import {SandboxError} from '../errors.js';
import {splitFaults, webhookCopies} from '../faults.js';
import type {Fault} from '../faults.js';
import {emitTxn} from './events.js';
import {newTxn, record, tokenLastSecond} from './model.js';
import type {
  Code,
  EngineState,
  OrderClaim,
  RequestFields,
  Status,
  StoredCard,
  Txn,
} from './model.js';
import {activate, createSubscription} from './subscriptions.js';
import {validate} from './validate.js';
import {paymentRecord} from './wire.js';

/** Fields never echoed into records: card data and what only steers the payment. */
const NOT_ECHOED = new Set([
  'cc_number',
  'exp_month',
  'exp_year',
  'card_cvv',
  'cc_token',
  'browser_fingerprint',
  'three_d_secure',
  'cryptogram',
  'init_recurring',
  'products',
  'pos_id',
  'mode',
  'method',
  'amount',
  'currency',
  'description',
  'order_id',
]);

/** The rule of a create request's `order_id` (both modes share it). */
const CreateOrderId = WireHostedPaymentRequest.shape.order_id;

/** What creating a payment answered. */
export interface CreateResult {
  record: Record<string, unknown>;
  /** Hosted payments: the checkout page to redirect the customer to. */
  location: string | undefined;
}

/**
 * What a money-moving request concerns, for matching fault rules before it is handled:
 * its order id and the last four digits of its card (or of its token's card).
 */
export function faultSubject(
  s: EngineState,
  body: unknown,
): {orderId?: string; cardLast4?: string} {
  if (typeof body !== 'object' || body === null) return {};
  const b = body as Record<string, unknown>;
  const out: {orderId?: string; cardLast4?: string} = {};
  if (typeof b['order_id'] === 'string') out.orderId = b['order_id'];
  if (typeof b['cc_number'] === 'string' && /^\d{12,19}$/.test(b['cc_number'])) {
    out.cardLast4 = b['cc_number'].slice(-4);
  } else if (typeof b['cc_token'] === 'string') {
    const card = s.tokens.get(b['cc_token'].replace(/^rcr:/, ''));
    if (card) out.cardLast4 = card.last4;
  } else if (out.orderId !== undefined) {
    const card = s.orders.get(out.orderId)?.card;
    if (card) out.cardLast4 = card.last4;
  }
  return out;
}

/**
 * Takes the `order_id` of a create request as it arrives, before any fault delay;
 * `undefined` when the body has no usable `order_id` (validation will refuse it). The
 * caller must `release()` the claim once the request is answered, whatever happened.
 * Lookups do not see a held id: the order does not exist until it is created.
 */
export function claimOrderId(s: EngineState, body: unknown): OrderClaim | undefined {
  const given =
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>)['order_id']
      : undefined;
  const parsed = CreateOrderId.safeParse(given);
  if (!parsed.success) return undefined;
  const orderId = parsed.data;
  const granted = !s.orders.has(orderId) && !s.held.has(orderId);
  const claim: OrderClaim = {
    orderId,
    granted,
    release: () => {
      if (s.held.get(orderId) === claim) s.held.delete(orderId);
    },
  };
  if (granted) s.held.set(orderId, claim);
  return claim;
}

/**
 * Creates a payment from a request body. `faults` are the request's `X-Sandbox-Fault`
 * faults (webhook and decline ones are used here; the HTTP layer handles the rest).
 * `claim` is the request's {@link claimOrderId}: without one, an id held by another
 * request in flight counts as used.
 */
export function createPayment(
  s: EngineState,
  body: unknown,
  faults: readonly Fault[],
  claim?: OrderClaim,
): CreateResult {
  const req = validate(s.requests.PaymentRequest, body, 'payment request');
  // Decided as the request arrived: an id refused then stays refused, even if its holder
  // has since given it back.
  const mine = claim?.orderId === req.order_id ? claim : undefined;
  const holder = s.held.get(req.order_id);
  if (
    s.orders.has(req.order_id) ||
    mine?.granted === false ||
    (holder !== undefined && holder !== mine)
  ) {
    throw new SandboxError(
      'P-409',
      'order_id: was already used by an earlier payment; every payment attempt needs a fresh order_id',
    );
  }
  let card: StoredCard | undefined;
  let token: string | undefined;
  if (req.mode === 'direct') {
    if (req.cc_token !== undefined) {
      token = req.cc_token.replace(/^rcr:/, '');
      card = s.tokens.get(token);
      if (!card) throw new SandboxError('P-470', 'cc_token: is not a card token of this project');
      if (tokenExpiredAt(card, s.now())) {
        throw new SandboxError(
          'P-471',
          'cc_token: has expired; the customer must enter the card again',
        );
      }
    } else if (req.cc_number !== undefined) {
      card = {
        mask: maskCard(req.cc_number),
        last4: req.cc_number.slice(-4),
        brand: cardBrand(req.cc_number),
        outcome: cardOutcome(req.cc_number),
        expMonth: req.exp_month ?? 12,
        expYear: req.exp_year ?? 2099,
      };
    }
  }
  const fields: RequestFields = {};
  for (const [k, v] of Object.entries(req))
    if (!NOT_ECHOED.has(k) && v !== undefined) fields[k] = v;
  const now = s.now();
  const txn = newTxn(s, {
    orderId: req.order_id,
    mode: req.mode,
    method: req.method,
    amountMinor: amountToMinor(req.amount),
    currency: req.currency,
    description: req.description,
    fields,
    card,
    token,
    now,
  });
  if (token !== undefined) txn.paidByToken = true;
  const split = splitFaults(faults);
  txn.webhookCopies = webhookCopies(split.webhook);
  s.orders.set(txn.orderId, txn);
  s.held.delete(txn.orderId);
  record(s, txn);

  if (req.init_recurring) createSubscription(s, txn, req.init_recurring, now);

  if (req.mode === 'hosted') {
    if (req.order_timeout !== undefined) {
      txn.expiry = s.o.clock.schedule(now + req.order_timeout * 1000, () => expire(s, txn));
    }
    return {
      record: paymentRecord(s, txn),
      location: `${s.o.publicUrl()}/sandbox/checkout/${txn.paymentId}`,
    };
  }
  if (req.three_d_secure) {
    txn.threeDS = 'external';
    txn.eci = req.three_d_secure.eci;
  }
  const decline = [
    ...split.decline,
    ...s.o.faults.take('decline', {orderId: txn.orderId, cardLast4: card?.last4}),
  ];
  // A token sent with a direct request is the customer paying (one click): 3-D Secure
  // applies as to the card typed in. Only subscription charges skip it (merchant-initiated).
  charge(s, txn, {viaToken: token !== undefined, merchantInitiated: false, decline});
  return {record: creationRecord(s, txn), location: undefined};
}

/** True when a token of `card` can no longer pay at `now`: its month is over. */
export function tokenExpiredAt(card: StoredCard, now: number): boolean {
  return now >= tokenLastSecond(card).getTime() + 1000;
}

/**
 * The creation answer of a direct payment. The spec's subscription state table has a
 * subscription `init` after creation, whatever its first payment did at once; it becomes
 * `active` afterwards (lookups and webhooks show that).
 */
function creationRecord(s: EngineState, txn: Txn): Record<string, unknown> {
  const rec = paymentRecord(s, txn);
  if (txn.subscription) rec['recurring'] = {id: txn.subscription.id, status: 'init'};
  return rec;
}

/** Charges a card (directly or by token) and moves the transaction to its outcome. */
export function charge(
  s: EngineState,
  txn: Txn,
  opts: {viaToken: boolean; merchantInitiated: boolean; decline: readonly Fault[]},
): void {
  const card = txn.card;
  const decline = opts.decline.find((f) => f.kind === 'decline');
  if (decline?.kind === 'decline') {
    const known = Object.values(SANDBOX_CODES).find((c) => c.code === decline.code);
    finish(
      s,
      txn,
      'failure',
      known ?? {code: decline.code, description: 'Declined (sandbox fault)'},
    );
    return;
  }
  switch (card?.outcome ?? 'success') {
    case 'three_ds':
      if (opts.merchantInitiated || txn.threeDS === 'external') succeed(s, txn);
      else challenge(s, txn);
      return;
    case 'generic_decline':
      finish(s, txn, 'failure', SANDBOX_CODES.issuerDecline);
      return;
    case 'insufficient_funds':
      finish(s, txn, 'failure', SANDBOX_CODES.insufficientFunds);
      return;
    case 'wrong_cvv':
      if (opts.viaToken) succeed(s, txn);
      else finish(s, txn, 'failure', SANDBOX_CODES.wrongCvv);
      return;
    default:
      succeed(s, txn);
  }
}

/** The payment waits for the cardholder on the 3DS page. */
function challenge(s: EngineState, txn: Txn): void {
  txn.threeDS = 'challenge';
  txn.status = 'pending';
  txn.code = SANDBOX_CODES.threeDSRequired;
  txn.processedAt = s.now();
  emitTxn(s, txn);
}

/** The money moved (or is held): token the card, activate a subscription it created. */
export function succeed(s: EngineState, txn: Txn): void {
  if (txn.method === 'auth') {
    txn.heldMinor = txn.amountMinor;
  } else {
    s.charges++;
  }
  if (txn.card && txn.token === undefined) {
    txn.token = randomUUID().replace(/-/g, '');
    s.tokens.set(txn.token, txn.card);
  }
  if (txn.eci === undefined) txn.eci = txn.threeDS === 'approved' ? '05' : '07';
  finish(
    s,
    txn,
    'success',
    txn.method === 'auth' ? SANDBOX_CODES.authSuccess : SANDBOX_CODES.success,
  );
  const sub = txn.subscription;
  if (sub && sub.status === 'init') activate(s, sub);
}

/** Moves the transaction to a final status and announces it. */
export function finish(s: EngineState, txn: Txn, status: Status, code: Code): void {
  txn.status = status;
  txn.code = code;
  txn.processedAt = s.now();
  txn.expiry?.cancel();
  txn.expiry = undefined;
  emitTxn(s, txn);
}

/** A hosted order's `order_timeout` ran out before it was paid. */
function expire(s: EngineState, txn: Txn): void {
  if (txn.status === 'init' || txn.status === 'pending') {
    txn.threeDS = txn.threeDS === 'challenge' ? 'declined' : txn.threeDS;
    finish(s, txn, 'failure', SANDBOX_CODES.expired);
  }
}
