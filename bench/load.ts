/**
 * A small closed-loop load generator for the HTTP benchmarks: `concurrency` clients each
 * send requests back to back until `total` have been sent; it reports requests per second
 * and latency percentiles. Bounded (a fixed number of requests), loopback only.
 */
import {createAdaptorServer} from '@hono/node-server';
import type {AddressInfo} from 'node:net';

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Every request's latency in ms, sorted: for percentiles over several rounds. */
  latencies: number[];
}

export async function runLoad(
  send: (i: number) => Promise<boolean>,
  opts: {total: number; concurrency: number; offset?: number},
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < opts.total) {
      const i = next++;
      const t = performance.now();
      const ok = await send((opts.offset ?? 0) + i).catch(() => false);
      latencies.push(performance.now() - t);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({length: opts.concurrency}, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return {
    requests: opts.total,
    seconds: round(seconds),
    rps: round(opts.total / seconds),
    p50Ms: round(pct(0.5)),
    p99Ms: round(pct(0.99)),
    errors,
    latencies,
  };
}

/** The `p` percentile (0..1) of latencies pooled from several rounds, in ms. */
export function pooledPercentile(results: readonly LoadResult[], p: number): number {
  const all = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return round(all[Math.min(all.length - 1, Math.floor(p * all.length))]!);
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Serves a fetch handler on a loopback port; the handler may be set after the port is known. */
export async function serveLoopback(
  handler?: (req: Request, env: unknown) => Response | Promise<Response>,
): Promise<{
  url: string;
  setHandler(h: (req: Request, env: unknown) => Response | Promise<Response>): void;
  close(): Promise<void>;
}> {
  let current = handler;
  const server = createAdaptorServer({
    fetch: (req, env) => (current ? current(req, env) : new Response(null, {status: 503})),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    setHandler(h) {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as {closeAllConnections(): void}).closeAllConnections();
      }),
  };
}
