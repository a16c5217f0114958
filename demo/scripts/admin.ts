/**
 * The back office page's script (the build's entry for `admin.html`): orders with every
 * gateway transaction and the actions on them, the webhook log, subscriptions, transactions
 * over a period, registers, saved cards, the pages' CSP violation reports, and the sandbox
 * clock, one module each under `admin/`. This
 * module wires the panels' refresh buttons, loads them, and marks the page ready.
 * Everything goes through the server's `/admin/api` (`admin/api.ts`).
 */
import {render} from 'lit/html.js';
import {getConfig} from './admin/api.js';
import {loadOrders, openOrder, selectedOrder} from './admin/orders.js';
import {setUpReports} from './admin/reports.js';
import {setUpSandbox} from './admin/sandbox.js';
import {loadSavedCards} from './admin/saved-cards.js';
import {loadSubscriptions, setUpSubscriptions} from './admin/subscriptions.js';
import {byId, errorText, whileBusy} from './admin/ui.js';
import {loadSecurityReports, loadWebhooks} from './admin/webhooks.js';
import {orderFromQuery} from './dom.js';

async function main(): Promise<void> {
  const config = await getConfig();
  setUpReports(config);
  setUpSandbox(config);
  setUpSubscriptions();
  const refreshers: Record<string, () => Promise<void>> = {
    orders: loadOrders,
    webhooks: loadWebhooks,
    'security-reports': loadSecurityReports,
    subscriptions: loadSubscriptions,
    'saved-cards': loadSavedCards,
  };
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-refresh]')) {
    b.addEventListener('click', () => {
      const which = b.dataset['refresh'] ?? '';
      void whileBusy([b], () =>
        Promise.all([
          refreshers[which]?.(),
          which === 'orders' && selectedOrder ? openOrder(selectedOrder, false) : undefined,
        ]),
      );
    });
  }
  await Promise.all([
    loadOrders(),
    loadWebhooks(),
    loadSecurityReports(),
    loadSubscriptions(),
    loadSavedCards(),
  ]);
  const open = orderFromQuery();
  if (open) await openOrder(open, false);
  document.body.dataset['ready'] = 'true';
}

void main().catch((error: unknown) => {
  // Added after what `main` holds (lit-html renders after a container's own content).
  render(errorText(error), byId('main'));
});
