// A manual clock for the element tests: the elements read the time and sleep through it
// (their `clock` property), and time moves only when the test runs it forward, from one
// pending wait to the next. Nothing is asserted on wall time.
import type {Clock} from '../../src/internal/async-controller.js';

interface Timer {
  at: number;
  order: number;
  resolve(): void;
}

/** Lets pending promise chains and queued tasks run (no clock the elements read moves). */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r));
}

/** Work in progress that no clock measures but that the clock must wait for (`offClock`). */
let offClockWork = 0;

/**
 * Counts `work` (reading a stubbed answer's body: test/browser/helpers.ts) as in progress
 * until it settles: `runUntil` moves no time meanwhile. Without it, a body read slower than
 * two settles (a busy machine) left only the request's deadline pending, and the clock ran
 * it out: Firefox's "the clock ran 500 steps without success".
 */
export function offClock<T>(work: Promise<T>): Promise<T> {
  offClockWork++;
  return work.finally(() => offClockWork--);
}

export class ManualClock implements Clock {
  private time: number;
  private count = 0;
  private readonly timers = new Set<Timer>();

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const timer: Timer = {at: this.time + Math.max(0, ms), order: this.count++, resolve};
      const onAbort = () => {
        this.timers.delete(timer);
        reject(signal.reason);
      };
      timer.resolve = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      signal.addEventListener('abort', onAbort, {once: true});
      this.timers.add(timer);
    });
  }

  /** How many waits are pending. */
  get pending(): number {
    return this.timers.size;
  }

  /**
   * Runs time forward, one pending wait at a time (earliest first), until `done()` holds.
   * A wait ends only once nothing else is in progress: no work counted off the clock
   * (`offClock`: answers being read), and the set of pending waits the same after the page
   * has settled twice (listeners running). Steps waiting on off-clock work are not counted.
   */
  async runUntil(done: () => boolean, what = 'the condition', maxSteps = 500): Promise<void> {
    let seen = '';
    for (let step = 0; step < maxSteps; step++) {
      await settle();
      if (done()) return;
      if (offClockWork > 0) {
        seen = '';
        step--;
        continue;
      }
      const key = [...this.timers].map((t) => t.order).join(',');
      if (key !== seen) {
        seen = key;
        continue;
      }
      const next = [...this.timers].sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!next) continue; // only work off the clock (a request) is in progress
      this.timers.delete(next);
      this.time = Math.max(this.time, next.at);
      next.resolve();
      seen = '';
    }
    throw new Error(`the clock ran ${maxSteps} steps without ${what}`);
  }
}
