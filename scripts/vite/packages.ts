/**
 * How the build names what a module imports: the package of a bare import, and whether it
 * is one of Node's own modules. Shared by vite.config.ts's external checks and the guarded
 * entries (guarded-entries.ts).
 */
import {builtinModules} from 'node:module';

const NODE_BUILTIN = new Set(builtinModules);

/** `lit/decorators.js` → `lit`, `@hono/node-server/x` → `@hono/node-server`. */
export const packageOf = (id: string): string =>
  id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');

/** `node:fs`, `fs`, `http`: a module of Node itself, never a package. */
export const isNodeBuiltin = (id: string): boolean =>
  id.startsWith('node:') || NODE_BUILTIN.has(id);
