/**
 * Fixtures of the `GatewayClient` tests: a fake clock, so waits and deadlines are
 * asserted on the clock and never on elapsed wall time, and `clientServers`, which starts
 * a loopback server per test with a client pointed at it on such a clock, and closes
 * them all after the file's tests; and `rejectsWith`, the rejection a call must end in.
 */
import assert from 'node:assert/strict';
import {after} from 'node:test';
import {
  GatewayClient,
  type GatewayClock,
  type GatewayClientOptions,
} from '../../../src/server/gateway/index.js';
import {CREDENTIALS, loopback, POS_ID, type Handler, type Loopback} from './helpers.js';

/**
 * Every sleep returns at once, moves the clock's time forward by its length, and is
 * recorded. It starts at the real time (so HTTP dates in `Retry-After` read as they
 * would), and honours an abort signal.
 */
export class FakeClock implements GatewayClock {
  #now: number;
  /** Every wait asked for, in ms, in order. */
  readonly sleeps: number[] = [];

  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.#now += ms;
    await Promise.resolve();
    if (signal?.aborted) throw signal.reason;
  }
}

/** A started loopback server, and a client on a fake clock pointed at it. */
export interface ClientUnderTest {
  server: Loopback;
  client: GatewayClient;
  clock: FakeClock;
}

/**
 * `serve(handler, options)` for one test file: a loopback server answering through
 * `handler`, and a client with `defaults` and `options` on a new {@link FakeClock}.
 */
export function clientServers(defaults: Partial<GatewayClientOptions> = {}) {
  const servers: Loopback[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  return async function serve(
    handler: Handler,
    options: Partial<GatewayClientOptions> = {},
  ): Promise<ClientUnderTest> {
    const server = await loopback(handler);
    servers.push(server);
    const clock = new FakeClock();
    const client = new GatewayClient({
      baseUrl: server.url,
      posId: POS_ID,
      credentials: CREDENTIALS,
      clock,
      ...defaults,
      ...options,
    });
    return {server, client, clock};
  };
}

/** Awaits `promise`, asserts it rejects with a `type` that passes `check`, and returns it. */
export async function rejectsWith<T extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => T,
  check: (e: T) => boolean = () => true,
): Promise<T> {
  let caught: unknown;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof type, `expected ${type.name}, got ${String(caught)}`);
  assert.ok(check(caught as T), `unexpected ${String(caught)}`);
  return caught as T;
}
