/**
 * card-validator and credit-card-type, the card rules the form runs (src/validation/), are
 * CommonJS as TypeScript emits it. This plugin gives every build their modules as the ES
 * modules they stand for, and gives the npm browser build a way to carry card-validator
 * that both kinds of consumer can read.
 *
 * The rewrite. Rolldown would wrap each CommonJS module in its runtime (`__commonJS`,
 * `__toESM`, `__copyProps`: ~200 B gzip in the CDN bundle, and a lazy `require_*()` call at
 * first use). These modules use a handful of forms only, rewritten here:
 *
 *   "use strict";  Object.defineProperty(exports, "__esModule", { value: true });  → dropped
 *   var __assign = (this && this.__assign) || function () { … };  → var __assign = Object.assign;
 *   Array.isArray || function (arg) { … };   → Array.isArray;  (ES5 and later have both)
 *   exports.name = name;                     → export {name};
 *   exports.name = void 0;                   → dropped
 *   exports.name = <expression>;             → var name = <expression>; … export {name};
 *   var x_1 = require("./x");                → import * as x_1 from "./x.js";
 *   var x = require("x");                    → import x from "x";
 *   module.exports = table;                  → export default table;
 *
 * TypeScript names the variable of an ES-style import `x_1` (used as `x_1.name`) and that of
 * an `import x = require()` plain `x` (the module's `module.exports`), which is how the
 * rewrite tells a namespace from a default import. Anything else CommonJS left in such a
 * module (a new release written otherwise) is a build error naming the module, never a
 * silently broken bundle.
 *
 * The npm browser build. card-validator is a dependency of the package (package.json), so
 * the browser build leaves it an import (vite.config.ts). Node, webpack, Vite and esbuild
 * read its CommonJS; Rollup with node-resolve alone does not, and the package promises that
 * Rollup needs no CommonJS plugin. So the browser build also writes card-validator's
 * modules, as rewritten here, under dist/browser/vendor/card-validator/, and its imports of
 * `card-validator/dist/x.js` become `#card-validator/x.js`, which package.json "imports"
 * resolves: under the `node` condition to the installed card-validator itself (server-side
 * rendering, `pg-checkout/validation` on a server: an `npm update` brings its fixes at once),
 * anywhere else (every bundler, a browser) to those ES modules, built from the
 * card-validator installed when the package was built.
 *
 * The brand table itself (card-types.js, 1.3 kB gzip of the CDN file) is written as rows
 * given to one small function instead of fifteen object literals that repeat every key and
 * each brand's name twice: the same objects, built when the module runs (test/node/build/
 * credit-card-type-esm.test.ts compares them with the package's). Should an entry ever
 * have another shape, the table stays as written.
 */
import {createRequire} from 'node:module';
import type {Plugin} from 'vite';

/** A CommonJS module of credit-card-type or card-validator, as published. */
const MODULE = /[\\/](?:credit-card-type|card-validator)[\\/]dist[\\/](?:lib[\\/])?[\w-]+\.js$/;

/** card-validator's modules as the sources import them, and as the browser build names them. */
const CARD_VALIDATOR = /(["'])card-validator\/dist\/([\w/-]+\.js)\1/g;
/** The package.json "imports" key that stands for `card-validator/dist/`. */
export const CARD_VALIDATOR_IMPORT = '#card-validator/';
/** Where the npm browser build writes them, as package.json "imports" names it for bundlers. */
const VENDOR = 'vendor/card-validator/dist/';

/** TypeScript's ES5 `__assign` helper, as tsc writes it: `Object.assign` where there is one. */
const ASSIGN_HELPER =
  /^var __assign = \(this && this\.__assign\) \|\| function \(\) \{\n {4}__assign = Object\.assign \|\| function\(t\) \{\n[^]*?\n {4}return __assign\.apply\(this, arguments\);\n\};\n/m;

/** card-validator's `Array.isArray` for engines without one (ES3), as tsc left it. */
const IS_ARRAY_POLYFILL =
  /Array\.isArray \|\|\n {4}function \(arg\) \{\n {8}return Object\.prototype\.toString\.call\(arg\) === "\[object Array\]";\n {4}\};/;

/** Written at the top of each of card-validator's modules the browser build carries. */
const NOTICE = '/*! card-validator | MIT | (c) Braintree */\n';

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

/** The ES module text of one of the packages' CommonJS modules; throws on any other form. */
export function creditCardTypeToEsm(code: string, id: string): string {
  if (/[\\/]card-types\.js$/.test(id)) {
    const compact = compactTable(code);
    if (compact !== undefined) return compact;
  }
  const assigned: string[] = [];
  let esm = code
    .replace(/^"use strict";\s*$/gm, '')
    .replace(/^Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);\s*$/m, '')
    // TypeScript's `__assign` is `Object.assign` written out for ES5 (twice in the CDN
    // file otherwise); its other helpers look for a copy on `this`, which an ES module
    // does not have.
    .replace(ASSIGN_HELPER, 'var __assign = Object.assign;\n')
    .replace(IS_ARRAY_POLYFILL, 'Array.isArray;')
    .replace(/^var (__\w+) = \(this && this\.\1\) \|\| /gm, 'var $1 = ')
    .replace(/^exports\.(\w+) = \1;\s*$/gm, 'export {$1};')
    .replace(/^exports\.\w+ = void 0;\s*$/gm, '')
    .replace(/^exports\.(\w+) = /gm, (_, name: string) => {
      assigned.push(name);
      return `var ${name} = `;
    })
    .replace(
      /^var (\w+) = require\("((?:\.{1,2}\/)[\w/-]+|[\w-]+)"\);\s*$/gm,
      (_, name: string, from: string) => {
        const file = from.startsWith('.') ? `${from}.js` : from;
        return /_\d+$/.test(name)
          ? `import * as ${name} from "${file}";`
          : `import ${name} from "${file}";`;
      },
    )
    .replace(/^module\.exports = (\w+);\s*$/m, 'export default $1;');
  if (assigned.length > 0) esm += `\nexport {${assigned.join(', ')}};\n`;
  if (/\b(?:exports|require|module)\b/.test(esm)) {
    throw new Error(
      `${id}: CommonJS this build does not rewrite (scripts/vite/credit-card-type-esm.ts)`,
    );
  }
  return esm;
}

/** `card-validator/dist/x.js` in a built module → `#card-validator/x.js`. */
export function toCardValidatorImports(code: string): string {
  return code.replace(CARD_VALIDATOR, (_, quote: string, file: string) => {
    return `${quote}${CARD_VALIDATOR_IMPORT}${file}${quote}`;
  });
}

/**
 * The plugin: the packages' modules as ES modules in every build; in the npm browser build
 * (production), card-validator's modules the sources import written under vendor/ and
 * imported through package.json "imports".
 */
export function creditCardTypeEsm(): Plugin {
  const require = createRequire(import.meta.url);
  /** Set in the npm browser build: where each build writes card-validator's modules. */
  let browserLibrary: {emit: boolean} | undefined;
  const emitted = new Set<string>();
  return {
    name: 'pg-credit-card-type-esm',
    enforce: 'pre',
    configResolved(config) {
      if (config.build.lib && !config.build.ssr) {
        // The development build imports the same files (package.json "imports"): the
        // production build alone writes them.
        browserLibrary = {emit: config.define?.['__PG_DEV__'] !== 'true'};
      }
    },
    buildStart() {
      emitted.clear();
    },
    transform(code, id) {
      if (MODULE.test(id)) return {code: creditCardTypeToEsm(code, id), map: null};
      if (browserLibrary?.emit && !id.includes('node_modules')) {
        // A source module importing card-validator: its modules go into the build too.
        for (const [, , file] of code.matchAll(CARD_VALIDATOR)) {
          if (emitted.has(file!)) continue;
          emitted.add(file!);
          // Named here, where package.json "imports" looks for it, wherever node_modules
          // is (a symlink to another folder, as test:pack's copy of the tree has it).
          this.emitFile({
            type: 'chunk',
            id: require.resolve(`card-validator/dist/${file}`),
            fileName: `${VENDOR}${file}`,
            preserveSignature: 'strict',
          });
        }
      }
      return undefined;
    },
    renderChunk(code, chunk) {
      if (!browserLibrary) return null;
      // The notice card-validator's licence asks for, as vite.config.ts's BUILT_IN adds
      // credit-card-type's.
      if (/(?:^|\/)card-validator\/dist\//.test(chunk.fileName))
        return {code: NOTICE + code, map: null};
      const rewritten = toCardValidatorImports(code);
      return rewritten === code ? null : {code: rewritten, map: null};
    },
  };
}
