/**
 * The shop's order API: `POST /api/orders` creates an order at the catalogue's price
 * (counted by the same per-address limit as the order form), `GET /api/orders/:orderRef`
 * is an order's summary (the shop's pages render theirs on the server).
 */
import {Hono} from 'hono';
import type {InitRecurringInput} from '../src/server/index.js';
import {describeSchedule} from './catalog.js';
import type {TakeOrderPlace} from './order-limit.js';
import {OrderBody, ShopOrderRef, type ShopOrders} from './shop.js';
import {waitText} from './throttle.js';

export function ordersApi(deps: {
  shop: ShopOrders;
  subscription: InitRecurringInput;
  takeOrderPlace: TakeOrderPlace;
}): Hono {
  const {shop} = deps;
  const api = new Hono();

  api.post('/', async function createOrder(c) {
    const parsed = OrderBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      return c.json(
        {
          error: {
            code: 'invalid_request',
            message: 'productId: must be a product of the shop',
            field: 'productId',
          },
        },
        400,
      );
    }
    const wait = await deps.takeOrderPlace(c);
    if (wait !== undefined) {
      return c.json(
        {
          error: {
            code: 'rate_limited',
            message: `too many new orders from this address: try again in ${waitText(wait)}`,
            retryAfter: wait,
          },
        },
        429,
        {'Retry-After': String(wait)},
      );
    }
    const o = await shop.create(parsed.data.productId);
    return c.json(
      {orderRef: o.orderRef, amount: o.amount, currency: o.currency, description: o.description},
      201,
    );
  });

  api.get('/:orderRef', async function orderSummary(c) {
    const ref = ShopOrderRef.safeParse(c.req.param('orderRef'));
    const order = ref.success ? await shop.get(ref.data) : undefined;
    if (!order) return c.json({error: {code: 'not_found', message: 'unknown order'}}, 404);
    return c.json(
      {
        orderRef: order.orderRef,
        description: order.description,
        amount: order.amount,
        currency: order.currency,
        kind: order.kind,
        paid: order.paid,
        ...(order.kind === 'subscription' ? {schedule: describeSchedule(deps.subscription)} : {}),
      },
      200,
      {'Cache-Control': 'no-store'},
    );
  });

  return api;
}
