/**
 * Webhook delivery as the gateway does it: `POST` form-encoded `data` (Base64Url JSON) and
 * `signature` (signed with the API secret) to the merchant. Deliveries to one URL go out
 * in order; one that does not get a 2xx within `timeoutMs` is retried on the backoff
 * schedule `retryDelaysMs`. Retries wait on the sandbox clock, so a test moves them along
 * with `advance` instead of sleeping (and, on a manual clock, the clock waits for the
 * deliveries a task sets off before it moves on); `timeoutMs` bounds a real network call
 * and stays in real time. On purpose, a share of webhooks is sent twice
 * (`duplicateRate`) and a share is followed by a stale copy of the previous status of the
 * same payment (`reverseOrderRate`), because receivers must tolerate both. Every attempt
 * is logged for `GET /sandbox/webhooks`.
 */
import {
  encodeWebhookData,
  formatGatewayTimestamp,
  signWebhook,
} from '../src/server/gateway/index.js';
import type {SandboxClock, TaskHandle} from './clock.js';

/** A short summary of a webhook's payload, for the log (never card data). */
export interface WebhookSummary {
  method: string;
  status: string;
  status_code: string | null;
  order_id: string;
  payment_id: string;
  operation_id: string | null;
  recurring_id: string | null;
}

/** One delivery attempt. */
export interface WebhookDelivery {
  /** Identifies the status change; duplicates and retries share it. */
  eventId: string;
  url: string;
  summary: WebhookSummary;
  /** 1 for the first try of a copy, then 2, 3, ... for its retries. */
  attempt: number;
  /** A second (or later) copy of the same event, sent on purpose. */
  duplicate: boolean;
  /** A stale copy of an older status, sent after a newer one on purpose. */
  reordered: boolean;
  /** Sent because the merchant asked for a resend. */
  resend: boolean;
  /** HTTP status the receiver answered; `null` when it did not answer. */
  responseStatus: number | null;
  ok: boolean;
  error: string | null;
  /** Sandbox-clock time of the attempt. */
  at: string;
  durationMs: number;
}

/** A status change to announce. */
export interface WebhookEvent {
  eventId: string;
  url: string;
  payload: Record<string, unknown>;
  summary: WebhookSummary;
}

export interface WebhookOptions {
  timeoutMs: number;
  retryDelaysMs: readonly number[];
  duplicateRate: number;
  reverseOrderRate: number;
  seed: number;
}

/** A small seeded PRNG (mulberry32), so duplicate and reorder choices are reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Copy {
  event: WebhookEvent;
  duplicate: boolean;
  reordered: boolean;
  resend: boolean;
}

export class WebhookDispatcher {
  readonly #opts: WebhookOptions;
  readonly #secret: string;
  readonly #clock: SandboxClock;
  readonly #random: () => number;
  readonly #log: WebhookDelivery[] = [];
  readonly #queues = new Map<string, Promise<void>>();
  readonly #retries = new Set<TaskHandle>();
  readonly #inFlight = new Set<AbortController>();
  #closed = false;

  /** `clock` stamps the attempts and runs the retries; on a manual clock it waits for them. */
  constructor(opts: WebhookOptions, secret: string, clock: SandboxClock) {
    this.#opts = opts;
    this.#secret = secret;
    this.#clock = clock;
    this.#random = seededRandom(opts.seed);
    clock.settleWith(() => this.idle());
  }

  log(): readonly WebhookDelivery[] {
    return this.#log.map((d) => ({...d, summary: {...d.summary}}));
  }

  clearLog(): void {
    this.#log.length = 0;
  }

  /**
   * Announces a status change. `copies` forces the number of copies (0 = none, from the
   * `no-webhook` / `webhook-times` faults); otherwise `duplicateRate` decides between 1
   * and 2. `previous` is the last event of the same payment: at `reverseOrderRate` it is
   * sent again after this one.
   */
  send(
    event: WebhookEvent,
    opts: {copies?: number | undefined; previous?: WebhookEvent | undefined; resend?: boolean} = {},
  ): void {
    if (this.#closed) return;
    const copies = opts.copies ?? (this.#random() < this.#opts.duplicateRate ? 2 : 1);
    const resend = opts.resend ?? false;
    for (let i = 0; i < copies; i++) {
      this.#enqueue({event, duplicate: i > 0, reordered: false, resend}, 1);
    }
    if (copies > 0 && opts.previous && this.#random() < this.#opts.reverseOrderRate) {
      this.#enqueue({event: opts.previous, duplicate: true, reordered: true, resend}, 1);
    }
  }

  #enqueue(copy: Copy, attempt: number): void {
    const url = copy.event.url;
    const prev = this.#queues.get(url) ?? Promise.resolve();
    const next = prev
      .then(() => this.#attempt(copy, attempt))
      .catch((err: unknown) => console.error('sandbox: a webhook delivery failed', err));
    this.#queues.set(url, next);
    void next.then(() => {
      if (this.#queues.get(url) === next) this.#queues.delete(url);
    });
  }

  async #attempt(copy: Copy, attempt: number): Promise<void> {
    if (this.#closed) return;
    const data = encodeWebhookData(copy.event.payload);
    const body = new URLSearchParams({data, signature: signWebhook(data, this.#secret)}).toString();
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(), this.#opts.timeoutMs);
    const started = Date.now();
    const at = formatGatewayTimestamp(this.#clock.now());
    let responseStatus: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(copy.event.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': 'pg-checkout-sandbox-webhooks',
          'x-sandbox-event-id': copy.event.eventId,
        },
        body,
        signal: controller.signal,
        redirect: 'manual',
      });
      responseStatus = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      error = controller.signal.aborted
        ? `no answer within ${this.#opts.timeoutMs} ms`
        : String((err as Error)?.cause ?? (err as Error)?.message ?? err);
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(controller);
    }
    if (this.#closed) return;
    const ok = responseStatus !== null && responseStatus >= 200 && responseStatus < 300;
    if (!ok && error === null) error = `answered HTTP ${responseStatus}`;
    this.#log.push({
      eventId: copy.event.eventId,
      url: copy.event.url,
      summary: {...copy.event.summary},
      attempt,
      duplicate: copy.duplicate,
      reordered: copy.reordered,
      resend: copy.resend,
      responseStatus,
      ok,
      error,
      at,
      durationMs: Date.now() - started,
    });
    const delay = this.#opts.retryDelaysMs[attempt - 1];
    if (!ok && delay !== undefined) {
      const retry = this.#clock.schedule(this.#clock.nowMs() + delay, () => {
        this.#retries.delete(retry);
        this.#enqueue(copy, attempt + 1);
      });
      this.#retries.add(retry);
    }
  }

  /** Resolves once no delivery is queued or in flight (scheduled retries not included). */
  async idle(): Promise<void> {
    while (this.#queues.size > 0) {
      await Promise.all([...this.#queues.values()]);
    }
  }

  /** Number of retries waiting for their time. */
  get scheduledRetries(): number {
    return this.#retries.size;
  }

  close(): void {
    this.#closed = true;
    for (const r of this.#retries) r.cancel();
    this.#retries.clear();
    for (const c of this.#inFlight) c.abort();
    this.#queues.clear();
  }
}
