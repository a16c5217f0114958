/**
 * Shared fixtures of the gateway tests: valid requests to vary one field at a time,
 * credentials holding recognisable secrets, and a loopback HTTP server on 127.0.0.1 that
 * records what it received and answers through a per-test handler.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {
  BrowserFingerprint,
  DirectPaymentRequestInput,
  HostedPaymentRequestInput,
} from '../../../src/server/gateway/index.js';

export const POS_ID = '6b0f7d1e-3a52-4c1b-9e7d-2f4a8c9b1d03';
export const CARD_NUMBER = '4242424242424242';
export const CARD_CVV = '719';
export const API_SECRET = 'sk_test_Zq8vN3rT5wY1uI0o';
export const ENDPOINTS_KEY = 'ek_test_Hf6gJ2kL9mP4sD7a';
export const CREDENTIALS = {
  apiKey: 'pk_test_key',
  apiSecret: API_SECRET,
  endpointsKey: ENDPOINTS_KEY,
};

export const FINGERPRINT: BrowserFingerprint = {
  browserColorDepth: '24',
  browserScreenHeight: '1080',
  browserScreenWidth: '1920',
  browserJavaEnabled: 'false',
  browserLanguage: 'uk-UA',
  browserTimeZone: 'Europe/Kyiv',
  browserTimeZoneOffset: '-120',
  browserAcceptHeader: 'text/html',
  browserIpAddress: '203.0.113.7',
  browserUserAgent: 'Mozilla/5.0',
};

/** A valid direct payment with full card data; spread and change one field per test. */
export function directRequest(): DirectPaymentRequestInput {
  return {
    pos_id: POS_ID,
    mode: 'direct',
    method: 'purchase',
    amount: 10.1,
    currency: 'UAH',
    description: 'Order #1',
    order_id: 'order-1',
    order_3ds_bypass: 'supported',
    cc_number: CARD_NUMBER,
    exp_month: 12,
    exp_year: new Date().getUTCFullYear() + 2,
    card_cvv: CARD_CVV,
    customer_fname: 'Taras',
    customer_lname: 'Shevchenko',
    customer_email: 'taras@example.com',
    customer_phone: '+380501234567',
    customer_ip: '203.0.113.7',
    browser_fingerprint: {...FINGERPRINT},
  };
}

/** A valid hosted payment. */
export function hostedRequest(): HostedPaymentRequestInput {
  return {
    pos_id: POS_ID,
    mode: 'hosted',
    method: 'purchase',
    amount: 1.5,
    currency: 'XTS',
    description: 'Order #2',
    order_id: 'order-2',
    order_3ds_bypass: 'supported',
    customer_email: 'lesya@example.com',
    customer_phone: '+380671234567',
  };
}

/** A payment record as the gateway answers a direct payment. */
export function paymentRecord(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    payment_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    order_id: 'order-1',
    transaction_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    pos_id: POS_ID,
    mode: 'direct',
    method: 'purchase',
    amount: 10.1,
    currency: 'UAH',
    status: 'success',
    status_code: '1000',
    status_description: 'Transaction successful',
    user_action_required: false,
    cc_mask: '424242******4242',
    created_at: '2026-01-31T12:00:00.123',
    processing_time: '2026-01-31T12:00:01.456',
    ...over,
  };
}

/** A secondary operation record. */
export function operationRecord(method: string, over: Record<string, unknown> = {}) {
  return {
    operation_id: 'a1b2c3d4-0000-4000-8000-000000000001',
    payment_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    order_id: 'order-1',
    pos_id: POS_ID,
    mode: 'direct',
    method,
    amount: 5,
    currency: 'UAH',
    status: 'success',
    status_code: method === 'refund' ? '1004' : '1000',
    created_at: '2026-01-31T12:00:00.123',
    ...over,
  };
}

/** What the loopback server received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: Received, res: ServerResponse, index: number) => void | Promise<void>;

export interface Loopback {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 port 0 answering through `handler`. */
export async function loopback(handler: Handler): Promise<Loopback> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(r);
      void handler(r, res, received.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON. */
export function json(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, {'content-type': 'application/json', ...headers});
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Answers newline-delimited JSON, one object per line. */
export function ndjson(res: ServerResponse, rows: unknown[]): void {
  res.writeHead(200, {'content-type': 'application/x-ndjson'});
  res.end(rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

/** Drops the connection without an answer. */
export function drop(res: ServerResponse): void {
  res.socket?.destroy();
}
