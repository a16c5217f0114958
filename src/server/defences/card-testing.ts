/**
 * The shop-wide card-testing breaker (issue 29). The per-key limits (`velocity.ts`) count
 * attempts per address, order and card; a botnet testing stolen cards uses a new address,
 * order and card for each try and passes all of them. What gives it away is the shop-wide
 * picture: a burst of declines across many cards and addresses. So the companion counts the
 * outcomes of its payments per minute in the store (`GuardStore`, shared by every process
 * on one database) and, when the decline rate over the sliding window (`windowMs`, at least
 * `minDecided` payments with an outcome) passes `maxDeclineRate`, opens the breaker for
 * `openMs`. It stands before every path that sends a card towards the gateway — a card
 * typed in, a saved card, a hosted payment (the card typed on the gateway's page) — and,
 * while it is open, no payer is exempt (issue 35: a customer name is only as good as where
 * it comes from, and a botnet sends 200 made-up ones as easily as 200 cards):
 * - a guest (an order without `customer.id`) shares `admitPerMinute` places a minute
 *   shop-wide with every other guest; the others are refused with `429 rate_limited` and a
 *   `Retry-After` until the next minute;
 * - a customer the merchant names (`resolveOrder`'s `customer.id`; a saved card is always
 *   its customer's) has a budget of their own: `perCustomer` new payments within the payment
 *   limits' window (`rateLimit.windowMs`), and all named customers together `allCustomers`
 *   in that window. Those counts are taken with the attempt, in the payment store's
 *   transaction (`admit` answers them; `velocity.ts` keys them), so a refused payment counts
 *   nothing and the rows are pruned with the other limits'.
 * The gateway sees at most those shares of a flood. Outcomes of every path still count. The
 * merchant is told when it opens and when it closes: an error (then info) log line, the
 * `onChange` hook, and `app.cardTesting()` for a back office. It closes by itself: once
 * `openMs` has passed and the window's decline rate is under the level again (every check
 * re-opens it while the rate stays high).
 */
import {CheckoutError} from '../errors.js';
import type {GuardStore} from '../store/guard-store.js';
import type {GuardCount} from '../store/payment-store.js';
import type {CheckoutLogger} from '../telemetry/logger.js';

/** The breaker's settings (`cardTesting` option); each has a default. */
export interface CardTestingOptions {
  /** Off: no shop-wide breaker (the per-key limits stay). Default true. */
  enabled: boolean;
  /** The sliding window the decline rate is measured over. Default 10 minutes. */
  windowMs: number;
  /** Payments with an outcome in the window before the rate counts. Default 20. */
  minDecided: number;
  /** Declined share (0–1) of those that opens the breaker. Default 0.5. */
  maxDeclineRate: number;
  /** How long it stays open at least (renewed while the rate stays high). Default 5 minutes. */
  openMs: number;
  /** New card payments of guests admitted shop-wide per minute while it is open. Default 5. */
  admitPerMinute: number;
  /**
   * New card payments each customer `resolveOrder` names (`customer.id`) may start while it
   * is open, within the payment limits' window (`rateLimit.windowMs`, 15 minutes). Default 3.
   */
  perCustomer: number;
  /**
   * New card payments all named customers together may start while it is open, within that
   * window: the ceiling for a botnet that signs up as many customers. Default 60.
   */
  allCustomers: number;
  /** Told when the breaker opens and when it closes (after it is stored). */
  onChange?: ((state: CardTestingState) => void | Promise<void>) | undefined;
}

/**
 * The card-testing breaker's defaults (`cardTesting` option): on; opens when over half of at
 * least 20 payments decided in 10 minutes were declined; stays open 5 minutes, admitting 5
 * new card payments of guests a minute shop-wide meanwhile, and 3 of each named customer
 * (60 of all named customers together) per payment-limit window (15 minutes).
 */
export const CARD_TESTING_DEFAULTS: Omit<CardTestingOptions, 'onChange'> = {
  enabled: true,
  windowMs: 10 * 60_000,
  minDecided: 20,
  maxDeclineRate: 0.5,
  openMs: 5 * 60_000,
  admitPerMinute: 5,
  perCustomer: 3,
  allCustomers: 60,
};

/** What the breaker tells the merchant (`onChange`, `app.cardTesting()`). */
export interface CardTestingState {
  /** `open`: new card payments are slowed shop-wide (guests share a few places a minute). */
  state: 'open' | 'closed';
  /** When it opened (ISO), while open or when it has just closed. */
  since?: string;
  /** While open: until when at least (ISO). */
  until?: string;
  /** The window's payments with an outcome, and the declined ones among them. */
  decided: number;
  declined: number;
  /** Guests' payments admitted while open (this minute) and refused (over the window). */
  admittedThisMinute: number;
  refused: number;
}

/** The window's counts, as `state()` tells them. */
interface Counts {
  decided: number;
  declined: number;
  refused: number;
  admittedThisMinute: number;
}

const FLAG = 'card-testing';
const APPROVED = 'ct:approved';
const DECLINED = 'ct:declined';
const ADMITTED = 'ct:admitted';
const REFUSED = 'ct:refused';
const MINUTE = 60_000;

/** What a payment is, for the breaker's admission. */
export interface CardTestingSubject {
  /**
   * The order's customer as `resolveOrder` names it (`customer.id`; a saved card pays only
   * for it); `undefined`: a guest.
   */
  customerId?: string | undefined;
}

/**
 * What the breaker asks of a payment it admits while open: nothing for a guest (its place
 * is taken already), or a place in its customer's budget, which the payment store takes
 * with the attempt (`AttemptVelocity.reservation`): a refused attempt counts nothing.
 */
export interface CardTestingAdmission {
  customer?: {id: string; perCustomer: number; allCustomers: number};
}

export class CardTestingBreaker {
  readonly #store: GuardStore;
  readonly #o: CardTestingOptions;
  readonly #log: CheckoutLogger;
  readonly #now: () => number;
  readonly #besideStore: boolean;

  /**
   * `besideStore`: `store` is the guard store beside the payment store, in its database
   * (`guardStoreBeside`), so an outcome's count can be a write of the payment's own
   * transaction (`outcomeCount`).
   */
  constructor(
    store: GuardStore,
    options: CardTestingOptions,
    log: CheckoutLogger,
    now: () => number,
    besideStore = false,
  ) {
    this.#store = store;
    this.#o = options;
    this.#log = log;
    this.#now = now;
    this.#besideStore = besideStore;
  }

  get enabled(): boolean {
    return this.#o.enabled;
  }

  /** The minute buckets still needed: the window, plus a minute. */
  #pruneBefore(now: number): number {
    return Math.floor((now - this.#o.windowMs) / MINUTE) - 1;
  }

  /**
   * Admits a new card payment (direct, saved card or hosted), or throws `429 rate_limited`
   * with `Retry-After` while the breaker is open and this minute's guest places are taken.
   * A named customer is answered with the budget its attempt must fit (see
   * `CardTestingAdmission`). Opens the breaker first when the window's decline rate has
   * passed the level; closes it when it has fallen back.
   */
  async admit(subject: CardTestingSubject): Promise<CardTestingAdmission> {
    if (!this.#o.enabled) return {};
    const now = this.#now();
    const open = await this.#check(now);
    if (!open) return {};
    const {perCustomer, allCustomers} = this.#o;
    if (subject.customerId !== undefined) {
      return {customer: {id: subject.customerId, perCustomer, allCustomers}};
    }
    const minute = Math.floor(now / MINUTE);
    const prune = this.#pruneBefore(now);
    if (await this.#store.take(ADMITTED, minute, this.#o.admitPerMinute, prune)) return {};
    await this.#store.add(REFUSED, minute, 1, prune);
    const retryAfter = Math.max(1, Math.ceil(((minute + 1) * MINUTE - now) / 1000));
    throw new CheckoutError(
      'rate_limited',
      429,
      'payments are slowed down for a while: unusually many were declined; try again later',
      {retryAfter},
    );
  }

  /**
   * A payment's outcome as a count the payment store adds in the transaction that makes it
   * final (`AttemptMutation.count`), when the breaker's counts are in the payment store's
   * database; else `undefined`, and `outcome` counts it after.
   */
  outcomeCount(declined: boolean): GuardCount | undefined {
    if (!this.#o.enabled || !this.#besideStore) return undefined;
    return this.#countOf(declined);
  }

  /** Counts a payment's outcome (an approval or a decline) in this minute's bucket. */
  async outcome(declined: boolean): Promise<void> {
    if (!this.#o.enabled) return;
    const c = this.#countOf(declined);
    await this.#store.add(c.name, c.bucket, c.n, c.pruneBefore);
  }

  /** An outcome as one more in this minute's bucket of its name. */
  #countOf(declined: boolean): GuardCount {
    const now = this.#now();
    const name = declined ? DECLINED : APPROVED;
    return {name, bucket: Math.floor(now / MINUTE), n: 1, pruneBefore: this.#pruneBefore(now)};
  }

  /** The breaker as it stands (for a back office). */
  async state(): Promise<CardTestingState> {
    const now = this.#now();
    const flag = await this.#store.flag(FLAG);
    const counts = await this.#counts(now);
    const open = flag !== undefined && flag.until >= now;
    return this.#describe(open, flag, counts);
  }

  async #counts(now: number): Promise<Counts> {
    const since = Math.floor((now - this.#o.windowMs) / MINUTE) + 1;
    const s = await this.#store.sums([APPROVED, DECLINED, ADMITTED, REFUSED], since);
    const admitted = await this.#store.sums([ADMITTED], Math.floor(now / MINUTE));
    return {
      decided: s[APPROVED]! + s[DECLINED]!,
      declined: s[DECLINED]!,
      refused: s[REFUSED]!,
      admittedThisMinute: admitted[ADMITTED]!,
    };
  }

  #describe(
    open: boolean,
    flag: {raisedAt: number; until: number} | undefined,
    c: Counts,
  ): CardTestingState {
    return {
      state: open ? 'open' : 'closed',
      ...(flag ? {since: new Date(flag.raisedAt).toISOString()} : {}),
      ...(open && flag ? {until: new Date(flag.until).toISOString()} : {}),
      ...c,
    };
  }

  /** True while the breaker is open (after opening or closing it as the window says). */
  async #check(now: number): Promise<boolean> {
    // One read decides — the flag and the window's outcomes together where the store reads
    // both at once (every payment makes it while the breaker is closed); the counts the
    // merchant is told are read only when it opens or closes.
    const since = Math.floor((now - this.#o.windowMs) / MINUTE) + 1;
    const both = await this.#store.flagAndSums?.(FLAG, [APPROVED, DECLINED], since);
    const flag = both ? both.flag : await this.#store.flag(FLAG);
    if (flag && flag.until >= now) return true;
    const w = both?.sums ?? (await this.#store.sums([APPROVED, DECLINED], since));
    const decided = w[APPROVED]! + w[DECLINED]!;
    const spiking =
      decided >= this.#o.minDecided && w[DECLINED]! / decided > this.#o.maxDeclineRate;
    if (!spiking && !flag) return false;
    const c = await this.#counts(now);
    if (spiking) {
      // A flag that ended within the window is the same episode, taken up again.
      const raised = await this.#store.raise(
        FLAG,
        now,
        now + this.#o.openMs,
        JSON.stringify({decided: c.decided, declined: c.declined}),
        this.#o.windowMs,
      );
      if (raised.raised) {
        this.#log.error(
          {
            decided: c.decided,
            declined: c.declined,
            admitPerMinute: this.#o.admitPerMinute,
            perCustomer: this.#o.perCustomer,
          },
          'card testing suspected: the decline rate passed its level; new card payments are slowed shop-wide (guests share a few places a minute, each named customer has a budget of their own)',
        );
        await this.#tell(this.#describe(true, raised, c));
      }
      return true;
    }
    if (flag && (await this.#store.clear(FLAG, flag.raisedAt))) {
      this.#log.info(
        {decided: c.decided, declined: c.declined, refused: c.refused},
        'card-testing breaker closed: the decline rate is back under its level',
      );
      await this.#tell(this.#describe(false, flag, c));
    }
    return false;
  }

  async #tell(state: CardTestingState): Promise<void> {
    try {
      await this.#o.onChange?.(state);
    } catch (error) {
      this.#log.warn(
        {error: error instanceof Error ? error.message : String(error)},
        'the cardTesting.onChange hook failed',
      );
    }
  }
}
