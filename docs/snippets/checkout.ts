// checkout.ts — the companion: it prices the order, adds the customer, signs the payment
// and sends it to the gateway; `onPaymentUpdate` tells your shop what happened.
import {createCheckoutApp, SqlitePaymentStore} from 'pg-checkout/server';
import {findOrder, markPaid} from './orders.js';

/** A required setting: a missing one stops the server at start-up, naming it. */
function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: add it to the environment`);
  return value;
}

/** `clientIp` only where no socket gives the customer's address (Next.js, workers). */
export function createCheckout(
  hosting: {clientIp?: (request: Request) => string | undefined} = {},
) {
  return createCheckoutApp({
    ...hosting,
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
    // Where the customer's browser and the gateway's webhooks reach this app.
    publicUrl: new URL('/checkout', env('PUBLIC_URL')).href,
    returnPage: '/order/result', // your page with <pg-3ds-redirect resolve>
    async resolveOrder(orderRef) {
      const order = await findOrder(orderRef);
      if (!order) return null; // → 404 not_found
      return {
        amount: order.total,
        currency: order.currency,
        description: `Order ${orderRef}`,
        customer: order.customer, // the gateway requires first and last name, email, phone
      };
    },
    async onPaymentUpdate(update) {
      if (update.kind === 'payment' && update.state === 'success') {
        await markPaid(update.orderRef); // may come twice after a crash: keep it idempotent
      }
    },
  });
}
