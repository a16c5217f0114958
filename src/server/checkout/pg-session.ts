/**
 * The PostgreSQL store keeps no state in a database session, so that it works through a
 * pooler in transaction mode (PgBouncer's `pool_mode = transaction`, the way many
 * instances share one database), where each transaction may run on another server
 * connection than the last:
 *
 * - no startup parameters a pooler refuses or drops (`options=-c search_path=…`,
 *   `statement_timeout`): the schema and the statement timeout are set at the start of
 *   each transaction, `SET LOCAL`, and end with it;
 * - no session-level `SET`, no session advisory lock (`pg_advisory_lock` would be held by
 *   a server connection that then serves someone else): locks are `pg_advisory_xact_lock`;
 * - no named prepared statements (pg sends unnamed ones unless a query has a `name`).
 *
 * Every statement runs inside such a transaction, one alone too: its start is one round
 * trip (the three statements go as one simple query).
 */

/** The text that starts a transaction of the store on `schema` (a checked identifier). */
export function transactionStart(schema: string, statementTimeoutMs: number | undefined): string {
  const timeout =
    statementTimeoutMs === undefined
      ? ''
      : `; SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}`;
  return `BEGIN; SET LOCAL search_path TO ${schema}${timeout}`;
}

const heard = new WeakSet<object>();

/**
 * Listens to `client`'s `error` event, once per client. A connection cut while a client is
 * checked out of the pool (a restart, a pooler gone) rejects its query — the caller's
 * error — and pg also emits `error` on the client, which the pool listens to only while
 * the client is idle: unheard, it would end the process.
 */
export function hearErrors<T extends {on(event: 'error', listener: (e: Error) => void): unknown}>(
  client: T,
): T {
  if (!heard.has(client)) {
    heard.add(client);
    client.on('error', () => undefined);
  }
  return client;
}
