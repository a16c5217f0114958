/**
 * The service's background work and its shutdown flag: tasks started without being
 * awaited (return-route checks, duplicate-charge checks, recovery, sweeps) are tracked
 * so `close()` can wait for them, and their failures are logged, never thrown. Also
 * `errorSummary`, what a log line may say about an error.
 */
import type {CheckoutLogger} from '../telemetry/logger.js';

/** An error reduced to what is safe to log: its class, code and message. */
export function errorSummary(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const e = error as Error & {code?: unknown; status?: unknown};
    return {
      type: e.name,
      ...(typeof e.code === 'string' ? {code: e.code} : {}),
      ...(typeof e.status === 'number' ? {status: e.status} : {}),
      message: e.message,
    };
  }
  return {type: typeof error};
}

/** Tracked background tasks; once closed, nothing new should start. */
export class Background {
  readonly #log: CheckoutLogger;
  readonly #tasks = new Set<Promise<unknown>>();
  #closed = false;

  constructor(log: CheckoutLogger) {
    this.#log = log;
  }

  /** True once `close()` was called: work that would start now is skipped. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `task` without awaiting it; `close()` waits for it. Failures are logged. */
  run(task: Promise<unknown>): void {
    const tracked = task.catch((error: unknown) =>
      this.#log.error({error: errorSummary(error)}, 'background task failed'),
    );
    this.#tasks.add(tracked);
    void tracked.finally(() => this.#tasks.delete(tracked));
  }

  /** Marks the service closed and waits for the tasks running now. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#tasks]);
  }
}
