/**
 * The demo shop's catalogue and its signed-in customer. Prices, the payment method (charge
 * now, or hold and capture later) and the subscription schedule are decided here, on the
 * server — the browser only ever names a product.
 */
import type {InitRecurringInput, OrderCustomer} from '../src/server/index.js';

/** How a product is paid: `purchase` charges at once, `auth` holds for a later capture. */
export type ProductKind = 'purchase' | 'auth' | 'subscription';

export interface Product {
  name: string;
  /** Exact decimal text. Test projects use small amounts (1–2 XTS). */
  amount: string;
  currency: string;
  kind: ProductKind;
  blurb: string;
}

/** The shop's products. */
export const PRODUCTS = {
  'tea-sampler': {
    name: 'Tea sampler',
    amount: '1.20',
    currency: 'XTS',
    kind: 'purchase',
    blurb: 'Six loose-leaf teas from the Carpathians.',
  },
  'coffee-beans': {
    name: 'Coffee beans, 250 g',
    amount: '1.85',
    currency: 'XTS',
    kind: 'purchase',
    blurb: 'Single-origin beans, roasted this week.',
  },
  mug: {
    name: 'Enamel mug',
    amount: '1.50',
    currency: 'XTS',
    kind: 'purchase',
    blurb: 'Hand-painted, 350 ml.',
  },
  'grinder-rental': {
    name: 'Grinder rental (deposit)',
    amount: '1.90',
    currency: 'XTS',
    kind: 'auth',
    blurb: 'The deposit is held on your card and captured only if the grinder comes back late.',
  },
  'coffee-club': {
    name: 'Coffee club subscription',
    amount: '1.25',
    currency: 'XTS',
    kind: 'subscription',
    blurb: 'A bag of beans on a schedule; cancel any time.',
  },
} as const satisfies Record<string, Product>;
export type ProductId = keyof typeof PRODUCTS;
export const PRODUCT_IDS = Object.keys(PRODUCTS) as [ProductId, ...ProductId[]];

/**
 * The demo's signed-in customer, as every visitor is shown: the details, without an id. The
 * id is the visitor's own, from their session (`visitor.ts`), as a real shop takes it.
 */
export const DEMO_CUSTOMER: Omit<OrderCustomer, 'id'> = {
  firstName: 'Olena',
  lastName: 'Shevchenko',
  email: 'olena@example.com',
  phone: '+380501234567',
  country: 'UA',
  city: 'Kyiv',
};

/** The default subscription schedule: monthly. The merchant's config decides, never the browser. */
export const DEFAULT_SUBSCRIPTION: InitRecurringInput = {interval_unit: 'month', interval_count: 1};

/** "every month", "every 2 weeks", ... */
export function describeSchedule(s: InitRecurringInput): string {
  return s.interval_count === 1
    ? `every ${s.interval_unit}`
    : `every ${s.interval_count} ${s.interval_unit}s`;
}
