/**
 * The back office's webhook log: the deliveries that reached the webhook route, with the
 * result of its signature check, the answer the companion gave and whether it repeated an
 * event already received (the gateway may deliver a webhook more than once, and a resend
 * repeats one on purpose). The companion itself stores each distinct event once; this log
 * keeps deliveries, for people. It keeps a summary only — never the payload.
 *
 * Anyone can post to the webhook route, so the log is bounded (`WEBHOOK_LOG_LIMITS`): the
 * newest deliveries of each kind are kept — those signed with the secret (the gateway's)
 * apart from the forged or unsigned ones, so a flood of forgeries never pushes the
 * gateway's deliveries out — and forged ones are kept one by one only up to a rate per
 * instance; past it they are counted, one row per minute, for the last day. Whatever is
 * posted, the log's tables stay under a size fixed by the limits (measured in
 * test/node/example/webhook-flood.test.ts; docs/guides/demo.md gives the figures).
 */
import {createHash} from 'node:crypto';
import type {MiddlewareHandler} from 'hono';
import {
  WebhookDecodeError,
  WebhookSignatureError,
  parseWebhookForm,
  verifyWebhook,
} from '../src/server/index.js';
import type {ClientAddresses} from './client-address.js';
import {all, one, run, type ShopDb, type Work} from './db/work.js';

/** What a delivery says, as far as its signature lets it be read. */
export interface WebhookSummary {
  /** `valid`, `invalid` (bad or missing signature) or `undecodable` (signed, unknown payload). */
  signature: 'valid' | 'invalid' | 'undecodable';
  kind: string | null;
  gatewayOrderId: string | null;
  status: string | null;
  statusCode: string | null;
  method: string | null;
  amount: string | null;
  /** SHA-256 of `data`: equal for byte-identical deliveries. */
  dataSha256: string;
}

/** One delivery, as the back office lists it. */
export interface WebhookLogEntry extends WebhookSummary {
  id: number;
  receivedAt: number;
  ip: string;
  /** The same event (same order, kind, operation and status) was received before. */
  duplicate: boolean;
  /** HTTP status the companion answered. */
  answer: number;
}

/** What a delivery says before the companion answers it. */
export interface WebhookReceipt extends WebhookSummary {
  /** Identifies the event for duplicate detection; `null` when it is not a valid one. */
  eventKey: string | null;
}

interface Row {
  id: number;
  received_at: number;
  ip: string;
  signature: WebhookLogEntry['signature'];
  seen_before: number;
  answer: number;
  kind: string | null;
  gateway_order_id: string | null;
  status: string | null;
  status_code: string | null;
  method: string | null;
  amount: string | null;
  data_sha256: string;
}

/** Reads a raw webhook body: checks its signature and summarises what it says. */
export function inspectWebhook(rawBody: string, secret: string): WebhookReceipt {
  const form = parseWebhookForm(rawBody);
  const dataSha256 = createHash('sha256').update(form.data).digest('hex');
  try {
    const payload = verifyWebhook(form, secret) as Record<string, unknown> & {
      kind: string;
      order_id: string;
      status: string;
    };
    const str = (k: string) =>
      payload[k] === undefined || payload[k] === null ? null : String(payload[k]);
    const operation = str('operation_id') ?? str('transaction_id') ?? str('payment_id') ?? '';
    return {
      signature: 'valid',
      kind: payload.kind,
      gatewayOrderId: payload.order_id,
      status: payload.status,
      statusCode: str('status_code'),
      method: str('method'),
      amount: str('amount'),
      dataSha256,
      eventKey: [payload.order_id, payload.kind, operation, payload.status].join('|'),
    };
  } catch (error) {
    const unread = {kind: null, gatewayOrderId: null, status: null, statusCode: null};
    const rest = {...unread, method: null, amount: null, dataSha256};
    if (error instanceof WebhookSignatureError) {
      return {signature: 'invalid', ...rest, eventKey: null};
    }
    if (error instanceof WebhookDecodeError) {
      return {signature: 'undecodable', ...rest, eventKey: `undecodable|${dataSha256}`};
    }
    throw error;
  }
}

const schema = (t: {id: string; ms: string}) => [
  `CREATE TABLE IF NOT EXISTS example_webhook_log (
  id ${t.id},
  received_at ${t.ms} NOT NULL,
  ip TEXT NOT NULL,
  signature TEXT NOT NULL,
  duplicate INTEGER NOT NULL,
  answer INTEGER NOT NULL,
  event_key TEXT,
  kind TEXT,
  gateway_order_id TEXT,
  status TEXT,
  status_code TEXT,
  method TEXT,
  amount TEXT,
  data_sha256 TEXT NOT NULL
)`,
  'CREATE INDEX IF NOT EXISTS example_webhook_log_event ON example_webhook_log (event_key)',
  // Each kind's newest rows, for the cap (webhook-log.ts, `#trim`).
  'CREATE INDEX IF NOT EXISTS example_webhook_log_signature ON example_webhook_log (signature, id)',
  `CREATE TABLE IF NOT EXISTS example_webhook_log_unlogged (
  minute ${t.ms} PRIMARY KEY,
  deliveries INTEGER NOT NULL
)`,
];

const COLUMNS = [
  'received_at',
  'ip',
  'signature',
  'duplicate',
  'answer',
  'event_key',
  'kind',
  'gateway_order_id',
  'status',
  'status_code',
  'method',
  'amount',
  'data_sha256',
] as const;

/** An insert of `n` rows at once. */
const insertRows = (n: number) =>
  `INSERT INTO example_webhook_log (${COLUMNS.join(', ')}) VALUES ${Array<string>(n)
    .fill(`(${COLUMNS.map(() => '?').join(', ')})`)
    .join(', ')}`;

/** Lenient UTF-8 for the log's copy (the companion refuses a malformed body itself). */
const UTF8 = new TextDecoder();

/** How long a recorded delivery may wait to be written with the ones after it. */
export const WEBHOOK_LOG_FLUSH_MS = 20;
/** Deliveries written at once at most (more are written at once). */
const FLUSH_ROWS = 100;
const MINUTE_MS = 60_000;

/** How much the log keeps (see the module comment); each has a default. */
export interface WebhookLogLimits {
  /** Deliveries kept per kind of signature check, the newest. */
  rows: Readonly<Record<WebhookSummary['signature'], number>>;
  /** Forged or unsigned deliveries kept one by one per minute, per instance. */
  forgedPerMinute: number;
  /** Minutes the counts of the others are kept (one row each). */
  countedMinutes: number;
  /**
   * Deliveries waiting in memory to be written (the database is slow or down): past it,
   * a delivery is counted, not kept.
   */
  pending: number;
}

export const WEBHOOK_LOG_LIMITS: WebhookLogLimits = {
  rows: {valid: 5000, undecodable: 1000, invalid: 1000},
  forgedPerMinute: 60,
  countedMinutes: 24 * 60,
  pending: 1000,
};

type PendingRow = readonly unknown[] & {length: (typeof COLUMNS)['length']};

/**
 * The log table, in the shop's database. Deliveries are written a few at a time, in one
 * transaction each `WEBHOOK_LOG_FLUSH_MS` (a commit per delivery cost more than the
 * insert), before the log is read, and on `flush()` (the app awaits it before it closes the
 * database): a crash loses at most the last moment's lines of this log for people — never
 * a webhook, which the companion has stored (durably, before it answered) on its own.
 */
export class WebhookLog {
  readonly #db: ShopDb;
  readonly #now: () => number;
  readonly #limits: WebhookLogLimits;
  #pending: PendingRow[] = [];
  /** Deliveries counted and not kept, per minute, not written yet. */
  #counted = new Map<number, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The minute the forged ones kept are counted in, and how many were kept in it. */
  #minute = -1;
  #forgedKept = 0;
  /** The write going on (flushes follow one another). */
  #writing: Promise<void> = Promise.resolve();

  constructor(db: ShopDb, now: () => number = Date.now, limits = WEBHOOK_LOG_LIMITS) {
    this.#db = db;
    this.#now = now;
    this.#limits = limits;
    for (const ddl of schema(db.terms)) db.define(ddl);
  }

  /**
   * Records a delivery once the companion has answered it: written with the others of
   * the next moment (see the class comment), or only counted — a forged one past the
   * minute's rate, or any past the deliveries waiting to be written. Whether it repeats an
   * earlier one is worked out when the log is listed; the `duplicate` column, which files
   * written before kept it in, is no longer read (0).
   */
  record(receipt: WebhookReceipt, ip: string, answer: number, receivedAt: number): void {
    const minute = Math.floor(this.#now() / MINUTE_MS);
    if (minute !== this.#minute) {
      this.#minute = minute;
      this.#forgedKept = 0;
    }
    const forged = receipt.signature === 'invalid';
    if (
      (forged && this.#forgedKept >= this.#limits.forgedPerMinute) ||
      this.#pending.length >= this.#limits.pending
    ) {
      this.#counted.set(minute, (this.#counted.get(minute) ?? 0) + 1);
    } else {
      if (forged) this.#forgedKept++;
      const r = receipt;
      this.#pending.push([
        receivedAt,
        ip,
        r.signature,
        0,
        answer,
        r.eventKey,
        r.kind,
        r.gatewayOrderId,
        r.status,
        r.statusCode,
        r.method,
        r.amount,
        r.dataSha256,
      ] as PendingRow);
    }
    if (this.#pending.length >= FLUSH_ROWS) void this.#flushLogged();
    else this.#timer ??= setTimeout(() => void this.#flushLogged(), WEBHOOK_LOG_FLUSH_MS);
    this.#timer?.unref?.();
  }

  #flushLogged(): Promise<void> {
    return this.flush().catch((error: unknown) => {
      console.error(`webhook log: ${(error as Error).message}: written later`);
    });
  }

  /** Writes what was recorded and not written yet, in one transaction. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const write = this.#writing.then(() => this.#write());
    this.#writing = write.catch(() => undefined);
    return write;
  }

  async #write(): Promise<void> {
    const rows = this.#pending;
    const counted = this.#counted;
    if (rows.length === 0 && counted.size === 0) return;
    this.#pending = [];
    this.#counted = new Map();
    try {
      await this.#db.transaction(this.#writeWork(rows, counted));
    } catch (error) {
      // Kept for the next flush (none of them was written: one transaction), within the
      // bound of what may wait; the rest is counted.
      const room = Math.max(0, this.#limits.pending - this.#pending.length);
      this.#pending = rows.slice(0, room).concat(this.#pending);
      const overflow = rows.length - Math.min(rows.length, room);
      for (const [minute, n] of counted) {
        this.#counted.set(minute, (this.#counted.get(minute) ?? 0) + n);
      }
      if (overflow > 0) {
        const minute = Math.floor(this.#now() / MINUTE_MS);
        this.#counted.set(minute, (this.#counted.get(minute) ?? 0) + overflow);
      }
      throw error;
    }
  }

  *#writeWork(rows: PendingRow[], counted: Map<number, number>): Work<void> {
    for (let i = 0; i < rows.length; i += FLUSH_ROWS) {
      const batch = rows.slice(i, i + FLUSH_ROWS);
      yield* run(insertRows(batch.length), ...batch.flat());
    }
    for (const [minute, n] of counted) {
      yield* run(
        `INSERT INTO example_webhook_log_unlogged (minute, deliveries) VALUES (?, ?)
          ON CONFLICT (minute) DO UPDATE
          SET deliveries = example_webhook_log_unlogged.deliveries + excluded.deliveries`,
        minute,
        n,
      );
    }
    const kinds = new Set(rows.map((r) => r[2] as WebhookSummary['signature']));
    for (const kind of kinds) yield* this.#trim(kind);
    if (counted.size > 0) {
      yield* run(
        'DELETE FROM example_webhook_log_unlogged WHERE minute <= ?',
        Math.floor(this.#now() / MINUTE_MS) - this.#limits.countedMinutes,
      );
    }
  }

  /** Deletes the deliveries of `kind` older than its newest `rows[kind]`. */
  *#trim(kind: WebhookSummary['signature']): Work<void> {
    const oldestKept = yield* one<{id: number}>(
      'SELECT id FROM example_webhook_log WHERE signature = ? ORDER BY id DESC LIMIT 1 OFFSET ?',
      kind,
      this.#limits.rows[kind] - 1,
    );
    if (oldestKept === undefined) return;
    yield* run(
      'DELETE FROM example_webhook_log WHERE signature = ? AND id < ?',
      kind,
      oldestKept.id,
    );
  }

  /** The latest deliveries, newest first (the ones recorded so far included). */
  async list(limit = 200): Promise<WebhookLogEntry[]> {
    await this.flush();
    // A delivery repeats an event when an earlier delivery of it was acknowledged: found
    // when the log is read (by the event-key index), not looked up for every delivery.
    const rows = await this.#db.run(
      all<Row>(
        `SELECT l.*, CASE WHEN EXISTS (SELECT 1 FROM example_webhook_log e
             WHERE e.event_key = l.event_key AND e.answer = 200 AND e.id < l.id)
           THEN 1 ELSE 0 END AS seen_before
        FROM example_webhook_log l ORDER BY l.id DESC LIMIT ?`,
        limit,
      ),
    );
    return rows.map((r) => ({
      id: Number(r.id),
      receivedAt: Number(r.received_at),
      ip: r.ip,
      signature: r.signature,
      duplicate: Number(r.seen_before) === 1,
      answer: r.answer,
      kind: r.kind,
      gatewayOrderId: r.gateway_order_id,
      status: r.status,
      statusCode: r.status_code,
      method: r.method,
      amount: r.amount,
      dataSha256: r.data_sha256,
    }));
  }

  /**
   * The deliveries counted and not kept one by one, over the minutes still kept: how many,
   * and from when (ms since the epoch; `null` when none).
   */
  async unlogged(): Promise<{deliveries: number; since: number | null}> {
    await this.flush();
    const row = await this.#db.run(
      one<{n: number | null; first: number | null}>(
        'SELECT SUM(deliveries) AS n, MIN(minute) AS first FROM example_webhook_log_unlogged',
      ),
    );
    const first = row?.first;
    return {
      deliveries: Number(row?.n ?? 0),
      since: first === null || first === undefined ? null : Number(first) * MINUTE_MS,
    };
  }
}

/**
 * Middleware for the companion's webhook route: logs every POST delivery once the
 * companion has answered it. Register it after the body limit: the body it reads is within
 * the limit. It reads the body through Hono's request (`c.req`), which keeps the bytes for
 * the companion's route (it reads them the same way): no clone of the request, whose two
 * web streams cost more CPU per webhook than the log itself.
 */
export function logWebhooks(
  log: WebhookLog,
  secret: string,
  clients: ClientAddresses,
): MiddlewareHandler {
  return async function logWebhook(c, next) {
    if (c.req.method !== 'POST') return next();
    const receivedAt = Date.now();
    const text = UTF8.decode(await c.req.arrayBuffer());
    let receipt;
    try {
      receipt = inspectWebhook(text, secret);
    } catch {
      receipt = undefined;
    }
    await next();
    if (receipt) log.record(receipt, clients.address(c) ?? 'unknown', c.res.status, receivedAt);
  };
}
