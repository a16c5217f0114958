/**
 * Saved cards in the payment service: what the order route tells the form (the total the
 * server charges and the identified customer's saved cards), the check that lets a saved
 * card pay (this order's customer, not removed, token not expired), the card to keep with
 * the success of a payment the customer consented to save (in the same store transaction),
 * and the merchant's list and remove. The customer is always the one `resolveOrder` names
 * for the order, never one the browser names; the token never leaves the server.
 */
import type {OrderRequest, OrderResponse, PayFailure, PayRequest} from '../../protocol/checkout.js';
import {amountText} from '../gateway/primitives.js';
import {CheckoutNotFoundError} from '../errors.js';
import {SAVED_CARD_REFUSALS, type SavedCardRefusal} from './failure-reasons.js';
import type {ResolvedOrder} from './gateway-request.js';
import {
  newSavedCardId,
  savedCardSummary,
  savedCardView,
  tokenExpired,
  type SavedCardRecord,
  type SavedCardSummary,
} from '../store/saved-card-records.js';
import {brandOfMask} from '../card-brand.js';
import type {CheckoutLogger} from '../telemetry/logger.js';
import type {AttemptMutation, AttemptRecord} from '../store/payment-store.js';
import type {GatewayStatusInfo} from './attempt-transitions.js';
import {ServicePart, type ServiceConfig} from './service-config.js';

export type SavedCardsConfig = Pick<ServiceConfig, 'store' | 'resolveOrder' | 'logger' | 'now'>;

/** A saved card refused for a payment: answered as a failure with its reason. */
export class SavedCardRefused extends Error {
  readonly reason: SavedCardRefusal;
  constructor(reason: SavedCardRefusal) {
    super(`the saved card cannot pay: ${reason}`);
    this.name = 'SavedCardRefused';
    this.reason = reason;
  }
}

/** The failure answer of a refused saved card (nothing was sent to the gateway). */
export function savedCardRefusedAnswer(orderRef: string, error: SavedCardRefused): PayFailure {
  return {
    outcome: 'failure',
    orderRef,
    code: error.reason,
    reason: error.reason,
    message: error.message,
  };
}

/** The customer id `resolveOrder` gave for the order, if any. */
export function customerOf(order: ResolvedOrder): string | undefined {
  const id = order.customer?.id?.trim();
  return id ? id : undefined;
}

/**
 * The token of `card` for paying `order`, or a {@link SavedCardRefused}: another customer's
 * card reads as unknown (its existence is not revealed).
 */
export function savedCardToken(
  card: SavedCardRecord | undefined,
  order: ResolvedOrder,
  now: number,
): string {
  const customer = customerOf(order);
  if (!card || customer === undefined || card.customerId !== customer) {
    throw new SavedCardRefused(SAVED_CARD_REFUSALS.unknown);
  }
  if (card.deletedAt !== undefined || card.token === '') {
    throw new SavedCardRefused(SAVED_CARD_REFUSALS.removed);
  }
  if (tokenExpired(card, now)) throw new SavedCardRefused(SAVED_CARD_REFUSALS.expired);
  return card.token;
}

/** The customer to save the card for: only with consent, only one the server identifies. */
export function saveCardFor(body: PayRequest, order: ResolvedOrder): string | undefined {
  return body.saveCard === true && body.card !== undefined ? customerOf(order) : undefined;
}

export class SavedCards extends ServicePart<{cfg: SavedCardsConfig}> {
  /** The order route's answer. */
  async orderInfo(body: OrderRequest, request: Request): Promise<OrderResponse> {
    const order = await this.cfg.resolveOrder(body.orderRef, request);
    if (!order) throw new CheckoutNotFoundError('unknown order');
    const customer = customerOf(order);
    const now = this.cfg.now();
    const cards =
      body.savedCards === true && customer !== undefined
        ? (await this.cfg.store.listSavedCards(customer)).map((c) => savedCardView(c, now))
        : undefined;
    return {
      orderRef: body.orderRef,
      amount: amountText(order.amount) ?? String(order.amount),
      currency: order.currency,
      ...(cards ? {savedCards: cards} : {}),
    };
  }

  /** The customer of `orderRef` removes one of their cards; answers the order's new list. */
  async removeForOrder(
    orderRef: string,
    savedCardId: string,
    request: Request,
  ): Promise<OrderResponse> {
    const order = await this.cfg.resolveOrder(orderRef, request);
    if (!order) throw new CheckoutNotFoundError('unknown order');
    const customer = customerOf(order);
    if (customer === undefined || !(await this.remove(customer, savedCardId))) {
      throw new CheckoutNotFoundError('savedCardId: no saved card of this customer has this id');
    }
    return this.orderInfo({orderRef, savedCards: true}, request);
  }

  /** The merchant's list: a customer's live cards (every customer's when absent). */
  async list(customerId?: string): Promise<SavedCardSummary[]> {
    const now = this.cfg.now();
    return (await this.cfg.store.listSavedCards(customerId)).map((c) => savedCardSummary(c, now));
  }

  /** The merchant removes a customer's card; false when the customer has no such card. */
  async remove(customerId: string, savedCardId: string): Promise<boolean> {
    const removed = await this.cfg.store.deleteSavedCard(customerId, savedCardId, this.cfg.now());
    if (removed) this.log.info({savedCardId}, 'saved card removed');
    return removed;
  }
}

/** Logs what became of the card of a success whose customer consented (`cardToKeep`). */
export function logCardKept(
  log: CheckoutLogger,
  attempt: AttemptRecord,
  savedCardId: string | undefined,
): void {
  if (savedCardId !== undefined) {
    log.info({orderRef: attempt.orderRef, savedCardId}, 'card saved for the customer');
  } else {
    log.warn(
      {orderRef: attempt.orderRef, gatewayOrderId: attempt.gatewayOrderId},
      'the payment record has no card token to save',
    );
  }
}

/**
 * The card to keep as `current` becomes a success through `mutation`, when its customer
 * consented: the token, mask and token expiry of the gateway's report, and the brand its
 * mask tells. The store keeps it in the transaction that stores the success, so it is kept
 * once, whichever of the create answer, a webhook or a lookup reports the success first,
 * and a crash cannot separate the two: the token is never written to the attempt.
 * `undefined` when nothing is to be kept (or the report has no token: logged by `kept`).
 */
export function cardToKeep(
  current: AttemptRecord,
  mutation: AttemptMutation,
  info: GatewayStatusInfo,
  now: number,
): SavedCardRecord | undefined {
  const customerId = current.saveCardFor;
  if (customerId === undefined || current.state === 'success') return undefined;
  if (mutation.patch.state !== 'success') return undefined;
  const mask = info.cardMask ?? current.cardMask;
  if (!info.cardToken || !mask || !info.cardTokenExpiration) return undefined;
  const brand = brandOfMask(mask);
  return {
    id: newSavedCardId(),
    customerId,
    token: info.cardToken,
    mask,
    ...(brand === undefined ? {} : {brand}),
    tokenExpiresAt: info.cardTokenExpiration,
    createdAt: now,
  };
}
