/**
 * Reports over the ledger: the period query (one JSON line per transaction or operation
 * created in a time range) and registers (filtered exports with chosen fields, ready
 * after `reportDelayMs`). Reports name a scheduled subscription charge `recurrent`.
 */
import {randomUUID} from 'node:crypto';
import {PeriodQuery, REGISTER_FIELDS, RegisterRequest} from '../../src/server/gateway/index.js';
import {notFound} from '../errors.js';
import {minorText} from './model.js';
import type {EngineState, Operation, Txn} from './model.js';
import {validate} from './validate.js';

/** Fields selected when a register request has no `transaction_details`. */
export const REGISTER_DEFAULT_FIELDS = [
  'projectId',
  'orderId',
  'paymentId',
  'amount',
  'currency',
  'method',
  'status',
  'dateTime',
  'cardMask',
  'description',
  'payload',
] as const;

/** Period query: one JSON line per transaction created within [startDate, enddate]. */
export function periodTransactions(s: EngineState, query: Record<string, string>): string[] {
  const numeric = Object.fromEntries(
    Object.entries(query).map(([k, v]) => [k, /^\d+$/.test(v) ? Number(v) : v]),
  );
  const q = validate(PeriodQuery, numeric, 'query');
  return s.ledger
    .filter((e) => e.createdAt >= q.startDate && e.createdAt <= q.enddate)
    .map((e) => JSON.stringify(periodEntry(s, e)));
}

function periodEntry(s: EngineState, e: Txn | Operation): Record<string, unknown> {
  const t = 'payment' in e ? e.payment : e;
  const final = e.status === 'success' || e.status === 'failure';
  const ok = e.status === 'success';
  return {
    projectId: s.o.posId,
    orderId: t.orderId,
    paymentId: t.paymentId,
    amount: minorText(e.amountMinor),
    currency: t.currency,
    method: reportMethod(e),
    status: e.status,
    dateTime: final ? e.processedAt : '',
    authCode: ok ? t.authCode : '',
    rrnCode: ok ? t.rrn : '',
    description: t.description,
    payload: typeof t.fields['payload'] === 'string' ? t.fields['payload'] : '',
    customerFee: '0.00',
    merchantFee: '0.00',
    paymentSystem: t.card?.brand ?? '',
    recipientCardMask: '',
  };
}

/** Reports name a scheduled subscription charge `recurrent`; records call it `purchase`. */
function reportMethod(e: Txn | Operation): string {
  if ('payment' in e) return e.method;
  return e.chargeOf ? 'recurrent' : e.method;
}

export function startRegister(s: EngineState, body: unknown): {report_id: string; count: number} {
  const req = validate(RegisterRequest, body, 'register request');
  const start = Date.parse(req.start_date);
  const end = Date.parse(req.end_date);
  const fields: readonly string[] = req.transaction_details ?? REGISTER_DEFAULT_FIELDS;
  const lines = s.ledger
    .filter((e) => e.createdAt >= start && e.createdAt <= end)
    .filter((e) => !req.statuses || (req.statuses as string[]).includes(e.status))
    .filter((e) => !req.methods || (req.methods as string[]).includes(reportMethod(e)))
    .map((e) => {
      const full = registerEntry(s, e);
      return JSON.stringify(Object.fromEntries(fields.map((f) => [f, full[f] ?? ''])));
    });
  const id = randomUUID();
  s.registers.set(id, {id, lines, readyAt: Date.now() + s.o.reportDelayMs});
  return {report_id: id, count: lines.length};
}

function registerEntry(s: EngineState, e: Txn | Operation): Record<string, unknown> {
  const p = periodEntry(s, e);
  const t = 'payment' in e ? e.payment : e;
  const amount = minorText(e.amountMinor);
  const entry: Record<string, unknown> = {
    ...p,
    dateTime: e.status === 'success' || e.status === 'failure' ? e.processedAt : e.createdAt,
    cardMask: t.card?.mask ?? '',
    payway: typeof t.fields['payway'] === 'string' ? t.fields['payway'] : 'card',
    entityName: 'Sandbox entity',
    projectName: 'pg-checkout sandbox project',
    originalAmount: amount,
    exchangeAmount: amount,
    exchangeCurrency: t.currency,
    exchangeRate: '1',
    tokenizationKind: t.token !== undefined && t.chargeOf ? 'recurring' : t.token ? 'cc_token' : '',
    reserveAmount: '0.00',
    receiverName: '',
    receiverAmount: '',
    receiverFee: '',
  };
  for (const f of REGISTER_FIELDS) if (!(f in entry)) entry[f] = '';
  return entry;
}

/** The register's lines, or `undefined` while it is being generated. */
export function fetchRegister(s: EngineState, id: string): string[] | undefined {
  const reg = s.registers.get(id);
  if (!reg) throw notFound(`report ${JSON.stringify(id.slice(0, 64))}`);
  return Date.now() < reg.readyAt ? undefined : reg.lines;
}
