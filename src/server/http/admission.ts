/**
 * Backpressure: a busy instance says so, quickly, instead of reporting an outage.
 *
 * - {@link Admission} bounds the requests one companion instance works on at once
 *   (`maxInFlight`); more wait in a queue of `queue` places, each at most `queueTimeoutMs`.
 *   A request that finds the queue full, or waits past the deadline, is answered
 *   `503 busy` with `Retry-After` at once (`CheckoutBusyError`): nothing was done for it,
 *   and the same request may be sent again. `Retry-After` spreads the retries: it is
 *   `retryAfterSeconds` while few are refused, and grows towards `retryAfterMaxSeconds`,
 *   at random, with the requests refused per request answered in the last second — the
 *   customers waiting outside come back about as fast as the instance answers, instead of
 *   all of them every 2 s (in the rush benchmark, ten refusals for each payment, the
 *   instance's CPU spent on saying "busy"). Once the app closes, every new request is
 *   answered the same way (webhooks too: the gateway sends them again), and `idle()`
 *   waits for those admitted before.
 * - A store's pool waited on past its deadline (`StoreBusyError`, store/store-busy.ts)
 *   is answered `503 busy` too, never `store_unavailable` (kept for a database that
 *   cannot be reached).
 */
import {CheckoutBusyError} from '../errors.js';

/** Options of {@link Admission} (the `admission` option of `createCheckoutApp`). */
export interface AdmissionOptions {
  /** Requests worked on at once (default 64). */
  maxInFlight: number;
  /** Requests that may wait for a place (default 512); one more is answered `503 busy`. */
  queue: number;
  /** The longest a request waits for a place, in ms (default 5000); then `503 busy`. */
  queueTimeoutMs: number;
  /** The `Retry-After` of a `busy` answer while few are refused, in seconds (default 2). */
  retryAfterSeconds: number;
  /** The longest `Retry-After` when many are refused, in seconds (default 10). */
  retryAfterMaxSeconds: number;
  /**
   * Readiness (`app.ready()`): once every place has been taken, and none given back, for
   * this long (ms, default 5000), the instance is not ready — it cannot take a payment.
   */
  notReadyAfterMs: number;
}

export const ADMISSION_DEFAULTS: AdmissionOptions = {
  maxInFlight: 64,
  queue: 512,
  queueTimeoutMs: 5000,
  retryAfterSeconds: 2,
  retryAfterMaxSeconds: 10,
  notReadyAfterMs: 5000,
};

interface Waiter {
  admit(): void;
  refuse(error: CheckoutBusyError): void;
}

/** A counting limit with a bounded FIFO queue and a deadline per waiter. */
export class Admission {
  readonly options: AdmissionOptions;
  #active = 0;
  readonly #queue: Waiter[] = [];
  #closed = false;
  readonly #idle = new Set<() => void>();
  /** Requests answered `busy` since the start (a full queue, a deadline, shutting down). */
  refused = 0;
  readonly #now: () => number;
  readonly #random: () => number;
  /** Refused and answered requests in the current second and the one before. */
  #second = 0;
  #counts = {refused: 0, left: 0};
  #last = {refused: 0, left: 0};
  /** Since when every place is taken and none was given back (`now()` ms), while so. */
  #fullSince: number | undefined;

  /** `now` (ms) and `random` ([0, 1)) are for tests. */
  constructor(
    options: Partial<AdmissionOptions> = {},
    deps: {now?: () => number; random?: () => number} = {},
  ) {
    this.options = {...ADMISSION_DEFAULTS, ...options};
    this.options.retryAfterMaxSeconds = Math.max(
      this.options.retryAfterMaxSeconds,
      this.options.retryAfterSeconds,
    );
    this.#now = deps.now ?? (() => performance.now());
    this.#random = deps.random ?? Math.random;
  }

  /** The counts of this second, the last second's moved aside when a new one has begun. */
  #tick(): {refused: number; left: number} {
    const second = Math.floor(this.#now() / 1000);
    if (second !== this.#second) {
      this.#last = second === this.#second + 1 ? this.#counts : {refused: 0, left: 0};
      this.#counts = {refused: 0, left: 0};
      this.#second = second;
    }
    return this.#counts;
  }

  /**
   * The `Retry-After` of a `busy` answer now, in seconds: `retryAfterSeconds`, plus a random
   * share of a spread that grows with the requests refused per request answered over the
   * last second, up to `retryAfterMaxSeconds`. Once closed, `retryAfterSeconds`: shutting
   * down is no pressure, another instance answers the retry.
   */
  retryAfter(): number {
    const counts = this.#tick();
    const {retryAfterSeconds: least, retryAfterMaxSeconds: most} = this.options;
    if (this.#closed) return least;
    const refused = Math.max(counts.refused, this.#last.refused);
    const answered = Math.max(counts.left, this.#last.left, 1);
    const spread = Math.min(most - least, Math.ceil((refused / answered) * least));
    return least + Math.floor(this.#random() * (spread + 1));
  }

  /** Requests being worked on now. */
  get inFlight(): number {
    return this.#active;
  }

  /** Requests waiting for a place now. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * How long (ms) every place has been taken without one given back: 0 while a place is
   * free. Past `notReadyAfterMs` the instance is not ready (`app.ready()`).
   */
  fullFor(): number {
    return this.#fullSince === undefined ? 0 : this.#now() - this.#fullSince;
  }

  /** A place was taken: when that took the last one, the instance is full from now. */
  #took(): void {
    this.#active++;
    if (this.#active >= this.options.maxInFlight) this.#fullSince ??= this.#now();
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  #busy(message: string): CheckoutBusyError {
    const retryAfter = this.retryAfter();
    this.refused++;
    this.#tick().refused++;
    return new CheckoutBusyError(message, {retryAfter});
  }

  /**
   * A place for one request: resolves with its `leave` (call it once, when the answer is
   * made), or rejects with `CheckoutBusyError` at once when the queue is full or the app is
   * closing, or once the request has waited `queueTimeoutMs`.
   */
  enter(): Promise<() => void> {
    if (this.#closed) {
      return Promise.reject(this.#busy('this server is shutting down: try again in a moment'));
    }
    if (this.#active < this.options.maxInFlight && this.#queue.length === 0) {
      this.#took();
      return Promise.resolve(this.#leave());
    }
    if (this.#queue.length >= this.options.queue) {
      return Promise.reject(this.#busy('this server is busy: try again in a moment'));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(timer);
          this.#took();
          resolve(this.#leave());
        },
        refuse: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(this.#busy('this server is busy: try again in a moment'));
        this.#settled();
      }, this.options.queueTimeoutMs);
      this.#queue.push(waiter);
    });
  }

  #leave(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#active--;
      // A place given back: the instance is making progress (full again only from now).
      this.#fullSince = undefined;
      this.#tick().left++;
      const next = this.#queue.shift();
      if (next) next.admit();
      this.#settled();
    };
  }

  #settled(): void {
    if (this.#active === 0 && this.#queue.length === 0) for (const f of this.#idle) f();
  }

  /**
   * Admits nothing more: new requests and those still queued are answered `busy`. Those
   * admitted run to their end (see {@link idle}).
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#queue.splice(0)) {
      w.refuse(this.#busy('this server is shutting down: try again in a moment'));
    }
    this.#settled();
  }

  /** Resolves true once nothing is in flight, or false at `deadline` (epoch ms). */
  idle(deadline: number): Promise<boolean> {
    if (this.#active === 0 && this.#queue.length === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.#idle.delete(onIdle);
        resolve(value);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(false), Math.max(0, deadline - Date.now()));
      this.#idle.add(onIdle);
    });
  }
}
