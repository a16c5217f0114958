/**
 * The card-testing defence: how many payment attempts one client address, one order and
 * one card may make in a sliding window. Every attempt counts, declined or not, and it
 * counts when it is reserved — before the gateway is called — in the payment store, in
 * one transaction with the check — and with the new attempt itself
 * (`PaymentStore.insertAttempt` with a reservation; `reserveAttempt` for a create sent
 * again after an unknown outcome, whose attempt is stored already). So concurrent requests
 * cannot all pass the same check, a restart forgets nothing, and several processes on one
 * store share the counters. IPv6 clients are grouped by their /64 (one subscriber's
 * network); a card is keyed by an HMAC of its number under a key derived from the API
 * secret, so the number itself is never stored, and a saved card by an HMAC of its token
 * under the same key (one card, however it pays, meets the same per-card limit; the token
 * is never stored as a key either). The order route's look-ups are counted per address
 * the same way, under a scope of their own, so reading an order never uses up a payment
 * attempt. While the card-testing breaker is open, a named customer's payment also counts
 * against that customer's budget and the budget of all named customers together
 * (`card-testing.ts`), keyed by an HMAC of the customer id, in the same transaction.
 */
import {createHmac} from 'node:crypto';
import type {CardTestingAdmission} from './card-testing.js';
import {CheckoutRateLimitedError} from '../errors.js';
import {addressGroup} from './client-address.js';
import type {AttemptReservation, PaymentStore, VelocityKey} from '../store/payment-store.js';

/** Attempts allowed per window; see the `rateLimit` option. */
export interface VelocityLimits {
  maxAttemptsPerIp: number;
  maxAttemptsPerOrder: number;
  maxAttemptsPerCard: number;
  /** Order look-ups (`POST /order`, saved-card removal) per client address. */
  maxOrderLookupsPerIp: number;
  windowMs: number;
}

/** The group an address counts in (`addressGroup`, client-address.ts): IPv4 itself, IPv6 its /64. */
export const velocityAddress = addressGroup;

/** Counts attempts per address, order and card in the payment store. */
export class AttemptVelocity {
  readonly #store: PaymentStore;
  readonly #limits: VelocityLimits;
  readonly #cardKey: Buffer;
  readonly #now: () => number;

  constructor(store: PaymentStore, limits: VelocityLimits, secret: string, now: () => number) {
    this.#store = store;
    this.#limits = limits;
    // A key of its own, so the card hash is not a value anything else computes.
    this.#cardKey = createHmac('sha256', secret).update('pg-checkout card velocity v1').digest();
    this.#now = now;
  }

  /** The keyed hash a card number is counted under (never the number). */
  cardKey(number: string): string {
    return createHmac('sha256', this.#cardKey)
      .update(number.replace(/\D/g, ''))
      .digest('base64url')
      .slice(0, 32);
  }

  /**
   * The keyed hash a saved card is counted under: its gateway token (never stored as a
   * key), kept apart from card-number hashes by a prefix.
   */
  savedCardKey(token: string): string {
    return createHmac('sha256', this.#cardKey)
      .update(`token:${token}`)
      .digest('base64url')
      .slice(0, 32);
  }

  /** The keyed hash a named customer's budget is counted under while the breaker is open. */
  customerKey(customerId: string): string {
    return createHmac('sha256', this.#cardKey)
      .update(`customer:${customerId}`)
      .digest('base64url')
      .slice(0, 32);
  }

  /**
   * What a payment of the given subjects counts under, for the store to take in one
   * transaction with its attempt (`PaymentStore.insertAttempt`): one attempt for each of
   * them. A card is its number typed in (`cardNumber`) or a saved card's token (`cardToken`);
   * `breaker`: what the open card-testing breaker asks of it (a named customer's budget).
   */
  reservation(subject: {
    ip?: string | undefined;
    orderRef?: string;
    cardNumber?: string;
    cardToken?: string;
    breaker?: CardTestingAdmission;
  }): AttemptReservation {
    const l = this.#limits;
    const keys: VelocityKey[] = [];
    if (subject.ip !== undefined) {
      keys.push({scope: 'ip', key: velocityAddress(subject.ip), max: l.maxAttemptsPerIp});
    }
    if (subject.orderRef !== undefined) {
      keys.push({scope: 'order', key: subject.orderRef, max: l.maxAttemptsPerOrder});
    }
    if (subject.cardNumber !== undefined && /\d{6,}/.test(subject.cardNumber)) {
      keys.push({scope: 'card', key: this.cardKey(subject.cardNumber), max: l.maxAttemptsPerCard});
    } else if (subject.cardToken) {
      keys.push({
        scope: 'card',
        key: this.savedCardKey(subject.cardToken),
        max: l.maxAttemptsPerCard,
      });
    }
    const customer = subject.breaker?.customer;
    if (customer) {
      keys.push(
        {scope: 'breaker-customer', key: this.customerKey(customer.id), max: customer.perCustomer},
        {scope: 'breaker-customers', key: 'all', max: customer.allCustomers},
      );
    }
    return {keys, now: this.#now(), windowMs: l.windowMs};
  }

  /**
   * Reserves one attempt for each of the given subjects on its own, or throws
   * `CheckoutRateLimitedError` when any of them is at its limit (nothing is counted then).
   */
  async reserve(subject: Parameters<AttemptVelocity['reservation']>[0]): Promise<void> {
    await this.#take(this.reservation(subject).keys);
  }

  /**
   * Counts one order look-up of the client address (the order route), or throws
   * `CheckoutRateLimitedError` when the address is at its limit.
   */
  async reserveLookup(ip: string): Promise<void> {
    const l = this.#limits;
    await this.#take([
      {scope: 'order-lookup', key: velocityAddress(ip), max: l.maxOrderLookupsPerIp},
    ]);
  }

  async #take(keys: readonly VelocityKey[]): Promise<void> {
    const r = await this.#store.reserveAttempt(keys, this.#now(), this.#limits.windowMs);
    if (!r.ok) throw rateLimited(r.retryAfterMs);
  }
}

/** The answer to a refused reservation: retry once a place frees (whole seconds, at least 1). */
export function rateLimited(retryAfterMs: number): CheckoutRateLimitedError {
  return new CheckoutRateLimitedError(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}
