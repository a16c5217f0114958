/** The open loop's clock for tests (bench/server/open-loop.ts): it moves only when told to. */
import type {Clock} from '../../../bench/server/open-loop.js';

export class FakeClock implements Clock {
  t = 0;
  #waiters: {at: number; resolve: () => void}[] = [];
  now = () => this.t;
  sleep = (ms: number) =>
    new Promise<void>((resolve) => this.#waiters.push({at: this.t + Math.max(0, ms), resolve}));
  /** Moves to `t` and wakes every sleeper due by then; lets the woken code run. */
  async advanceTo(t: number) {
    this.t = t;
    const due = this.#waiters.filter((w) => w.at <= t);
    this.#waiters = this.#waiters.filter((w) => w.at > t);
    for (const w of due) w.resolve();
    await new Promise((r) => setImmediate(r));
  }
}
