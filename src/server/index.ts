/**
 * `pg-checkout/server`: the merchant's side. The gateway model (zod schemas), request
 * authentication strategies, webhook signing and verification, and the typed
 * `GatewayClient` for every gateway endpoint.
 */
export * from './gateway/index.js';
