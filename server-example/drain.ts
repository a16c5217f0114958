/**
 * The HTTP side of the example's graceful shutdown (`main.ts`): once `stop()` is called,
 * every request in flight runs to its end and closes its connection after its answer, and
 * what arrives meanwhile is answered `503` with `Retry-After` and `Connection: close` — a
 * webhook too, which the gateway then sends again (to another instance, behind a load
 * balancer), and `/healthz`, which takes the instance out of a load balancer's rotation.
 * No request is cut and none reaches a store being closed: the caller closes the companion
 * and the store once `stop()` says nothing is in flight.
 *
 * The listener is closed first, but not under the connections the kernel has already
 * accepted for it: closing a listening socket resets every connection still in its accept
 * queue (3 of 150 at a SIGTERM in a rush, where the event loop was busy), connections whose
 * clients believe them open. So the listener stays open until no connection has come for
 * `LISTEN_QUIET_MS` since the stop (at most `LISTEN_LINGER_MS`), and closes on a turn of
 * the event loop that has just accepted what was queued — on Linux only once the kernel's
 * own count of the queue says it is empty. What it accepts meanwhile is answered 503.
 *
 * Idle keep-alive connections are not cut when listening stops (Node's `server.close()`
 * would: a request the client sends on one at that instant is lost as a reset); they end
 * as their next request is answered 503, or as the server's keep-alive timeout closes
 * them — whose end a client sees coming (`Keep-Alive: timeout=…`). `ended()` waits for
 * that, and cuts what is left at its deadline.
 */
import type {IncomingMessage, Server, ServerResponse} from 'node:http';
import {readFileSync, readlinkSync} from 'node:fs';
import net from 'node:net';
import {performance} from 'node:perf_hooks';
import {NO_STORE} from '../src/server/http/app-parts.js';

/** Seconds a client is asked to wait before it tries again (`Retry-After`). */
export const DRAIN_RETRY_AFTER_S = 2;
/** The listener closes once no connection has been accepted for this long (ms)... */
export const LISTEN_QUIET_MS = 100;
/** ...or once it has been open this long after `stop()` (ms), the queue being empty. */
export const LISTEN_LINGER_MS = 1000;

export class Drain {
  readonly #server: Server;
  readonly #inFlight = new Set<ServerResponse>();
  #draining = false;
  #idle: (() => void) | undefined;
  #closed: Promise<void> | undefined;
  /** When the last connection was accepted (`performance.now()`). */
  #lastAccepted = -Infinity;

  constructor(server: Server) {
    this.#server = server;
    server.on('connection', () => (this.#lastAccepted = performance.now()));
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

  /** The answer to a request that arrives while the server drains (with the app's headers). */
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
          ...NO_STORE,
          'Retry-After': String(DRAIN_RETRY_AFTER_S),
          Connection: 'close',
        },
      },
    );
  }

  /**
   * Stops listening (once what the kernel queued is accepted: see the module comment) and
   * waits until no request is in flight, or until `deadline` (ms since the epoch). Answers
   * whether every request ended; past the deadline the connections of those still running
   * are cut (their callers get no answer rather than an error from a store closed under
   * them).
   */
  async stop(deadline: number): Promise<boolean> {
    this.#draining = true;
    this.#closed ??= this.#closeListener(deadline);
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

  /**
   * Closes the listener on a turn of the event loop right after its poll phase (which
   * accepts every connection the kernel has queued), once none has come for
   * `LISTEN_QUIET_MS` — or, after `LISTEN_LINGER_MS`, once none is queued — and at
   * `deadline` regardless. Resolves once the listener is closed and every connection has
   * ended (`net.Server#close` leaves open connections be, see the module comment).
   */
  #closeListener(deadline: number): Promise<void> {
    const linger = Math.min(deadline, Date.now() + LISTEN_LINGER_MS);
    // Quiet counts from the stop too: the signal that called it may be handled in the same
    // turn as connections the kernel queued after that turn's accepts.
    const stoppedAt = performance.now();
    const quietFor = () => performance.now() - Math.max(this.#lastAccepted, stoppedAt);
    return new Promise((resolve) => {
      const close = () => net.Server.prototype.close.call(this.#server, () => resolve());
      const attempt = () => {
        const quiet = quietFor();
        if (Date.now() < linger && quiet < LISTEN_QUIET_MS) {
          setTimeout(attempt, LISTEN_QUIET_MS - quiet);
          return;
        }
        // Timers run before the poll phase, immediates after it.
        setImmediate(() => {
          const now = Date.now();
          const calm = quietFor() >= LISTEN_QUIET_MS || now >= linger;
          if (now >= deadline || (calm && queued(this.#server) === 0)) close();
          else setTimeout(attempt, 1);
        });
      };
      attempt();
    });
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

/**
 * Connections the kernel has accepted for `server`'s listening socket and the server has
 * not: the accept queue, which Linux shows as the socket's `rx_queue` in /proc/net/tcp6 (or
 * tcp), found by the socket's inode. Elsewhere (or unreadable) 0: the turn of the event
 * loop then stands alone.
 */
function queued(server: Server): number {
  const fd = (server as unknown as {_handle?: {fd?: number}})._handle?.fd;
  if (process.platform !== 'linux' || typeof fd !== 'number' || fd < 0) return 0;
  try {
    const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
    for (const table of ['/proc/self/net/tcp6', '/proc/self/net/tcp']) {
      for (const line of readFileSync(table, 'utf8').split('\n')) {
        const fields = line.trim().split(/\s+/);
        if (inode && fields[9] === inode) return parseInt(fields[4]!.split(':')[1]!, 16);
      }
    }
  } catch {
    // No /proc: as elsewhere.
  }
  return 0;
}
