// gateway.ts — the gateway client, for calls of your own: lookups, reports, subscriptions.
import {GatewayClient} from 'pg-checkout/server';

/** A required setting: a missing one stops the server at start-up, naming it. */
function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: add it to the environment`);
  return value;
}

export const gateway = new GatewayClient({
  baseUrl: process.env.GATEWAY_BASE_URL || 'https://cpay.tranzzo.com', // or the sandbox
  posId: env('POS_ID'), // the project's UUID
  credentials: {
    apiKey: env('API_KEY'),
    apiSecret: env('API_SECRET'),
    endpointsKey: env('ENDPOINTS_KEY'), // required: sent as X-API-Key on every request
  },
  // all optional:
  timeoutMs: 30_000, // one HTTP exchange, headers and body
  retries: 2, // extra attempts of a GET (network error, timeout, 5xx, 429)
  retryDelayMs: 250, // first backoff; doubles each time, with jitter
  maxRetryDelayMs: 10_000, // longest wait, including a Retry-After
  // auth: hmacAuth(credentials),   // see "Authentication"
  // fetch: myFetch,                // injectable; default globalThis.fetch
  // hostedContacts: 'optional',     // hosted payments without customer_email/customer_phone
  // clock: {now, sleep},            // the clock of waits and deadlines (fake in tests)
});
