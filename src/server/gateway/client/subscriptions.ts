/**
 * Subscriptions: the transactions of one (`GET .../recurring/{recurringId}`) and its
 * cancellation (`PUT /api/v1/recurring/{recurringId}/cancel`), a write never retried.
 */
import * as z from 'zod';
import {SubscriptionRecord, SubscriptionTransactionsQuery, TransactionRecord} from '../schemas.js';
import {readList, readRecord} from './answers.js';
import {Identifier, validate} from './requests.js';
import type {ClientContext} from './transport.js';

/** A subscription's transactions; see `GatewayClient.getSubscriptionTransactions`. */
export async function getSubscriptionTransactions(
  ctx: ClientContext,
  recurringId: string,
  filter: z.input<typeof SubscriptionTransactionsQuery> = {},
): Promise<TransactionRecord[]> {
  validate('subscription id', z.strictObject({recurringId: Identifier}), {recurringId});
  const query = validate('subscription transactions query', SubscriptionTransactionsQuery, filter);
  const answer = await ctx.transport.send({
    endpoint: 'getSubscriptionTransactions',
    params: {posId: ctx.settings.posId, recurringId},
    query: Object.fromEntries(
      Object.entries(query).filter(
        (entry): entry is [string, NonNullable<(typeof entry)[1]>] => entry[1] !== undefined,
      ),
    ),
    failure: 'read',
    what: 'subscription transactions lookup',
  });
  return readList(answer, TransactionRecord, 'subscription transactions');
}

/** Cancels a subscription; see `GatewayClient.cancelSubscription`. */
export async function cancelSubscription(
  ctx: ClientContext,
  recurringId: string,
): Promise<SubscriptionRecord> {
  validate('subscription cancel', z.strictObject({recurringId: Identifier}), {recurringId});
  const answer = await ctx.transport.send({
    endpoint: 'cancelSubscription',
    params: {recurringId},
    failure: 'write',
    what: 'subscription cancel',
  });
  return readRecord(answer, SubscriptionRecord, 'subscription record');
}
