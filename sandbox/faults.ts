/**
 * Faults on demand, for reliability tests. A fault comes either with one request (the
 * `X-Sandbox-Fault` header, comma-separated) or from a rule added at `POST /sandbox/faults`
 * that matches an order id, the last four card digits or a subscription id. Request
 * faults shape the HTTP answer (a delay, a 5xx with or without the payment being made, a
 * malformed body, a dropped connection); webhook faults shape the webhooks of what the
 * request created (none, or N copies); `decline` makes a charge fail.
 */
import * as z from 'zod';

/** Faults and what they do; the fault table of docs/reference/sandbox.md mirrors this. */
export const FAULTS = {
  'delay=<ms>': 'Waits <ms> milliseconds (at most 60000) before handling the request.',
  '500': 'Answers 500 without doing anything.',
  '503': 'Answers 503 without doing anything.',
  '500-after-charge': 'Does the work (the payment is made), then answers 500.',
  '503-after-charge': 'Does the work (the payment is made), then answers 503.',
  'malformed-json': 'Does the work, then answers 200 with a truncated JSON body.',
  drop: 'Destroys the connection without doing anything.',
  'drop-after-charge': 'Does the work, then destroys the connection without an answer.',
  'no-webhook': 'No webhook is sent for what the request creates or changes.',
  'webhook-times=<n>':
    'Every webhook of what the request creates or changes is sent n times (1-10).',
  'decline[=<code>]':
    'The charge (payment or subscription charge) fails with status code <code> (default 5152).',
} as const;

export type Fault =
  | {kind: 'delay'; ms: number}
  | {kind: 'error'; status: 500 | 503; afterCharge: boolean}
  | {kind: 'malformed-json'}
  | {kind: 'drop'; afterCharge: boolean}
  | {kind: 'no-webhook'}
  | {kind: 'webhook-times'; times: number}
  | {kind: 'decline'; code: string};

/** Parses one fault word; `undefined` when it is not one. */
export function parseFault(text: string): Fault | undefined {
  const t = text.trim();
  let m: RegExpExecArray | null;
  if ((m = /^delay=(\d{1,5})$/.exec(t)) && Number(m[1]) <= 60_000) {
    return {kind: 'delay', ms: Number(m[1])};
  }
  if ((m = /^(500|503)(-after-charge)?$/.exec(t))) {
    return {kind: 'error', status: Number(m[1]) as 500 | 503, afterCharge: !!m[2]};
  }
  if (t === 'malformed-json') return {kind: 'malformed-json'};
  if (t === 'drop' || t === 'drop-after-charge') return {kind: 'drop', afterCharge: t !== 'drop'};
  if (t === 'no-webhook') return {kind: 'no-webhook'};
  if ((m = /^webhook-times=(\d{1,2})$/.exec(t)) && Number(m[1]) >= 1 && Number(m[1]) <= 10) {
    return {kind: 'webhook-times', times: Number(m[1])};
  }
  if ((m = /^decline(?:=(\d{4}))?$/.exec(t))) return {kind: 'decline', code: m[1] ?? '5152'};
  return undefined;
}

/** Parses the `X-Sandbox-Fault` header; throws a message naming the bad word. */
export function parseFaultHeader(header: string | null | undefined): Fault[] {
  if (!header) return [];
  return header
    .split(',')
    .filter((w) => w.trim() !== '')
    .map((word) => {
      const fault = parseFault(word);
      if (!fault) {
        throw new Error(
          `X-Sandbox-Fault: "${word.trim().slice(0, 40)}" is not a sandbox fault (see GET /sandbox for the list)`,
        );
      }
      return fault;
    });
}

const FaultWord = z.string().refine((s) => parseFault(s) !== undefined, {
  message: `must be one of ${Object.keys(FAULTS).join(', ')}`,
});

/** Body of `POST /sandbox/faults`. */
export const FaultRuleInput = z.strictObject({
  match: z
    .strictObject({
      order_id: z.string().min(1).optional(),
      card_last4: z
        .string()
        .regex(/^\d{4}$/, {message: 'must be the last four digits of a card'})
        .optional(),
      recurring_id: z.string().min(1).optional(),
    })
    .default({}),
  fault: FaultWord,
  times: z.number().int().positive({message: 'must be a positive whole number'}).optional(),
});
export type FaultRuleInput = z.input<typeof FaultRuleInput>;

/** What a rule can be matched against. */
export interface FaultSubject {
  orderId?: string | undefined;
  cardLast4?: string | undefined;
  recurringId?: string | undefined;
}

/**
 * A fault rule as the sandbox keeps it: what it matches (order id, card's last four digits or
 * subscription), the fault it injects, and how many more times it applies.
 */
export interface FaultRule {
  id: string;
  match: {
    order_id?: string | undefined;
    card_last4?: string | undefined;
    recurring_id?: string | undefined;
  };
  fault: string;
  /** Applications left; `null` = until cleared. */
  remaining: number | null;
}

type FaultGroup = 'request' | 'webhook' | 'decline';

function groupOf(f: Fault): FaultGroup {
  if (f.kind === 'no-webhook' || f.kind === 'webhook-times') return 'webhook';
  if (f.kind === 'decline') return 'decline';
  return 'request';
}

/** The rules added at `POST /sandbox/faults`. */
export class FaultRules {
  #rules: FaultRule[] = [];
  #seq = 0;

  add(input: z.output<typeof FaultRuleInput>): string {
    const id = `fault_${++this.#seq}`;
    this.#rules.push({
      id,
      match: {...input.match},
      fault: input.fault,
      remaining: input.times ?? null,
    });
    return id;
  }

  list(): readonly FaultRule[] {
    return this.#rules.map((r) => ({...r, match: {...r.match}}));
  }

  clear(): void {
    this.#rules = [];
  }

  /**
   * The faults of one group whose rules match `subject`; each matching rule is used once
   * (its `times` counts down).
   */
  take(group: FaultGroup, subject: FaultSubject): Fault[] {
    const out: Fault[] = [];
    for (const rule of this.#rules) {
      const fault = parseFault(rule.fault);
      if (!fault || groupOf(fault) !== group || !matches(rule, subject)) continue;
      out.push(fault);
      if (rule.remaining !== null) rule.remaining--;
    }
    this.#rules = this.#rules.filter((r) => r.remaining === null || r.remaining > 0);
    return out;
  }
}

function matches(rule: FaultRule, s: FaultSubject): boolean {
  const m = rule.match;
  if (m.order_id !== undefined && m.order_id !== s.orderId) return false;
  if (m.card_last4 !== undefined && m.card_last4 !== s.cardLast4) return false;
  if (m.recurring_id !== undefined && m.recurring_id !== s.recurringId) return false;
  return true;
}

/** Splits faults by group. */
export function splitFaults(faults: readonly Fault[]): Record<FaultGroup, Fault[]> {
  const out: Record<FaultGroup, Fault[]> = {request: [], webhook: [], decline: []};
  for (const f of faults) out[groupOf(f)].push(f);
  return out;
}

/** The webhook copies a fault list asks for: 0 (none), n, or `undefined` (not set). */
export function webhookCopies(faults: readonly Fault[]): number | undefined {
  let copies: number | undefined;
  for (const f of faults) {
    if (f.kind === 'no-webhook') return 0;
    if (f.kind === 'webhook-times') copies = f.times;
  }
  return copies;
}
