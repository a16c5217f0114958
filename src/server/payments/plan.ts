/**
 * A pay request as a value (issue 36). The one attempt path (`attempt.ts`: plan → guard →
 * insert → gateway → apply) reads what differs between payments from this value instead
 * of calling back into the route that made it. Three kinds: a card typed into the form, a
 * saved card (a direct create with the server's token), and hosted (the customer pays on
 * the gateway's page). Beside it, the pure steps that differ by kind: the id a new attempt
 * gets, the create request built and checked, and the card-testing keys the create counts
 * under; and what the gateway's answer says, read from the answer itself (a direct and a
 * hosted answer each carry their own kind, so no answer can belong to the "wrong" mode).
 */
import type {PayRequest} from '../../protocol/checkout.js';
import type {CheckedPaymentRequest, CreatePaymentResult} from '../gateway/client/index.js';
import type {DirectPaymentRequestInput, HostedPaymentRequestInput} from '../gateway/schemas.js';
import type {CardTestingAdmission} from '../defences/card-testing.js';
import {CheckoutInvalidRequestError} from '../errors.js';
import {
  buildDirectRequest,
  buildHostedRequest,
  validateDirectRequest,
  validateHostedRequest,
  type ResolvedOrder,
} from './gateway-request.js';
import type {SavedCardRecord} from '../store/saved-card-records.js';
import type {AttemptRecord, AttemptReservation} from '../store/payment-store.js';
import {statusInfoFromRecord, type GatewayStatusInfo} from './attempt-transitions.js';
import type {AttemptVelocity} from '../defences/velocity.js';
import type {PayContext} from './service-config.js';
import {saveCardFor, savedCardToken} from './saved-cards.js';

/** A direct payment with the card typed into the form. */
export interface CardPlan {
  kind: 'card';
  orderRef: string;
  body: PayRequest;
  ctx: PayContext;
}

/** A direct payment with a saved card (`body.savedCardId`); the path reads the card. */
export interface SavedCardPlan {
  kind: 'saved-card';
  orderRef: string;
  body: PayRequest & {savedCardId: string};
  ctx: PayContext;
}

/** A hosted payment: the customer types the card on the gateway's page. */
export interface HostedPlan {
  kind: 'hosted';
  orderRef: string;
  /** The HTTP request, for `resolveOrder`. */
  request: Request;
  /** The client's address: each new hosted create counts against the payment limits. */
  ip?: string | undefined;
  orderTimeout?: number | undefined;
  language?: string | undefined;
}

export type PayPlan = CardPlan | SavedCardPlan | HostedPlan;

/** The plan of a direct pay request. */
export function directPlan(body: PayRequest, ctx: PayContext): CardPlan | SavedCardPlan {
  const {orderRef, savedCardId} = body;
  return savedCardId === undefined
    ? {kind: 'card', orderRef, body, ctx}
    : {kind: 'saved-card', orderRef, body: {...body, savedCardId}, ctx};
}

/** The gateway mode a plan pays in. */
export function modeOf(plan: PayPlan): 'direct' | 'hosted' {
  return plan.kind === 'hosted' ? 'hosted' : 'direct';
}

/** The HTTP request of a plan, for `resolveOrder`. */
export function requestOf(plan: PayPlan): Request {
  return plan.kind === 'hosted' ? plan.request : plan.ctx.request;
}

/** The attempt id a new attempt of `plan` gets with `gatewayOrderId`. */
export function newAttemptId(plan: PayPlan, gatewayOrderId: string): string {
  return plan.kind === 'hosted' ? `hosted-${gatewayOrderId}` : plan.body.attemptId;
}

/** A create request, built and checked, and what the attempt stores of it. */
export interface PreparedCreate {
  request: DirectPaymentRequestInput | HostedPaymentRequestInput;
  checked: CheckedPaymentRequest;
  method: AttemptRecord['method'];
  amount: string;
  currency: string;
  /** The customer who asked to save the card (see `saved-cards.ts`). */
  saveCardFor?: string | undefined;
}

/** What the app adds to every create request. */
export interface CreateSettings {
  posId: string;
  serverUrl: string;
  resultUrl: (orderRef: string) => string;
  order3dsBypass: string;
}

/**
 * The order from `resolveOrder` or the configuration makes an invalid gateway request: the
 * path logs `issues` and answers a server error.
 */
export class MerchantRequestInvalid extends Error {
  readonly issues: unknown;
  constructor(issues: unknown) {
    super('the order or the configuration gives an invalid gateway request');
    this.name = 'MerchantRequestInvalid';
    this.issues = issues;
  }
}

/**
 * Builds and checks the create request of `plan` for `order`. Throws what is answered
 * instead: `CheckoutInvalidRequestError` (the browser's data), `SavedCardRefused` (a saved
 * card of another customer, removed or expired) or `MerchantRequestInvalid`.
 */
export function prepareCreate(
  plan: PayPlan,
  order: ResolvedOrder,
  gatewayOrderId: string,
  settings: CreateSettings,
  saved: {card: SavedCardRecord | undefined; now: number} | undefined,
): PreparedCreate {
  const context = {
    posId: settings.posId,
    gatewayOrderId,
    serverUrl: settings.serverUrl,
    resultUrl: settings.resultUrl(plan.orderRef),
    order3dsBypass: settings.order3dsBypass,
  };
  if (plan.kind === 'hosted') {
    const request = buildHostedRequest(order, {
      ...context,
      orderTimeout: plan.orderTimeout,
      language: plan.language,
    });
    const valid = validateHostedRequest(request);
    if (!valid.ok) throw new MerchantRequestInvalid(valid.issues);
    return {
      request,
      checked: valid.checked,
      method: request.method,
      amount: valid.amountText,
      currency: request.currency,
    };
  }
  const {body, ctx} = plan;
  // A saved card pays only for the order's own customer (from resolveOrder).
  const token =
    plan.kind === 'saved-card' ? savedCardToken(saved?.card, order, saved?.now ?? 0) : undefined;
  const built = buildDirectRequest(
    body,
    order,
    {...context, customerIp: ctx.ip, acceptHeader: ctx.accept, userAgent: ctx.userAgent},
    token,
  );
  const valid = validateDirectRequest(built);
  if (!valid.ok) {
    if (valid.blame === 'browser') {
      throw new CheckoutInvalidRequestError(`${valid.field}: ${valid.message}`, {
        field: valid.field,
      });
    }
    throw new MerchantRequestInvalid(valid.issues);
  }
  return {
    request: built.request,
    checked: valid.checked,
    method: built.request.method,
    amount: valid.amountText,
    currency: built.request.currency,
    saveCardFor: saveCardFor(body, order),
  };
}

/**
 * The card-testing keys each create of `plan` takes (with a new attempt in one store
 * transaction; before a create sent again, on their own), with what the breaker's
 * admission asks (a named customer's budget while it is open); `undefined`: none.
 * - a card: per address, order and card (its number's keyed hash);
 * - a saved card: the same, the card keyed by its token's hash (by now `prepareCreate`
 *   has checked the card is this customer's and can pay);
 * - hosted: per address and order (a script that posts the form with the shop's own
 *   Origin meets the same limits), not per card: the card is typed on the gateway's page.
 */
export function reservationFor(
  plan: PayPlan,
  velocity: AttemptVelocity,
  breaker: CardTestingAdmission,
  savedCard: SavedCardRecord | undefined,
): AttemptReservation | undefined {
  const {orderRef} = plan;
  if (plan.kind === 'hosted') {
    return plan.ip === undefined && !breaker.customer
      ? undefined
      : velocity.reservation({ip: plan.ip, orderRef, breaker});
  }
  const {card} = plan.body;
  return velocity.reservation({
    ip: plan.ctx.ip,
    orderRef,
    ...(card ? {cardNumber: card.number} : {}),
    ...(!card && savedCard?.token ? {cardToken: savedCard.token} : {}),
    breaker,
  });
}

/** What the gateway's answer to a create says, whichever mode answered. */
export function statusInfoOf(
  result: CreatePaymentResult,
  gatewayOrderId: string,
): GatewayStatusInfo {
  if (result.kind === 'direct') return statusInfoFromRecord(result.record);
  const url = result.checkoutUrl;
  return result.record
    ? {...statusInfoFromRecord(result.record), userActionUrl: url}
    : {
        status: 'init',
        userActionUrl: url,
        raw: JSON.stringify({mode: 'hosted', order_id: gatewayOrderId, status: 'init'}),
      };
}
