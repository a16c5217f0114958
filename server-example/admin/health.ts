/**
 * The back office's health page (`GET /admin/health`), for a signed-in operator: the
 * shop's last hour from the table every instance writes (../health/log.ts), rendered on
 * the server as inline SVG plots with data tables (../health/page.ts), so the page needs
 * no script under the pages' CSP. Before reading, the serving instance adds its own
 * counts recorded since its last flush (the other instances add theirs every few seconds).
 */
import {Hono} from 'hono';
import {sendPage, type PageTemplates} from '../pages.js';
import type {HealthLog} from '../health/log.js';
import {renderHealth} from '../health/page.js';
import type {AdminAuth} from './auth.js';

export interface HealthDeps {
  log: HealthLog;
  /** Adds this instance's counts since its last flush; absent without a recorder. */
  flush?: (() => Promise<void>) | undefined;
  templates: PageTemplates;
  now: () => number;
}

export function healthRoutes(auth: AdminAuth, deps: HealthDeps): Hono {
  return new Hono().get('/', async function adminHealthPage(c) {
    if (!(await auth.access(c)).ok) return c.redirect('/admin/login', 303);
    // A flush that fails is the recorder's to log; the page shows what the table holds.
    await deps.flush?.().catch(() => {});
    const window = await deps.log.read();
    return sendPage(
      c,
      deps.templates.render('health', {
        generated: `as of ${new Date(deps.now()).toISOString().slice(11, 19)} UTC`,
        content: renderHealth(window),
      }),
    );
  });
}
