/**
 * CPU per payment of the app in a closed loop: `n` payments, `concurrency` at a time
 * (each sent when one before it is answered), every one from a customer of its own, then
 * a pause for the step's webhooks and outbox deliveries; the app's CPU time (from /proc,
 * all instances) over the whole step, divided by `n`. Unlike the open-loop steps, whose
 * latencies measure the queue for a CPU when the machine is busy, this is the work the
 * app does per payment, whatever else the machine runs: the figure to compare two
 * versions by (steps in turn on systems of their own).
 */
import {cpuMs} from './children.js';
import {round} from '../stats.js';
import {appPayTarget, createOrders, nextCustomer, payBody} from './payments.js';
import type {System} from './system.js';

export interface ClosedLoopStep {
  payments: number;
  /** Payments not answered 200 `success`. */
  errors: number;
  cpuMsPerPayment: number;
  /** Wall-clock time per payment while they were sent (noise on a busy machine). */
  wallMsPerPayment: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One closed-loop step on `sys`'s app; see the module comment. */
export async function closedLoopStep(
  sys: System,
  n: number,
  concurrency = 4,
  settleMs = 1500,
): Promise<ClosedLoopStep> {
  const refs = await createOrders(sys.appUrl, n);
  await pause(300);
  const target = appPayTarget(sys.appUrl);
  const cpu = () => sys.appPids.reduce((t, pid) => t + cpuMs(pid), 0);
  const before = cpu();
  const started = performance.now();
  let next = 0;
  let errors = 0;
  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (next < n) {
        const i = next++;
        const who = nextCustomer();
        try {
          const res = await fetch(target.url, {
            method: 'POST',
            headers: {...target.headers, 'X-Forwarded-For': who.ip},
            body: payBody(refs[i]!, i, who),
          });
          const text = await res.text();
          if (res.status !== target.status || !text.includes(target.bodyIncludes!)) errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const wall = performance.now() - started;
  // The step's webhooks and outbox deliveries are the payments' work too.
  await pause(settleMs);
  return {
    payments: n,
    errors,
    cpuMsPerPayment: round((cpu() - before) / n, 3),
    wallMsPerPayment: round(wall / n, 3),
  };
}
