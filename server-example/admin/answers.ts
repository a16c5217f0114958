/**
 * What the back office's API areas share: the dependencies they are given, and the JSON
 * answers to an invalid request and to a failed gateway call.
 */
import type {Context, MiddlewareHandler} from 'hono';
import type * as z from 'zod';
import {
  GatewayError,
  GatewayNotFoundError,
  GatewayValidationError,
  GatewayRequestValidationError,
  type CheckoutApp,
  type GatewayClient,
  type CheckoutLogger,
  type PaymentStore,
  type SecurityReportStore,
  jsonWithoutToken,
} from '../../src/server/index.js';
import type {ShopOrders} from '../shop.js';
import type {WebhookLog} from '../webhook-log.js';

/** What the back office can do to the embedded sandbox. */
export interface SandboxControl {
  url: string;
  now(): Date;
  advance(ms: number): Promise<void>;
}

/** What every API area may use. */
export interface AreaDeps {
  client: GatewayClient;
  checkout: CheckoutApp;
  store: PaymentStore;
  shop: ShopOrders;
  webhookLog: WebhookLog;
  /** The pages' CSP violation reports (the companion's report route keeps them). */
  securityReports: SecurityReportStore;
  sandbox: SandboxControl | undefined;
  logger: CheckoutLogger;
}

/** A request that fails its schema: 400 naming the first field and its rule. */
export function invalid(c: Context, error: z.ZodError) {
  const issue = error.issues[0];
  const field = issue?.path.join('.') || '(body)';
  return c.json(
    {
      error: {
        code: 'invalid_request',
        message: `${field}: ${issue?.message ?? 'is invalid'}`,
        field,
      },
    },
    400,
  );
}

/** A gateway error as a JSON answer (its message is safe: values are never echoed). */
export function gatewayFailure(c: Context, error: unknown, logger: CheckoutLogger) {
  if (error instanceof GatewayRequestValidationError) {
    return c.json(
      {error: {code: 'invalid_request', message: error.message, issues: error.issues}},
      400,
    );
  }
  if (error instanceof GatewayValidationError) {
    return c.json(
      {
        error: {
          code: error.gatewayCode ?? error.code,
          message: `The gateway refused: ${error.message}`,
        },
      },
      409,
    );
  }
  if (error instanceof GatewayNotFoundError) {
    // The gateway answered, and says the id does not exist (N-404): not a failed call.
    return c.json(
      {
        error: {
          code: 'not_found',
          message: `The gateway does not know it: ${error.message}`,
        },
      },
      404,
    );
  }
  if (error instanceof GatewayError) {
    return c.json(
      {
        error: {
          code: error.gatewayCode ?? error.code,
          message: `The gateway call failed: ${error.message}`,
        },
      },
      502,
    );
  }
  logger.error(
    {error: error instanceof Error ? error.message : String(error)},
    'back office error',
  );
  return c.json(
    {error: {code: 'internal', message: 'Something went wrong; see the server log.'}},
    500,
  );
}

/**
 * Every JSON answer of the back office leaves without the gateway's `cc_token`, at any
 * depth: the gateway's records (an order's transactions, a period's, a register, a
 * subscription) carry one, and a card token never reaches a browser, staff's included.
 */
export const withoutCardTokens: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.get('Content-Type')?.startsWith('application/json')) return;
  const text = await c.res.clone().text();
  const redacted = jsonWithoutToken(text);
  if (redacted === text) return;
  const headers = new Headers(c.res.headers);
  headers.delete('Content-Length');
  c.res = new Response(redacted, {status: c.res.status, headers});
};
