// saved-cards.ts — the signed-in customer's saved cards on your account page, and their
// removal when the customer (or your support) asks. `customerOf`: session.ts.
import {Hono} from 'hono';
import type {CheckoutApp} from 'pg-checkout/server';

export function savedCardRoutes(
  checkout: CheckoutApp,
  customerOf: (request: Request) => string | undefined,
) {
  return new Hono()
    .get('/', async (c) => {
      const customer = customerOf(c.req.raw);
      if (!customer) return c.json({error: 'sign in first'}, 401);
      // id, mask, expiry and whether it expired: never the gateway's token.
      return c.json(await checkout.listSavedCards(customer));
    })
    .delete('/:id', async (c) => {
      const customer = customerOf(c.req.raw);
      if (!customer) return c.json({error: 'sign in first'}, 401);
      const removed = await checkout.removeSavedCard(customer, c.req.param('id'));
      return removed ? c.body(null, 204) : c.json({error: 'no such card'}, 404);
    });
}
