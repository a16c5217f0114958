/**
 * What the pay-route benchmark sends: to the app, the browser's pay request for an order
 * of the shop (created beforehand through its order API); to the bare proxy, the direct
 * payment the app would build for it — made by the app's own `buildDirectRequest` and
 * checked by `validateDirectRequest`, so the text on the wire is what the app sends (the
 * same card, customer, fingerprint, payload, amount as text, headers and credentials) and
 * the sandbox does the same work behind both.
 *
 * Every payment comes from a customer of its own: an address (`X-Forwarded-For`, which
 * the app believes with `TRUST_PROXY=1`) and a card number that no other payment of the
 * run uses, as in a shop with many customers. With one address and one card, every
 * payment would wait on the same card-testing counters (one lock in PostgreSQL) and count
 * against one customer's limits.
 */
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../../src/protocol/checkout.js';
import {
  buildDirectRequest,
  validateDirectRequest,
} from '../../src/server/payments/gateway-request.js';
import {DEMO_CUSTOMER, PRODUCTS} from '../../server-example/catalog.js';
import type {PostTarget} from './http-post.js';
import {CREDENTIALS} from './system.js';

const expiry = {expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvv: '123'};
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
const ACCEPT = 'application/json';
const USER_AGENT = 'pg-checkout-bench';

/** The product every benchmark order buys (`server-example/catalog.ts`). */
export const PRODUCT_ID = 'mug';
const PRODUCT = PRODUCTS[PRODUCT_ID];

/** A simulated customer: the address they pay from and their card. */
export interface Customer {
  ip: string;
  card: {number: string; expMonth: number; expYear: number; cvv: string};
}

/** `digits` with its Luhn check digit appended. */
function withLuhn(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return digits + String((10 - (sum % 10)) % 10);
}

let customers = 0;
/**
 * A customer no earlier call of this process made: an address in 10.0.0.0/8 and a Visa
 * number `41…` (no sandbox test card starts so: the sandbox charges it at once).
 */
export function nextCustomer(): Customer {
  const n = ++customers;
  return {
    ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
    card: {number: withLuhn(`41${String(n).padStart(13, '0')}`), ...expiry},
  };
}

/** The app's pay route, answered `success` for the frictionless card. */
export const appPayTarget = (appUrl: string): PostTarget => ({
  url: `${appUrl}/api/checkout/pay`,
  headers: {
    'Content-Type': 'application/json',
    Accept: ACCEPT,
    [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
    'User-Agent': USER_AGENT,
  },
  status: 200,
  bodyIncludes: '"outcome":"success"',
});

export const payBody = (orderRef: string, i: number, customer: Customer): string =>
  JSON.stringify({orderRef, attemptId: `att-${i}-${orderRef}`, card: customer.card, fingerprint});

/** The sandbox's create-payment endpoint through the bare proxy (the app's headers). */
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

/**
 * The direct payment the app builds for one pay request of `customer`, as it goes on the
 * wire: `buildDirectRequest` with the shop's order (`resolveOrder` of `server-example`),
 * the app's context, the request's headers; the text `validateDirectRequest` checked.
 */
export const proxyBody = (proxyUrl: string, i: number, run: string, customer: Customer): string => {
  const orderRef = `ord-${run}-${i}`;
  const built = buildDirectRequest(
    {orderRef, attemptId: `att-${i}-${orderRef}`, card: customer.card, fingerprint},
    {
      amount: PRODUCT.amount,
      currency: PRODUCT.currency,
      description: PRODUCT.name,
      customer: DEMO_CUSTOMER,
      payload: JSON.stringify({orderRef, productId: PRODUCT_ID}),
    },
    {
      posId: CREDENTIALS.posId,
      gatewayOrderId: `${orderRef}-1-0a1b2c3d`,
      customerIp: customer.ip,
      acceptHeader: ACCEPT,
      userAgent: USER_AGENT,
      serverUrl: `${proxyUrl}/__sink/webhook`,
      resultUrl: `${proxyUrl}/__sink/return?order=${orderRef}`,
      order3dsBypass: 'supported',
    },
  );
  const valid = validateDirectRequest(built);
  if (!valid.ok)
    throw new Error(`bench: the baseline request is invalid: ${valid.issues[0]?.message}`);
  return valid.checked.json;
};

/** Creates `n` orders of {@link PRODUCT_ID} through the shop's order API; their references. */
export async function createOrders(appUrl: string, n: number): Promise<string[]> {
  const refs: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const res = await fetch(`${appUrl}/api/orders`, {
        method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({productId: PRODUCT_ID}),
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
