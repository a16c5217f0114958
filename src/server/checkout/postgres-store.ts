/**
 * `PostgresPaymentStore`: the {@link PaymentStore} on PostgreSQL (with `pg`, an optional
 * peer dependency), for running several companion instances on one database. Every
 * method is one transaction on a pooled connection; what must not happen twice is
 * decided in the database, never in one process's memory:
 *
 * - a new attempt is inserted under a per-order transaction lock
 *   (`pg_advisory_xact_lock`) after `SELECT … FOR UPDATE` of the order's attempts, with
 *   a unique partial index (one open attempt per order) as the backstop;
 * - a change to an attempt or an intent locks its row (`FOR UPDATE`), so the `mutate`
 *   decision and the write are one step across instances;
 * - card-testing reservations lock their (scope, key) pairs, in a fixed order, before
 *   counting, so two instances cannot both pass the same last place;
 * - outbox delivery claims entries with `FOR UPDATE SKIP LOCKED` and a claim that
 *   expires, and lookups take a lease (`leases`) that expires: a crashed instance's work
 *   is taken over once its claims run out.
 *
 * Migrations (`postgres-schema.ts`) run when the store is made, each under a
 * transaction-scoped advisory lock, so instances starting together migrate one at a
 * time. Nothing is kept in a database session (pg-session.ts): the store works through
 * PgBouncer in transaction mode. A pool wait past `connectTimeoutMs` is a `StoreBusyError`
 * (the database is busy, not down). A database that cannot be
 * reached (refused, timed out, connection cut, statement timeout) is a
 * {@link StoreUnavailableError}; the store keeps trying on the next call.
 */
import type {ConnectionOptions} from 'node:tls';
import type {Pool, PoolClient} from 'pg';
import {loadPg} from '../optional-peers.js';
import {isPoolWait, poolWaitAsBusy} from './backpressure.js';
import {hearErrors, transactionStart} from './pg-session.js';
import {MIGRATION_LOCK, PG_MIGRATIONS} from './postgres-schema.js';
import {
  ATTEMPT_COLUMNS,
  ATTEMPT_KEYS,
  INTENT_COLUMNS,
  INTENT_KEYS,
  rowToAttempt,
  rowToIntent,
  rowToEvent,
  rowToOperation,
  rowToOutbox,
  rowToRejected,
  rowToSavedCard,
  SAVED_CARD_COLUMNS,
  type AttemptKey,
} from './store-rows.js';
import type {SavedCardRecord} from './saved-cards.js';
import type {RowRewrite} from './stored-tokens.js';
import {
  isLiveAttempt,
  StoreUnavailableError,
  type AttemptMutation,
  type AttemptReservation,
  type AttemptRecord,
  type AttemptState,
  type CreateIntentResult,
  type InsertAttemptResult,
  type IntentMutation,
  type IntentState,
  type NewPaymentUpdate,
  type OperationIntent,
  type OutboxDelivery,
  type OutboxEntry,
  type PaymentStore,
  type RecordOperationResult,
  type RejectedWebhookInput,
  type RejectedWebhookRecord,
  type ReserveAttemptResult,
  type StoredOperation,
  type StoredOperationInput,
  type UpdateAttemptResult,
  type VelocityKey,
  type WebhookEventInput,
  type WebhookEventRecord,
} from './store.js';

/**
 * A pg `Pool`, by the members the store uses: written out here so the published
 * declarations import no type of pg, which a merchant on SQLite has not installed (issue 30).
 * A `Pool` is one.
 */
interface PgPool {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface PostgresPaymentStoreOptions {
  /** `postgres://user:password@host:5432/database?sslmode=verify-full` (or give `pool`). */
  connectionString?: string;
  /** A `pg` pool of your own (its settings win; the store does not end it on `close`). */
  pool?: PgPool;
  /** The schema of the store's tables (created when missing). Default `public`. */
  schema?: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /**
   * How long to wait for a connection, in ms (default 5000): for a free one of the pool
   * (then `StoreBusyError`, `503 busy`), or for a new one to be made (then unavailable).
   */
  connectTimeoutMs?: number;
  /** The longest one statement may run, in ms (default 10000); then `store_unavailable`. */
  statementTimeoutMs?: number;
  /**
   * TLS, as `pg` takes it: `true`, or `{ca, rejectUnauthorized, ...}` (`tls.connect`
   * options). `sslmode` in the connection string works too.
   */
  ssl?: boolean | ConnectionOptions;
  /** `application_name`, shown in `pg_stat_activity` (default `pg-checkout`). */
  applicationName?: string;
}

/** SQLSTATE classes and codes that mean "the database is not there", not "bad query". */
/** A migration's row rewrite, a page of rows at a time (in the migration's transaction). */
async function rewriteRows(c: PoolClient, r: RowRewrite): Promise<void> {
  const select = `SELECT ${r.key} AS k, ${r.read} AS v FROM ${r.table} WHERE ${r.read} IS NOT NULL`;
  let rows = (await c.query<Row>(`${select} ORDER BY ${r.key} LIMIT 500`)).rows;
  while (rows.length > 0) {
    for (const row of rows) {
      const v = row['v'] as string;
      const value = r.rewrite(v);
      if (value !== undefined && value !== v) {
        await c.query(`UPDATE ${r.table} SET ${r.write} = $1 WHERE ${r.key} = $2`, [
          value,
          row['k'],
        ]);
      }
    }
    const last = rows[rows.length - 1]!['k'];
    rows = (await c.query<Row>(`${select} AND ${r.key} > $1 ORDER BY ${r.key} LIMIT 500`, [last]))
      .rows;
  }
}

const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
]);

/** True when `error` says the database could not be reached or did not answer in time. */
export function isUnavailable(error: unknown): boolean {
  const e = error as {code?: unknown; message?: unknown} | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string') {
    if (UNAVAILABLE_ERRNOS.has(e.code) || UNAVAILABLE_SQLSTATES.has(e.code)) return true;
    if (e.code.startsWith('08')) return true; // connection exception
  }
  const message = typeof e.message === 'string' ? e.message : '';
  // pg's pool waiting for a free connection ("timeout exceeded when trying to connect") is
  // not here: the database is up and busy (`StoreBusyError`, backpressure.ts).
  return /Connection terminated|Client has encountered a connection error|Connection ended|not queryable/i.test(
    message,
  );
}

/** The server ended the connection (nothing of the statement ran on it). */
function isCut(error: unknown): boolean {
  const e = error as {code?: unknown; message?: unknown} | null;
  return (
    e?.code === '57P01' ||
    e?.code === '57P02' ||
    /Connection terminated|Client has encountered a connection error|not queryable/i.test(
      String(e?.message),
    )
  );
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const INT8_OID = 20;

type Row = Record<string, unknown>;

export class PostgresPaymentStore implements PaymentStore {
  readonly schema: string;
  /**
   * @internal The store's pool, for the example's own tables in the same database; not in
   * the published declarations (they import no type of pg).
   */
  readonly pool: Pool;
  private readonly ownPool: boolean;
  /** The migrations' run; a failed run (database down) is tried again by the next call. */
  private migrated: Promise<void> | undefined;
  private closed = false;
  /** `BEGIN` and the transaction's settings (pg-session.ts: nothing kept in a session). */
  private readonly start: string;

  constructor(options: PostgresPaymentStoreOptions | string) {
    const opts = typeof options === 'string' ? {connectionString: options} : options;
    const schema = opts.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) {
      throw new TypeError(
        'PostgresPaymentStore: schema: must be a plain identifier (letters, digits, _; up to 63)',
      );
    }
    if (!opts.pool && !opts.connectionString) {
      throw new TypeError('PostgresPaymentStore: connectionString: is required (or pass pool)');
    }
    for (const key of ['poolSize', 'connectTimeoutMs', 'statementTimeoutMs'] as const) {
      const v = opts[key];
      if (v !== undefined && !(Number.isInteger(v) && v > 0)) {
        throw new TypeError(`PostgresPaymentStore: ${key}: must be a positive whole number`);
      }
    }
    this.schema = schema;
    this.ownPool = !opts.pool;
    if (opts.pool) {
      this.pool = opts.pool as Pool;
    } else {
      const pg = loadPg();
      this.pool = new pg.Pool({
        connectionString: opts.connectionString,
        max: opts.poolSize ?? 10,
        connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
        application_name: opts.applicationName ?? 'pg-checkout',
        ...(opts.ssl === undefined ? {} : {ssl: opts.ssl}),
        // Epoch milliseconds in BIGINT columns read back as numbers.
        types: {
          getTypeParser: ((oid: number, format?: string) =>
            oid === INT8_OID
              ? (v: string) => Number(v)
              : pg.types.getTypeParser(oid, format as 'text')) as never,
        },
      });
    }
    this.start = transactionStart(
      schema,
      opts.pool ? opts.statementTimeoutMs : (opts.statementTimeoutMs ?? 10_000),
    );
    // A pooled connection cut while idle (a restart, pg_terminate_backend) is an event
    // of the pool, not of a call: the pool drops it and the next call gets a fresh one.
    this.pool.on('error', () => undefined);
    this.ready().catch(() => undefined);
  }

  /** Runs the migrations once (again after a failed run). */
  ready(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('PostgresPaymentStore is closed'));
    this.migrated ??= this.migrate().catch((error: unknown) => {
      this.migrated = undefined;
      throw this.mapError(error);
    });
    return this.migrated;
  }

  /** Versions of the applied migrations. */
  async appliedMigrations(): Promise<number[]> {
    await this.ready();
    return (await this.query('SELECT version FROM schema_migrations ORDER BY version')).map((r) =>
      Number(r['version']),
    );
  }

  /**
   * Creates the schema when missing and applies the migrations not applied yet, each in
   * its own transaction under a transaction-scoped advisory lock (released at its commit,
   * so nothing outlives the transaction: pg-session.ts): several instances starting at
   * once migrate one after the other, each reading what is applied under the lock (the
   * later ones find nothing to do). A database newer than this code is refused.
   */
  private async migrate(): Promise<void> {
    const known = Math.max(...PG_MIGRATIONS.map((m) => m.version));
    for (;;) {
      const c = await this.begin();
      let broken: Error | undefined;
      try {
        await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
        await c.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version INTEGER PRIMARY KEY,
          name TEXT NOT NULL,
          applied_at BIGINT NOT NULL
        )`);
        const applied = new Set(
          (await c.query<Row>('SELECT version FROM schema_migrations')).rows.map((r) =>
            Number(r['version']),
          ),
        );
        const newest = Math.max(0, ...applied);
        if (newest > known) {
          throw new Error(
            `PostgresPaymentStore: the database schema (version ${newest}) is newer than this code (version ${known}); upgrade pg-checkout`,
          );
        }
        const m = PG_MIGRATIONS.find((x) => !applied.has(x.version));
        if (m) {
          await c.query(m.sql);
          for (const r of m.rewrites ?? []) await rewriteRows(c, r);
          await c.query(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
            [m.version, m.name, Date.now()],
          );
        }
        await c.query('COMMIT');
        if (!m) return;
      } catch (error) {
        if (isUnavailable(error)) broken = error as Error;
        else await c.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
        throw error;
      } finally {
        c.release(broken);
      }
    }
  }

  private mapError(error: unknown): unknown {
    if (isPoolWait(error)) return poolWaitAsBusy(error);
    if (error instanceof StoreUnavailableError || !isUnavailable(error)) return error;
    const what = (error as Error).message || String((error as {code?: unknown}).code);
    return new StoreUnavailableError(`the payment database cannot be reached: ${what}`, {
      cause: error,
    });
  }

  /**
   * One statement, in a transaction of its own (its settings are the transaction's:
   * pg-session.ts). A pooled connection that the server cut while it was idle is replaced
   * once (`begin`).
   */
  private query(text: string, values: unknown[] = []): Promise<Row[]> {
    return this.tx(async (c) => (await c.query<Row>(text, values)).rows);
  }

  /** A connection whose `BEGIN` succeeded (a stale one found cut is replaced once). */
  private async begin(): Promise<PoolClient> {
    for (let attempt = 0; ; attempt++) {
      let c: PoolClient;
      try {
        c = hearErrors(await this.pool.connect());
      } catch (error) {
        throw this.mapError(error);
      }
      try {
        await c.query(this.start);
        return c;
      } catch (error) {
        c.release(error as Error);
        if (attempt === 0 && isCut(error)) continue;
        throw this.mapError(error);
      }
    }
  }

  /** `fn` in one transaction on one connection; a connection that broke is dropped. */
  private async tx<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    const c = await this.begin();
    let broken: Error | undefined;
    try {
      const result = await fn(c);
      await c.query('COMMIT');
      return result;
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error;
      else await c.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      throw this.mapError(error);
    } finally {
      c.release(broken);
    }
  }

  /** Serialises transactions about `key` (released at commit); any text key. */
  private lock(c: PoolClient, key: string): Promise<unknown> {
    return c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
  }

  /**
   * Under the order's lock: the live-attempt check, then the reservation's limits (their
   * locks taken after the order's, always in that order), then the attempt and its counts.
   */
  async insertAttempt(
    attempt: AttemptRecord,
    reservation?: AttemptReservation,
  ): Promise<InsertAttemptResult> {
    return this.tx(async (c): Promise<InsertAttemptResult> => {
      await this.lock(c, `order:${attempt.orderRef}`);
      const same = (
        await c.query<Row>('SELECT * FROM attempts WHERE attempt_id = $1', [attempt.attemptId])
      ).rows[0];
      if (same) return {inserted: false, existing: rowToAttempt(same), reason: 'same_attempt'};
      const rows = (
        await c.query<Row>('SELECT * FROM attempts WHERE order_ref = $1 ORDER BY seq FOR UPDATE', [
          attempt.orderRef,
        ])
      ).rows.map(rowToAttempt);
      const live = rows.find(isLiveAttempt);
      if (live) return {inserted: false, existing: live, reason: 'order_has_live_attempt'};
      if (reservation) {
        const r = await this.reserveIn(c, reservation, false);
        if (!r.ok) {
          return {inserted: false, reason: 'limited', scope: r.scope, retryAfterMs: r.retryAfterMs};
        }
      }
      const keys = ATTEMPT_KEYS.filter((k) => attempt[k] !== undefined);
      await c.query(
        `INSERT INTO attempts (${keys.map((k) => ATTEMPT_COLUMNS[k]).join(', ')})
         VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})`,
        keys.map((k) => attempt[k]),
      );
      if (reservation) await this.recordVelocity(c, reservation);
      return {inserted: true, attempt: {...attempt}, reserved: reservation !== undefined};
    });
  }

  async getAttempt(attemptId: string): Promise<AttemptRecord | undefined> {
    const row = (await this.query('SELECT * FROM attempts WHERE attempt_id = $1', [attemptId]))[0];
    return row && rowToAttempt(row);
  }

  async getAttemptByGatewayOrderId(gatewayOrderId: string): Promise<AttemptRecord | undefined> {
    const row = (
      await this.query('SELECT * FROM attempts WHERE gateway_order_id = $1', [gatewayOrderId])
    )[0];
    return row && rowToAttempt(row);
  }

  async listAttempts(orderRef: string): Promise<AttemptRecord[]> {
    return (
      await this.query('SELECT * FROM attempts WHERE order_ref = $1 ORDER BY seq', [orderRef])
    ).map(rowToAttempt);
  }

  async listAttemptsInStates(states: readonly AttemptState[]): Promise<AttemptRecord[]> {
    if (states.length === 0) return [];
    return (
      await this.query(
        'SELECT * FROM attempts WHERE state = ANY($1::text[]) ORDER BY created_at, seq, attempt_id',
        [states],
      )
    ).map(rowToAttempt);
  }

  private async insertEvent(c: PoolClient, event: WebhookEventInput): Promise<boolean> {
    const r = await c.query(
      `INSERT INTO webhook_events (event_key, received_at, kind, gateway_order_id, status, data, flag)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (event_key) DO NOTHING`,
      [
        event.eventKey,
        event.receivedAt,
        event.kind,
        event.gatewayOrderId ?? null,
        event.status ?? null,
        event.data,
        event.flag ?? null,
      ],
    );
    return r.rowCount === 1;
  }

  private async insertOutbox(
    c: PoolClient,
    update: NewPaymentUpdate,
    now: number,
  ): Promise<number> {
    const r = await c.query<Row>(
      'INSERT INTO outbox (created_at, payload) VALUES ($1, $2) RETURNING id',
      [now, JSON.stringify(update)],
    );
    return Number(r.rows[0]!['id']);
  }

  async updateAttempt(
    key: {attemptId: string} | {gatewayOrderId: string},
    mutate: (current: AttemptRecord) => AttemptMutation | undefined,
    event?: WebhookEventInput,
  ): Promise<UpdateAttemptResult> {
    return this.tx(async (c) => {
      if (event && !(await this.insertEvent(c, event))) {
        return {duplicateEvent: true, attempt: undefined, changed: false};
      }
      const [column, value] =
        'attemptId' in key
          ? ['attempt_id', key.attemptId]
          : ['gateway_order_id', key.gatewayOrderId];
      const row = (
        await c.query<Row>(`SELECT * FROM attempts WHERE ${column} = $1 FOR UPDATE`, [value])
      ).rows[0];
      if (!row) return {duplicateEvent: false, attempt: undefined, changed: false};
      const current = rowToAttempt(row);
      const mutation = mutate({...current});
      if (!mutation) return {duplicateEvent: false, attempt: current, changed: false};
      const next = {...current} as Record<string, unknown>;
      const assignments = (Object.entries(mutation.patch) as [AttemptKey, unknown][]).filter(
        ([k]) => k in ATTEMPT_COLUMNS,
      );
      if (assignments.length > 0) {
        await c.query(
          `UPDATE attempts SET ${assignments.map(([k], i) => `${ATTEMPT_COLUMNS[k]} = $${i + 1}`).join(', ')}
           WHERE attempt_id = $${assignments.length + 1}`,
          [...assignments.map(([, v]) => v ?? null), current.attemptId],
        );
        for (const [k, v] of assignments) {
          if (v === null || v === undefined) delete next[k];
          else next[k] = v;
        }
      }
      const savedCardId = mutation.saveCard && (await this.saveCardIn(c, mutation.saveCard)).id;
      const update =
        mutation.update && (savedCardId ? {...mutation.update, savedCardId} : mutation.update);
      const outboxId = update
        ? await this.insertOutbox(c, update, next['updatedAt'] as number)
        : undefined;
      return {
        duplicateEvent: false,
        attempt: next as unknown as AttemptRecord,
        changed: next['state'] !== current.state,
        ...(outboxId === undefined ? {} : {outboxId}),
        ...(savedCardId === undefined ? {} : {savedCardId}),
      };
    });
  }

  recordEvent(event: WebhookEventInput): Promise<boolean> {
    return this.tx((c) => this.insertEvent(c, event));
  }

  async listEvents(): Promise<WebhookEventRecord[]> {
    return (await this.query('SELECT * FROM webhook_events ORDER BY id')).map(rowToEvent);
  }

  recordOperation(
    operation: StoredOperationInput,
    update: NewPaymentUpdate,
    event?: WebhookEventInput,
  ): Promise<RecordOperationResult> {
    return this.tx(async (c): Promise<RecordOperationResult> => {
      if (event && !(await this.insertEvent(c, event))) {
        return {duplicateEvent: true, inserted: false};
      }
      const r = await c.query(
        `INSERT INTO operations (gateway_order_id, order_ref, kind, operation_id, status,
           status_code, amount, currency, raw, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (gateway_order_id, kind, operation_id, status) DO NOTHING`,
        [
          operation.gatewayOrderId,
          operation.orderRef,
          operation.kind,
          operation.operationId,
          operation.status,
          operation.statusCode ?? null,
          operation.amount ?? null,
          operation.currency ?? null,
          operation.raw,
          operation.createdAt,
        ],
      );
      if (r.rowCount !== 1) return {duplicateEvent: false, inserted: false};
      const outboxId = await this.insertOutbox(c, update, operation.createdAt);
      return {duplicateEvent: false, inserted: true, outboxId};
    });
  }

  private async operationsOf(
    run: (text: string, values: unknown[]) => Promise<Row[]>,
    orderRef: string,
  ): Promise<StoredOperation[]> {
    const rows = await run('SELECT * FROM operations WHERE order_ref = $1 ORDER BY id', [orderRef]);
    return rows.map(rowToOperation);
  }

  listOperations(orderRef: string): Promise<StoredOperation[]> {
    return this.operationsOf((t, v) => this.query(t, v), orderRef);
  }

  async recordRejectedWebhook(r: RejectedWebhookInput): Promise<void> {
    await this.query(
      `INSERT INTO rejected_webhooks (received_at, ip, reason, body_sha256, size)
       VALUES ($1, $2, $3, $4, $5)`,
      [r.receivedAt, r.ip, r.reason, r.bodySha256, r.size],
    );
  }

  async listRejectedWebhooks(): Promise<RejectedWebhookRecord[]> {
    return (await this.query('SELECT * FROM rejected_webhooks ORDER BY id')).map(rowToRejected);
  }

  async pendingOutbox(limit = 100): Promise<OutboxEntry[]> {
    return (
      await this.query('SELECT * FROM outbox WHERE delivered_at IS NULL ORDER BY id LIMIT $1', [
        limit,
      ])
    ).map(rowToOutbox);
  }

  /** `FOR UPDATE SKIP LOCKED`: concurrent claimers pass over each other's rows. */
  async claimOutbox(
    owner: string,
    now: number,
    leaseMs: number,
    limit = 100,
  ): Promise<OutboxEntry[]> {
    const rows = await this.query(
      `UPDATE outbox SET claimed_by = $1, claimed_until = $2
       WHERE id IN (
         SELECT id FROM outbox WHERE delivered_at IS NULL
           AND (claimed_until IS NULL OR claimed_until <= $3 OR claimed_by = $1)
         ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [owner, now + leaseMs, now, limit],
    );
    return rows.map(rowToOutbox).sort((a, b) => a.id - b.id);
  }

  /**
   * The marks in one statement, then the claim (two round trips, as a claim and one mark
   * each took). Not one transaction: a mark stands on its own, and the claim after it
   * cannot return an entry it marked.
   */
  async claimOutboxAfterDelivery(
    delivered: readonly OutboxDelivery[],
    owner: string,
    now: number,
    leaseMs: number,
    limit = 100,
  ): Promise<OutboxEntry[]> {
    if (delivered.length > 0) {
      await this.query(
        `UPDATE outbox o SET delivered_at = d.at
         FROM unnest($1::bigint[], $2::bigint[]) AS d(id, at)
         WHERE o.id = d.id AND o.delivered_at IS NULL`,
        [delivered.map((d) => d.id), delivered.map((d) => d.at)],
      );
    }
    return this.claimOutbox(owner, now, leaseMs, limit);
  }

  async markOutboxDelivered(id: number, at: number): Promise<void> {
    await this.query('UPDATE outbox SET delivered_at = $1 WHERE id = $2 AND delivered_at IS NULL', [
      at,
      id,
    ]);
  }

  async markOutboxFailed(id: number): Promise<void> {
    await this.query('UPDATE outbox SET failures = failures + 1 WHERE id = $1', [id]);
  }

  async acquireLease(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const rows = await this.query(
      `INSERT INTO leases (key, owner, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE leases.expires_at <= $4 OR leases.owner = excluded.owner
       RETURNING owner`,
      [key, owner, now + leaseMs, now],
    );
    return rows.length === 1;
  }

  async releaseLease(key: string, owner: string): Promise<void> {
    await this.query('DELETE FROM leases WHERE key = $1 AND owner = $2', [key, owner]);
  }

  private intentValues(i: OperationIntent): unknown[] {
    return INTENT_KEYS.map((k) => i[k] ?? null);
  }

  createIntent(
    intent: OperationIntent,
    decide: Parameters<PaymentStore['createIntent']>[1],
    update?: NewPaymentUpdate,
  ): Promise<CreateIntentResult> {
    return this.tx(async (c): Promise<CreateIntentResult> => {
      await this.lock(c, `intents:${intent.orderRef}`);
      const existing = (
        await c.query<Row>('SELECT * FROM operation_intents WHERE order_ref = $1 AND key = $2', [
          intent.orderRef,
          intent.key,
        ])
      ).rows[0];
      if (existing) return {created: false, existing: rowToIntent(existing)};
      const intents = (
        await c.query<Row>('SELECT * FROM operation_intents WHERE order_ref = $1 ORDER BY seq', [
          intent.orderRef,
        ])
      ).rows.map(rowToIntent);
      const operations = await this.operationsOf(
        async (t, v) => (await c.query<Row>(t, v)).rows,
        intent.orderRef,
      );
      const refused = decide(intents, operations);
      if (refused) return {created: false, refused};
      await c.query(
        `INSERT INTO operation_intents (${INTENT_KEYS.map((k) => INTENT_COLUMNS[k]).join(', ')})
         VALUES (${INTENT_KEYS.map((_, i) => `$${i + 1}`).join(', ')})`,
        this.intentValues(intent),
      );
      if (update) await this.insertOutbox(c, update, intent.createdAt);
      return {created: true, intent: {...intent}};
    });
  }

  updateIntent(
    orderRef: string,
    key: string,
    mutate: (current: OperationIntent) => IntentMutation | undefined,
  ): Promise<OperationIntent | undefined> {
    return this.tx(async (c) => {
      const row = (
        await c.query<Row>(
          'SELECT * FROM operation_intents WHERE order_ref = $1 AND key = $2 FOR UPDATE',
          [orderRef, key],
        )
      ).rows[0];
      if (!row) return undefined;
      const current = rowToIntent(row);
      const m = mutate({...current});
      if (!m) return current;
      const next = {...current, ...m.patch};
      await c.query(
        `UPDATE operation_intents SET ${INTENT_KEYS.map((k, i) => `${INTENT_COLUMNS[k]} = $${i + 1}`).join(', ')}
         WHERE order_ref = $${INTENT_KEYS.length + 1} AND key = $${INTENT_KEYS.length + 2}`,
        [...this.intentValues(next), orderRef, key],
      );
      if (m.update) await this.insertOutbox(c, m.update, next.updatedAt);
      return next;
    });
  }

  async getIntent(orderRef: string, key: string): Promise<OperationIntent | undefined> {
    const row = (
      await this.query('SELECT * FROM operation_intents WHERE order_ref = $1 AND key = $2', [
        orderRef,
        key,
      ])
    )[0];
    return row && rowToIntent(row);
  }

  async listIntents(orderRef: string): Promise<OperationIntent[]> {
    return (
      await this.query('SELECT * FROM operation_intents WHERE order_ref = $1 ORDER BY seq', [
        orderRef,
      ])
    ).map(rowToIntent);
  }

  async listIntentsInStates(states: readonly IntentState[]): Promise<OperationIntent[]> {
    if (states.length === 0) return [];
    return (
      await this.query(
        'SELECT * FROM operation_intents WHERE state = ANY($1::text[]) ORDER BY created_at, seq',
        [states],
      )
    ).map(rowToIntent);
  }

  private lastVelocityPrune = 0;

  /**
   * Locks each (scope, key) in a fixed order (so two reservations never wait on each
   * other crosswise), counts, and records: a reservation, not an after-the-fact count.
   */
  reserveAttempt(
    keys: readonly VelocityKey[],
    now: number,
    windowMs: number,
  ): Promise<ReserveAttemptResult> {
    return this.tx((c) => this.reserveIn(c, {keys, now, windowMs}, true));
  }

  /**
   * The reservation's check in transaction `c` and, when `record` and every key has room,
   * its counts. Three statements whatever the number of keys (one round trip each, on the
   * pay path): the keys' locks, taken in sorted order so that two reservations sharing keys
   * never wait on each other in a circle; the check; the inserts.
   */
  private async reserveIn(
    c: PoolClient,
    r: AttemptReservation,
    record: boolean,
  ): Promise<ReserveAttemptResult> {
    const {keys, now, windowMs} = r;
    const since = now - windowMs;
    const locks = [
      ...new Set(keys.map((k) => `velocity:${JSON.stringify([k.scope, k.key])}`)),
    ].sort();
    await c.query(
      `SELECT pg_advisory_xact_lock(hashtextextended(l.k, 0))
       FROM unnest($1::text[]) WITH ORDINALITY AS l(k, i) ORDER BY l.i`,
      [locks],
    );
    // Per key, in order: the max-th newest reservation in the window, if there is one —
    // the key is full, and a place frees when that one leaves the window. One row per
    // key comes back, however many the window holds.
    const nth = (
      await c.query<Row>(
        `SELECT (SELECT a.at FROM attempt_velocity a
                 WHERE a.scope = v.scope AND a.key = v.key AND a.at > $4
                 ORDER BY a.at DESC OFFSET v.max - 1 LIMIT 1) AS at
         FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS v(scope, key, max, i)
         ORDER BY v.i`,
        [keys.map((k) => k.scope), keys.map((k) => k.key), keys.map((k) => k.max), since],
      )
    ).rows;
    const full = nth.findIndex((row) => row['at'] !== null);
    if (full >= 0) {
      const at = Number(nth[full]!['at']);
      return {ok: false, scope: keys[full]!.scope, retryAfterMs: at + windowMs - now};
    }
    if (record) await this.recordVelocity(c, r);
    return {ok: true};
  }

  /** Counts one attempt per key (after {@link reserveIn}'s check, in its transaction). */
  private async recordVelocity(c: PoolClient, r: AttemptReservation): Promise<void> {
    await c.query(
      `INSERT INTO attempt_velocity (scope, key, at)
       SELECT v.scope, v.key, $3::bigint FROM unnest($1::text[], $2::text[]) AS v(scope, key)`,
      [r.keys.map((k) => k.scope), r.keys.map((k) => k.key), r.now],
    );
    if (r.now - this.lastVelocityPrune > 60_000) {
      this.lastVelocityPrune = r.now;
      await c.query('DELETE FROM attempt_velocity WHERE at <= $1', [r.now - r.windowMs]);
    }
  }

  /**
   * Inserts the card unless the customer already has a live card with this token (the
   * unique partial index decides, across instances); answers the live card either way.
   */
  async saveCard(card: SavedCardRecord): Promise<SavedCardRecord> {
    return this.tx((c) => this.saveCardIn(c, card));
  }

  private async saveCardIn(c: PoolClient, card: SavedCardRecord): Promise<SavedCardRecord> {
    const columns = Object.values(SAVED_CARD_COLUMNS);
    const values = Object.keys(SAVED_CARD_COLUMNS).map(
      (key) => card[key as keyof SavedCardRecord] ?? null,
    );
    await c.query(
      `INSERT INTO saved_cards (${columns.join(', ')})
       VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT DO NOTHING`,
      values,
    );
    const row = (
      await c.query<Row>(
        'SELECT * FROM saved_cards WHERE customer_id = $1 AND token = $2 AND deleted_at IS NULL',
        [card.customerId, card.token],
      )
    ).rows[0];
    return rowToSavedCard(row!);
  }

  async getSavedCard(id: string): Promise<SavedCardRecord | undefined> {
    const row = (await this.query('SELECT * FROM saved_cards WHERE id = $1', [id]))[0];
    return row && rowToSavedCard(row);
  }

  async listSavedCards(customerId?: string): Promise<SavedCardRecord[]> {
    const rows =
      customerId === undefined
        ? await this.query(
            'SELECT * FROM saved_cards WHERE deleted_at IS NULL ORDER BY customer_id, created_at, seq',
          )
        : await this.query(
            'SELECT * FROM saved_cards WHERE customer_id = $1 AND deleted_at IS NULL ORDER BY created_at, seq',
            [customerId],
          );
    return rows.map(rowToSavedCard);
  }

  async deleteSavedCard(customerId: string, id: string, at: number): Promise<boolean> {
    const rows = await this.query(
      `UPDATE saved_cards SET deleted_at = $1, token = ''
       WHERE customer_id = $2 AND id = $3 AND deleted_at IS NULL RETURNING id`,
      [at, customerId, id],
    );
    return rows.length === 1;
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.query('SELECT 1 AS ok')).length === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.migrated?.catch(() => undefined);
    this.closed = true;
    if (this.ownPool) await this.pool.end();
  }
}
