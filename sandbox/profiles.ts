/**
 * The sandbox's two profiles. `strict` checks every request against the spec to the
 * letter (the wire schemas of `src/server/gateway/schemas.ts`). `live`, the default,
 * tolerates what the live gateway evidently tolerates (`gateway-facts.md`, "What the public
 * integrations send and read"): it first turns a tolerated request into the spec's form —
 * dropping unknown fields and `null`s, reading `callback=1`, … — and then checks it with
 * the same wire schemas, so the two profiles share every rule but the tolerances listed
 * in {@link LENIENCY_RULES}. Each tolerance used is noted (rule and field, never a value),
 * so a merchant sees where their integration relies on it: see {@link LeniencyLog}.
 */
import * as z from 'zod';
import {
  RegisterRequest,
  WireAmount,
  WireCaptureRequest,
  WireDirectPaymentRequest,
  WireRefundRequest,
  WireVoidRequest,
  amountText,
  requestSchemas,
} from '../src/server/gateway/index.js';
import type {GatewayEndpoint, RequestSchemas} from '../src/server/gateway/index.js';

/**
 * The sandbox's profiles: `live` tolerates what the live gateway tolerates ({@link LENIENCY_RULES})
 * and logs each use; `strict` applies the spec to the letter.
 */
export const PROFILES = ['live', 'strict'] as const;
/** One of {@link PROFILES}: `startSandbox({profile})` or `SANDBOX_PROFILE`. */
export type Profile = (typeof PROFILES)[number];

/** Every tolerance of the `live` profile; `strict` refuses each of these requests. */
export const LENIENCY_RULES = {
  'unknown-field':
    'A field the spec does not list for the request is ignored (plugins send refund_date on capture, refund and void, and refund_amount on void)',
  'null-as-absent': 'An optional field sent as null is treated as absent',
  'customer-referrer-on-hosted':
    'customer_referrer on a hosted request is ignored (the spec lists it for direct only)',
  'hosted-contact-optional':
    'A hosted request may omit customer_email and customer_phone (the spec requires both)',
  'amount-as-text':
    'A capture order_amount or refund refund_amount sent as decimal text ("12.5") is read as that amount',
  'callback-1': 'callback=1 on a lookup is read as callback=true (a PHP boolean in a query)',
} as const;
/** The name of one tolerance of the `live` profile, a key of {@link LENIENCY_RULES}. */
export type LeniencyRule = keyof typeof LENIENCY_RULES;

/** One tolerance a request relied on: the rule and the field (a dotted path), never a value. */
export interface Leniency {
  rule: LeniencyRule;
  field: string;
}

/** A request the `live` profile accepted although `strict` would have refused it. */
export interface LeniencyRecord {
  /** Sandbox clock time of the request, ISO 8601. */
  at: string;
  method: string;
  /** Path without the query. */
  path: string;
  endpoint: GatewayEndpoint;
  leniencies: readonly Leniency[];
}

/**
 * The request schemas a profile checks bodies with: the wire schemas, with the hosted
 * contacts optional under `live`.
 */
export function profileRequests(profile: Profile): RequestSchemas {
  return requestSchemas(WireAmount, {
    hostedContacts: profile === 'live' ? 'optional' : 'required',
  });
}

const liveRequests = profileRequests('live');

/** Secondary amounts plugins send as text (`gateway-facts.md`); primary amounts are numbers. */
const TEXT_AMOUNTS: Partial<Record<GatewayEndpoint, string>> = {
  capture: 'order_amount',
  refund: 'refund_amount',
};

/**
 * Turns a JSON body the `live` profile tolerates into the spec's form and lists the
 * tolerances used. The body is copied, never changed in place. A body that is not an
 * object, or a create whose `mode` is neither direct nor hosted, is left as it is for the
 * wire schemas to refuse.
 */
export function tolerateBody(
  endpoint: GatewayEndpoint,
  body: unknown,
): {body: unknown; leniencies: Leniency[]} {
  const leniencies: Leniency[] = [];
  if (!isPlainObject(body)) return {body, leniencies};
  const schema = bodySchema(endpoint, body);
  if (!schema) return {body, leniencies};
  const out = {...body};
  if (endpoint === 'createPayment' && out['mode'] === 'hosted') {
    if ('customer_referrer' in out) {
      delete out['customer_referrer'];
      leniencies.push({rule: 'customer-referrer-on-hosted', field: 'customer_referrer'});
    }
  }
  const textAmount = TEXT_AMOUNTS[endpoint];
  if (textAmount !== undefined && typeof out[textAmount] === 'string') {
    const text = amountText(out[textAmount]);
    if (text !== undefined) {
      out[textAmount] = Number(text);
      leniencies.push({rule: 'amount-as-text', field: textAmount});
    }
  }
  const normalized = walk(out, schema, [], leniencies);
  if (endpoint === 'createPayment' && out['mode'] === 'hosted' && isPlainObject(normalized)) {
    for (const field of ['customer_email', 'customer_phone']) {
      if (normalized[field] === undefined)
        leniencies.push({rule: 'hosted-contact-optional', field});
    }
  }
  return {body: normalized, leniencies};
}

/**
 * Reads a lookup's `callback` query value: `true`/`false` as the spec writes them, and
 * under `live` the `1` a PHP integration sends. `undefined` when absent; `'invalid'` when
 * the value is none of these.
 */
export function readCallback(
  value: string | undefined,
  profile: Profile,
  leniencies: Leniency[],
): boolean | undefined | 'invalid' {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === '1' && profile === 'live') {
    leniencies.push({rule: 'callback-1', field: 'callback'});
    return true;
  }
  return 'invalid';
}

function bodySchema(
  endpoint: GatewayEndpoint,
  body: Record<string, unknown>,
): z.ZodType | undefined {
  switch (endpoint) {
    case 'createPayment':
      if (body['mode'] === 'direct') return WireDirectPaymentRequest;
      if (body['mode'] === 'hosted') return liveRequests.HostedPaymentRequest;
      return undefined;
    case 'capture':
      return WireCaptureRequest;
    case 'void':
      return WireVoidRequest;
    case 'refund':
      return WireRefundRequest;
    case 'startRegister':
      return RegisterRequest;
    default:
      return undefined;
  }
}

/**
 * Copies `value` following `schema`: in every object, `null` values are dropped
 * (null-as-absent) and, where the schema is strict, keys it does not list are dropped
 * (unknown-field); known keys and array items are walked in turn.
 */
function walk(
  value: unknown,
  schema: z.ZodType,
  path: readonly string[],
  leniencies: Leniency[],
): unknown {
  const s = unwrap(schema);
  if (s instanceof z.ZodArray && Array.isArray(value)) {
    return value.map((item, i) =>
      walk(item, s.element as z.ZodType, [...path, String(i)], leniencies),
    );
  }
  if (!(s instanceof z.ZodObject) || !isPlainObject(value)) return value;
  const shape = s.shape as Record<string, z.ZodType>;
  const strict = s.def.catchall instanceof z.ZodNever;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const field = [...path, key].join('.');
    if (item === null) {
      leniencies.push({rule: 'null-as-absent', field});
      continue;
    }
    const child = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (child === undefined) {
      if (strict) {
        leniencies.push({rule: 'unknown-field', field});
        continue;
      }
      out[key] = item;
      continue;
    }
    out[key] = walk(item, child, [...path, key], leniencies);
  }
  return out;
}

/** The schema under optional/default/nullable wrappers and the input side of a pipe. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPipe) {
      s = s.in as z.ZodType;
    } else {
      return s;
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The requests the `live` profile accepted only thanks to a tolerance: each is kept and
 * written once as a warn line (`sandbox[live]: POST /api/v1/void relied on unknown-field
 * (refund_date), …`). Bounded: the oldest records are dropped past `max`.
 */
export class LeniencyLog {
  readonly #records: LeniencyRecord[] = [];
  readonly #max: number;
  readonly #warn: (line: string) => void;

  constructor({max = 1000, warn = (line: string) => console.warn(line)} = {}) {
    this.#max = max;
    this.#warn = warn;
  }

  /** Notes one accepted request with the tolerances it relied on (none: nothing noted). */
  note(record: LeniencyRecord): void {
    if (record.leniencies.length === 0) return;
    this.#records.push(record);
    if (this.#records.length > this.#max) this.#records.shift();
    const rules = record.leniencies.map((l) => `${l.rule} (${l.field})`).join(', ');
    this.#warn(
      `sandbox[live]: ${record.method} ${record.path} relied on ${rules}; the strict profile refuses this request`,
    );
  }

  list(): readonly LeniencyRecord[] {
    return this.#records.map((r) => ({...r, leniencies: [...r.leniencies]}));
  }

  clear(): void {
    this.#records.length = 0;
  }
}
