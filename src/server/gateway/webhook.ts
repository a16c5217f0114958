/**
 * Webhook signatures: `signature = base64url(sha1(secret + data + secret))` over the
 * `data` field exactly as received (Base64Url text, padding kept). Verification checks the
 * signature before anything is decoded or parsed, compares in constant time, and never
 * throws on a short or garbage signature except with a typed error.
 */
import {hash, timingSafeEqual} from 'node:crypto';
import {formatIssues, WebhookPayload} from './schemas.js';
import {WebhookDecodeError, WebhookSignatureError} from './errors.js';

/** Length of every webhook signature: 20 SHA-1 bytes in padded Base64 is 28 characters. */
export const WEBHOOK_SIGNATURE_LENGTH = 28;

/** The signature text: Base64Url of the raw SHA-1 digest, padding kept (28 characters). */
function signatureText(data: string, secret: string): string {
  // One-shot hashing of the UTF-8 text `secret + data + secret`, as the gateway hashes it.
  return `${hash('sha1', secret + data + secret, 'base64url')}=`;
}

/**
 * Signs a webhook's `data` as the gateway does.
 *
 * @example
 * ```ts
 * import {encodeWebhookData, signWebhook} from 'pg-checkout/server';
 *
 * const data = encodeWebhookData({order_id: 'ORDER-1001', status: 'success'}); // in your tests
 * const body = new URLSearchParams({data, signature: signWebhook(data, 'sandbox-api-secret')});
 * ```
 */
export function signWebhook(data: string, secret: string): string {
  return signatureText(data, secret);
}

/**
 * Encodes a payload as the webhook `data` field: Base64Url of its JSON, padding kept.
 *
 * @example
 * ```ts
 * import {encodeWebhookData} from 'pg-checkout/server';
 *
 * const data = encodeWebhookData({order_id: 'ORDER-1001', status: 'success'});
 * console.log(JSON.parse(Buffer.from(data, 'base64url').toString('utf8')).order_id); // ORDER-1001
 * ```
 */
export function encodeWebhookData(payload: unknown): string {
  return encodeWebhookJson(JSON.stringify(payload));
}

/** Encodes JSON text as the webhook `data` field (as {@link encodeWebhookData} does). */
export function encodeWebhookJson(json: string): string {
  return Buffer.from(json, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

const BASE64URL_SIGNATURE = /^[A-Za-z0-9_-]{27}=$/;

/**
 * True when `signature` is the gateway's signature of `data`. The signature's text is
 * compared in constant time with the expected text (not its decoded bytes, so no two
 * spellings of one digest are both accepted); a signature of the wrong type, length or
 * alphabet is simply false.
 */
export function isValidWebhookSignature(data: string, signature: string, secret: string): boolean {
  if (typeof data !== 'string' || typeof signature !== 'string' || typeof secret !== 'string') {
    return false;
  }
  if (signature.length !== WEBHOOK_SIGNATURE_LENGTH || !BASE64URL_SIGNATURE.test(signature)) {
    return false;
  }
  // Both texts are 28 ASCII characters (checked above): written into two fixed buffers, so
  // the hot path allocates nothing. Synchronous, so the buffers are never shared.
  GIVEN.write(signature, 'latin1');
  EXPECTED.write(signatureText(data, secret), 'latin1');
  return timingSafeEqual(GIVEN, EXPECTED);
}

const GIVEN = Buffer.alloc(WEBHOOK_SIGNATURE_LENGTH);
const EXPECTED = Buffer.alloc(WEBHOOK_SIGNATURE_LENGTH);

/** The value of each Base64Url character (by char code), -1 for any other character. */
const BASE64URL_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  BASE64URL_VALUE[
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.charCodeAt(i)
  ] = i;
}

/**
 * Decodes Base64Url text strictly (padding optional, but correct when present) to UTF-8
 * text; `undefined` when it is not Base64Url. Node's decoder accepts both alphabets and
 * skips (or stops at) any other character, so it is checked without a second pass over
 * the text: `+` and `/` are looked for, and every other stray character shows as fewer
 * bytes decoded than the length promises; unused bits of the last character must be zero,
 * so each byte string has one spelling only.
 */
function decodeBase64Url(data: string): string | undefined {
  let end = data.length;
  if (end > 0 && data.charCodeAt(end - 1) === 61 /* = */) {
    end--;
    if (end > 0 && data.charCodeAt(end - 1) === 61) end--;
    if (data.length % 4 !== 0) return undefined;
  }
  const tail = end % 4;
  if (tail === 1 || data.includes('+') || data.includes('/')) return undefined;
  if (tail !== 0) {
    const last = BASE64URL_VALUE[data.charCodeAt(end - 1)] ?? -1;
    if (last < 0 || (last & (tail === 2 ? 0x0f : 0x03)) !== 0) return undefined;
  }
  const length = (end >> 2) * 3 + (tail === 0 ? 0 : tail - 1);
  // Usual payloads are decoded into one reused buffer (synchronous, so never shared).
  const into = length <= DECODE_SCRATCH.length ? DECODE_SCRATCH : Buffer.allocUnsafe(length);
  let written: number;
  try {
    written = into.write(data, 0, into.length, 'base64url');
  } catch {
    return undefined;
  }
  if (written !== length) return undefined;
  return into.toString('utf8', 0, length);
}

const DECODE_SCRATCH = Buffer.allocUnsafe(16 * 1024);

/** The webhook form as posted: the two fields exactly as received. */
export interface WebhookForm {
  data: string;
  signature: string;
}

/**
 * Verifies a webhook and returns its parsed payload (with a `kind` tag). Throws
 * {@link WebhookSignatureError} when the signature does not match, and
 * {@link WebhookDecodeError} when the signed data is not a known payload. Unknown and
 * additional fields in the payload are kept.
 *
 * @example
 * ```ts
 * import {parseWebhookForm, verifyWebhook, WebhookSignatureError} from 'pg-checkout/server';
 *
 * export async function onWebhook(request: Request): Promise<Response> {
 *   try {
 *     const event = verifyWebhook(parseWebhookForm(await request.text()), process.env.API_SECRET!);
 *     console.log(event.kind, event.order_id, event.status);
 *     return new Response(null, {status: 200});
 *   } catch (error) {
 *     if (error instanceof WebhookSignatureError) return new Response(null, {status: 400});
 *     throw error;
 *   }
 * }
 * ```
 */
export function verifyWebhook(form: WebhookForm, secret: string): WebhookPayload {
  return verifyWebhookText(form, secret).payload;
}

/**
 * {@link verifyWebhook}, also giving the JSON text the payload was parsed from (for
 * storing it as received, without decoding the data a second time).
 */
export function verifyWebhookText(
  form: WebhookForm,
  secret: string,
): {payload: WebhookPayload; json: string} {
  if (!secret) throw new TypeError('verifyWebhook needs the API secret of the project');
  const data = form?.data;
  const signature = form?.signature;
  if (typeof data !== 'string' || data === '') {
    throw new WebhookSignatureError(
      'the webhook has no `data` field: pass the form field exactly as received',
    );
  }
  if (typeof signature !== 'string' || signature === '') {
    throw new WebhookSignatureError('the webhook has no `signature` field');
  }
  if (!isValidWebhookSignature(data, signature, secret)) {
    throw new WebhookSignatureError(
      'the webhook signature does not match its data: pass the raw `data` field, not re-encoded JSON, and the API secret of this project',
    );
  }
  const json = decodeBase64Url(data);
  if (json === undefined) throw new WebhookDecodeError('the webhook `data` is not Base64Url text');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new WebhookDecodeError('the webhook `data` does not decode to JSON');
  }
  const fast = knownGoodPayload(value);
  if (fast !== undefined) return {payload: fast, json};
  const parsed = WebhookPayload.safeParse(value);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error, value);
    throw new WebhookDecodeError(
      `the webhook payload is not a known event: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  return {payload: parsed.data, json};
}

/**
 * Parses a form-encoded webhook body (`data=...&signature=...`) into its two fields,
 * keeping `data` exactly as sent once the form encoding is undone.
 *
 * @example
 * ```ts
 * import {parseWebhookForm} from 'pg-checkout/server';
 *
 * const form = parseWebhookForm('data=eyJ9&signature=abc%3D'); // the raw body, as posted
 * console.log(form.data, form.signature); // 'eyJ9' 'abc='
 * ```
 */
export function parseWebhookForm(body: string): WebhookForm {
  const params = new URLSearchParams(body);
  return {data: params.get('data') ?? '', signature: params.get('signature') ?? ''};
}

// ---------------------------------------------------------------------------------------
// Fast path. Webhooks are verified on the merchant's hot path, and a zod parse costs as
// much as the hash. The checks below are the webhook schemas' rules written out by hand
// for payloads already in their canonical form (numbers as numbers, codes as strings);
// such a payload is returned as zod would return it. Anything else — a wrong or missing
// field, or a value zod would transform — falls back to the schemas, which give the same
// result or the error. A property test holds the two paths equal.
// ---------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

const PRIMARY = new Set(['purchase', 'auth', 'credit', 'p2p', 'lookup']);
const STATUS = new Set(['init', 'pending', 'success', 'failure']);
const RECURRING_STATUS = new Set(['init', 'active', 'canceled']);

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const nullishString = (v: unknown) => v == null || typeof v === 'string';
const nullishNumber = (v: unknown) => v == null || isNumber(v);
const nullishFee = (v: unknown) =>
  v == null || (isObject(v) && isNumber(v['amount']) && isString(v['currency']));
const nullishLimitInfo = (v: unknown) =>
  v == null ||
  typeof v === 'string' ||
  (isObject(v) && nullishString(v['retry_after']) && nullishString(v['description']));

// The field lists are spelled out rather than looped over: a named load on the parsed
// object is a fraction of the cost of a keyed one, and this runs for every webhook.

const primaryFieldsOk = (v: Json) =>
  isString(v['payment_id']) &&
  isString(v['order_id']) &&
  isString(v['pos_id']) &&
  isString(v['mode']) &&
  isString(v['currency']) &&
  isString(v['created_at']) &&
  nullishString(v['gateway_order_id']) &&
  nullishString(v['billing_order_id']) &&
  nullishString(v['transaction_id']) &&
  nullishString(v['payway']) &&
  nullishString(v['eci']) &&
  nullishString(v['status_code']) &&
  nullishString(v['status_description']) &&
  nullishString(v['cc_mask']) &&
  nullishString(v['cc_token']) &&
  nullishString(v['cc_token_expiration']) &&
  nullishString(v['customer_id']) &&
  nullishString(v['customer_phone']) &&
  nullishString(v['processed_at']) &&
  nullishString(v['payload']) &&
  nullishString(v['receipt_url']);

const secondaryFieldsOk = (v: Json) =>
  isString(v['operation_id']) &&
  isString(v['payment_id']) &&
  isString(v['order_id']) &&
  isString(v['pos_id']) &&
  isString(v['mode']) &&
  isString(v['currency']) &&
  isString(v['created_at']) &&
  nullishString(v['transaction_id']) &&
  nullishString(v['status_code']) &&
  nullishString(v['status_description']) &&
  nullishString(v['processed_at']);

/** Adds the `kind` tag in place: the object is fresh from `JSON.parse` and ours alone. */
function tagged(v: Json, kind: WebhookPayload['kind']): WebhookPayload {
  v['kind'] = kind;
  return v as WebhookPayload;
}

/** The payload with its `kind` when it certainly passes the schemas unchanged, else `undefined`. */
function knownGoodPayload(v: unknown): WebhookPayload | undefined {
  if (!isObject(v) || !isNumber(v['amount']) || !STATUS.has(v['status'] as string))
    return undefined;
  const method = v['method'];
  if (method === 'capture' || method === 'void' || method === 'refund') {
    if (
      !secondaryFieldsOk(v) ||
      !nullishFee(v['fee']) ||
      (method === 'capture' && !nullishLimitInfo(v['limit_info'])) ||
      (method === 'refund' && !nullishString(v['receipt_url']))
    ) {
      return undefined;
    }
    return tagged(v, method);
  }
  if (
    !PRIMARY.has(method as string) ||
    !primaryFieldsOk(v) ||
    !nullishNumber(v['processed_amount']) ||
    !(
      v['processed_currency'] == null ||
      (isString(v['processed_currency']) && v['processed_currency'].length <= 256)
    ) ||
    !nullishLimitInfo(v['limit_info']) ||
    !nullishFee(v['fee']) ||
    !nullishFee(v['fixed_fee']) ||
    !nullishFee(v['percent_fee'])
  ) {
    return undefined;
  }
  const recurring = v['recurring'];
  if (recurring == null) return tagged(v, 'primary');
  if (
    !isObject(recurring) ||
    !isString(recurring['id']) ||
    !RECURRING_STATUS.has(recurring['status'] as string)
  ) {
    return undefined;
  }
  return tagged(v, 'subscription_charge');
}
