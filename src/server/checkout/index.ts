/** The merchant companion: the checkout app, its stores, errors and logging. */
export * from './app.js';
export * from './errors.js';
export * from './logger.js';
export * from './memory-store.js';
export * from './options.js';
export * from './request.js';
export * from './security.js';
export * from './service/index.js';
export * from './sqlite-store.js';
export * from './store.js';
export * from './transition.js';
