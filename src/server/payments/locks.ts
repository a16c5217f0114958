/**
 * In-process serialisation, so one process never races itself: a queue per order (its
 * attempts and secondary operations run one at a time), single flight per key (repeats of
 * a running call join it), and the set of creates in flight (an attempt whose create call
 * is still running here is not looked up, swept or made `unknown` by this process).
 * Across processes the store's transactions and keys do the same job.
 */

/** One queue per order: `run` waits for the order's earlier work, then runs `fn`. */
export class OrderLocks {
  /** Order ref → tail of the order's queue. */
  readonly #tails = new Map<string, Promise<void>>();

  /** True while some work of the order runs or waits. */
  busy(orderRef: string): boolean {
    return this.#tails.has(orderRef);
  }

  async run<T>(orderRef: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(orderRef) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#tails.set(orderRef, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(orderRef) === tail) this.#tails.delete(orderRef);
    }
  }
}

/** Single flight: while a call for `key` runs, another for the same key joins it. */
export class SingleFlight<V, Tag = undefined> {
  readonly #running = new Map<string, {tag: Tag; promise: Promise<V>}>();

  /** The running call for `key`, with the tag it was started with. */
  get(key: string): {tag: Tag; promise: Promise<V>} | undefined {
    return this.#running.get(key);
  }

  /** Joins the running call for `key`, or starts `fn` as it. */
  run(key: string, fn: () => Promise<V>, tag?: Tag): Promise<V> {
    const running = this.#running.get(key);
    if (running) return running.promise;
    const promise = fn().finally(() => this.#running.delete(key));
    this.#running.set(key, {tag: tag as Tag, promise});
    return promise;
  }

  /** Every running call (for shutdown). */
  all(): Promise<V>[] {
    return [...this.#running.values()].map((r) => r.promise);
  }
}

/** Gateway order ids whose create call is in flight in this process. */
export class CreatesInFlight {
  readonly #ids = new Set<string>();

  has(gatewayOrderId: string): boolean {
    return this.#ids.has(gatewayOrderId);
  }

  /** Runs a create call for `gatewayOrderId`, marked in flight until it settles. */
  async run<T>(gatewayOrderId: string, fn: () => Promise<T>): Promise<T> {
    this.#ids.add(gatewayOrderId);
    try {
      return await fn();
    } finally {
      this.#ids.delete(gatewayOrderId);
    }
  }
}
