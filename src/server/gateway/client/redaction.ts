/**
 * Redaction: nothing the client throws may carry card data or secrets. Whatever the gateway
 * says back (it may echo what it got) is scrubbed of the request's card number, security
 * code and token, of the API secret and endpoints key, and of any run of digits that passes
 * the Luhn check before it is kept in an error.
 */
import type {Credentials} from '../auth.js';
import {luhnValid} from '../primitives.js';

const REDACTED = '[redacted]';
/** The request fields whose values are card data. */
const CARD_FIELDS = ['cc_number', 'card_cvv', 'cc_token'] as const;

/** Values that must never appear in an error: card data of the request and the secrets. */
export function sensitiveValuesOf(request: unknown, credentials: Credentials): string[] {
  const values = [credentials.apiSecret, credentials.endpointsKey];
  if (typeof request === 'object' && request !== null) {
    for (const field of CARD_FIELDS)
      values.push(stringValue((request as Record<string, unknown>)[field]));
  }
  return values.filter((v): v is string => typeof v === 'string' && v.length > 0);
}

function stringValue(v: unknown): string | undefined {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Scrubs text the gateway sent back: the sensitive values, and any run of 13–19 digits that
 * passes the Luhn check (a card number, perhaps spaced or dashed).
 */
export function redactText(value: string, sensitive: readonly string[]): string {
  let out = value;
  for (const s of sensitive) {
    // Short values (a CVV) only where they stand alone, so "1234" does not eat "12345".
    const pattern =
      s.length < 8 ? `(?<![0-9A-Za-z])${escapeRegExp(s)}(?![0-9A-Za-z])` : escapeRegExp(s);
    out = out.replace(new RegExp(pattern, 'g'), REDACTED);
  }
  return out.replace(/\d(?:[ -]?\d){12,18}/g, (run) =>
    luhnValid(run.replace(/[ -]/g, '')) ? REDACTED : run,
  );
}

/** {@link redactText} over every string of a JSON value. */
export function redactDeep<T>(value: T, sensitive: readonly string[], depth = 0): T {
  if (typeof value === 'string') return redactText(value, sensitive) as T;
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, sensitive, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, sensitive, depth + 1);
  return out as T;
}
