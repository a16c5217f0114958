/**
 * The demo's back office, as a Hono app mounted at `/admin`: the sign-in form and the page
 * (`sign-in.ts`), and the JSON API behind the page under `/admin/api`, one sub-app per
 * area — orders and the actions on their payments, subscriptions, the period's
 * transactions and registers, the webhook log and the pages' CSP violation reports, the
 * gateway's settings and the sandbox clock — and the health page (`health.ts`), behind one
 * guard (`auth.ts`: a session or the
 * Bearer token; wrong tokens are throttled per address, the right one is never refused).
 * Every gateway call goes through the same `GatewayClient` the companion uses.
 */
import {Hono} from 'hono';
import type {ClientAddresses} from '../client-address.js';
import type {Throttle} from '../throttle.js';
import type {PageTemplates} from '../pages.js';
import {withoutCardTokens, type AreaDeps} from './answers.js';
import {adminAuth} from './auth.js';
import {gatewayArea} from './gateway.js';
import {healthRoutes, type HealthDeps} from './health.js';
import {orderRecordRoute, ordersArea} from './orders.js';
import {registersArea, transactionsArea} from './reports.js';
import type {AdminSessions} from './sessions.js';
import {signInRoutes} from './sign-in.js';
import {savedCardsArea} from './saved-cards.js';
import {subscriptionsArea} from './subscriptions.js';
import {securityReportsArea, webhooksArea} from './webhooks.js';

export type {SandboxControl} from './answers.js';
export {AdminSessions} from './sessions.js';

export interface AdminDeps extends AreaDeps {
  /** The `ADMIN_TOKEN`; without it the back office is off. */
  token: string | undefined;
  secureCookies: boolean;
  sessions: AdminSessions;
  /** Counts wrong tokens (sign-in form and `Authorization: Bearer`) per client address. */
  loginThrottle: Throttle;
  /** Who a request comes from. */
  clients: ClientAddresses;
  templates: PageTemplates;
  /** The health page's table and this instance's recorder (`health.ts`). */
  health: Omit<HealthDeps, 'templates'>;
}

/** The back office, to mount with `app.route('/admin', backOffice(deps))`. */
export function backOffice(deps: AdminDeps): Hono {
  const auth = adminAuth(deps);

  const api = new Hono();
  api.use('*', auth.guard);
  api.route('/orders', ordersArea(deps));
  api.route('/subscriptions', subscriptionsArea(deps));
  api.route('/transactions', transactionsArea(deps));
  api.route('/registers', registersArea(deps));
  api.route('/webhooks', webhooksArea(deps));
  api.route('/security-reports', securityReportsArea(deps));
  api.route('/saved-cards', savedCardsArea(deps));
  api.route('/', gatewayArea(deps));

  const admin = new Hono();
  admin.use('*', withoutCardTokens);
  admin.route('/', signInRoutes(auth, deps.templates));
  admin.route('/orders', orderRecordRoute(deps, auth));
  admin.route('/health', healthRoutes(auth, {...deps.health, templates: deps.templates}));
  admin.route('/api', api);
  return admin;
}
