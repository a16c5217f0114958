/**
 * An open-loop load generator: request `i` is due at `start + i / rate`, and it is sent
 * when it is due whether or not the earlier ones were answered (a late timer sends every
 * overdue request at once). Latency runs from the *scheduled* send time to the answer, so
 * a server that stalls is charged for every request that waited behind the stall — the
 * coordinated omission of a closed loop (N clients each waiting for an answer before the
 * next request) is avoided. A closed loop lowers its rate when the server slows down and
 * so reports the latency of a lighter load than the one asked for.
 *
 * The clock is injectable, so the behaviour is tested without wall-clock bounds
 * (test/node/bench/open-loop.test.ts).
 */
import {percentile, round} from '../stats.js';

export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Resolves at `now() + ms` or later. */
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

export interface OpenLoopOptions {
  /** Requests per second. */
  rate: number;
  /** How long requests are sent for; `rate * durationMs / 1000` requests in all. */
  durationMs: number;
  /**
   * Sends request `i`; resolves `true` when it was answered as expected, else `false` or
   * what went wrong (`status 500`, `timeout`): counted in `errorKinds`.
   */
  send: (i: number) => Promise<boolean | string>;
  /** Requests still unanswered this long after the last one was due count as errors. */
  drainMs?: number;
  clock?: Clock;
}

export interface OpenLoopResult {
  /** The rate asked for, requests/s. */
  rate: number;
  scheduled: number;
  /** Requests answered as expected. */
  ok: number;
  /** Refused, failed or unanswered requests. */
  errors: number;
  /** Requests not answered within `drainMs` after the last was due (counted in `errors`). */
  unanswered: number;
  /** The errors by what went wrong (`unanswered` among them). */
  errorKinds: Record<string, number>;
  /**
   * Answered requests (ok or not) per second, from the first due time to the last answer
   * but over no less than the schedule (`scheduled / rate`): a server that answers the
   * first half at once and then stalls achieved half the rate, not all of it.
   */
  achievedRate: number;
  /** Latency from the scheduled send time to the answer (unanswered: to the end of the drain). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** How late the generator sent, vs the schedule: large values mean it was saturated. */
  sendLagP99Ms: number;
  /** Every request's latency, sorted (ms). */
  latencies: number[];
  /**
   * What became of each request, by index: `true` when answered as expected, else its
   * error kind (`unanswered` when still open at the end of the drain). The identity of
   * each outcome, for a caller that checks afterwards what the server did with request `i`.
   */
  outcomes: (true | string)[];
}

/** Runs one open-loop step. */
export async function runOpenLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  if (!(o.rate > 0) || !(o.durationMs > 0)) {
    throw new RangeError('runOpenLoop: rate and durationMs must be positive');
  }
  const clock = o.clock ?? realClock;
  const total = Math.max(1, Math.round((o.rate * o.durationMs) / 1000));
  const interval = 1000 / o.rate;
  const latencies: number[] = [];
  const lags: number[] = [];
  let ok = 0;
  let answered = 0;
  const outcomes = Array<true | string>(total);
  const errorKinds: Record<string, number> = {};
  const countError = (kind: string) => (errorKinds[kind] = (errorKinds[kind] ?? 0) + 1);
  let lastAnswer = 0;
  /** Due time of each request not answered yet, by index. */
  const open = new Map<number, number>();
  const pending: Promise<void>[] = [];
  let closed = false;
  const start = clock.now();

  const fire = (i: number, due: number) => {
    lags.push(clock.now() - due);
    open.set(i, due);
    const answer = o
      .send(i)
      .catch((err: unknown) => `thrown: ${(err as Error)?.message ?? String(err)}`)
      .then((outcome) => {
        if (closed) return; // answered after the drain: already counted as unanswered
        const t = clock.now();
        open.delete(i);
        latencies.push(t - due);
        answered++;
        lastAnswer = Math.max(lastAnswer, t);
        if (outcome === true) ok++;
        else countError(outcome === false ? 'failed' : outcome);
        outcomes[i] = outcome === false ? 'failed' : outcome;
      });
    pending.push(answer);
  };

  for (let i = 0; i < total;) {
    const now = clock.now();
    // Everything due by now goes out at once: a late timer must not lower the rate.
    while (i < total && start + i * interval <= now) {
      fire(i, start + i * interval);
      i++;
    }
    if (i < total) await clock.sleep(start + i * interval - clock.now());
  }

  // Wait for the answers, up to the drain limit; what is still open then is an error.
  // An unanswered request enters the percentiles with the time it waited so far (a lower
  // bound), so a server that stops answering cannot look fast.
  await Promise.race([Promise.all(pending), clock.sleep(o.drainMs ?? 10_000)]);
  closed = true;
  const drainEnd = clock.now();
  const unanswered = open.size;
  for (const [i, due] of open) {
    latencies.push(drainEnd - due);
    outcomes[i] = 'unanswered';
  }
  if (unanswered) errorKinds['unanswered'] = unanswered;

  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  const elapsed = Math.max(lastAnswer - start, total * interval) / 1000;
  return {
    rate: o.rate,
    scheduled: total,
    ok,
    errors: total - ok,
    achievedRate: round(answered / elapsed, 1),
    p50Ms: round(percentile(latencies, 0.5)),
    p99Ms: round(percentile(latencies, 0.99)),
    maxMs: round(latencies.at(-1) ?? NaN),
    sendLagP99Ms: round(percentile(lags, 0.99)),
    unanswered,
    errorKinds,
    latencies,
    outcomes,
  };
}
