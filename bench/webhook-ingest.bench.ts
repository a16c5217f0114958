/**
 * Webhook ingestion by the app process: signed webhooks posted open loop (see
 * bench/server/open-loop.ts) from the load generator's process to the real
 * `server-example`'s `POST /api/checkout/webhook` — signature check, decoding,
 * deduplication, the back office's delivery log and a durable SQLite write of the event
 * with the attempt's change — at rising rates, beside a bare endpoint (a process that
 * reads the body and answers 200) at the same rates.
 *
 * Every webhook is a first delivery for an attempt of its own, pending until then: the
 * attempts are written into the app's SQLite file before it starts. Figures: per rate the
 * app's p50/p99/max, errors, achieved rate, added latency over the bare endpoint and CPU
 * time per webhook (from /proc); the highest rate at which p99 stays under 100 ms (under
 * 1 % errors, ≥ 95 % of the rate achieved); and after the run, the events stored: `lost`
 * must be 0. SQLite only (the attempts are seeded through its store).
 */
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {loadavg, tmpdir} from 'node:os';
import path from 'node:path';
import {SqlitePaymentStore, encodeWebhookData, signWebhook} from '../src/server/index.js';
import {cpuMs, freePort, startLoadProcess, type Child} from './server/children.js';
import type {PostTarget} from './server/http-post.js';
import type {OpenLoopResult} from './server/open-loop.js';
import {round} from './server/open-loop.js';
import {CREDENTIALS, startApp, startProxy, startSandbox} from './server/system.js';

const STEP_MS = Number(process.env['BENCH_STEP_SECONDS'] ?? 3) * 1000;
const RATES = [200, 500, 1000, 1500, 2200, 3000];
const P99_LIMIT_MS = 100;

type Result = Omit<OpenLoopResult, 'latencies'>;

function webhookBody(gatewayOrderId: string): string {
  const data = encodeWebhookData({
    payment_id: `pay-${gatewayOrderId}`,
    order_id: gatewayOrderId,
    pos_id: CREDENTIALS.posId,
    mode: 'direct',
    method: 'purchase',
    amount: 1.5,
    currency: 'XTS',
    status: 'success',
    status_code: '1000',
    status_description: 'Transaction successful',
    cc_mask: '424242******4242',
    created_at: '2026-01-31T12:00:00.123',
    processed_at: '2026-01-31T12:00:01.456',
  });
  return new URLSearchParams({
    data,
    signature: signWebhook(data, CREDENTIALS.apiSecret),
  }).toString();
}

const target = (url: string): PostTarget => ({
  url,
  headers: {'Content-Type': 'application/x-www-form-urlencoded'},
  status: 200,
});

const holds = (r: Result) =>
  r.p99Ms < P99_LIMIT_MS && r.errors <= r.scheduled * 0.01 && r.achievedRate >= r.rate * 0.95;

export default async function webhookIngestBench() {
  const loadBefore = loadavg()[0]!;
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-bench-webhooks-'));
  const dataDir = path.join(dir, 'app');
  mkdirSync(dataDir);
  const warmUp = 600;
  const perStep = (rate: number) => Math.round((rate * STEP_MS) / 1000);

  // One pending attempt per webhook, written into the app's SQLite file (by a connection
  // of this process, beside the app's) before each step, untimed.
  const dbFile = path.join(dataDir, 'payments.db');
  const seedStore = new SqlitePaymentStore(dbFile);
  let seeded = 0;
  const now = Date.now();
  const seed = async (n: number) => {
    for (const end = seeded + n; seeded < end; seeded++) {
      await seedStore.insertAttempt({
        attemptId: `att-${seeded}`,
        orderRef: `wh-${seeded}`,
        gatewayOrderId: `wh-${seeded}-1`,
        seq: 1,
        method: 'purchase',
        amount: '1.50',
        currency: 'XTS',
        state: 'pending',
        createdAt: now,
        updatedAt: now,
      });
    }
  };

  const started: Child[] = [];
  const load = await startLoadProcess();
  let next = 0;
  /** Seeds `n` attempts and answers their webhooks. */
  const bodies = async (n: number) => {
    await seed(n);
    return Array.from({length: n}, () => webhookBody(`wh-${next++}-1`));
  };
  const sample = webhookBody('wh-bare-1');
  const steps: Record<string, unknown>[] = [];
  let best = 0;
  let okTotal = 0;
  let stored = 0;
  let idleCpuMsPerSecond = 0;
  let applied = 0;
  try {
    const sandbox = await startSandbox(started, dir);
    const bare = await startProxy(started, 'bare-endpoint', [], dir);
    const port = await freePort();
    const app = await startApp(started, {
      port,
      publicUrl: `http://127.0.0.1:${port}`,
      sandboxUrl: sandbox.ready[1]!,
      dataDir,
      logFile: path.join(dir, 'app.log'),
    });
    const appTarget = target(`http://127.0.0.1:${port}/api/checkout/webhook`);
    const bareTarget = target(`${bare.ready[1]}/webhook`);
    const step = async (pid: number, t: PostTarget, b: string[], rate: number) => {
      const before = cpuMs(pid);
      const r = await load.run<Result>({target: t, bodies: b, rate});
      const cpu = round((cpuMs(pid) - before) / r.scheduled, 3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return {...r, cpuMsPerRequest: cpu};
    };

    okTotal += (await step(app.pid, appTarget, await bodies(warmUp), 200)).ok;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleBefore = cpuMs(app.pid);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    idleCpuMsPerSecond = cpuMs(app.pid) - idleBefore;
    let worst: number | undefined;
    for (const rate of RATES) {
      const n = perStep(rate);
      // The bare endpoint gets bodies of the same size (it does not read them).
      const bareResult = await step(bare.pid, bareTarget, Array<string>(n).fill(sample), rate);
      const a = await step(app.pid, appTarget, await bodies(n), rate);
      okTotal += a.ok;
      steps.push({
        rate,
        p50Ms: a.p50Ms,
        p99Ms: a.p99Ms,
        maxMs: a.maxMs,
        errors: a.errors,
        ...(a.errors ? {errorKinds: a.errorKinds} : {}),
        achievedRate: a.achievedRate,
        cpuMsPerWebhook: a.cpuMsPerRequest,
        addedP50Ms: round(a.p50Ms - bareResult.p50Ms),
        addedP99Ms: round(a.p99Ms - bareResult.p99Ms),
        bare: {p50Ms: bareResult.p50Ms, p99Ms: bareResult.p99Ms, errors: bareResult.errors},
        holds: holds(a),
      });
      if (!holds(a)) {
        worst = rate;
        break;
      }
      best = rate;
    }
    if (worst !== undefined && worst - best > 100) {
      const rate = Math.round((best + worst) / 2 / 10) * 10;
      const a = await step(app.pid, appTarget, await bodies(perStep(rate)), rate);
      okTotal += a.ok;
      steps.push({
        rate,
        p50Ms: a.p50Ms,
        p99Ms: a.p99Ms,
        errors: a.errors,
        ...(a.errors ? {errorKinds: a.errorKinds} : {}),
        achievedRate: a.achievedRate,
        cpuMsPerWebhook: a.cpuMsPerRequest,
        holds: holds(a),
      });
      if (holds(a)) best = rate;
    }
    // Counted once the app has stopped (whatever it had accepted is in its store by then).
    await Promise.all(started.map((c) => c.stop()));
    stored = (await seedStore.listEvents()).length;
    applied = (await seedStore.listAttemptsInStates(['success'])).length;
  } finally {
    await load.stop();
    await Promise.all(started.map((c) => c.stop()));
    await seedStore.close();
    rmSync(dir, {recursive: true, force: true});
  }
  return {
    stepSeconds: STEP_MS / 1000,
    /** The machine's 1-minute load average before and after: above 2 (its cores), noise. */
    machineLoad: [round(loadBefore), round(loadavg()[0]!)],
    /**
     * CPU the app spends per second after the warm-up and a 1 s pause: left-over work
     * (webhooks, queued requests) when the machine is busy; about 0 on a quiet one.
     */
    appCpuMsPerSecondAfterWarmUp: idleCpuMsPerSecond,
    steps,
    maxRateP99Under100: best,
    /** Webhooks answered 200 by the app, events in its store, attempts they moved. */
    answered: okTotal,
    storedEvents: stored,
    appliedChanges: applied,
    lost: okTotal - stored,
    goal: 'lost = 0',
    meetsGoal: okTotal === stored,
  };
}
