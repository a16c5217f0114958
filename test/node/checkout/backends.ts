/**
 * The backends the never-double rules run on, behind one interface, so the same
 * assertions hold for each: the companion in-process on SQLite `:memory:` with a
 * scriptable stub gateway, and the companion over real HTTP against the real gateway
 * sandbox on a SQLite file (in a temporary folder) or on PostgreSQL (a schema of its own
 * per companion; skipped without a server: `skip`). A test scripts the gateway per
 * order ("the next create of this order is lost after the charge") and counts what the
 * gateway received (creates, lookups) and what it charged.
 *
 * On the sandbox, faults are the sandbox's own (`X-Sandbox-Fault` on the create request),
 * added by a recording `fetch` the companion's gateway client is given; the create
 * requests and lookups are counted there too.
 */
import {setTimeout as sleep} from 'node:timers/promises';
import type {PayRequest} from '../../../src/protocol/checkout.js';
import {
  GatewayAuthenticationError,
  GatewayConflictError,
  GatewayOutcomeUnknownError,
  GatewayValidationError,
  SqlitePaymentStore,
  PostgresPaymentStore,
  type CheckoutApp,
  type DirectPaymentRequestInput,
  type PaymentRecord,
  type PaymentStore,
  type PaymentUpdate,
} from '../../../src/server/index.js';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  CARDS,
  ORIGIN,
  StubGateway,
  catalogue,
  inProcessApp,
  isPaymentOf,
  pay,
  payHttp,
  postHosted,
  record,
  sandboxCharges,
  serveCompanion,
  statusHttp,
  tempStores,
  type Overrides,
} from './helpers.js';
import {IN_PROCESS_SKIP, PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

/** What the gateway does with the next create request of an order. */
export type CreateFault =
  /** Answers late (so concurrent requests overlap). */
  | 'slow'
  /** Charges, but its answer is lost (a 500); nothing else (no webhook) tells of it. */
  | 'lost-after-charge'
  /** Does nothing and its answer is lost (a 500). */
  | 'lost'
  /** Charges, and the answer that arrives is `P-409` (the request was delivered twice). */
  | 'conflict-after-charge'
  /** Refuses the request (`400 V-400`): nothing is created. */
  | 'refused'
  /** Refuses the credentials (401). */
  | 'unauthorised';

/** A companion on one backend, and what its gateway saw. */
export interface Harness {
  app: CheckoutApp;
  updates: PaymentUpdate[];
  /** `POST /pay` as the card form sends it. */
  pay(body: PayRequest): Promise<{status: number; json: Record<string, unknown>}>;
  /** The hosted-payment form posted for an order, as the shop's page does. */
  hosted(orderRef: string): Promise<{status: number; location: string | null}>;
  /** `GET /status` for an order. */
  status(orderRef: string): Promise<Record<string, unknown>>;
  /** Makes the next create requests of `orderRef` meet these faults, in order. */
  fault(orderRef: string, ...faults: CreateFault[]): void;
  /** The gateway order ids of the create requests the gateway received for `orderRef`. */
  creates(orderRef: string): string[];
  /** How many lookups of `orderRef`'s payments the gateway received. */
  lookups(orderRef: string): number;
  /** Successful charges the gateway holds for `orderRef`. */
  charges(orderRef: string): number;
}

export interface Backend {
  readonly name: string;
  /** Why this backend cannot run here (no PostgreSQL server), else false. */
  readonly skip?: string | false;
  /** Once per file: `before`. */
  setup(): Promise<void>;
  /** Once per file: `after`. */
  teardown(): Promise<void>;
  /** A new companion with its own store (closed by `teardown`). */
  companion(overrides?: Overrides): Promise<Harness>;
}

/** The orders of both backends: with the customer a hosted payment needs from the shop. */
const orders = () => catalogue({customer: {email: 'ada@example.com', phone: '+380501234567'}});

/** Queues of faults per order reference. */
class Faults {
  readonly #queues = new Map<string, CreateFault[]>();
  add(orderRef: string, faults: CreateFault[]): void {
    this.#queues.set(orderRef, [...(this.#queues.get(orderRef) ?? []), ...faults]);
  }
  /** The next fault for a create of `gatewayOrderId`, if any. */
  take(gatewayOrderId: string): CreateFault | undefined {
    for (const [orderRef, queue] of this.#queues) {
      if (isPaymentOf(orderRef, gatewayOrderId)) return queue.shift();
    }
    return undefined;
  }
}

/** What the stub gateway answers: a hosted payment waits; a card as the sandbox's test cards. */
function outcome(req: DirectPaymentRequestInput): PaymentRecord {
  if ((req as {mode?: string}).mode === 'hosted') return record(req, 'init', {mode: 'hosted'});
  if (req.cc_number === CARDS.decline) return record(req, 'failure');
  if (req.cc_number === CARDS.threeDS) return record(req, 'pending');
  return record(req, 'success');
}

/** SQLite `:memory:` and a stub gateway, in-process. */
export function inProcessAndStub(): Backend {
  return {
    name: "SQLite ':memory:', stub gateway",
    skip: IN_PROCESS_SKIP,
    setup: async () => {},
    teardown: async () => {},
    async companion(overrides = {}) {
      const gw = new StubGateway();
      const faults = new Faults();
      gw.onCreate = async (req) => {
        const orderId = req.order_id;
        switch (faults.take(orderId)) {
          case 'slow':
            await sleep(30);
            break;
          case 'lost':
            throw new GatewayOutcomeUnknownError('payment creation: 500', {status: 500, orderId});
          case 'lost-after-charge':
            gw.known.set(orderId, outcome(req));
            throw new GatewayOutcomeUnknownError('payment creation: 500', {status: 500, orderId});
          case 'conflict-after-charge':
            gw.known.set(orderId, outcome(req));
            throw new GatewayConflictError('conflict', 'P-409', {
              status: 400,
              args: {code: 'P-409'},
            });
          case 'refused':
            throw new GatewayValidationError('gateway_validation', 'bad', {
              status: 400,
              args: {code: 'V-400'},
            });
          case 'unauthorised':
            throw new GatewayAuthenticationError('authentication', 'bad creds', {status: 401});
          case undefined:
        }
        return outcome(req);
      };
      const {app, updates} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
        resolveOrder: orders().resolveOrder,
        ...overrides,
      });
      return {
        app,
        updates,
        async pay(body) {
          const res = await pay(app, body);
          return {status: res.status, json: (await res.json()) as Record<string, unknown>};
        },
        hosted: (orderRef) => postHosted((p, init) => app.request(p, init), orderRef, ORIGIN),
        async status(orderRef) {
          const res = await app.request(`/status?order=${encodeURIComponent(orderRef)}`);
          return (await res.json()) as Record<string, unknown>;
        },
        fault: (orderRef, ...list) => faults.add(orderRef, list),
        creates: (orderRef) =>
          gw.created.map((r) => r.order_id).filter((id) => isPaymentOf(orderRef, id)),
        lookups: (orderRef) => gw.lookups.filter((id) => isPaymentOf(orderRef, id)).length,
        charges: (orderRef) =>
          [...gw.known.values()].filter(
            (r) => r.status === 'success' && isPaymentOf(orderRef, String(r.order_id)),
          ).length,
      };
    },
  };
}

const CREATE_PATH = '/api/v1/payment';
/** `/api/v1/pos/<posId>/orders/<orderId>/<operation>`: an operation lookup. */
const LOOKUP_PATH = /^\/api\/v1\/pos\/[^/]+\/orders\/([^/?]+)\/[a-z_]+(?:\?|$)/;

/** Where a sandbox backend's companions keep their payments: a new store per name. */
interface Stores {
  open(name: string): PaymentStore;
  cleanup(): Promise<void>;
}

/** A SQLite file in a temporary folder and the real sandbox over HTTP. */
export function sqliteAndSandbox(): Backend {
  return sandboxBackend(
    'SQLite store, sandbox over HTTP',
    () => tempStores('pg-never-double'),
    IN_PROCESS_SKIP,
  );
}

/** PostgreSQL (a schema per companion, dropped after) and the real sandbox over HTTP. */
export function postgresAndSandbox(): Backend {
  const opened: PaymentStore[] = [];
  const stores = (): Stores => ({
    open(name) {
      const store = new PostgresPaymentStore({
        connectionString: PG_TEST_URL,
        schema: schemaName(`nd_${name}`),
      });
      opened.push(store);
      return store;
    },
    async cleanup() {
      for (const s of opened.splice(0)) await s.close().catch(() => undefined);
      await dropSchemas();
    },
  });
  return sandboxBackend('PostgreSQL store, sandbox over HTTP', stores, PG_SKIP);
}

/** The companion over HTTP on `makeStores()`'s stores, against the real sandbox. */
function sandboxBackend(
  name: string,
  makeStores: () => Stores,
  skip: string | false = false,
): Backend {
  let sandbox: Sandbox;
  let stores: Stores;
  let n = 0;
  const served: {close(): Promise<void>}[] = [];
  return {
    name,
    skip,
    async setup() {
      stores = makeStores();
      sandbox = await startSandbox({webhook: {retryDelaysMs: [100, 300, 600, 1000, 2000]}});
    },
    async teardown() {
      for (const c of served.splice(0)) await c.close().catch(() => undefined);
      await stores?.cleanup();
      await sandbox?.close();
    },
    async companion(overrides = {}) {
      const faults = new Faults();
      const created: string[] = [];
      const looked: string[] = [];
      const gatewayFetch = async (input: string, init: RequestInit): Promise<Response> => {
        const url = new URL(input);
        const lookup = LOOKUP_PATH.exec(url.pathname + url.search);
        if (lookup) looked.push(decodeURIComponent(lookup[1]!));
        if (url.pathname !== CREATE_PATH || init.method !== 'POST') return fetch(input, init);
        const orderId = (JSON.parse(String(init.body)) as {order_id: string}).order_id;
        created.push(orderId);
        const send = (fault?: string) =>
          fetch(input, {
            ...init,
            headers: {
              ...(init.headers as Record<string, string>),
              ...(fault ? {'X-Sandbox-Fault': fault} : {}),
            },
          });
        switch (faults.take(orderId)) {
          case 'slow':
            return send('delay=30');
          case 'lost':
            return send('500');
          case 'lost-after-charge':
            return send('500-after-charge,no-webhook');
          case 'conflict-after-charge':
            // Delivered twice (a proxy retried it): the first charges, the second is P-409.
            await (await send('no-webhook')).text();
            return send();
          case 'refused':
            // Not a fault word: the sandbox's own V-400, before anything is created.
            return send('refuse-this-request');
          case 'unauthorised': {
            // Without its credentials (`X-API-…` headers): the sandbox answers 401.
            const headers = Object.entries(init.headers as Record<string, string>).filter(
              ([name]) => !/^x-api-/i.test(name),
            );
            return fetch(input, {...init, headers: Object.fromEntries(headers)});
          }
          case undefined:
            return send();
        }
      };
      const store = stores.open(`companion-${n++}`);
      const c = await serveCompanion(sandbox, store, {
        gatewayFetch,
        resolveOrder: orders().resolveOrder,
        ...overrides,
      });
      served.push(c);
      return {
        app: c.app,
        updates: c.updates,
        pay: (body) => payHttp(c.url, body),
        hosted: (orderRef) => postHosted((p, init) => fetch(c.url + p, init), orderRef, c.url),
        status: async (orderRef) => (await statusHttp(c.url, orderRef)).json,
        fault: (orderRef, ...list) => faults.add(orderRef, list),
        creates: (orderRef) => created.filter((id) => isPaymentOf(orderRef, id)),
        lookups: (orderRef) => looked.filter((id) => isPaymentOf(orderRef, id)).length,
        charges: (orderRef) => sandboxCharges(sandbox, orderRef),
      };
    },
  };
}

/** Every backend: every never-double rule runs on each. */
export const BACKENDS: readonly (() => Backend)[] = [
  inProcessAndStub,
  sqliteAndSandbox,
  postgresAndSandbox,
];
