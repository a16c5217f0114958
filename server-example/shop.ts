/**
 * The demo shop's own data, in the same database as the companion's tables (SQLite, or
 * PostgreSQL with `DATABASE_URL`): orders (what is charged is fixed when the order is
 * created, from the catalogue) and the subscriptions the merchant cancelled.
 */
import {randomBytes} from 'node:crypto';
import * as z from 'zod';
import {PRODUCTS, PRODUCT_IDS, type ProductId, type ProductKind} from './catalog.js';
import {all, one, run, type DialectTerms, type ShopDb} from './db/work.js';

/** What a new order names (the order form and the order API): a product of the catalogue. */
export const OrderBody = z.strictObject({productId: z.enum(PRODUCT_IDS)});

/** An order reference as the shop makes them. */
export const ShopOrderRef = z.string().regex(/^ord-[0-9a-f]{12}$/);

export interface ShopOrder {
  orderRef: string;
  productId: ProductId;
  kind: ProductKind;
  amount: string;
  currency: string;
  description: string;
  paid: boolean;
  createdAt: number;
}

interface Row {
  order_ref: string;
  product_id: string;
  amount: string;
  currency: string;
  description: string;
  paid: number;
  created_at: number;
}

const toOrder = (r: Row): ShopOrder => {
  const productId = (r.product_id in PRODUCTS ? r.product_id : 'mug') as ProductId;
  return {
    orderRef: r.order_ref,
    productId,
    kind: PRODUCTS[productId].kind,
    amount: r.amount,
    currency: r.currency,
    description: r.description,
    paid: Number(r.paid) === 1,
    createdAt: r.created_at,
  };
};

/** The tables, in either dialect. */
const schema = (t: DialectTerms) => [
  `CREATE TABLE IF NOT EXISTS example_orders (
  order_ref TEXT PRIMARY KEY,
  product_id TEXT NOT NULL,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  description TEXT NOT NULL,
  paid INTEGER NOT NULL DEFAULT 0,
  created_at ${t.ms} NOT NULL${t.insertSeqColumn}
)`,
  `CREATE TABLE IF NOT EXISTS example_canceled_subscriptions (
  recurring_id TEXT PRIMARY KEY,
  canceled_at ${t.ms} NOT NULL
)`,
];

export class ShopOrders {
  readonly #db: ShopDb;

  constructor(db: ShopDb) {
    this.#db = db;
    for (const ddl of schema(db.terms)) db.define(ddl);
  }

  /** Creates an order for a product at the catalogue's price. */
  async create(productId: ProductId, now = Date.now()): Promise<ShopOrder> {
    const product = PRODUCTS[productId];
    const orderRef = `ord-${randomBytes(6).toString('hex')}`;
    const row: Row = {
      order_ref: orderRef,
      product_id: productId,
      amount: product.amount,
      currency: product.currency,
      description: product.name,
      paid: 0,
      created_at: now,
    };
    await this.#db.run(
      run(
        'INSERT INTO example_orders (order_ref, product_id, amount, currency, description, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        row.order_ref,
        row.product_id,
        row.amount,
        row.currency,
        row.description,
        row.created_at,
      ),
    );
    return toOrder(row);
  }

  async get(orderRef: string): Promise<ShopOrder | undefined> {
    const row = await this.#db.run(
      one<Row>('SELECT * FROM example_orders WHERE order_ref = ?', orderRef),
    );
    return row ? toOrder(row) : undefined;
  }

  /** The newest orders, newest first. */
  async list(limit: number): Promise<ShopOrder[]> {
    const rows = await this.#db.run(
      all<Row>(
        `SELECT * FROM example_orders ORDER BY created_at DESC, ${this.#db.terms.insertOrder} DESC LIMIT ?`,
        limit,
      ),
    );
    return rows.map(toOrder);
  }

  async markPaid(orderRef: string): Promise<void> {
    await this.#db.run(run('UPDATE example_orders SET paid = 1 WHERE order_ref = ?', orderRef));
  }

  async markSubscriptionCanceled(recurringId: string, at: number): Promise<void> {
    await this.#db.run(
      run(
        'INSERT INTO example_canceled_subscriptions (recurring_id, canceled_at) VALUES (?, ?) ON CONFLICT DO NOTHING',
        recurringId,
        at,
      ),
    );
  }

  async subscriptionCanceledAt(recurringId: string): Promise<number | undefined> {
    const row = await this.#db.run(
      one<{canceled_at: number}>(
        'SELECT canceled_at FROM example_canceled_subscriptions WHERE recurring_id = ?',
        recurringId,
      ),
    );
    return row?.canceled_at;
  }
}
