/**
 * The back office's webhook log: every delivery that reached the webhook route, with the
 * result of its signature check, the answer the companion gave and whether it repeated an
 * event already received (the gateway may deliver a webhook more than once, and a resend
 * repeats one on purpose). The companion itself stores each distinct event once; this log
 * keeps every delivery, for people. It keeps a summary only — never the payload.
 */
import {createHash} from 'node:crypto';
import type Database from 'better-sqlite3';
import type {MiddlewareHandler} from 'hono';
import {
  WebhookDecodeError,
  WebhookSignatureError,
  parseWebhookForm,
  verifyWebhook,
} from '../src/server/index.js';
import {socketAddress} from './client-address.js';
import {openTable, type Statements} from './sqlite.js';

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

const SCHEMA = `CREATE TABLE IF NOT EXISTS example_webhook_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  received_at INTEGER NOT NULL,
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
);
CREATE INDEX IF NOT EXISTS example_webhook_log_event ON example_webhook_log (event_key);`;

const SQL = {
  insert: `INSERT INTO example_webhook_log
    (received_at, ip, signature, duplicate, answer, event_key, kind, gateway_order_id, status,
     status_code, method, amount, data_sha256)
    VALUES (@receivedAt, @ip, @signature, @duplicate, @answer, @eventKey, @kind, @gatewayOrderId,
     @status, @statusCode, @method, @amount, @dataSha256)`,
  // A delivery repeats an event when an earlier delivery of it was acknowledged: found when
  // the log is read (by the event-key index), not looked up for every delivery received.
  list: `SELECT l.*, EXISTS (SELECT 1 FROM example_webhook_log e
           WHERE e.event_key = l.event_key AND e.answer = 200 AND e.id < l.id) AS seen_before
    FROM example_webhook_log l ORDER BY l.id DESC LIMIT ?`,
};

/** Lenient UTF-8 for the log's copy (the companion refuses a malformed body itself). */
const UTF8 = new TextDecoder();

/** How long a recorded delivery may wait to be written with the ones after it. */
export const WEBHOOK_LOG_FLUSH_MS = 20;
/** Deliveries written at once at most (more are written at once). */
const FLUSH_ROWS = 100;

/**
 * The log table, in the shop's database. Deliveries are written a few at a time, in one
 * transaction each `WEBHOOK_LOG_FLUSH_MS` (a commit per delivery cost more than the
 * insert), before the log is read, and on `flush()` (the app calls it before it closes the
 * database): a crash loses at most the last moment's lines of this log for people — never
 * a webhook, which the companion has stored (durably, before it answered) on its own.
 */
export class WebhookLog {
  readonly #sql: Statements<keyof typeof SQL>;
  readonly #insertAll: Database.Transaction<(rows: readonly object[]) => void>;
  #pending: object[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(db: Database.Database) {
    this.#sql = openTable(db, SCHEMA, SQL);
    this.#insertAll = db.transaction((rows: readonly object[]) => {
      for (const row of rows) this.#sql.insert.run(row);
    });
  }

  /**
   * Records a delivery once the companion has answered it: written with the others of
   * the next moment (see the class comment). Whether it repeats an earlier one is worked
   * out when the log is listed; the `duplicate` column, which files written before kept it
   * in, is no longer read (0).
   */
  record(receipt: WebhookReceipt, ip: string, answer: number, receivedAt: number): void {
    this.#pending.push({...receipt, ip, answer, receivedAt, duplicate: 0});
    if (this.#pending.length >= FLUSH_ROWS) this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        try {
          this.flush();
        } catch (error) {
          console.error(`webhook log: ${(error as Error).message}: written later`);
        }
      }, WEBHOOK_LOG_FLUSH_MS);
      this.#timer.unref?.();
    }
  }

  /** Writes the recorded deliveries not written yet, in one transaction. */
  flush(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const rows = this.#pending;
    if (rows.length === 0) return;
    this.#pending = [];
    try {
      this.#insertAll.immediate(rows);
    } catch (error) {
      // Kept for the next flush (none of them was written: one transaction).
      this.#pending = rows.concat(this.#pending);
      throw error;
    }
  }

  /** The latest deliveries, newest first (the ones recorded so far included). */
  list(limit = 200): WebhookLogEntry[] {
    this.flush();
    return (this.#sql.list.all(limit) as Row[]).map((r) => ({
      id: r.id,
      receivedAt: r.received_at,
      ip: r.ip,
      signature: r.signature,
      duplicate: r.seen_before === 1,
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
}

/**
 * Middleware for the companion's webhook route: logs every POST delivery once the
 * companion has answered it. Register it after the body limit: the body it reads is within
 * the limit. It reads the body through Hono's request (`c.req`), which keeps the bytes for
 * the companion's route (it reads them the same way): no clone of the request, whose two
 * web streams cost more CPU per webhook than the log itself.
 */
export function logWebhooks(log: WebhookLog, secret: string): MiddlewareHandler {
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
    if (receipt) log.record(receipt, socketAddress(c) ?? 'unknown', c.res.status, receivedAt);
  };
}
