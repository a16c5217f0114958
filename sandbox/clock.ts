/**
 * The sandbox's controllable clock and the scheduler that runs on it. Subscription
 * charges, their retries and hosted-order expiries are tasks due at a sandbox time. In
 * the default mode the clock follows real time (plus whatever `advance` added) and a
 * single unref'd timer runs tasks as they fall due; in manual mode time only moves by
 * `advance`, which runs every task due on the way, in order, with the clock set to each
 * task's own time so its records carry the right timestamps, and waits after each task for
 * what it set off (the webhooks it sent, see `settleWith`) before moving on, so a retry
 * due within the same `advance` runs in it too.
 */

interface Task {
  at: number;
  seq: number;
  run: () => void | Promise<void>;
  done: boolean;
}

/** A scheduled task that can be called off. */
export interface TaskHandle {
  readonly at: number;
  cancel(): void;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

export class SandboxClock {
  readonly manual: boolean;
  #current: number;
  #offset: number;
  #tasks: Task[] = [];
  #seq = 0;
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<void> = Promise.resolve();
  #closed = false;
  #settlers: (() => Promise<void>)[] = [];

  constructor(opts: {start?: Date | undefined; manual: boolean}) {
    this.manual = opts.manual;
    const start = opts.start?.getTime() ?? Date.now();
    this.#current = start;
    this.#offset = start - Date.now();
  }

  /** Sandbox time in Unix milliseconds. */
  nowMs(): number {
    return this.manual ? this.#current : Date.now() + this.#offset;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** Moves the clock to `t`, never backwards. */
  #moveTo(t: number): void {
    if (this.manual) this.#current = Math.max(this.#current, t);
    else this.#offset = Math.max(this.#offset, t - Date.now());
  }

  /** Runs `run` when the sandbox clock reaches `at` (Unix ms). */
  schedule(at: number, run: () => void | Promise<void>): TaskHandle {
    const task: Task = {at, seq: this.#seq++, run, done: false};
    this.#tasks.push(task);
    this.#arm();
    return {
      at,
      cancel: () => {
        task.done = true;
        this.#tasks = this.#tasks.filter((t) => t !== task);
      },
    };
  }

  #next(limit: number): Task | undefined {
    let best: Task | undefined;
    for (const t of this.#tasks) {
      if (t.at <= limit && (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq))) {
        best = t;
      }
    }
    return best;
  }

  /** Runs every task due up to `limit()`, in time order, one at a time. */
  async #runLoop(limit: () => number): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      const task = this.#next(limit());
      if (!task) return;
      this.#tasks = this.#tasks.filter((t) => t !== task);
      if (task.done) continue;
      task.done = true;
      this.#moveTo(task.at);
      try {
        await task.run();
        if (this.manual) for (const settle of this.#settlers) await settle();
      } catch (err) {
        console.error('sandbox: a scheduled task failed', err);
      }
    }
  }

  /**
   * On a manual clock, `advance` waits for `settle()` after each task before it moves
   * time on: time stands still while the work a task set off (a delivery) finishes. A
   * clock that follows real time does not wait.
   */
  settleWith(settle: () => Promise<void>): void {
    this.#settlers.push(settle);
  }

  /** Runs `fn` after everything queued before it (tasks never run concurrently). */
  #enqueue(fn: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(fn, fn);
    this.#chain = next.catch(() => undefined);
    return next;
  }

  #arm(): void {
    if (this.manual || this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const first = this.#next(Number.POSITIVE_INFINITY);
    if (!first) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, first.at - this.nowMs()));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#enqueue(() => this.#runLoop(() => this.nowMs())).then(() => this.#arm());
    }, delay);
    this.#timer.unref();
  }

  /** Moves the clock forward by `ms`, running every task that falls due on the way. */
  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError('advance needs a non-negative number of milliseconds');
    }
    await this.#enqueue(async () => {
      const target = this.nowMs() + ms;
      await this.#runLoop(() => target);
      this.#moveTo(target);
    });
    this.#arm();
  }

  /** Number of tasks still scheduled. */
  get pending(): number {
    return this.#tasks.length;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#tasks = [];
  }
}
