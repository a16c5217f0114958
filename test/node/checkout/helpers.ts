/**
 * Shared helpers of the checkout companion tests: pay bodies, a log capture, an order
 * catalogue, a stub gateway for in-process tests, signed webhooks, a companion served
 * over real HTTP (so the sandbox can reach its webhook and return routes), SQLite stores
 * in a temporary folder, what the sandbox charged for an order, and a driver for the
 * sandbox's 3-D Secure page.
 */
import http from 'node:http';
import {mkdtempSync, rmSync} from 'node:fs';
import net, {createServer as createNetServer, type AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {Writable} from 'node:stream';
import {setTimeout as sleep} from 'node:timers/promises';
import {createAdaptorServer} from '@hono/node-server';
import {
  CHECKOUT_HEADER,
  CHECKOUT_PROTOCOL_VERSION,
  type PayRequest,
} from '../../../src/protocol/checkout.js';
import {
  createCheckoutApp,
  createCheckoutLogger,
  encodeWebhookData,
  signWebhook,
  GatewayNotFoundError,
  SqlitePaymentStore,
  type CheckoutApp,
  type CheckoutAppOptions,
  type CheckoutGateway,
  type CreatePaymentResult,
  type DirectPaymentRequestInput,
  type HostedPaymentRequestInput,
  type PaymentRecord,
  type PaymentStore,
  type PaymentUpdate,
  type ResolvedOrder,
  type TransactionRecord,
} from '../../../src/server/index.js';
import type {Sandbox} from '../../../sandbox/index.js';

export const CARDS = {
  success: '4242424242424242',
  threeDS: '4000000000003220',
  decline: '4000000000000002',
  insufficient: '4000000000009995',
  wrongCvv: '4000000000000127',
} as const;

export const POS_ID = '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001';
export const SECRET = 'test-webhook-secret';
export const PUBLIC_URL = 'https://shop.example/checkout';
export const ORIGIN = 'https://shop.example';

export const FINGERPRINT: PayRequest['fingerprint'] = {
  browserColorDepth: '24',
  browserScreenHeight: '1080',
  browserScreenWidth: '1920',
  browserJavaEnabled: 'false',
  browserLanguage: 'en-US',
  browserTimeZone: 'Europe/Kyiv',
  browserTimeZoneOffset: '-120',
  browserUserAgent: 'Mozilla/5.0 (test)',
};

let cvvCounter = 100;
/** A CVV unique to this test process run (so the card-data search can look for each one). */
export function nextCvv(): string {
  cvvCounter = cvvCounter >= 999 ? 100 : cvvCounter + 1;
  return String(cvvCounter);
}

export function payBody(
  orderRef: string,
  attemptId: string,
  number: string = CARDS.success,
  cvv = '123',
): PayRequest {
  return {
    orderRef,
    attemptId,
    card: {number, expMonth: 12, expYear: new Date().getFullYear() + 2, cvv},
    customer: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      phone: '+380501234567',
    },
    fingerprint: FINGERPRINT,
  };
}

export const PAY_HEADERS: Record<string, string> = {
  'Content-Type': 'application/json',
  Accept: 'application/json',
  Origin: ORIGIN,
  [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
  'User-Agent': 'Mozilla/5.0 (test)',
};

/** A pino logger whose every line lands in `lines`. */
export function captureLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createCheckoutLogger({level: 'debug'}, stream);
  return {logger, lines};
}

/**
 * An order catalogue: every order costs 1.50 XTS unless `defaults` say otherwise; an order
 * whose reference starts with a key of `customers` is that customer's (`{'ada-':
 * 'cust-ada'}`), the others nobody's; `missing…` orders do not exist.
 */
export function catalogue(
  defaults: Partial<ResolvedOrder> = {},
  customers: Record<string, string> = {},
) {
  const orders = new Map<string, ResolvedOrder>();
  const resolveOrder = (orderRef: string): ResolvedOrder | null => {
    if (orderRef.startsWith('missing')) return null;
    let order = orders.get(orderRef);
    if (!order) {
      const prefix = Object.keys(customers).find((p) => orderRef.startsWith(p));
      order = {
        amount: '1.50',
        currency: 'XTS',
        description: `Order ${orderRef}`,
        ...defaults,
        ...(prefix !== undefined ? {customer: {id: customers[prefix]!}} : {}),
      };
      orders.set(orderRef, order);
    }
    return order;
  };
  return {orders, resolveOrder};
}

/** Records every `onPaymentUpdate` call. */
export function updates() {
  const list: PaymentUpdate[] = [];
  const waiting: {n: number; resolve: () => void}[] = [];
  return {
    list,
    onPaymentUpdate: (u: PaymentUpdate) => {
      list.push(u);
      for (const w of waiting.filter((w) => list.length >= w.n)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    },
    /** Resolves once `n` updates in all have reached the hook: its own call, no clock. */
    until: (n: number): Promise<void> =>
      list.length >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({n, resolve})),
  };
}

/** A webhook's form body (`data` and its `signature`), signed with `secret`. */
export function signedWebhook(payload: Record<string, unknown>, secret = SECRET): string {
  const data = encodeWebhookData(payload);
  return new URLSearchParams({data, signature: signWebhook(data, secret)}).toString();
}

/** POSTs a webhook form body to an in-process companion. */
export async function postWebhook(
  app: {request: (p: string, i: RequestInit) => Response | Promise<Response>},
  body: string,
): Promise<Response> {
  return app.request('/webhook', {
    method: 'POST',
    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    body,
  });
}

/** A payment record as the gateway would answer. */
export function record(
  req: {order_id: string; amount?: unknown; currency?: string},
  status: PaymentRecord['status'],
  extra: Partial<PaymentRecord> = {},
): PaymentRecord {
  return {
    payment_id: `pay-${req.order_id}`,
    order_id: req.order_id,
    pos_id: POS_ID,
    mode: 'direct',
    method: 'purchase',
    amount: Number(req.amount ?? 1.5),
    currency: req.currency ?? 'XTS',
    status,
    status_code: status === 'success' ? '1000' : status === 'pending' ? '2122' : '5152',
    status_description: status === 'success' ? 'Transaction successful' : status,
    cc_mask: '424242******4242',
    created_at: '2026-01-01T00:00:00.000',
    ...(status === 'pending'
      ? {user_action_required: true, user_action_url: `https://gw.example/3ds/${req.order_id}`}
      : {}),
    ...extra,
  } as PaymentRecord;
}

/**
 * A scriptable gateway for in-process tests. `onCreate` decides each create's fate
 * (default: success); `known` holds what lookups find. A hosted request is answered with
 * a checkout address on the stub's own origin, and its record.
 */
export class StubGateway implements CheckoutGateway {
  readonly posId = POS_ID;
  readonly created: DirectPaymentRequestInput[] = [];
  readonly lookups: string[] = [];
  readonly known = new Map<string, PaymentRecord>();
  onCreate: (req: DirectPaymentRequestInput) => Promise<PaymentRecord> = async (req) =>
    record(req, 'success');

  async createPayment(
    req: DirectPaymentRequestInput | HostedPaymentRequestInput,
  ): Promise<CreatePaymentResult> {
    // A hosted request has no card fields: `onCreate` sees it through the direct shape.
    const request = req as DirectPaymentRequestInput;
    this.created.push(request);
    const r = await this.onCreate(request);
    this.known.set(req.order_id, r);
    if (req.mode === 'hosted') {
      return {
        kind: 'hosted',
        checkoutUrl: `https://gw.example/checkout/${req.order_id}`,
        record: r,
      };
    }
    return {kind: 'direct', record: r};
  }

  async getOperation(orderId: string): Promise<TransactionRecord> {
    this.lookups.push(orderId);
    const r = this.known.get(orderId);
    if (!r) throw new GatewayNotFoundError('not_found', 'operation lookup: 404', {status: 404});
    return r;
  }
}

export type Overrides = Partial<CheckoutAppOptions>;

/** Card-testing limits out of the way of tests that pay many times from one address. */
export const GENEROUS_LIMITS = {
  maxAttemptsPerIp: 100_000,
  maxAttemptsPerOrder: 10_000,
  maxAttemptsPerCard: 100_000,
  maxOrderLookupsPerIp: 100_000,
  windowMs: 60_000,
};

/** A companion for in-process tests (`app.request`) with a stub gateway. */
export function inProcessApp(
  store: PaymentStore,
  gateway: CheckoutGateway,
  overrides: Overrides = {},
) {
  const cat = catalogue();
  const upd = updates();
  const log = captureLogger();
  const app = createCheckoutApp({
    gateway,
    webhookSecret: SECRET,
    store,
    publicUrl: PUBLIC_URL,
    returnPage: '/thanks',
    resolveOrder: cat.resolveOrder,
    onPaymentUpdate: upd.onPaymentUpdate,
    clientIp: () => '203.0.113.7',
    logger: log.logger,
    rateLimit: GENEROUS_LIMITS,
    ...overrides,
  });
  return {app, catalogue: cat, updates: upd.list, delivered: upd.until, lines: log.lines};
}

/** POSTs a pay body in-process. */
export async function pay(
  app: CheckoutApp,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.request('/pay', {
    method: 'POST',
    headers: {...PAY_HEADERS, ...headers},
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A companion served over HTTP on loopback against a sandbox. */
export interface ServedCompanion {
  app: CheckoutApp;
  url: string;
  lines: string[];
  updates: PaymentUpdate[];
  close(): Promise<void>;
  /** Stops serving at once, abandoning in-flight work, as a killed process would. */
  crash(): Promise<void>;
}

/** Starts the companion on a loopback port, wired to `sandbox`. Closing keeps the store open. */
export async function serveCompanion(
  sandbox: Sandbox,
  store: PaymentStore,
  overrides: Overrides & {
    timeoutMs?: number;
    port?: number;
    gatewayFetch?: (input: string, init: RequestInit) => Promise<Response>;
    /** Awaited before each request is handled (a test holds some until it chooses). */
    gate?: (req: Request) => Promise<void>;
  } = {},
): Promise<ServedCompanion> {
  const {timeoutMs, port, gatewayFetch, gate, ...rest} = overrides;
  let handler: CheckoutApp['fetch'] | undefined;
  const server = createAdaptorServer({
    fetch: async (req, env) => {
      await gate?.(req);
      return handler ? handler(req, env) : new Response('starting', {status: 503});
    },
  });
  await new Promise<void>((resolve) => server.listen(port ?? 0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${address.port}`;
  const cat = catalogue();
  const upd = updates();
  const log = captureLogger();
  const app = createCheckoutApp({
    gateway: {
      ...sandbox.clientOptions(),
      timeoutMs: timeoutMs ?? 5_000,
      retries: 0,
      ...(gatewayFetch ? {fetch: gatewayFetch} : {}),
    },
    store,
    publicUrl: url,
    returnPage: '/thanks',
    resolveOrder: cat.resolveOrder,
    onPaymentUpdate: upd.onPaymentUpdate,
    logger: log.logger,
    allowedOrigins: [url],
    statusCheck: {afterMs: 200, minIntervalMs: 100},
    rateLimit: GENEROUS_LIMITS,
    ...rest,
  });
  handler = app.fetch;
  const stop = () =>
    new Promise<void>((resolve) => {
      handler = undefined;
      server.close(() => resolve());
      (server as unknown as {closeAllConnections?: () => void}).closeAllConnections?.();
    });
  return {
    app,
    url,
    lines: log.lines,
    updates: upd.list,
    async close() {
      await app.close();
      await stop();
    },
    crash: stop,
  };
}

/** SQLite payment stores on files in one temporary folder. */
export function tempStores(prefix: string) {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  const files = new Set<string>();
  const stores: SqlitePaymentStore[] = [];
  return {
    /** The database files opened so far. */
    files: (): string[] => [...files],
    /** A store on `<name>.db` in the folder; the same name opens the same file again. */
    open(name: string): SqlitePaymentStore {
      const file = path.join(dir, `${name}.db`);
      files.add(file);
      const store = new SqlitePaymentStore(file);
      stores.push(store);
      return store;
    },
    /** Closes the stores still open and removes the folder. */
    async cleanup(): Promise<void> {
      for (const store of stores) await store.close().catch(() => undefined);
      rmSync(dir, {recursive: true, force: true});
    },
  };
}

/** True when `gatewayOrderId` is one of `orderRef`'s (`<orderRef>-<seq>-<random>`). */
export function isPaymentOf(orderRef: string, gatewayOrderId: string): boolean {
  return (
    gatewayOrderId.startsWith(`${orderRef}-`) &&
    /^\d+-[0-9a-f]+$/.test(gatewayOrderId.slice(orderRef.length + 1))
  );
}

/** The sandbox's primary payments of an order. */
export function sandboxPayments(sandbox: Sandbox, orderRef: string) {
  return sandbox.payments().filter((p) => isPaymentOf(orderRef, p.orderId));
}

/** Successful charges the sandbox holds for an order (a refund leaves a charge `success`). */
export function sandboxCharges(sandbox: Sandbox, orderRef: string): number {
  return sandboxPayments(sandbox, orderRef).filter((p) => p.status === 'success').length;
}

/**
 * POSTs the hosted-payment form (`order=<orderRef>`) from `origin`, as a shop's page does;
 * answers the status and the `Location` it redirects to.
 */
export async function postHosted(
  send: (path: string, init: RequestInit) => Response | Promise<Response>,
  orderRef: string,
  origin: string,
): Promise<{status: number; location: string | null}> {
  const res = await send('/hosted', {
    method: 'POST',
    headers: {'Content-Type': 'application/x-www-form-urlencoded', Origin: origin},
    body: new URLSearchParams({order: orderRef}).toString(),
    redirect: 'manual',
  });
  return {status: res.status, location: res.headers.get('location')};
}

/** POSTs a pay body over HTTP. */
export async function payHttp(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{status: number; json: Record<string, unknown>}> {
  const res = await fetch(`${base}/pay`, {
    method: 'POST',
    headers: {...PAY_HEADERS, Origin: base, ...headers},
    body: JSON.stringify(body),
  });
  return {status: res.status, json: (await res.json()) as Record<string, unknown>};
}

export async function statusHttp(base: string, orderRef: string) {
  const res = await fetch(`${base}/status?order=${encodeURIComponent(orderRef)}`, {
    headers: {[CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION},
  });
  return {status: res.status, json: (await res.json()) as Record<string, unknown>};
}

/** Polls the status route until the order is final; resolves with that answer. */
export function finalStatus(base: string, orderRef: string, stepMs = 25) {
  return eventually(async () => {
    const s = await statusHttp(base, orderRef);
    return s.json['final'] ? s : undefined;
  }, stepMs);
}

/**
 * Plays the customer on the sandbox's 3-D Secure page: posts the decision, then follows
 * the hand-back (a self-submitting POST form, or a 303) to the companion's return route.
 * Returns the return route's `Location`.
 */
export async function complete3ds(userActionUrl: string, decision: 'approve' | 'decline') {
  const res = await fetch(userActionUrl, {
    method: 'POST',
    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({decision}).toString(),
    redirect: 'manual',
  });
  let returnUrl: string;
  let returnInit: RequestInit;
  if (res.status === 303) {
    returnUrl = res.headers.get('location')!;
    returnInit = {method: 'GET', redirect: 'manual'};
  } else {
    const html = await res.text();
    const action = /<form id="pg-sandbox-return" method="post" action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no hand-back form on the 3DS answer page (HTTP ${res.status})`);
    returnUrl = action.replace(/&amp;/g, '&');
    const fields = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)];
    returnInit = {
      method: 'POST',
      redirect: 'manual',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams(fields.map((m) => [m[1]!, m[2]!])).toString(),
    };
  }
  const back = await fetch(returnUrl, returnInit);
  return {status: back.status, location: back.headers.get('location')};
}

/**
 * Polls `fn` until it returns a truthy value, every `stepMs`. No deadline of its own (a
 * bound on the wall clock failed tests on a loaded machine, not for a fault): one that never
 * comes is ended by the tier's test timeout (scripts/run-node-tests.mjs).
 */
export async function eventually<T>(
  fn: () => Promise<T> | T,
  stepMs = 25,
): Promise<NonNullable<T>> {
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    await sleep(stepMs);
  }
}

/** A loopback port that was free a moment ago (nothing listens there now). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A primary webhook payload of `orderId` in `status`, as the gateway signs it (plus `extra`). */
export function primaryWebhook(
  orderId: string,
  status: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    payment_id: `pay-${orderId}`,
    order_id: orderId,
    pos_id: POS_ID,
    mode: 'direct',
    method: 'purchase',
    amount: 1.5,
    currency: 'XTS',
    status,
    status_code: status === 'success' ? '1000' : status === 'pending' ? '2122' : '5152',
    created_at: '2026-01-01T00:00:00.000',
    ...extra,
  };
}

/**
 * A flood of forged webhooks as an attacker sends it: one delivery signed by the gateway
 * first (its status in `signed`), then `posts` unsigned ones to `url`, `concurrency` at a
 * time over keep-alive sockets. Answers how many got each status, and how long it took.
 */
export async function floodForgedWebhooks(
  url: string,
  posts: number,
  concurrency: number,
): Promise<{signed: number; statuses: Record<number, number>; seconds: number}> {
  const agent = new http.Agent({keepAlive: true, maxSockets: concurrency});
  const post = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': String(Buffer.byteLength(body)),
        },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.end(body);
    });
  try {
    const signed = await post(signedWebhook(primaryWebhook('gw-before-flood', 'success')));
    const statuses: Record<number, number> = {};
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({length: concurrency}, async () => {
        while (next < posts) {
          const i = next++;
          const data = Buffer.from(JSON.stringify({order_id: `forged-${i}`})).toString('base64url');
          const status = await post(`data=${data}&signature=forged-${i}`);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    return {signed, statuses, seconds: (performance.now() - started) / 1000};
  } finally {
    agent.destroy();
  }
}

/**
 * A raw socket that posts `path` declaring `length` bytes and sends only `sent` of them (a
 * slow sender), with the headers a non-browser client passes the same-origin checks with.
 */
export function slowSender(port: number, path: string, length = 10_000, sent = 1) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `${CHECKOUT_HEADER}: ${CHECKOUT_PROTOCOL_VERSION}\r\n` +
      `Content-Length: ${length}\r\n\r\n${'{'.repeat(sent)}`,
  );
  return {socket, closed, received: () => received};
}

/** The status and header block of a raw answer, names lower-cased. */
export function rawAnswer(raw: string): {status: number; headers: Map<string, string>} {
  const [head = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...rest] = head.split('\r\n');
  const headers = new Map<string, string>();
  for (const line of rest) {
    const i = line.indexOf(':');
    headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return {status: Number(statusLine.split(' ')[1]), headers};
}
