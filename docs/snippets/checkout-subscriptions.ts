// checkout.ts — the companion of the first payment for a coffee club: each order's payment
// starts a monthly subscription (`initRecurring`), and every charge the gateway then makes
// on its schedule reaches `onPaymentUpdate` as a `subscription_charge` update.
import {createCheckoutApp, SqlitePaymentStore} from 'pg-checkout/server';
import {findOrder, markPaid} from './orders.js';

/** A required setting: a missing one stops the server at start-up, naming it. */
function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: add it to the environment`);
  return value;
}

export function createCheckout() {
  return createCheckoutApp({
    gateway: {
      baseUrl: process.env.GATEWAY_BASE_URL || 'https://cpay.tranzzo.com',
      posId: env('POS_ID'),
      credentials: {
        apiKey: env('API_KEY'),
        apiSecret: env('API_SECRET'),
        endpointsKey: env('ENDPOINTS_KEY'),
      },
    },
    store: new SqlitePaymentStore('data/payments.db'),
    publicUrl: new URL('/checkout', env('PUBLIC_URL')).href,
    returnPage: '/order/result',
    async resolveOrder(orderRef) {
      const order = await findOrder(orderRef);
      if (!order) return null;
      return {
        amount: order.total,
        currency: order.currency,
        description: `Coffee club, order ${orderRef}`,
        customer: order.customer,
        // The schedule comes from your server, never from the browser.
        initRecurring: {
          interval_unit: 'month', // day, week, month, quarter or year
          interval_count: 1, // 1 to 30
          retry_attempts: 3, // a failed charge is retried this many times (0 to 7)
          retry_interval_hours: 24,
        },
      };
    },
    async onPaymentUpdate(update) {
      if (update.kind === 'payment' && update.state === 'success') {
        await markPaid(update.orderRef);
      }
      if (update.kind === 'subscription_charge' && update.state === 'success') {
        // Extend the membership; deduplicate by update.updateId.
        console.log(`charged ${update.amount} ${update.currency} for ${update.recurringId}`);
      }
    },
  });
}
