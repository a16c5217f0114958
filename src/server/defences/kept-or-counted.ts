/**
 * The bound on an unauthenticated write (issue 29, issue 35): anyone can post a forged
 * webhook or a CSP report, so what such a post leaves in the database is kept one by one
 * only at a shop-wide rate (`perMinute`, counted in the guard store, so every process of
 * the shop shares it) and the writer trims its table to its newest rows after each; past
 * the rate a post is only counted, per minute, for `countedMinutes`. Refused webhooks
 * (`service/webhooks.ts`) and security reports (`security-report-route.ts`) both go
 * through it: a flood leaves at most the table's cap and `countedMinutes` count rows.
 */
import type {GuardStore} from '../store/guard-store.js';

const MINUTE = 60_000;

/** How much of a flood is kept: rows a minute shop-wide; minutes the rest is counted for. */
export interface KeptOrCountedLimits {
  perMinute: number;
  countedMinutes: number;
}

/** What `write` did with a post. */
export interface KeptOrCountedResult {
  kept: boolean;
  /** Counted, and the first post this process counted in its minute (log it once). */
  firstCounted: boolean;
}

export class KeptOrCounted {
  readonly #guard: GuardStore;
  readonly #kept: string;
  readonly #counted: string;
  readonly #limits: KeptOrCountedLimits;
  readonly #now: () => number;
  /** The minute whose counted posts were last said in the log (per process). */
  #countedMinute = -1;

  /** `name` prefixes the guard store's two counters (`<name>-kept`, `<name>-counted`). */
  constructor(guard: GuardStore, name: string, limits: KeptOrCountedLimits, now: () => number) {
    this.#guard = guard;
    this.#kept = `${name}-kept`;
    this.#counted = `${name}-counted`;
    this.#limits = limits;
    this.#now = now;
  }

  /**
   * Runs `keep` (write the row, then trim the table) when this minute's shop-wide rate has
   * room, else counts the post.
   */
  async write(keep: () => Promise<void>): Promise<KeptOrCountedResult> {
    const minute = Math.floor(this.#now() / MINUTE);
    const prune = minute - this.#limits.countedMinutes;
    if (await this.#guard.take(this.#kept, minute, this.#limits.perMinute, prune)) {
      await keep();
      return {kept: true, firstCounted: false};
    }
    await this.#guard.add(this.#counted, minute, 1, prune);
    const firstCounted = this.#countedMinute !== minute;
    this.#countedMinute = minute;
    return {kept: false, firstCounted};
  }

  /** Posts kept one by one and only counted, over the minutes the counts are kept. */
  async counts(): Promise<{kept: number; counted: number}> {
    const since = Math.floor(this.#now() / MINUTE) - this.#limits.countedMinutes;
    const s = await this.#guard.sums([this.#kept, this.#counted], since);
    return {kept: s[this.#kept]!, counted: s[this.#counted]!};
  }
}
