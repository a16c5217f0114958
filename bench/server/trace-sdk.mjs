// Preloaded into the telemetry bench's third app (`node --import`, through NODE_OPTIONS):
// registers an OpenTelemetry tracer provider whose spans go through a BatchSpanProcessor
// (the SDK's defaults: 512 spans a batch, every 5 s) to an exporter that keeps nothing but
// a count, written to BENCH_SPANS_FILE after each batch, so the bench can tell that spans
// were made and exported. With the W3C propagator and the AsyncLocalStorage context
// manager, as the Node SDK registers them. Plain JavaScript: it runs before tsx is loaded.
import {writeFileSync} from 'node:fs';
import {context, propagation, trace} from '@opentelemetry/api';
import {AsyncLocalStorageContextManager} from '@opentelemetry/context-async-hooks';
import {W3CTraceContextPropagator} from '@opentelemetry/core';
import {BasicTracerProvider, BatchSpanProcessor} from '@opentelemetry/sdk-trace-base';

const file = process.env.BENCH_SPANS_FILE;
let exported = 0;
const exporter = {
  export(spans, done) {
    exported += spans.length;
    if (file) writeFileSync(file, String(exported));
    done({code: 0});
  },
  shutdown: () => Promise.resolve(),
  forceFlush: () => Promise.resolve(),
};
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(
  new BasicTracerProvider({spanProcessors: [new BatchSpanProcessor(exporter)]}),
);
