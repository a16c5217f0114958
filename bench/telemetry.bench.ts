/**
 * What the companion's telemetry costs (issue 37): the example app's CPU time per payment
 * in a closed loop (`server/closed-loop.ts`: webhooks and outbox included) on two systems
 * of their own, side by side in the same run, steps in turn and in alternating order:
 *
 * - `off`: `@opentelemetry/api` installed (a dev dependency here) but no SDK registered:
 *   what a merchant who installs nothing gets, plus the API's no-op calls;
 * - `metricsSdk`: `METRICS_PORT` set, so the example registers the OpenTelemetry metrics
 *   SDK with the Prometheus exporter (server-example/metrics.ts), which is scraped once
 *   per step as Prometheus would. Spans stay no-op (no tracer provider is registered).
 * - `tracesSdk`: as `metricsSdk`, and spans exported too: a tracer provider with the SDK's
 *   BatchSpanProcessor to an exporter that only counts them (server/trace-sdk.mjs,
 *   preloaded), so what is measured is making, ending and batching the spans, not a
 *   collector's network.
 *
 * Figures: each one's median CPU ms per payment over `BENCH_TELEMETRY_ROUNDS` steps
 * (default 6: three were too few on a shared machine) of `BENCH_CLOSED_PAYMENTS` payments
 * (default 200), and each SDK's ratio to `off`; the goal is a cost within 10 % (`meetsGoal`).
 */
import {existsSync, mkdtempSync, readFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {freePort} from './server/children.js';
import {closedLoopStep} from './server/closed-loop.js';
import {startSystem} from './server/system.js';
import {median, round} from './stats.js';

const ROUNDS = Math.max(1, Number(process.env['BENCH_TELEMETRY_ROUNDS'] ?? 6));
const PAYMENTS = Math.max(1, Number(process.env['BENCH_CLOSED_PAYMENTS'] ?? 200));
const GOAL_RATIO = 1.1;

const SYSTEMS = ['off', 'metricsSdk', 'tracesSdk'] as const;
type Which = (typeof SYSTEMS)[number];

export default async function telemetryBench() {
  const metricsPort = await freePort();
  const tracesPort = await freePort();
  const spansFile = path.join(mkdtempSync(path.join(tmpdir(), 'pg-bench-spans-')), 'spans');
  const preload = path.resolve('bench/server/trace-sdk.mjs');
  const systems: Record<Which, Awaited<ReturnType<typeof startSystem>>> = {
    off: await startSystem('sqlite'),
    metricsSdk: await startSystem('sqlite', undefined, {METRICS_PORT: String(metricsPort)}),
    tracesSdk: await startSystem('sqlite', undefined, {
      METRICS_PORT: String(tracesPort),
      NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${preload}`.trim(),
      BENCH_SPANS_FILE: spansFile,
    }),
  };
  const scrape = (port: number) => fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
  try {
    const cpu: Record<Which, number[]> = {off: [], metricsSdk: [], tracesSdk: []};
    let errors = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Each system first, second and last in turn.
      const order = SYSTEMS.map((_, i) => SYSTEMS[(i + round) % SYSTEMS.length]!);
      for (const which of order) {
        const step = await closedLoopStep(systems[which], PAYMENTS);
        errors += step.errors;
        cpu[which].push(step.cpuMsPerPayment);
        if (which === 'metricsSdk') await scrape(metricsPort);
        if (which === 'tracesSdk') await scrape(tracesPort);
      }
    }
    const exposition = await scrape(metricsPort);
    const counted =
      /^pg_checkout_payment_count_total\{[^}]*pg_checkout_payment_outcome="success"[^}]*\} (\d+)/m.exec(
        exposition,
      );
    const ms = (w: Which) => round(median(cpu[w]), 3);
    const offMs = ms('off');
    const ratio = {
      metricsSdk: round(ms('metricsSdk') / offMs, 3),
      tracesSdk: round(ms('tracesSdk') / offMs, 3),
    };
    // The batch processor exports every 5 s: the last steps' spans may still be waiting.
    const spansExported = existsSync(spansFile) ? Number(readFileSync(spansFile, 'utf8')) : 0;
    return {
      paymentsPerStep: PAYMENTS,
      rounds: ROUNDS,
      cpuMsPerPayment: {off: offMs, metricsSdk: ms('metricsSdk'), tracesSdk: ms('tracesSdk')},
      steps: cpu,
      ratio,
      goalRatio: GOAL_RATIO,
      meetsGoal: ratio.metricsSdk <= GOAL_RATIO && ratio.tracesSdk <= GOAL_RATIO,
      errors,
      // The SDK's app counted its payments (a check that it measured something).
      successesCounted: counted ? Number(counted[1]) : 0,
      spansExported,
      ...(counted ? {} : {failure: 'the SDK app exposed no payment counter'}),
      ...(spansExported > 0 ? {} : {failure: 'the traces app exported no span'}),
    };
  } finally {
    await Promise.all(Object.values(systems).map((s) => s.close()));
  }
}
