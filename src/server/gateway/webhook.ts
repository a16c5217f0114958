/**
 * Webhook signatures: `signature = base64url(sha1(secret + data + secret))` over the
 * `data` field exactly as received (Base64Url text, padding kept). Verification checks the
 * signature before anything is decoded or parsed, compares in constant time, and never
 * throws on a short or garbage signature except with a typed error.
 */
import {createHash, timingSafeEqual} from 'node:crypto';
import {formatIssues, WebhookPayload} from './schemas.js';
import {WebhookDecodeError, WebhookSignatureError} from './errors.js';

/** Length of every webhook signature: 20 SHA-1 bytes in padded Base64 is 28 characters. */
export const WEBHOOK_SIGNATURE_LENGTH = 28;

function signatureBytes(data: string, secret: string): Buffer {
  return createHash('sha1').update(secret).update(data).update(secret).digest();
}

/** Signs a webhook's `data` as the gateway does. */
export function signWebhook(data: string, secret: string): string {
  return signatureBytes(data, secret).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Encodes a payload as the webhook `data` field: Base64Url of its JSON, padding kept. */
export function encodeWebhookData(payload: unknown): string {
  return Buffer.from(JSON.stringify(payload), 'utf8')
    .toString('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

const BASE64URL_SIGNATURE = /^[A-Za-z0-9_-]{27}=$/;

/**
 * True when `signature` is the gateway's signature of `data`. Constant time in the
 * signature's content; a signature of the wrong length or alphabet is simply false.
 */
export function isValidWebhookSignature(data: string, signature: string, secret: string): boolean {
  if (typeof data !== 'string' || typeof signature !== 'string') return false;
  if (signature.length !== WEBHOOK_SIGNATURE_LENGTH || !BASE64URL_SIGNATURE.test(signature))
    return false;
  const given = Buffer.from(signature.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  const expected = signatureBytes(data, secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Decodes Base64Url (padding optional) strictly; `undefined` when it is not Base64Url. */
function decodeBase64Url(data: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(data) || data.replace(/=+$/, '').length % 4 === 1)
    return undefined;
  return Buffer.from(data.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
}

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
 */
export function verifyWebhook(form: WebhookForm, secret: string): WebhookPayload {
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
  const parsed = WebhookPayload.safeParse(value);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error, value);
    throw new WebhookDecodeError(
      `the webhook payload is not a known event: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  return parsed.data;
}

/**
 * Parses a form-encoded webhook body (`data=...&signature=...`) into its two fields,
 * keeping `data` exactly as sent once the form encoding is undone.
 */
export function parseWebhookForm(body: string): WebhookForm {
  const params = new URLSearchParams(body);
  return {data: params.get('data') ?? '', signature: params.get('signature') ?? ''};
}
