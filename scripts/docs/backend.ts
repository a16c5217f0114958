/**
 * What the documentation's live examples pay against: the gateway sandbox, in process, and
 * the companion (`createCheckoutApp`) in front of it, as a merchant's server would mount it
 * under `/checkout`. The docs' examples use exactly the orders of docs/snippets/orders.ts
 * (`ORDER-1001` and its siblings), priced here, never by the browser. The store is a SQLite
 * database in memory: restarting `npm run docs` starts over with unpaid orders.
 */
import {Hono} from 'hono';
import {createCheckoutApp, SqlitePaymentStore, type CheckoutApp} from '../../src/server/index.js';
import {startSandbox, type Sandbox} from '../../sandbox/index.js';

/** The orders the examples on the site name, with what each costs. */
export const DOCS_ORDERS: ReadonlyMap<string, {amount: string; description: string}> = new Map([
  ['ORDER-1001', {amount: '1.50', description: 'The card form example'}],
  ['ORDER-1002', {amount: '12.50', description: 'The 3-D Secure example'}],
  ['ORDER-1003', {amount: '9.99', description: 'The theming example'}],
  ['ORDER-1004', {amount: '2.00', description: "The card form's playground"}],
]);

export interface DocsBackend {
  /** `/checkout/*`: the companion, mounted as docs/snippets/server.ts mounts it. */
  app: Hono;
  checkout: CheckoutApp;
  sandbox: Sandbox;
  close(): Promise<void>;
}

/** `origin` is where the site is served (the companion's `publicUrl` is `<origin>/checkout`). */
export async function startDocsBackend(origin: string, quiet = true): Promise<DocsBackend> {
  const sandbox = await startSandbox({port: 0, webhook: {duplicateRate: 0}});
  // A throw-away SQLite database: restarting starts over with unpaid orders.
  const store = new SqlitePaymentStore(':memory:');
  const silent = {info() {}, warn() {}, error() {}};
  const checkout = createCheckoutApp({
    gateway: sandbox.clientOptions(),
    store,
    publicUrl: new URL('/checkout', origin).href,
    // The 3-D Secure frame comes back to the page of <pg-3ds-redirect>.
    returnPage: '/elements/3ds-redirect.html',
    // A reader tries many cards on one order; the card-testing limits stay on, only wider.
    rateLimit: {maxAttemptsPerIp: 1000, maxAttemptsPerOrder: 100, maxAttemptsPerCard: 100},
    ...(quiet ? {logger: silent} : {}),
    async resolveOrder(orderRef) {
      const order = DOCS_ORDERS.get(orderRef);
      if (!order) return null;
      return {
        amount: order.amount,
        currency: 'XTS',
        description: order.description,
        customer: {
          firstName: 'Olena',
          lastName: 'Kovalenko',
          email: 'olena@example.com',
          phone: '+380501234567',
        },
      };
    },
  });
  checkout.start();
  const app = new Hono().route('/checkout', checkout);
  return {
    app,
    checkout,
    sandbox,
    async close() {
      await checkout.close();
      await store.close();
      await sandbox.close();
    },
  };
}
