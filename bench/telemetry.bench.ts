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
 *
 * Figures: each one's median CPU ms per payment over `BENCH_TELEMETRY_ROUNDS` steps
 * (default 6: three were too few on a shared machine) of `BENCH_CLOSED_PAYMENTS` payments
 * (default 200), and the ratio; the goal is a cost within 10 % (`meetsGoal`).
 */
import {freePort} from './server/children.js';
import {closedLoopStep} from './server/closed-loop.js';
import {startSystem} from './server/system.js';
import {median, round} from './stats.js';

const ROUNDS = Math.max(1, Number(process.env['BENCH_TELEMETRY_ROUNDS'] ?? 6));
const PAYMENTS = Math.max(1, Number(process.env['BENCH_CLOSED_PAYMENTS'] ?? 200));
const GOAL_RATIO = 1.1;

export default async function telemetryBench() {
  const metricsPort = await freePort();
  const off = await startSystem('sqlite');
  const on = await startSystem('sqlite', undefined, {METRICS_PORT: String(metricsPort)});
  const scrape = () => fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
  try {
    const cpu = {off: [] as number[], metricsSdk: [] as number[]};
    let errors = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const order =
        round % 2 === 0 ? (['off', 'metricsSdk'] as const) : (['metricsSdk', 'off'] as const);
      for (const which of order) {
        const step = await closedLoopStep(which === 'off' ? off : on, PAYMENTS);
        errors += step.errors;
        cpu[which].push(step.cpuMsPerPayment);
        if (which === 'metricsSdk') await scrape();
      }
    }
    const exposition = await scrape();
    const counted =
      /^pg_checkout_payment_count_total\{[^}]*pg_checkout_payment_outcome="success"[^}]*\} (\d+)/m.exec(
        exposition,
      );
    const offMs = round(median(cpu.off), 3);
    const onMs = round(median(cpu.metricsSdk), 3);
    const ratio = round(onMs / offMs, 3);
    return {
      paymentsPerStep: PAYMENTS,
      rounds: ROUNDS,
      cpuMsPerPayment: {off: offMs, metricsSdk: onMs},
      steps: cpu,
      ratio,
      goalRatio: GOAL_RATIO,
      meetsGoal: ratio <= GOAL_RATIO,
      errors,
      // The SDK's app counted its payments (a check that it measured something).
      successesCounted: counted ? Number(counted[1]) : 0,
      ...(counted ? {} : {failure: 'the SDK app exposed no payment counter'}),
    };
  } finally {
    await Promise.all([off.close(), on.close()]);
  }
}
