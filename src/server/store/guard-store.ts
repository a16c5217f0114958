/**
 * Where the companion's shop-wide defences keep their counts (issue 29): small counters in
 * time buckets and flags with an end, in the database the processes of one shop share, so
 * every process sees the same picture and a restart forgets nothing. Used by the
 * card-testing breaker (`card-testing.ts`: outcomes per minute, the breaker's flag, the
 * attempts admitted while it is open) and by the bound on refused webhooks
 * (`service/webhooks.ts`: refusals kept per minute, the rest counted per minute). The
 * bucket rows are pruned as they are written, so the tables stay small: a row per name and
 * bucket still in the window, a row per flag.
 *
 * Implementations: `MemoryGuardStore` (one process; beside a store of the merchant's own),
 * `SqliteGuardStore` (sqlite-guard-store.ts) and `PostgresGuardStore`
 * (postgres-guard-store.ts). `createCheckoutApp` makes the one that matches its payment
 * store when none is given (`guardStore`).
 */

/** A flag as stored: raised at `raisedAt`, up until `until` (epoch ms), with a note. */
export interface GuardFlag {
  raisedAt: number;
  until: number;
  info: string;
}

/** The store of counters and flags; every method is atomic across processes. */
export interface GuardStore {
  /**
   * Adds `n` to the count of `name` in `bucket` (any whole number: a minute, say) and
   * deletes that name's buckets before `pruneBefore`. Answers the bucket's new count.
   */
  add(name: string, bucket: number, n: number, pruneBefore: number): Promise<number>;
  /**
   * Adds one to the count of `name` in `bucket` when it is under `max` (a rate limit):
   * true when it did. Prunes as `add` does.
   */
  take(name: string, bucket: number, max: number, pruneBefore: number): Promise<boolean>;
  /** For each of `names`, the sum of its buckets from `since` on (0 when none). */
  sums(names: readonly string[], since: number): Promise<Record<string, number>>;
  /**
   * Raises the flag `name` until `until` — or, when it is up already (its `until` not past
   * at `now`), moves its end to the later of the two. `continueWithinMs`: a flag that ended
   * less than this before `now` is taken up again, keeping its `raisedAt`. `raised`: this
   * call raised it anew (once across processes, for a notification).
   */
  raise(
    name: string,
    now: number,
    until: number,
    info: string,
    continueWithinMs: number,
  ): Promise<GuardFlag & {raised: boolean}>;
  /** The flag `name`, up or not (`undefined` when it was never raised or was cleared). */
  flag(name: string): Promise<GuardFlag | undefined>;
  /**
   * The flag `flagName` and the sums of `names` from `since` on, as `flag` and `sums`
   * answer them, in one read (optional: a store of one round trip per call, PostgreSQL's).
   */
  flagAndSums?(
    flagName: string,
    names: readonly string[],
    since: number,
  ): Promise<{flag: GuardFlag | undefined; sums: Record<string, number>}>;
  /** Clears the flag `name` if its `raisedAt` is still `raisedAt`; true when this call did. */
  clear(name: string, raisedAt: number): Promise<boolean>;
  /**
   * Keeps the newest `keep` rows of the payment store's `rejected_webhooks` and deletes the
   * rest; answers how many were deleted. (The payment store writes them; this bounds them,
   * in the same database. A store without that table answers 0.)
   */
  trimRejectedWebhooks(keep: number): Promise<number>;
  /**
   * Deletes the buckets before `before` of every name that starts with `prefix`, however
   * long since that name was last counted; answers how many. (`add` and `take` prune only
   * their own name: counters per client address need this, or each address ever seen
   * would leave its last bucket behind.) Optional for a store of the merchant's own.
   */
  forget?(prefix: string, before: number): Promise<number>;
  /** Closes what the store opened itself (not a connection or pool it was given). */
  close?(): Promise<void>;
}

/**
 * The shop-wide guards' counters and flags in this process's memory: for one process with
 * a payment store of your own (`createCheckoutApp` picks it then); several processes need
 * the SQLite or PostgreSQL guard store, which they share.
 *
 * @example
 * ```ts
 * import {MemoryGuardStore} from 'pg-checkout/server';
 *
 * const guard = new MemoryGuardStore();
 * await guard.add('declines', Math.floor(Date.now() / 60_000), 1, 0);
 * ```
 */
export class MemoryGuardStore implements GuardStore {
  readonly #counts = new Map<string, Map<number, number>>();
  readonly #flags = new Map<string, GuardFlag>();

  #bucketsOf(name: string, pruneBefore: number): Map<number, number> {
    let buckets = this.#counts.get(name);
    if (!buckets) this.#counts.set(name, (buckets = new Map()));
    for (const b of buckets.keys()) if (b < pruneBefore) buckets.delete(b);
    return buckets;
  }

  async add(name: string, bucket: number, n: number, pruneBefore: number): Promise<number> {
    const buckets = this.#bucketsOf(name, pruneBefore);
    const count = (buckets.get(bucket) ?? 0) + n;
    buckets.set(bucket, count);
    return count;
  }

  async take(name: string, bucket: number, max: number, pruneBefore: number): Promise<boolean> {
    const buckets = this.#bucketsOf(name, pruneBefore);
    const count = buckets.get(bucket) ?? 0;
    if (count >= max) return false;
    buckets.set(bucket, count + 1);
    return true;
  }

  async sums(names: readonly string[], since: number): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const name of names) {
      let sum = 0;
      for (const [b, n] of this.#counts.get(name) ?? []) if (b >= since) sum += n;
      out[name] = sum;
    }
    return out;
  }

  async raise(name: string, now: number, until: number, info: string, continueWithinMs: number) {
    const old = this.#flags.get(name);
    if (old && old.until >= now - continueWithinMs) {
      const kept = {...old, until: Math.max(old.until, until)};
      this.#flags.set(name, kept);
      return {...kept, raised: false};
    }
    const flag = {raisedAt: now, until, info};
    this.#flags.set(name, flag);
    return {...flag, raised: true};
  }

  async flag(name: string): Promise<GuardFlag | undefined> {
    const f = this.#flags.get(name);
    return f && {...f};
  }

  async clear(name: string, raisedAt: number): Promise<boolean> {
    if (this.#flags.get(name)?.raisedAt !== raisedAt) return false;
    this.#flags.delete(name);
    return true;
  }

  async forget(prefix: string, before: number): Promise<number> {
    let n = 0;
    for (const [name, buckets] of this.#counts) {
      if (!name.startsWith(prefix)) continue;
      for (const b of buckets.keys()) if (b < before && buckets.delete(b)) n++;
      if (buckets.size === 0) this.#counts.delete(name);
    }
    return n;
  }

  /** No payment store's table in memory to bound: 0. */
  async trimRejectedWebhooks(): Promise<number> {
    return 0;
  }
}
