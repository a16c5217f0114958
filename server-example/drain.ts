/**
 * The HTTP side of the example's graceful shutdown (`main.ts`): once `stop()` is called,
 * the server accepts no new connection, every request in flight runs to its end and
 * closes its connection after its answer, and what arrives meanwhile on a connection
 * already open is answered `503` with `Retry-After` and `Connection: close` — a webhook
 * too, which the gateway then sends again (to another instance, behind a load balancer),
 * and `/healthz`, which takes the instance out of a load balancer's rotation. No request
 * is cut and none reaches a store being closed: the caller closes the companion and the
 * store once `stop()` says nothing is in flight.
 *
 * Idle keep-alive connections are not cut when listening stops (Node's `server.close()`
 * would: a request the client sends on one at that instant is lost as a reset); they end
 * as their next request is answered 503, or as the server's keep-alive timeout closes
 * them — whose end a client sees coming (`Keep-Alive: timeout=…`). `ended()` waits for
 * that, and cuts what is left at its deadline.
 */
import type {IncomingMessage, Server, ServerResponse} from 'node:http';
import net from 'node:net';

/** Seconds a client is asked to wait before it tries again (`Retry-After`). */
export const DRAIN_RETRY_AFTER_S = 2;

export class Drain {
  readonly #server: Server;
  readonly #inFlight = new Set<ServerResponse>();
  #draining = false;
  #idle: (() => void) | undefined;
  #closed: Promise<void> | undefined;

  constructor(server: Server) {
    this.#server = server;
    server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      this.#inFlight.add(res);
      if (this.#draining) res.shouldKeepAlive = false;
      res.once('close', () => {
        this.#inFlight.delete(res);
        if (this.#inFlight.size === 0) this.#idle?.();
      });
    });
  }

  /** True once `stop()` was called: requests are answered by `refusal()`. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Requests being answered now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** The answer to a request that arrives while the server drains. */
  refusal(): Response {
    return Response.json(
      {
        error: {
          code: 'busy',
          message: 'this server is restarting: try again in a moment',
          retryAfter: DRAIN_RETRY_AFTER_S,
        },
      },
      {
        status: 503,
        headers: {
          'Retry-After': String(DRAIN_RETRY_AFTER_S),
          'Cache-Control': 'no-store',
          Connection: 'close',
        },
      },
    );
  }

  /**
   * Stops listening and waits until no request is in flight, or until `deadline` (ms
   * since the epoch). Answers whether every request ended; past the deadline the
   * connections of those still running are cut (their callers get no answer rather than
   * an error from a store closed under them).
   */
  async stop(deadline: number): Promise<boolean> {
    this.#draining = true;
    // `net.Server#close` stops listening and leaves open connections be (see the module
    // comment); it calls back once the last one has ended.
    this.#closed ??= new Promise((resolve) => {
      net.Server.prototype.close.call(this.#server, () => resolve());
    });
    // Answers already under way close their connection when done.
    for (const res of this.#inFlight) res.shouldKeepAlive = false;
    if (this.#inFlight.size > 0) {
      const idle = new Promise<void>((resolve) => (this.#idle = resolve));
      await Promise.race([idle, sleepUntil(deadline)]);
    }
    if (this.#inFlight.size === 0) return true;
    for (const res of this.#inFlight) res.socket?.destroy();
    return false;
  }

  /** Waits until every connection has ended, cutting the rest at `deadline`. */
  async ended(deadline: number): Promise<void> {
    if (!this.#closed) throw new Error('Drain: ended() before stop()');
    await Promise.race([this.#closed, sleepUntil(deadline)]);
    this.#server.closeAllConnections();
    await this.#closed;
  }
}

function sleepUntil(deadline: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())));
}
