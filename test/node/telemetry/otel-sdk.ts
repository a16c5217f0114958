/**
 * An OpenTelemetry SDK registered for a test, as an application would register one: the
 * W3C trace-context propagator, an AsyncLocalStorage context manager, a tracer provider
 * whose spans land in an in-memory exporter, and a meter provider read on demand. The
 * companion finds them through `@opentelemetry/api`'s globals; `shutdown` unregisters them.
 */
import {context, metrics, propagation, trace} from '@opentelemetry/api';
import {AsyncLocalStorageContextManager} from '@opentelemetry/context-async-hooks';
import {W3CTraceContextPropagator} from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A reader that collects when asked (cumulative, as Prometheus reads). */
class TestReader extends MetricReader {
  constructor() {
    super({aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE});
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export function registerSdk() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({readers: [reader]});
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans,
    /** Every metric the companion recorded so far, by name. */
    async metrics(): Promise<Map<string, MetricData>> {
      const {resourceMetrics} = await reader.collect();
      const byName = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const m of scope.metrics) byName.set(m.descriptor.name, m);
      }
      return byName;
    },
    async shutdown(): Promise<void> {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The data points of `m` as `[attributes, value]` pairs. */
export function pointsOf(m: MetricData | undefined): [Record<string, unknown>, unknown][] {
  if (!m) return [];
  return (m.dataPoints as DataPoint<unknown>[]).map((p) => [p.attributes, p.value]);
}
