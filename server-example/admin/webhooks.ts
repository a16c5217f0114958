/**
 * The back office's webhook log: every delivery that reached the companion (newest
 * first, see `webhook-log.ts`) and the ones the companion refused and kept.
 */
import {Hono} from 'hono';
import type {AreaDeps} from './answers.js';

/** `/admin/api/webhooks`. */
export function webhooksArea(deps: AreaDeps): Hono {
  return new Hono().get('/', async function adminWebhooks(c) {
    return c.json({
      deliveries: await deps.webhookLog.list(300),
      // Forged deliveries past the log's rate, counted and not kept (webhook-log.ts).
      unlogged: await deps.webhookLog.unlogged(),
      rejected: (await deps.store.listRejectedWebhooks()).slice(-100).reverse(),
    });
  });
}
