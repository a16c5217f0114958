/**
 * What the pay-route benchmark sends: to the app, the browser's pay request for an order
 * of the shop (created beforehand through its order API); to the bare proxy, the direct
 * payment the app would build for it — the same card, customer, fingerprint, payload and
 * amount, with the credentials' headers — so the sandbox does the same work behind both.
 */
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../../src/protocol/checkout.js';
import type {PostTarget} from './http-post.js';
import {CREDENTIALS} from './system.js';

const card = {
  number: '4242424242424242', // the sandbox's frictionless success
  expMonth: 12,
  expYear: new Date().getUTCFullYear() + 2,
  cvv: '123',
};
const fingerprint = {
  browserColorDepth: '24',
  browserScreenHeight: '1080',
  browserScreenWidth: '1920',
  browserJavaEnabled: 'false',
  browserLanguage: 'en-US',
  browserTimeZone: 'Europe/Kyiv',
  browserTimeZoneOffset: '-120',
  browserUserAgent: 'pg-checkout-bench',
};
/** A purchase of the shop's catalogue (`server-example/catalog.ts`). */
export const PRODUCT = {id: 'mug', amount: 1.5, currency: 'XTS', name: 'Enamel mug'} as const;

/** The app's pay route, answered `success` for the frictionless card. */
export const appPayTarget = (appUrl: string): PostTarget => ({
  url: `${appUrl}/api/checkout/pay`,
  headers: {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
    'User-Agent': 'pg-checkout-bench',
  },
  status: 200,
  bodyIncludes: '"outcome":"success"',
});

export const payBody = (orderRef: string, i: number): string =>
  JSON.stringify({orderRef, attemptId: `att-${i}-${orderRef}`, card, fingerprint});

/** The sandbox's create-payment endpoint through the bare proxy. */
export const proxyPayTarget = (proxyUrl: string): PostTarget => ({
  url: `${proxyUrl}/api/v1/payment`,
  headers: {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'X-API-Auth': `CPAY ${CREDENTIALS.apiKey}:${CREDENTIALS.apiSecret}`,
    'X-API-Key': CREDENTIALS.endpointsKey,
  },
  status: 200,
  bodyIncludes: '"status":"success"',
});

/** The direct payment the app builds for one pay request (`buildDirectRequest`). */
export const proxyBody = (proxyUrl: string, i: number, run: string): string => {
  const orderId = `ord-${run}-${i}`;
  return JSON.stringify({
    pos_id: CREDENTIALS.posId,
    mode: 'direct',
    method: 'purchase',
    amount: PRODUCT.amount,
    currency: PRODUCT.currency,
    description: PRODUCT.name,
    order_id: `${orderId}-1-0a1b2c3d`,
    order_3ds_bypass: 'supported',
    server_url: `${proxyUrl}/__sink/webhook`,
    result_url: `${proxyUrl}/__sink/return?order=${orderId}`,
    customer_id: 'customer-0001',
    customer_country: 'UA',
    customer_city: 'Kyiv',
    payload: JSON.stringify({orderRef: orderId, productId: PRODUCT.id}),
    cc_number: card.number,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    card_cvv: card.cvv,
    customer_fname: 'Olena',
    customer_lname: 'Shevchenko',
    customer_email: 'olena@example.com',
    customer_phone: '+380501234567',
    customer_ip: '127.0.0.1',
    browser_fingerprint: {
      ...fingerprint,
      browserAcceptHeader: 'application/json',
      browserIpAddress: '127.0.0.1',
    },
  });
};

/** Creates `n` orders of {@link PRODUCT} through the shop's order API; their references. */
export async function createOrders(appUrl: string, n: number): Promise<string[]> {
  const refs: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const res = await fetch(`${appUrl}/api/orders`, {
        method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({productId: PRODUCT.id}),
      });
      const body = (await res.json()) as {orderRef?: string};
      if (res.status !== 201 || !body.orderRef) {
        throw new Error(`creating an order: ${res.status} ${JSON.stringify(body)}`);
      }
      refs.push(body.orderRef);
    }
  };
  await Promise.all(Array.from({length: 16}, worker));
  return refs;
}
