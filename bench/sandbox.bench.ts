/**
 * Sandbox create-payment throughput on loopback: 50 concurrent clients, each sending
 * direct purchases with the frictionless test card and a fresh `order_id`, through plain
 * `fetch` (undici) with the default authentication form. Bounded by a request count and
 * a time limit, after a short warm-up. Reports requests/s and p50/p99 latency; the
 * sandbox must not be the bottleneck of later benchmarks of the companion.
 */
import {startSandbox} from '../sandbox/index.js';

const CLIENTS = 50;
const REQUESTS = Number(process.env['SANDBOX_BENCH_REQUESTS'] ?? 6_000);
const MAX_SECONDS = Number(process.env['SANDBOX_BENCH_SECONDS'] ?? 15);
const WARMUP = 500;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

export default async function sandboxCreatePaymentBench() {
  const sandbox = await startSandbox();
  const {posId, apiKey, apiSecret, endpointsKey} = sandbox.credentials;
  const headers = {
    'Content-Type': 'application/json',
    'X-API-Auth': `CPAY ${apiKey}:${apiSecret}`,
    'X-API-Key': endpointsKey,
  };
  const url = `${sandbox.url}/api/v1/payment`;
  const expYear = new Date().getUTCFullYear() + 3;
  let next = 0;
  const body = (i: number) =>
    JSON.stringify({
      pos_id: posId,
      mode: 'direct',
      method: 'purchase',
      amount: 12.34,
      currency: 'UAH',
      description: 'bench',
      order_id: `bench-${i}`,
      order_3ds_bypass: 'supported',
      cc_number: '4242424242424242',
      exp_month: 12,
      exp_year: expYear,
      card_cvv: '123',
      customer_fname: 'Bench',
      customer_lname: 'Client',
      customer_email: 'bench@example.com',
      customer_phone: '+380501234567',
      customer_ip: '127.0.0.1',
      browser_fingerprint: {
        browserColorDepth: '24',
        browserScreenHeight: '900',
        browserScreenWidth: '1440',
        browserJavaEnabled: 'false',
        browserLanguage: 'en-US',
        browserTimeZone: 'UTC',
        browserTimeZoneOffset: '0',
        browserAcceptHeader: 'text/html',
        browserIpAddress: '127.0.0.1',
        browserUserAgent: 'bench',
      },
    });

  let errors = 0;
  const one = async (latencies?: number[]) => {
    const i = next++;
    const started = performance.now();
    const res = await fetch(url, {method: 'POST', headers, body: body(i)});
    const text = await res.text();
    if (res.status !== 200 || !text.includes('"status":"success"')) errors++;
    latencies?.push(performance.now() - started);
  };

  try {
    // Warm-up: open the 50 connections and let the JIT settle.
    await Promise.all(
      Array.from({length: CLIENTS}, async () => {
        for (let k = 0; k < WARMUP / CLIENTS; k++) await one();
      }),
    );
    errors = 0;
    const latencies: number[] = [];
    const deadline = performance.now() + MAX_SECONDS * 1000;
    let sent = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({length: CLIENTS}, async () => {
        while (sent < REQUESTS && performance.now() < deadline) {
          sent++;
          await one(latencies);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      clients: CLIENTS,
      requests: latencies.length,
      errors,
      seconds: round(seconds),
      requestsPerSecond: round(latencies.length / seconds, 0),
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      chargeCount: sandbox.chargeCount(),
    };
  } finally {
    await sandbox.close();
  }
}
