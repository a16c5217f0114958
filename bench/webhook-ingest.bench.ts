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
 * 1 % errors, ≥ 95 % of the rate achieved). Every webhook is accounted for by its attempt
 * (`server/deliveries.ts`): the load generator reports what became of each one — answered
 * 2xx, answered with another status, or not answered (given up on at the end of its step,
 * a timeout, a connection error) — and once the run is over and the app has stopped, the
 * app's store is read for the event of each: `lost` counts the webhooks answered 2xx whose
 * event is not there, by name, and must be 0 (else `meetsGoal: false` and `failure`, and
 * the run exits 1); stored webhooks that got no answer are counted beside it. SQLite only
 * (the attempts are seeded through its store).
 */
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {loadavg, tmpdir} from 'node:os';
import path from 'node:path';
import {SqlitePaymentStore, encodeWebhookData, signWebhook} from '../src/server/index.js';
import {cpuMs, freePort, startLoadProcess, type Child} from './server/children.js';
import {tallyDeliveries, total, type Delivery, type DeliveryTally} from './server/deliveries.js';
import type {PostTarget} from './server/http-post.js';
import type {LoadStep} from './server/load-process.js';
import type {OpenLoopResult} from './server/open-loop.js';
import {round} from './stats.js';
import {CREDENTIALS, startApp, startProxy, startSandbox} from './server/system.js';

const STEP_MS = Number(process.env['BENCH_STEP_SECONDS'] ?? 3) * 1000;
const RATES = [200, 500, 1000, 1500, 2200, 3000];
const P99_LIMIT_MS = 100;

type Result = Omit<OpenLoopResult, 'latencies' | 'outcomes'>;
type Tally = DeliveryTally;

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

/** A step's webhooks in brief: the counts that are not 0 besides sent, answered and stored. */
const brief = (t: Tally) => ({
  sent: t.sent,
  answeredOk: t.answeredOk,
  ...(total(t.answeredError) ? {answeredError: t.answeredError} : {}),
  ...(total(t.unanswered) ? {unanswered: t.unanswered} : {}),
  stored: t.stored,
  lost: t.lost,
  ...(t.unansweredStored ? {unansweredStored: t.unansweredStored} : {}),
  ...(t.answeredErrorStored ? {answeredErrorStored: t.answeredErrorStored} : {}),
});

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
  /** Seeds `n` attempts; the gateway order ids of their webhooks, and the webhooks. */
  const webhooks = async (n: number) => {
    await seed(n);
    const ids = Array.from({length: n}, () => `wh-${next++}-1`);
    return {ids, bodies: ids.map(webhookBody)};
  };
  const sample = webhookBody('wh-bare-1');
  const steps: Record<string, unknown>[] = [];
  /** Every webhook sent to the app, by step (the warm-up's under `warm-up`). */
  const sent = new Map<Record<string, unknown> | 'warm-up', Delivery[]>();
  let best = 0;
  let idleCpuMsPerSecond = 0;
  let all: Tally | undefined;
  let eventsInStore = 0;
  let appliedChanges = 0;
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
    const step = async <R extends Result>(pid: number, s: LoadStep) => {
      const before = cpuMs(pid);
      const r = await load.run<R>(s);
      const cpu = round((cpuMs(pid) - before) / r.scheduled, 3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return {...r, cpuMsPerRequest: cpu};
    };
    const bareStep = (n: number, rate: number) =>
      // The bare endpoint gets bodies of the same size (it does not read them).
      step(bare.pid, {target: bareTarget, bodies: Array<string>(n).fill(sample), rate});
    /** `n` webhooks to the app at `rate`; the figures, and each webhook with its outcome. */
    const appStep = async (n: number, rate: number) => {
      const {ids, bodies} = await webhooks(n);
      const r = await step<Result & Pick<OpenLoopResult, 'outcomes'>>(app.pid, {
        target: appTarget,
        bodies,
        rate,
        outcomes: true,
      });
      const deliveries: Delivery[] = ids.map((id, i) => ({id, outcome: r.outcomes[i]!}));
      return [r, deliveries] as const;
    };

    sent.set('warm-up', (await appStep(warmUp, 200))[1]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleBefore = cpuMs(app.pid);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    idleCpuMsPerSecond = cpuMs(app.pid) - idleBefore;
    let worst: number | undefined;
    for (const rate of RATES) {
      const n = perStep(rate);
      const bareResult = await bareStep(n, rate);
      const [a, deliveries] = await appStep(n, rate);
      const entry = {
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
      };
      steps.push(entry);
      sent.set(entry, deliveries);
      if (!holds(a)) {
        worst = rate;
        break;
      }
      best = rate;
    }
    if (worst !== undefined && worst - best > 100) {
      const rate = Math.round((best + worst) / 2 / 10) * 10;
      const [a, deliveries] = await appStep(perStep(rate), rate);
      const entry = {
        rate,
        p50Ms: a.p50Ms,
        p99Ms: a.p99Ms,
        errors: a.errors,
        ...(a.errors ? {errorKinds: a.errorKinds} : {}),
        achievedRate: a.achievedRate,
        cpuMsPerWebhook: a.cpuMsPerRequest,
        holds: holds(a),
      };
      steps.push(entry);
      sent.set(entry, deliveries);
      if (holds(a)) best = rate;
    }
    // Read once the app has stopped: whatever it was still working on (webhooks the
    // generator gave up on) is in its store by then, or never will be. A webhook answered
    // 2xx was stored before its answer.
    await Promise.all(started.map((c) => c.stop()));
    const events = await seedStore.listEvents();
    eventsInStore = events.length;
    const stored = new Set(events.flatMap((e) => e.gatewayOrderId ?? []));
    const applied = new Set(
      (await seedStore.listAttemptsInStates(['success'])).map((a) => a.gatewayOrderId),
    );
    for (const [entry, deliveries] of sent) {
      if (entry !== 'warm-up')
        entry['webhooks'] = brief(tallyDeliveries(deliveries, appTarget.status, stored));
    }
    const everyWebhook = [...sent.values()].flat();
    all = tallyDeliveries(everyWebhook, appTarget.status, stored);
    appliedChanges = everyWebhook.filter((d) => applied.has(d.id)).length;
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
    /** Every webhook sent to the app, warm-up included, by what became of it. */
    webhooks: all,
    /** Rows in the app's event table (one per webhook stored), attempts moved to success. */
    eventsInStore,
    appliedChanges,
    lost: all.lost,
    goal: 'lost = 0: every webhook answered 2xx is in the store',
    meetsGoal: all.lost === 0,
    ...(all.lost ? {failure: `${all.lost} webhooks answered 2xx are not in the store`} : {}),
  };
}
