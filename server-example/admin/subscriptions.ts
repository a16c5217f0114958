/**
 * The back office's subscriptions: those the shop's payments started, the gateway's
 * charges of one (filtered by method and status), and cancelling one at the gateway.
 */
import {Hono} from 'hono';
import * as z from 'zod';
import {STATUSES} from '../../src/server/index.js';
import {gatewayFailure, invalid, type AreaDeps} from './answers.js';

const Filter = z.strictObject({
  method: z.enum(['purchase', 'refund']).optional(),
  status: z.enum(STATUSES).optional(),
});

export function subscriptionsArea(deps: AreaDeps): Hono {
  const {client, store, shop, logger} = deps;
  const subscriptions = new Hono();

  subscriptions.get('/', async function adminSubscriptions(c) {
    const attempts = await store.listAttemptsInStates(['success', 'pending', 'init', 'failure']);
    const subs = (
      await Promise.all(
        attempts
          .filter((a) => a.recurringId)
          .map(async (a) => ({
            recurringId: a.recurringId!,
            orderRef: a.orderRef,
            gatewayOrderId: a.gatewayOrderId,
            amount: a.amount,
            currency: a.currency,
            state: a.state,
            createdAt: a.createdAt,
            canceledAt: (await shop.subscriptionCanceledAt(a.recurringId!)) ?? null,
          })),
      )
    ).reverse();
    return c.json({subscriptions: subs});
  });

  subscriptions.get('/:id/transactions', async function adminSubscriptionTxns(c) {
    const q = Filter.safeParse(
      Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v !== '')),
    );
    if (!q.success) return invalid(c, q.error);
    try {
      return c.json({
        transactions: await client.getSubscriptionTransactions(c.req.param('id'), q.data),
      });
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  subscriptions.post('/:id/cancel', async function adminSubscriptionCancel(c) {
    const id = c.req.param('id');
    try {
      const result = await client.cancelSubscription(id);
      await shop.markSubscriptionCanceled(id, Date.now());
      logger.info({recurringId: id}, 'subscription cancelled from the back office');
      return c.json({ok: true, result});
    } catch (error) {
      return gatewayFailure(c, error, logger);
    }
  });

  return subscriptions;
}
