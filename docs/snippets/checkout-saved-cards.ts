// checkout.ts — the companion of the first payment, with saved cards: `resolveOrder` gives
// the order's customer id only when the request's session is that customer's.
import {createCheckoutApp, SqlitePaymentStore} from 'pg-checkout/server';
import {findOrder, markPaid} from './orders.js';
import {customerOf} from './session.js';

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
    // `request`: the HTTP request of the checkout route (pay, order, saved-card removal).
    async resolveOrder(orderRef, request) {
      const order = await findOrder(orderRef);
      if (!order) return null;
      // Only the customer signed in on this request: someone who merely knows the order
      // reference then sees no saved card and cannot pay with one.
      const signedIn = customerOf(request) === order.customerId;
      return {
        amount: order.total,
        currency: order.currency,
        description: `Order ${orderRef}`,
        customer: {...order.customer, ...(signedIn ? {id: order.customerId} : {})},
      };
    },
    async onPaymentUpdate(update) {
      if (update.kind === 'payment' && update.state === 'success') {
        await markPaid(update.orderRef); // may come twice after a crash: keep it idempotent
      }
    },
  });
}
