/**
 * The back office's orders: the list with each order's state, one order with every
 * attempt, operation and intent the companion stored and the gateway's own transactions,
 * and the actions on a payment — capture, void and refund through the companion (exactly
 * once per key), cancel and resend at the gateway. Also the example's first API route,
 * `GET /admin/orders/:orderRef`, kept for scripts.
 */
import {Hono} from 'hono';
import * as z from 'zod';
import {CheckoutError, type AttemptRecord} from '../../src/server/index.js';
import {gatewayFailure, invalid, type AreaDeps} from './answers.js';
import type {AdminAuth} from './auth.js';

/** Public attempt fields: no raw gateway record (an attempt holds no card token). */
function publicAttempt(a: AttemptRecord) {
  const {raw: _raw, ...rest} = a;
  return {...rest, label: attemptLabel(a.state), hosted: a.attemptId.startsWith('hosted-')};
}

/**
 * What the back office shows for an attempt's state: `unknown` is a create the gateway never
 * confirmed — the customer was told so and may pay again — so it reads `unconfirmed`.
 */
function attemptLabel(state: AttemptRecord['state']): string {
  return state === 'unknown' ? 'unconfirmed' : state;
}

const Amount = z
  .string()
  .trim()
  .regex(/^\d+(\.\d{1,2})?$/, {message: 'must be an amount such as 1.50'})
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** An idempotency key: the page makes one per action and sends it again on a retry. */
const Key = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, {
  message: 'must be an idempotency key (1-100 characters A-Z a-z 0-9 _ . : -)',
});

const ActionBody = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('capture'),
    gatewayOrderId: z.string(),
    amount: Amount,
    key: Key,
  }),
  z.strictObject({action: z.literal('void'), gatewayOrderId: z.string(), key: Key}),
  z.strictObject({
    action: z.literal('refund'),
    gatewayOrderId: z.string(),
    amount: Amount,
    key: Key,
  }),
  z.strictObject({action: z.literal('cancel'), gatewayOrderId: z.string()}),
  z.strictObject({
    action: z.literal('resend'),
    gatewayOrderId: z.string(),
    operation: z.enum(['purchase', 'auth', 'capture', 'void', 'refund']).optional(),
    transactionId: z.string().min(1).optional(),
  }),
]);

/** `GET /admin/orders/:orderRef` (Bearer token or session): one order, from the store. */
export function orderRecordRoute(deps: AreaDeps, auth: AdminAuth): Hono {
  const {shop, store} = deps;
  return new Hono().get('/:orderRef', async function adminOrder(c) {
    const a = await auth.access(c);
    if (!a.ok) return auth.refused(c, a, 'admin token required');
    const orderRef = c.req.param('orderRef');
    const order = await shop.get(orderRef);
    if (!order) return c.json({error: {code: 'not_found', message: 'unknown order'}}, 404);
    const attempts = (await store.listAttempts(orderRef)).map(publicAttempt);
    return c.json({order, attempts, operations: await store.listOperations(orderRef)});
  });
}

/** `/admin/api/orders`: the list, one order, and the actions on its payments. */
export function ordersArea(deps: AreaDeps): Hono {
  const {client, store, shop, checkout, logger} = deps;
  const orders = new Hono();

  orders.get('/', async function adminOrders(c) {
    const rows = await Promise.all(
      (await shop.list(200)).map(async (o) => {
        const attempts = await store.listAttempts(o.orderRef);
        const last = attempts.at(-1);
        return {
          ...o,
          attempts: attempts.length,
          state: attempts.find((a) => a.state === 'success')
            ? 'success'
            : last
              ? attemptLabel(last.state)
              : 'new',
          hosted: last ? last.attemptId.startsWith('hosted-') : false,
        };
      }),
    );
    return c.json({orders: rows});
  });

  orders.get('/:orderRef', async function adminOrderDetail(c) {
    const orderRef = c.req.param('orderRef');
    const order = await shop.get(orderRef);
    if (!order) return c.json({error: {code: 'not_found', message: 'unknown order'}}, 404);
    const attempts = await store.listAttempts(orderRef);
    const gateway = await Promise.all(
      attempts
        .filter((a) => a.state !== 'creating')
        .map(async (a) => {
          try {
            return {
              gatewayOrderId: a.gatewayOrderId,
              // Sent without their cc_token (`withoutCardTokens`, answers.ts).
              transactions: await client.getOrder(a.gatewayOrderId),
            };
          } catch (error) {
            return {
              gatewayOrderId: a.gatewayOrderId,
              error: error instanceof Error ? error.message : 'lookup failed',
            };
          }
        }),
    );
    return c.json({
      order,
      attempts: attempts.map(publicAttempt),
      operations: (await store.listOperations(orderRef)).map(({raw: _raw, ...op}) => op),
      // Captures, voids and refunds as the companion stored them (reason `duplicate_charge`:
      // an automatic refund of a double charge).
      intents: (await store.listIntents(orderRef)).map(
        ({baseline: _b, fingerprint: _f, ...intent}) => intent,
      ),
      gateway,
    });
  });

  orders.post('/:orderRef/actions', async function adminOrderAction(c) {
    const orderRef = c.req.param('orderRef');
    const parsed = ActionBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return invalid(c, parsed.error);
    const body = parsed.data;
    const attempt = (await store.listAttempts(orderRef)).find(
      (a) => a.gatewayOrderId === body.gatewayOrderId,
    );
    if (!attempt) {
      return c.json({error: {code: 'not_found', message: 'no such payment for this order'}}, 404);
    }
    try {
      let result: unknown;
      switch (body.action) {
        // Money moves through the companion: exactly once per key, serialised per order,
        // never more than was paid or held (see docs/guides/reliability.md).
        case 'capture':
        case 'refund':
          result = await checkout[body.action]({
            orderRef,
            key: body.key,
            gatewayOrderId: attempt.gatewayOrderId,
            ...(body.amount ? {amount: body.amount} : {}),
          });
          break;
        case 'void':
          result = await checkout.void({
            orderRef,
            key: body.key,
            gatewayOrderId: attempt.gatewayOrderId,
          });
          break;
        case 'cancel':
          result = await client.cancelOrder(attempt.gatewayOrderId);
          break;
        case 'resend':
          result =
            (await client.resendWebhook(
              attempt.gatewayOrderId,
              body.operation ?? attempt.method,
              body.transactionId ? {transactionId: body.transactionId} : {},
            )) ?? null;
          break;
      }
      logger.info(
        {orderRef, action: body.action, gatewayOrderId: attempt.gatewayOrderId},
        'back office action',
      );
      if (body.action === 'cancel' || body.action === 'resend') {
        // Update the companion's view at once; the gateway's webhook confirms it too.
        await checkout.reconcile(orderRef).catch(() => undefined);
      }
      return c.json({ok: true, result});
    } catch (error) {
      if (error instanceof CheckoutError) {
        return c.json(error.toBody(), error.status as 400, {'Cache-Control': 'no-store'});
      }
      return gatewayFailure(c, error, logger);
    }
  });

  return orders;
}
