/**
 * A small task controller (after `@lit/task`): runs one piece of async work for an element
 * with an `AbortSignal`, tracks explicit `initial` / `pending` / `complete` / `error`
 * states, re-renders its host when the state changes and aborts the work when the host
 * leaves the document or a newer run starts. Also the waits that go with it: `sleep`, a
 * replaceable `Clock`, a timeout signal, and random ids.
 */
import type {ReactiveController, ReactiveControllerHost} from 'lit';

export const TASK_STATES = ['initial', 'pending', 'complete', 'error'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export class AsyncController<T> implements ReactiveController {
  state: TaskState = 'initial';
  value: T | undefined = undefined;
  error: unknown = undefined;

  private readonly host: ReactiveControllerHost;
  private abortController: AbortController | undefined;

  constructor(host: ReactiveControllerHost) {
    this.host = host;
    host.addController(this);
  }

  /** True while a run is in flight. */
  get pending(): boolean {
    return this.state === 'pending';
  }

  /**
   * Starts `work`, aborting any run still in flight. Resolves with the result, or with
   * `undefined` when this run was aborted (by a newer run, `abort()` or disconnection).
   */
  async run(work: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    this.abortController?.abort();
    const controller = new AbortController();
    this.abortController = controller;
    this.state = 'pending';
    this.error = undefined;
    this.host.requestUpdate();
    try {
      const value = await work(controller.signal);
      if (controller.signal.aborted) return undefined;
      this.value = value;
      this.state = 'complete';
      return value;
    } catch (error) {
      if (controller.signal.aborted) return undefined;
      this.error = error;
      this.state = 'error';
      throw error;
    } finally {
      if (this.abortController === controller) {
        this.abortController = undefined;
        this.host.requestUpdate();
      }
    }
  }

  /** Aborts the run in flight, if any, and returns to `initial`. */
  abort(): void {
    if (!this.abortController) return;
    this.abortController.abort();
    this.abortController = undefined;
    this.state = 'initial';
    this.host.requestUpdate();
  }

  hostDisconnected(): void {
    this.abort();
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, {once: true});
  });
}

/**
 * Where the elements' waits read the time and sleep: the system's by default, a manual one
 * in tests (which then move time themselves instead of waiting for it).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {now: () => Date.now(), sleep};

/** A signal that aborts when `parent` does or after `ms` on `clock`, whichever comes first. */
export function timeoutSignal(
  parent: AbortSignal,
  ms: number,
  clock: Clock = systemClock,
): {signal: AbortSignal; done(): void} {
  const controller = new AbortController();
  const timer = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, {once: true});
  clock.sleep(ms, timer.signal).then(
    () => controller.abort(new DOMException('Timed out', 'TimeoutError')),
    () => {},
  );
  return {
    signal: controller.signal,
    done() {
      timer.abort();
      parent.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * A random identifier of `n` bytes in hex (the first byte's lowest bit set, so that it is
 * never all zeros: a W3C trace or parent id must not be), e.g. for a payment attempt or a
 * `traceparent` (trace-context.ts).
 */
export function randomId(n = 16): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n));
  bytes[0]! |= 1;
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
