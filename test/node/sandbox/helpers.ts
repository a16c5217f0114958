/**
 * Shared helpers of the sandbox tests: a sandbox with a `GatewayClient` wired to it, raw
 * authenticated requests (for errors the client would refuse to send), request builders
 * for direct and hosted payments, a loopback webhook receiver that verifies signatures,
 * and a small polling helper.
 */
import {randomBytes} from 'node:crypto';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {GatewayClient, verifyWebhook} from '../../../src/server/gateway/index.js';
import type {
  DirectPaymentRequestInput,
  HostedPaymentRequestInput,
  WebhookPayload,
} from '../../../src/server/gateway/index.js';
import {startSandbox} from '../../../sandbox/index.js';
import type {Sandbox, SandboxOptions} from '../../../sandbox/index.js';

export interface TestSandbox {
  sandbox: Sandbox;
  client: GatewayClient;
  close(): Promise<void>;
}

export function clientFor(
  sandbox: Sandbox,
  extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {},
) {
  const {posId, apiKey, apiSecret, endpointsKey} = sandbox.credentials;
  return new GatewayClient({
    baseUrl: sandbox.url,
    posId,
    credentials: {apiKey, apiSecret, endpointsKey},
    retries: 0,
    ...extra,
  });
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({reportDelayMs: 50, ...options});
  return {sandbox, client: clientFor(sandbox), close: () => sandbox.close()};
}

let seq = 0;
/** A fresh order id. */
export const orderId = (prefix = 'order') =>
  `${prefix}-${process.pid}-${++seq}-${randomBytes(4).toString('hex')}`;

export const FINGERPRINT = {
  browserColorDepth: '24',
  browserScreenHeight: '900',
  browserScreenWidth: '1440',
  browserJavaEnabled: 'false',
  browserLanguage: 'en-US',
  browserTimeZone: 'Europe/Kyiv',
  browserTimeZoneOffset: '-120',
  browserAcceptHeader: 'text/html',
  browserIpAddress: '127.0.0.1',
  browserUserAgent: 'node-test',
};

/** A valid direct purchase request with a card; override anything. */
export function directRequest(
  overrides: Partial<DirectPaymentRequestInput> & Record<string, unknown> = {},
): DirectPaymentRequestInput {
  const base: Record<string, unknown> = {
    mode: 'direct',
    method: 'purchase',
    amount: 12.5,
    currency: 'UAH',
    description: 'Sandbox test order',
    order_id: orderId(),
    order_3ds_bypass: 'supported',
    cc_number: '4242424242424242',
    exp_month: 12,
    exp_year: new Date().getUTCFullYear() + 3,
    card_cvv: '123',
    customer_fname: 'Olena',
    customer_lname: 'Shevchenko',
    customer_email: 'olena@example.com',
    customer_phone: '+380501234567',
    customer_ip: '127.0.0.1',
    browser_fingerprint: FINGERPRINT,
  };
  const out = {...base, ...overrides};
  for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k];
  return out as unknown as DirectPaymentRequestInput;
}

/** A valid hosted purchase request; override anything. */
export function hostedRequest(
  overrides: Partial<HostedPaymentRequestInput> & Record<string, unknown> = {},
): HostedPaymentRequestInput {
  return {
    mode: 'hosted',
    method: 'purchase',
    amount: 20,
    currency: 'UAH',
    description: 'Hosted sandbox order',
    order_id: orderId('hosted'),
    order_3ds_bypass: 'supported',
    customer_email: 'olena@example.com',
    customer_phone: '+380501234567',
    ...overrides,
  } as HostedPaymentRequestInput;
}

/** Default plain authentication headers of a sandbox. */
export function authHeaders(sandbox: Sandbox): Record<string, string> {
  const c = sandbox.credentials;
  return {'X-API-Auth': `CPAY ${c.apiKey}:${c.apiSecret}`, 'X-API-Key': c.endpointsKey};
}

/** A raw request to the sandbox; authenticated with the plain form unless `headers` replace it. */
export async function raw(
  sandbox: Sandbox,
  method: string,
  path: string,
  opts: {body?: unknown; text?: string; headers?: Record<string, string>; auth?: boolean} = {},
): Promise<{status: number; headers: Headers; text: string; json: () => unknown}> {
  const headers: Record<string, string> = {...(opts.auth === false ? {} : authHeaders(sandbox))};
  let body: string | undefined = opts.text;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  Object.assign(headers, opts.headers ?? {});
  const res = await fetch(sandbox.url + path, {method, headers, body, redirect: 'manual'});
  const text = await res.text();
  return {status: res.status, headers: res.headers, text, json: () => JSON.parse(text)};
}

/** A direct request body as the wire carries it (with pos_id), for raw requests. */
export function wireBody(sandbox: Sandbox, overrides: Record<string, unknown> = {}) {
  return {...directRequest(), pos_id: sandbox.credentials.posId, ...overrides};
}

export interface ReceivedWebhook {
  data: string;
  signature: string;
  payload: WebhookPayload;
  eventId: string | undefined;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** Requests seen, including the ones answered with an error. */
  hits: number;
  close(): Promise<void>;
}

/**
 * A loopback webhook receiver. Every webhook's signature is verified with `secret`;
 * `answer(n)` gives the HTTP status of the n-th hit (1-based), default 200.
 */
export async function startReceiver(
  secret: string,
  answer: (hit: number) => number = () => 200,
): Promise<Receiver> {
  const state: Receiver = {url: '', received: [], hits: 0, close: async () => undefined};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.hits++;
      const status = answer(state.hits);
      if (status >= 200 && status < 300) {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const data = form.get('data') ?? '';
        const signature = form.get('signature') ?? '';
        const payload = verifyWebhook({data, signature}, secret);
        const eventId = req.headers['x-sandbox-event-id'];
        state.received.push({
          data,
          signature,
          payload,
          eventId: typeof eventId === 'string' ? eventId : undefined,
        });
      }
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  state.close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return state;
}

/**
 * Polls `fn` every 10 ms until it returns a truthy value. No deadline of its own (a bound on
 * the wall clock fails on a loaded machine, not for a fault): one that never comes is ended
 * by the tier's test timeout (scripts/run-node-tests.mjs).
 */
export async function eventually<T>(fn: () => T | Promise<T>): Promise<NonNullable<T>> {
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The hand-back form of a sandbox page: its action and hidden fields. */
export function handBackForm(
  html: string,
): {action: string; fields: Record<string, string>} | undefined {
  const action = /<form id="pg-sandbox-return" method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) return undefined;
  const fields = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
      m[1]!,
      m[2]!,
    ]),
  );
  return {action: action.replace(/&amp;/g, '&'), fields};
}

/** Posts a form to a sandbox page, as a browser would. */
export async function postForm(url: string, fields: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return {status: res.status, headers: res.headers, text: await res.text()};
}

/** ISO 8601 with an explicit +00:00 offset, as register requests use. */
export const offsetIso = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');
