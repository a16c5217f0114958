/**
 * The example's Prometheus endpoint: registers an OpenTelemetry MeterProvider whose
 * reader is `@opentelemetry/exporter-prometheus`, so the companion's metrics (recorded
 * through `@opentelemetry/api`, see src/server/telemetry/) are served in Prometheus's text
 * format at `/metrics` on a port of their own (`METRICS_PORT`; `0` picks a free one) on
 * `METRICS_HOST` (loopback unless set): an address for the merchant's Prometheus, never
 * the customers'. Off when `METRICS_PORT` is not set; the SDK packages are loaded only then.
 */
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';

export interface MetricsEndpoint {
  /** `http://host:port/metrics`, for the start-up banner. */
  url: string;
  close(): Promise<void>;
}

/** Serves the metrics at `host:port`; resolves once listening. */
export async function serveMetrics(port: number, host: string): Promise<MetricsEndpoint> {
  const [{metrics}, {MeterProvider}, {PrometheusExporter}] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-prometheus'),
  ]);
  // The exporter's own server cannot tell which port 0 picked: ours serves its handler.
  const exporter = new PrometheusExporter({preventServerStart: true});
  const provider = new MeterProvider({readers: [exporter]});
  metrics.setGlobalMeterProvider(provider);
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
    url: `http://${shown}:${address.port}/metrics`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await provider.shutdown();
    },
  };
}
