/**
 * The back office's view of the gateway itself: its settings (which gateway, whether the
 * sandbox is embedded, the lists the forms offer) and, with the embedded sandbox, moving
 * its clock on so that subscription charges come due.
 */
import {Hono} from 'hono';
import * as z from 'zod';
import {REGISTER_FIELDS, REGISTER_METHODS, STATUSES} from '../../src/server/index.js';
import {invalid, type AreaDeps} from './answers.js';

const AdvanceBody = z.strictObject({
  days: z.number().int().min(0).max(400).default(0),
  hours: z
    .number()
    .int()
    .min(0)
    .max(24 * 400)
    .default(0),
});

/** `/admin/api/config` and `/admin/api/sandbox/advance`. */
export function gatewayArea(deps: AreaDeps): Hono {
  const {client, checkout, sandbox, logger} = deps;
  const gateway = new Hono();

  gateway.get('/config', function adminConfig(c) {
    return c.json({
      sandbox: sandbox !== undefined,
      sandboxUrl: sandbox?.url ?? null,
      gatewayBaseUrl: client.baseUrl,
      gatewayNow: (sandbox?.now() ?? new Date()).toISOString(),
      statuses: STATUSES,
      registerMethods: REGISTER_METHODS,
      registerFields: REGISTER_FIELDS,
    });
  });

  gateway.post('/sandbox/advance', async function adminAdvance(c) {
    if (!sandbox) {
      return c.json({error: {code: 'not_found', message: 'the sandbox is not embedded'}}, 404);
    }
    const parsed = AdvanceBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return invalid(c, parsed.error);
    const ms = (parsed.data.days * 24 + parsed.data.hours) * 3600_000;
    await sandbox.advance(ms);
    await checkout.flushOutbox();
    logger.info({ms}, 'sandbox clock advanced from the back office');
    return c.json({now: sandbox.now().toISOString()});
  });

  return gateway;
}
