/**
 * The sandbox clock panel (shown only when the server runs the embedded sandbox): moves
 * the gateway's clock forward by days, so subscription charges come due, then shows every
 * panel again.
 */
import {advanceSandbox, type Config} from './api.js';
import {loadOrders} from './orders.js';
import {loadSubscriptions, loadSubscriptionTxns} from './subscriptions.js';
import {announce, byId, errorMessage, when, whileBusy} from './ui.js';
import {loadWebhooks} from './webhooks.js';

async function advance(days: number): Promise<void> {
  try {
    await whileBusy(byId('sandbox').querySelectorAll('button'), async () => {
      const {now} = await advanceSandbox(days);
      byId('sandbox-now').textContent = when(now);
      announce(`Sandbox clock moved ${days} day${days === 1 ? '' : 's'} forward.`);
      await Promise.all([
        loadOrders(),
        loadWebhooks(),
        loadSubscriptions(),
        loadSubscriptionTxns(),
      ]);
    });
  } catch (error) {
    announce(errorMessage(error, 'The clock did not move.'));
  }
}

export function setUpSandbox(config: Config): void {
  if (!config.sandbox) return;
  byId('sandbox').hidden = false;
  byId('sandbox-nav').hidden = false;
  byId('sandbox-now').textContent = when(config.gatewayNow);
  for (const b of byId('sandbox').querySelectorAll<HTMLButtonElement>('[data-advance-days]')) {
    b.addEventListener('click', () => void advance(Number(b.dataset['advanceDays'])));
  }
}
