/**
 * The example's OpenTelemetry MeterProvider and what reads it: the Prometheus endpoint and
 * the health page's recorder. The companion records its metrics through
 * `@opentelemetry/api` (see src/server/telemetry/); this registers one SDK MeterProvider
 * for the process with a reader per use. With `prometheus`, `@opentelemetry/exporter-prometheus`
 * serves them in Prometheus's text format at `/metrics` on a port of their own
 * (`METRICS_PORT`; `0` picks a free one) on `METRICS_HOST` (loopback unless set): an address
 * for the merchant's Prometheus, never the customers'. With `health`, a `HealthRecorder`
 * (health/recorder.ts) adds this instance's counts to the back office's health page's table
 * every `HEALTH_FLUSH_MS`. With neither, nothing is registered and the SDK packages are not
 * loaded.
 */
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {HealthRecorder, HealthRecorderOptions} from './health/recorder.js';

export interface MetricsEndpoint {
  /** `http://host:port/metrics`, for the start-up banner. */
  url: string;
}

export interface Metrics {
  endpoint?: MetricsEndpoint | undefined;
  healthRecorder?: HealthRecorder | undefined;
  close(): Promise<void>;
}

/**
 * Registers the process's MeterProvider with the readers asked for; resolves once the
 * Prometheus endpoint (if any) is listening.
 */
export async function startMetrics(o: {
  prometheus?: {port: number; host: string} | undefined;
  health?: HealthRecorderOptions | undefined;
}): Promise<Metrics> {
  if (!o.prometheus && !o.health) return {close: () => Promise.resolve()};
  const [{metrics}, {MeterProvider}] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  const healthRecorder = o.health
    ? new (await import('./health/recorder.js')).HealthRecorder(o.health)
    : undefined;
  const served = o.prometheus
    ? await serveMetrics(o.prometheus.port, o.prometheus.host)
    : undefined;
  const provider = new MeterProvider({
    readers: [...(served ? [served.exporter] : []), ...(healthRecorder ? [healthRecorder] : [])],
  });
  metrics.setGlobalMeterProvider(provider);
  return {
    endpoint: served && {url: served.url},
    healthRecorder,
    async close() {
      await served?.close();
      await provider.shutdown();
    },
  };
}

/** The Prometheus exporter, its handler served at `host:port`; resolves once listening. */
async function serveMetrics(port: number, host: string) {
  const {PrometheusExporter} = await import('@opentelemetry/exporter-prometheus');
  // The exporter's own server cannot tell which port 0 picked: ours serves its handler.
  const exporter = new PrometheusExporter({preventServerStart: true});
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      exporter.getMetricsRequestHandler(req, res);
      return;
    }
    res.writeHead(404, {'Content-Type': 'text/plain'}).end('not found: GET /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({port, host}, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    exporter,
    url: `http://${shown}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
