/**
 * The demo shop's own data, in the same SQLite file as the companion's tables: orders
 * (what is charged is fixed when the order is created, from the catalogue) and the
 * subscriptions the merchant cancelled.
 */
import {randomBytes} from 'node:crypto';
import type Database from 'better-sqlite3';
import * as z from 'zod';
import {PRODUCTS, PRODUCT_IDS, type ProductId, type ProductKind} from './catalog.js';
import {openTable, type Statements} from './sqlite.js';

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
    paid: r.paid === 1,
    createdAt: r.created_at,
  };
};

const SCHEMA = `CREATE TABLE IF NOT EXISTS example_orders (
  order_ref TEXT PRIMARY KEY,
  product_id TEXT NOT NULL,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  description TEXT NOT NULL,
  paid INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS example_canceled_subscriptions (
  recurring_id TEXT PRIMARY KEY,
  canceled_at INTEGER NOT NULL
);`;

const SQL = {
  insert:
    'INSERT INTO example_orders (order_ref, product_id, amount, currency, description, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  get: 'SELECT * FROM example_orders WHERE order_ref = ?',
  list: 'SELECT * FROM example_orders ORDER BY created_at DESC, rowid DESC LIMIT ?',
  markPaid: 'UPDATE example_orders SET paid = 1 WHERE order_ref = ?',
  cancelSub:
    'INSERT OR IGNORE INTO example_canceled_subscriptions (recurring_id, canceled_at) VALUES (?, ?)',
  subCanceled: 'SELECT canceled_at FROM example_canceled_subscriptions WHERE recurring_id = ?',
};

export class ShopOrders {
  readonly #sql: Statements<keyof typeof SQL>;

  constructor(db: Database.Database) {
    this.#sql = openTable(db, SCHEMA, SQL);
  }

  /** Creates an order for a product at the catalogue's price. */
  create(productId: ProductId, now = Date.now()): ShopOrder {
    const product = PRODUCTS[productId];
    const orderRef = `ord-${randomBytes(6).toString('hex')}`;
    this.#sql.insert.run(orderRef, productId, product.amount, product.currency, product.name, now);
    return this.get(orderRef)!;
  }

  get(orderRef: string): ShopOrder | undefined {
    const row = this.#sql.get.get(orderRef) as Row | undefined;
    return row ? toOrder(row) : undefined;
  }

  list(limit: number): ShopOrder[] {
    return (this.#sql.list.all(limit) as Row[]).map(toOrder);
  }

  markPaid(orderRef: string): void {
    this.#sql.markPaid.run(orderRef);
  }

  markSubscriptionCanceled(recurringId: string, at: number): void {
    this.#sql.cancelSub.run(recurringId, at);
  }

  subscriptionCanceledAt(recurringId: string): number | undefined {
    const row = this.#sql.subCanceled.get(recurringId) as {canceled_at: number} | undefined;
    return row?.canceled_at;
  }
}
