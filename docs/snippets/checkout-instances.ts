// checkout.ts — the companion of the first payment for several instances: the store from
// store.ts (PostgreSQL with DATABASE_URL), and each instance named in the work it claims.
import {createCheckoutApp} from 'pg-checkout/server';
import {findOrder, markPaid} from './orders.js';
import {paymentStore} from './store.js';

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
    store: paymentStore(),
    // This instance's name in the `leases` table and in `outbox.claimed_by` (shop-a, shop-b…),
    // and how long its claims last: longer than a gateway call with its retries.
    instance: {id: env('INSTANCE_ID'), leaseMs: 60_000},
    publicUrl: new URL('/checkout', env('PUBLIC_URL')).href, // the load balancer's address
    returnPage: '/order/result',
    async resolveOrder(orderRef) {
      const order = await findOrder(orderRef);
      if (!order) return null;
      return {
        amount: order.total,
        currency: order.currency,
        description: `Order ${orderRef}`,
        customer: order.customer,
      };
    },
    async onPaymentUpdate(update) {
      if (update.kind === 'payment' && update.state === 'success') {
        await markPaid(update.orderRef); // once per update, on one of the instances
      }
    },
  });
}
