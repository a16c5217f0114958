/**
 * Each instance's writer of the health page's table (log.ts): an OpenTelemetry SDK
 * `MetricReader` on the example's MeterProvider, beside the Prometheus exporter, so the
 * page reads the very instruments the merchant's Prometheus scrapes (the companion
 * records them through `@opentelemetry/api`, src/server/telemetry/). It asks for DELTA
 * temporality: every `flush()` collects what happened since the last one and adds it to
 * this instance's rows of the current minute — payments by outcome and failures by reason,
 * gateway requests per latency bucket, `busy` answers (admission's refusals and the
 * store's `store_busy`) and one sample of the breaker's state. It flushes every
 * `intervalMs` (so a minute's figures are placed within that much of their moment), when
 * the health page is asked for (the instance serving the page shows its own requests at
 * once), and on close. Flushes run one at a time; one that fails keeps nothing (the counts
 * of that interval are lost, logged by the caller, never added twice).
 */
import {
  AggregationTemporality,
  DataPointType,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {SERIES, type HealthDelta, type HealthLog} from './log.js';

/** The instruments read (their names in docs/guides/monitoring.md). */
const PAYMENTS = 'pg_checkout.payment.count';
const GATEWAY = 'http.client.request.duration';
const STORE = 'db.client.operation.duration';
const REFUSED = 'pg_checkout.admission.refused';
const BREAKER = 'pg_checkout.card_testing.breaker.state';

/** The store's busy answer, as the store span's `error.type`. */
const STORE_BUSY = 'store_busy';

/** What one collection adds to the page's series. */
export function healthDeltas(collected: ResourceMetrics): HealthDelta[] {
  const sums = new Map<string, HealthDelta>();
  const add = (series: HealthDelta['series'], label: string, value: number) => {
    const key = `${series}\u0000${label}`;
    const d = sums.get(key);
    if (d) d.value += value;
    else sums.set(key, {series, label, value});
  };
  for (const scope of collected.scopeMetrics) {
    for (const metric of scope.metrics) {
      const name = metric.descriptor.name;
      if (metric.dataPointType === DataPointType.HISTOGRAM) {
        for (const p of metric.dataPoints) {
          if (name === GATEWAY) {
            const {boundaries, counts} = p.value.buckets;
            counts.forEach((n, i) =>
              add(SERIES.gatewayBucket, i < boundaries.length ? String(boundaries[i]) : '+Inf', n),
            );
          } else if (name === STORE && p.attributes['error.type'] === STORE_BUSY) {
            add(SERIES.busy, 'store', p.value.count);
          }
        }
      } else if (
        metric.dataPointType === DataPointType.SUM ||
        metric.dataPointType === DataPointType.GAUGE
      ) {
        for (const p of metric.dataPoints) {
          if (name === PAYMENTS) {
            const outcome = String(p.attributes['pg_checkout.payment.outcome'] ?? 'unknown');
            add(SERIES.payment, outcome, p.value);
            if (outcome === 'failure') {
              const reason = String(p.attributes['pg_checkout.payment.failure_reason'] ?? '');
              const code = p.attributes['pg_checkout.gateway.status_code'];
              add(
                SERIES.failure,
                code === undefined ? reason : `${reason} ${String(code)}`,
                p.value,
              );
            }
          } else if (name === REFUSED) {
            add(SERIES.busy, 'admission', p.value);
          } else if (name === BREAKER) {
            add(SERIES.breaker, p.value >= 1 ? 'open' : 'closed', 1);
          }
        }
      }
    }
  }
  return [...sums.values()];
}

export interface HealthRecorderOptions {
  /** This instance's name among those sharing the database. */
  instance: string;
  /** How often this instance adds its counts to the table (ms). */
  intervalMs: number;
  now?: () => number;
  /** Told of a flush that failed (its counts are dropped). */
  onError?: (error: unknown) => void;
}

export class HealthRecorder extends MetricReader {
  readonly #o: HealthRecorderOptions;
  readonly #now: () => number;
  #log: HealthLog | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(o: HealthRecorderOptions) {
    super({aggregationTemporalitySelector: () => AggregationTemporality.DELTA});
    this.#o = o;
    this.#now = o.now ?? Date.now;
  }

  /** Starts writing to `log` every `intervalMs`. */
  attach(log: HealthLog): void {
    this.#log = log;
    this.#timer ??= setInterval(() => void this.flush().catch(() => {}), this.#o.intervalMs);
    this.#timer.unref();
  }

  /** Adds what was recorded since the last flush to the table (after any flush running). */
  flush(): Promise<void> {
    const next = this.#running.then(() => this.#flushNow());
    this.#running = next.catch(() => {});
    return next;
  }

  async #flushNow(): Promise<void> {
    const log = this.#log;
    if (!log) return;
    const at = this.#now();
    const {resourceMetrics} = await this.collect();
    try {
      await log.add(this.#o.instance, at, healthDeltas(resourceMetrics));
    } catch (error) {
      this.#o.onError?.(error);
      throw error;
    }
  }

  /** Flushes a last time and stops writing (before the database closes). */
  async detach(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush().catch(() => {});
    this.#log = undefined;
  }

  protected override onForceFlush(): Promise<void> {
    return this.flush();
  }

  protected override async onShutdown(): Promise<void> {
    await this.detach();
  }
}
