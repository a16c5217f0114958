/**
 * Card tokens stay out of what the store keeps, except in a saved card: a gateway payment
 * record (an attempt's `raw`, an operation's `raw`) is kept without its `cc_token`, and a
 * webhook's `data` (kept for the record after its signature was checked and its event key
 * taken) is re-encoded without it. Every `cc_token` field goes, at any depth (a
 * subscription record has one under `recurring_payment`); `cc_token_expiration` stays.
 * The schema migration that came with this (`sqlite-schema.ts`, `postgres-schema.ts`)
 * rewrites older rows with the same functions ({@link TOKEN_REWRITES}).
 */
import {encodeWebhookJson} from '../gateway/webhook.js';

const TOKEN_FIELD = 'cc_token';

/** Leaves out every `cc_token` field, at any depth, as `JSON.stringify` writes the text. */
const dropToken = (key: string, value: unknown) => (key === TOKEN_FIELD ? undefined : value);

/**
 * JSON text without its `cc_token` fields; text that is not JSON is returned as it is.
 * Text without the name is not parsed at all; the others are parsed once and written
 * again through a replacer (no copy of the parsed value is made).
 *
 * @example
 * ```ts
 * import {jsonWithoutToken} from 'pg-checkout/server';
 *
 * jsonWithoutToken('{"order_id":"A1","cc_token":"tok_123"}'); // '{"order_id":"A1"}'
 * ```
 */
export function jsonWithoutToken(json: string): string {
  if (!json.includes(TOKEN_FIELD)) return json;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return json;
  }
  return JSON.stringify(value, dropToken);
}

/**
 * A gateway record as JSON text without its `cc_token` fields: written once, through the
 * replacer (not written, parsed and written again as {@link jsonWithoutToken} would).
 */
export function recordJsonWithoutToken(record: unknown): string {
  return JSON.stringify(record, dropToken);
}

/**
 * A webhook's `data` (Base64Url JSON) as the store keeps it: the same text when its JSON
 * (`json`, when already decoded) has no token, else re-encoded without it.
 */
export function webhookDataWithoutToken(data: string, json?: string): string {
  const text = json ?? Buffer.from(data, 'base64url').toString('utf8');
  if (!text.includes(TOKEN_FIELD)) return data;
  return webhookDataFor(data, text, jsonWithoutToken(text));
}

/**
 * The `data` to keep for a webhook whose JSON `text` reads `redacted` without its token:
 * the same `data` when nothing was left out, else `redacted` encoded (it is the text
 * `JSON.stringify` wrote, so encoding it is encoding its value).
 */
export function webhookDataFor(data: string, text: string, redacted: string): string {
  return redacted === text ? data : encodeWebhookJson(redacted);
}

/** An update (outbox payload JSON) without the `cardToken` that updates carried before. */
function updateWithoutToken(json: string): string {
  if (!json.includes('cardToken')) return json;
  try {
    const {cardToken: _token, ...rest} = JSON.parse(json) as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return json;
  }
}

/**
 * One column rewritten row by row by a migration: `write` of each row of `table` becomes
 * `rewrite(read)` where that differs (rows with `read` NULL are skipped). `key` is the
 * table's primary key, for paging.
 */
export interface RowRewrite {
  table: string;
  key: string;
  read: string;
  write: string;
  rewrite: (value: string) => string | undefined;
}

/** What the migration to token-free records rewrites in rows stored before it. */
export const TOKEN_REWRITES: readonly RowRewrite[] = [
  {table: 'attempts', key: 'attempt_id', read: 'raw', write: 'raw', rewrite: jsonWithoutToken},
  {table: 'operations', key: 'id', read: 'raw', write: 'raw', rewrite: jsonWithoutToken},
  {
    table: 'webhook_events',
    key: 'id',
    read: 'data',
    write: 'data',
    rewrite: (data) => webhookDataWithoutToken(data),
  },
  {table: 'outbox', key: 'id', read: 'payload', write: 'payload', rewrite: updateWithoutToken},
];
