/**
 * A busy database, told apart from one that is down: {@link StoreBusyError} is what a store
 * throws when every connection of its pool stayed taken past the pool's wait, which the
 * door answers `503 busy` (the request may be sent again) rather than an outage.
 * {@link isPoolWait} tells pg's pool wait from a connection that cannot be made.
 */

/**
 * The store waited for a database connection past its deadline: every connection of the
 * pool was busy. The database is up; the request may be sent again (`503 busy`).
 */
export class StoreBusyError extends Error {
  readonly code = 'store_busy';
  constructor(message: string, opts: {cause?: unknown} = {}) {
    super(message, opts.cause === undefined ? undefined : {cause: opts.cause});
    this.name = 'StoreBusyError';
  }
}

/**
 * True when `error` is pg's pool giving up waiting for one of its connections to be free
 * (`connectionTimeoutMillis` on a full pool). Making a new connection that times out is
 * another message ("Connection terminated due to connection timeout"): an unreachable
 * database, not a busy pool.
 */
export function isPoolWait(error: unknown): boolean {
  const message = (error as {message?: unknown} | null)?.message;
  return typeof message === 'string' && message === 'timeout exceeded when trying to connect';
}

/** `error` as a {@link StoreBusyError} when it is a pool wait, else unchanged. */
export function poolWaitAsBusy(error: unknown, what = 'the payment database'): unknown {
  if (!isPoolWait(error)) return error;
  return new StoreBusyError(`${what} is busy: no connection was free in time`, {cause: error});
}
