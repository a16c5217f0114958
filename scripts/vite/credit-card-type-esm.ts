/**
 * credit-card-type's modules (the brand table and the matching steps src/validation/brand.ts
 * imports) are CommonJS as TypeScript emits it. Rolldown would wrap each in its CommonJS
 * runtime (`__commonJS`, `__toESM`, `__copyProps`: ~200 B gzip in the CDN bundle, and a
 * lazy `require_*()` call at first use). Those modules use four forms only, rewritten here
 * to the ES module they stand for:
 *
 *   "use strict";  Object.defineProperty(exports, "__esModule", { value: true });  → dropped
 *   exports.name = name;                     → export {name};
 *   var x_1 = require("./x");                → import * as x_1 from "./x.js";
 *   module.exports = table;                  → export default table;
 *
 * Anything else CommonJS left in such a module (a new release written otherwise) is a build
 * error naming the module, never a silently broken bundle.
 *
 * The brand table itself (card-types.js, 1.3 kB gzip of the CDN file) is written as rows
 * given to one small function instead of fifteen object literals that repeat every key and
 * each brand's name twice: the same objects, built when the module runs (test/node/build/
 * credit-card-type-esm.test.ts compares them with the package's). Should an entry ever
 * have another shape, the table stays as written.
 */
import type {Plugin} from 'vite';

const MODULE = /[\\/]credit-card-type[\\/]dist[\\/]lib[\\/][\w-]+\.js$/;

/** The keys of a table entry and of its `code`, in their order (JSON clones keep it). */
const ENTRY_KEYS = 'niceType,type,patterns,gaps,lengths,code';
const CODE_KEYS = 'name,size';

interface Entry {
  niceType: string;
  type: string;
  patterns: unknown;
  gaps: unknown;
  lengths: unknown;
  code: {name: string; size: number};
}

/** card-types.js as calls of `card(...)`, or undefined when an entry has another shape. */
function compactTable(code: string): string | undefined {
  const module = {exports: {} as Record<string, Entry>};
  // The package's own data module: it defines one object and assigns it, nothing else.
  new Function('module', 'exports', code)(module, module.exports);
  const entries = Object.entries(module.exports);
  const regular = entries.every(
    ([key, e]) =>
      Object.keys(e).join() === ENTRY_KEYS &&
      Object.keys(e.code).join() === CODE_KEYS &&
      e.type === key,
  );
  if (!regular || entries.length === 0) return undefined;
  const json = JSON.stringify;
  const rows = entries.map(([, e]) =>
    json([e.type, e.niceType, e.patterns, e.gaps, e.lengths, e.code.name, e.code.size]),
  );
  return [
    'const card = (type, niceType, patterns, gaps, lengths, name, size) =>',
    '  [type, {niceType, type, patterns, gaps, lengths, code: {name, size}}];',
    `export default Object.fromEntries([\n  ${rows.join(',\n  ')},\n].map((row) => card(...row)));`,
  ].join('\n');
}

/** The ES module text of one of credit-card-type's lib modules; throws on any other form. */
export function creditCardTypeToEsm(code: string, id: string): string {
  if (/[\\/]card-types\.js$/.test(id)) {
    const compact = compactTable(code);
    if (compact !== undefined) return compact;
  }
  const esm = code
    .replace(/^"use strict";\s*$/m, '')
    .replace(/^Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);\s*$/m, '')
    .replace(/^exports\.(\w+) = \1;\s*$/gm, 'export {$1};')
    .replace(/^var (\w+) = require\("(\.\/[\w-]+)"\);\s*$/gm, 'import * as $1 from "$2.js";')
    .replace(/^module\.exports = (\w+);\s*$/m, 'export default $1;');
  if (/\b(?:exports|require|module)\b/.test(esm)) {
    throw new Error(
      `${id}: CommonJS this build does not rewrite (scripts/vite/credit-card-type-esm.ts)`,
    );
  }
  return esm;
}

/** The plugin: credit-card-type's lib modules as ES modules. */
export function creditCardTypeEsm(): Plugin {
  return {
    name: 'pg-credit-card-type-esm',
    enforce: 'pre',
    transform(code, id) {
      return MODULE.test(id) ? {code: creditCardTypeToEsm(code, id), map: null} : undefined;
    },
  };
}
