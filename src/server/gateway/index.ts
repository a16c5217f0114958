/** The gateway core: its data model, authentication, webhooks, errors and client. */
export * from './primitives.js';
export * from './schemas.js';
export * from './errors.js';
export * from './auth.js';
export * from './webhook.js';
export * from './client/index.js';
