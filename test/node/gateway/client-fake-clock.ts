/**
 * A fake `GatewayClock` for the client tests: every sleep returns at once, moves the
 * clock's time forward by its length, and is recorded, so waits and deadlines are
 * asserted on the clock, never on elapsed wall time. It starts at the real time (so
 * HTTP dates in `Retry-After` read as they would), and honours an abort signal.
 */
import type {GatewayClock} from '../../../src/server/gateway/index.js';

export class FakeClock implements GatewayClock {
  #now: number;
  /** Every wait asked for, in ms, in order. */
  readonly sleeps: number[] = [];

  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.#now += ms;
    await Promise.resolve();
    if (signal?.aborted) throw signal.reason;
  }
}
