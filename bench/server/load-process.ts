/**
 * The load generator as a process of its own, so that its work does not share an event
 * loop with the system under test. Reads one JSON command per stdin line — a
 * {@link LoadStep}: where to post, the bodies (and who sends each), the rate — runs it open
 * loop (`runOpenLoop`) and writes one JSON line per step to stdout: the
 * `OpenLoopResult` without the raw latencies (and without the outcome of each request
 * unless the step asks for them), or `{error}`. Prints `ready` first; exits
 * when stdin closes.
 */
import {createInterface} from 'node:readline';
import {closeConnections, post, type PostTarget} from './http-post.js';
import {runOpenLoop} from './open-loop.js';

export interface LoadStep {
  target: PostTarget;
  /** One body per request, in order; the step sends `bodies.length` requests. */
  bodies: string[];
  /**
   * `X-Forwarded-For` of each request, in the order of `bodies`: the address of the
   * customer who sends it, as the proxy in front of the app would add it.
   */
  forwardedFor?: string[];
  /** Requests per second. */
  rate: number;
  drainMs?: number;
  /** Also report `outcomes`, what became of each request (in the order of `bodies`). */
  outcomes?: boolean;
}

const lines = createInterface({input: process.stdin});
process.stdout.write('ready\n');
for await (const line of lines) {
  if (!line.trim()) continue;
  try {
    const step = JSON.parse(line) as LoadStep;
    const bodies = step.bodies.map((b) => Buffer.from(b, 'utf8'));
    const result = await runOpenLoop({
      rate: step.rate,
      durationMs: (bodies.length * 1000) / step.rate,
      send: (i) => {
        const from = step.forwardedFor?.[i];
        return post(step.target, bodies[i]!, from ? {'X-Forwarded-For': from} : undefined);
      },
      ...(step.drainMs === undefined ? {} : {drainMs: step.drainMs}),
    });
    // What is still open after the drain must not weigh on the next step.
    closeConnections();
    const {latencies: _raw, outcomes, ...figures} = result;
    process.stdout.write(JSON.stringify(step.outcomes ? {...figures, outcomes} : figures) + '\n');
  } catch (err) {
    process.stdout.write(JSON.stringify({error: String((err as Error)?.message ?? err)}) + '\n');
  }
}
closeConnections();
process.exit(0);
