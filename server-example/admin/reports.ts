/**
 * The back office's reports from the gateway: the transactions of a period, and registers
 * (started, then fetched when ready, or downloaded as a JSON file).
 */
import {Hono} from 'hono';
import * as z from 'zod';
import {REGISTER_FIELDS, REGISTER_METHODS, STATUSES} from '../../src/server/index.js';
import {gatewayFailure, invalid, type AreaDeps} from './answers.js';

/** A moment: milliseconds since the epoch, or a date the JavaScript parser reads. */
const When = z.union([z.number(), z.string().min(1)]).transform((v, ctx) => {
  const t = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(t)) {
    ctx.addIssue({code: 'custom', message: 'must be a date'});
    return z.NEVER;
  }
  return t;
});

const RegisterBody = z.strictObject({
  start: When,
  end: When,
  statuses: z.array(z.enum(STATUSES)).default([]),
  methods: z.array(z.enum(REGISTER_METHODS)).default([]),
  fields: z.array(z.enum(REGISTER_FIELDS)).default([]),
});

/** ISO 8601 with an explicit offset, as the register wants it. */
const offsetIso = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

/** `/admin/api/transactions` (a period's transactions). */
export function transactionsArea(deps: AreaDeps): Hono {
  const {client, logger} = deps;
  return new Hono().get('/', async function adminPeriod(c) {
    const start = When.safeParse(c.req.query('start'));
    const end = When.safeParse(c.req.query('end'));
    if (!start.success) return invalid(c, start.error);
    if (!end.success) return invalid(c, end.error);
    try {
      return c.json({
        transactions: await client.getPeriodTransactions({start: start.data, end: end.data}),
      });
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });
}

/** `/admin/api/registers`: start one, then fetch or download it. */
export function registersArea(deps: AreaDeps): Hono {
  const {client, logger} = deps;
  const registers = new Hono();

  registers.post('/', async function adminRegisterStart(c) {
    const parsed = RegisterBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return invalid(c, parsed.error);
    const b = parsed.data;
    try {
      const started = await client.startRegister({
        start_date: offsetIso(b.start),
        end_date: offsetIso(b.end),
        ...(b.statuses.length ? {statuses: b.statuses} : {}),
        ...(b.methods.length ? {methods: b.methods} : {}),
        ...(b.fields.length ? {transaction_details: b.fields} : {}),
      });
      return c.json({reportId: started.report_id, count: started.count});
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  registers.get('/:id', async function adminRegisterFetch(c) {
    try {
      const result = await client.fetchRegister(c.req.param('id'));
      if (!result.ready) return c.json({ready: false, message: result.message});
      if (c.req.query('download') === '1') {
        return c.body(`${JSON.stringify(result.records, null, 2)}\n`, 200, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Disposition': `attachment; filename="register-${c.req.param('id').replace(/[^\w-]/g, '')}.json"`,
        });
      }
      return c.json({ready: true, records: result.records});
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  return registers;
}
