/**
 * `pg-checkout/server`: the merchant's side. The gateway model (zod schemas), request
 * authentication strategies, webhook signing and verification, the typed
 * `GatewayClient` for every gateway endpoint, and the checkout companion
 * (`createCheckoutApp`, its payment stores, errors and logging).
 */
export * from './gateway/index.js';
export * from './checkout/index.js';
export * from '../protocol/schemas.js';
