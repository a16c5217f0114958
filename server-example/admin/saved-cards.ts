/**
 * The back office's saved cards: every customer's saved cards (mask, brand, expiry, when
 * saved; never the token), grouped by customer, and removing one through the companion
 * (`checkout.removeSavedCard`), which forgets its token.
 */
import {Hono} from 'hono';
import * as z from 'zod';
import {invalid, type AreaDeps} from './answers.js';

const Remove = z.strictObject({
  customerId: z.string().min(1, {message: 'must not be empty'}).max(256),
  savedCardId: z.string().regex(/^sc_[0-9a-f]{24}$/, {message: 'must be a saved card id'}),
});

/** `/admin/api/saved-cards`. */
export function savedCardsArea(deps: AreaDeps): Hono {
  return new Hono()
    .get('/', async function adminSavedCards(c) {
      const cards = await deps.checkout.listSavedCards();
      const customers = new Map<string, typeof cards>();
      for (const card of cards) {
        customers.set(card.customerId, [...(customers.get(card.customerId) ?? []), card]);
      }
      return c.json({
        customers: [...customers].map(([customerId, list]) => ({customerId, cards: list})),
      });
    })
    .post('/remove', async function adminRemoveSavedCard(c) {
      const body = Remove.safeParse(await c.req.json().catch(() => undefined));
      if (!body.success) return invalid(c, body.error);
      const removed = await deps.checkout.removeSavedCard(
        body.data.customerId,
        body.data.savedCardId,
      );
      if (!removed) {
        return c.json(
          {error: {code: 'not_found', message: 'savedCardId: the customer has no such card'}},
          404,
        );
      }
      deps.logger.info(
        {savedCardId: body.data.savedCardId},
        'saved card removed in the back office',
      );
      return c.json({removed: true});
    });
}
