/**
 * The back office's logs of what reached the companion: every webhook delivery (newest
 * first, see `webhook-log.ts`) and the ones the companion refused and kept; and the CSP
 * violation reports the payment pages' browsers sent (PCI DSS 11.6.1).
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

/** `/admin/api/security-reports`: the pages' CSP violation reports, most recently seen first. */
export function securityReportsArea(deps: AreaDeps): Hono {
  return new Hono().get('/', async function adminSecurityReports(c) {
    return c.json({reports: await deps.securityReports.list(200)});
  });
}
