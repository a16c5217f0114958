/**
 * The one build of pg-checkout (Vite 8, Rolldown): one target per mode, all here.
 * `npm run build` (scripts/build.mjs) builds every target in turn, then the declarations
 * (tsc) and custom-elements.json.
 *
 *   vite build                     → dist/browser/              the npm browser library
 *   vite build --mode development  → dist/browser/development/  the same, `development` condition
 *   vite build --mode node         → dist/server/, dist/protocol/, dist/rules/, dist/sandbox/
 *   vite build --mode cdn          → dist/cdn/pg-checkout.js (+ .sri, .integrity.json)
 *   vite build --mode cdn-hydrate  → dist/cdn/pg-checkout-hydrate.js, for server-rendered pages,
 *                                    and pg-checkout-hydrate-after-paint.js, which loads it
 *   vite build --mode demo         → dist/demo/                 the demo pages' scripts
 *
 * browser: unbundled ES modules, one per source module (so `sideEffects` can name the
 *   modules that define elements and bundlers can tree-shake the rest). What package.json
 *   declares (`lit`, and the optional peers) stays an import for the merchant's bundler;
 *   credit-card-type's CommonJS modules (the brand table card-validator reads) are built in
 *   as ES modules (dist/browser/vendor/, rewritten by scripts/vite/credit-card-type-esm.ts), so no bundler needs a CommonJS plugin (plain Rollup
 *   has none) and a browser-only install downloads Lit alone. Any other package imported is a build error. The entries are the
 *   browser subpaths of package.json "exports" (`.`, `./fingerprint`, ...): each `import`
 *   target `./dist/browser/<name>.js` is built from `src/<name>.ts`. Two builds of the same
 *   modules, as Lit ships them (src/internal/dev-mode.ts): `__PG_DEV__` = false (the
 *   development checks and warnings are dead code, dropped) and, for `development`, true.
 * node: `pg-checkout/server` (src/server, with the src/protocol schemas and src/rules field
 *   rules it shares with the
 *   browser) and `pg-checkout/sandbox` with its bin, one module per source module, the
 *   sandbox importing the published `../server/...`; plus the entries that check the
 *   optional peers first (scripts/vite/guarded-entries.ts). The brand rule the server
 *   shares with the form (src/validation/brand.ts) and credit-card-type's table are built
 *   in under dist/server/vendor/, as ES modules, as in the browser library.
 * cdn: one minified ES module with Lit and credit-card-type's brand table inside, Lit templates minified
 *   too (scripts/vite/minify-templates.ts), development checks off, SRI hash and gzip
 *   budget (scripts/vite/subresource-integrity.ts); beside it what loads on demand, pinned
 *   by hashes the bundle carries: dist/cdn/locales/ (JSON, scripts/vite/pinned-locales.ts)
 *   and, for pg-checkout.js, the saved-card view (saved-cards-<hash>.js,
 *   scripts/vite/pinned-modules.ts).
 * demo: each page script (demo/scripts/<page>.ts) one self-contained minified file, which
 *   server-example serves under /demo/js/; the pages load the elements from dist/cdn.
 */
import {readFileSync, readdirSync, rmSync} from 'node:fs';
import path from 'node:path';
import {defineConfig, type Plugin, type UserConfig} from 'vite';
import {creditCardTypeEsm} from './scripts/vite/credit-card-type-esm.js';
import {everyModuleMapped} from './scripts/vite/every-module-mapped.js';
import {guardedEntries} from './scripts/vite/guarded-entries.js';
import {minifyTemplatesPlugin} from './scripts/vite/minify-templates.js';
import {isNodeBuiltin, packageOf} from './scripts/vite/packages.js';
import {afterPaintLoader} from './scripts/vite/after-paint-loader.js';
import {pinnedLocalesPlugin} from './scripts/vite/pinned-locales.js';
import {pinnedModulesPlugin} from './scripts/vite/pinned-modules.js';
import {scriptInventory} from './scripts/vite/script-inventory.js';
import {subresourceIntegrity} from './scripts/vite/subresource-integrity.js';

type ExportTarget = string | {[condition: string]: string};
interface PackageJson {
  version: string;
  exports: Record<string, ExportTarget>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as PackageJson;

/**
 * Gzip budget of the CDN file, in bytes: 28 kB with the English texts, card-validator and
 * everything every page runs (#26, #27). Every other locale loads as data, and the
 * saved-card view, which few pages show, as a pinned file of its own: both outside the
 * budget, both checked against hashes the file carries. 64 bytes over 28 KiB since #35 and
 * #39: the form's "already paid" answer and a refused language leaving the whole form in
 * English cost 93 B gzip, of which the budget gave up 64 rather than the behaviour.
 * #36 and #37 gave up 832 B more: the card form as a state machine (one state value moved
 * by a pure transition function, its events read off a table of transitions, the element
 * split by job to fit 400 lines) cost 799 B gzip, and the W3C `traceparent` the form sends
 * so a trace starts at the customer's Pay 39 B. Both are promises of their issues; the
 * budget gave way rather than them.
 */
const CDN_BUDGET_GZIP = 28 * 1024 + 64 + 832;

/**
 * Gzip budget of dist/cdn/pg-checkout-hydrate.js: the CDN file's 28 kB plus what only it
 * carries, 3 kB: Lit's hydration support and its templates left as written (about 1.8 kB),
 * and the saved-card view built in (1.2 kB; its after-paint loader has created the one
 * Trusted Types policy `pg-checkout` a page may have, so this file loads no script of its
 * own). It arrives after the page's first paint, the form already typeable. +832 B since
 * #36 and #37, as for the CDN file (the card form's state machine, the `traceparent`).
 */
const CDN_HYDRATE_BUDGET_GZIP = 31 * 1024 + 832;

/**
 * Gzip budget of dist/cdn/pg-checkout-hydrate-after-paint.js (src/hydrate-after-paint.ts),
 * the loader of pg-checkout-hydrate.js on server-rendered pages: about 1.4 kB. 0.85 kB loads
 * the module; 0.35 kB (#35) is what a page does when it cannot have it: the form turned
 * off with the customer told why (0.06 kB of it the English text of a form rendered without
 * `renderCardForm`), and the report to the companion; 0.15 kB (#38) keeps a Pay pressed
 * while the module is on its way, which was lost unseen.
 */
const CDN_AFTER_PAINT_BUDGET_GZIP = 1440;

/**
 * V8's explicit compile hint (Chrome 136 and later; other engines read a comment): compile
 * every function of the file while it streams in, on a background thread, instead of each
 * one on the main thread the first time it is called. Nearly all of the bundle runs before
 * the card form takes input (Lit, the element's set-up and first render). Traced in
 * Chromium (bench/elements-interactive.bench.ts's page, thread time): lazy compiling was
 * about 5 ms of the 13 ms the card form adds to the main thread's work over a plain form,
 * and goes to under 0.3 ms; the streaming compile, off the main thread, grows from about 5
 * to 11 ms. 30 B.
 *
 * Not on pg-checkout-hydrate.js: on a server-rendered page the fields are typeable before
 * any script runs, and the eager compile of its whole file, arriving meanwhile, is CPU the
 * page's first style, layout and paint share two cores with (traced, thread time of the
 * renderer's other threads before the number field takes focus: plain form 6 ms, the
 * server-rendered page with the hint 18 ms, without it 12 ms). Its functions compile when
 * hydration first calls them.
 */
const COMPILE_HINT = '//# allFunctionsCalledOnLoad';

/** The demo pages whose scripts are built (demo/scripts/<page>.ts → dist/demo/<page>.js). */
const DEMO_PAGES = ['checkout', 'result', 'admin'] as const;

/** Packages built into dist/browser, with the notice their licence asks for. */
const BUILT_IN: Readonly<Record<string, string>> = {
  'credit-card-type': '/*! credit-card-type | MIT | (c) Braintree */',
  '@oxc-project/runtime': '',
};

const isLocal = (id: string) => id.startsWith('.') || id.startsWith('/') || id.startsWith('\0');
const isDeclared = (name: string) =>
  Boolean(pkg.dependencies?.[name] || pkg.peerDependencies?.[name]);

/** Browser library: declared packages stay imports; built-in ones are bundled; else an error. */
function browserExternal(id: string): boolean {
  if (isLocal(id)) return false;
  const name = packageOf(id);
  if (isDeclared(name)) return true;
  if (name in BUILT_IN) return false;
  throw new Error(
    `the browser build imports ${id}: declare ${name} in package.json (dependencies or peerDependencies) or build it in (BUILT_IN in vite.config.ts)`,
  );
}

/**
 * Node library: Node's modules and declared packages stay imports; credit-card-type (the
 * brand table src/server/card-brand.ts reads through src/validation/brand.ts) is
 * built in, as in the browser library; anything else is an error.
 */
function nodeExternal(id: string): boolean {
  if (isLocal(id)) return false;
  if (isNodeBuiltin(id) || isDeclared(packageOf(id))) return true;
  if (packageOf(id) === 'credit-card-type') return false;
  throw new Error(
    `the server build imports ${id}: declare ${packageOf(id)} in package.json (peerDependencies)`,
  );
}

/**
 * Where the Node library writes a module (without `.js`), from its source file (`name`
 * when it has none): where that is relative to the package's folder.
 */
function nodeOutputName(chunk: {name: string; facadeModuleId: string | null}): string {
  const file = chunk.facadeModuleId;
  const name =
    file && path.isAbsolute(file)
      ? path
          .relative(process.cwd(), file)
          .replaceAll('\\', '/')
          .replace(/\.[cm]?[jt]s$/, '')
      : chunk.name;
  const vendored = /(?:^|\/)node_modules\/(.+)$/.exec(name)?.[1];
  if (vendored !== undefined) return `server/vendor/${vendored}`;
  if (name.startsWith('src/validation/')) return `server/vendor/${name.slice(4)}`;
  return name.replace(/^src\//, '');
}

/** `{'index': 'src/index.ts', 'fingerprint/collect': 'src/fingerprint/collect.ts', ...}`. */
function browserEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const target of Object.values(pkg.exports)) {
    const file =
      typeof target === 'string'
        ? target
        : (target['import'] ?? target['node'] ?? target['default']);
    const name = /^\.\/dist\/browser\/(?!development\/)(.+)\.js$/.exec(file ?? '')?.[1];
    if (name) entries[name] = `src/${name}.ts`;
  }
  return entries;
}

/** Every `.ts` module under src/server, src/protocol, src/rules and sandbox, by its path without `.ts`. */
function nodeEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const dir of ['src/server', 'src/protocol', 'src/rules', 'sandbox']) {
    for (const file of readdirSync(dir, {recursive: true, encoding: 'utf8'})) {
      if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
        const module = `${dir}/${file.replaceAll('\\', '/')}`;
        entries[module.slice(0, -3)] = module;
      }
    }
  }
  return entries;
}

/** Options every target shares. */
const common = {
  publicDir: false,
  logLevel: 'warn',
} satisfies UserConfig;

function browserLibrary(development: boolean): UserConfig {
  return {
    ...common,
    // No locale pins: the locales are modules, which the merchant's bundler splits.
    define: {
      __PG_DEV__: JSON.stringify(development),
      'globalThis.__PG_LOCALE_PINS__': 'undefined',
      'globalThis.__PG_SAVED_CARDS_PIN__': 'undefined',
    },
    plugins: [creditCardTypeEsm()],
    build: {
      outDir: development ? 'dist/browser/development' : 'dist/browser',
      emptyOutDir: false,
      // Source maps for the development build only, with the sources' text inside
      // (sourcesContent): it is what a dev server (Vite, webpack in development) serves, so a
      // browser's debugger shows the TypeScript without the files, which are not published.
      // The production modules are the same readable, unminified code, one per source
      // module; their maps (0.41 MB of a browser-only install) would serve only a production
      // bundle's own map, and would make Node (pg-checkout/ssr, --enable-source-maps) name
      // src/….ts files the package does not have, as the Node library's would.
      sourcemap: development,
      minify: false,
      target: 'es2022',
      lib: {entry: browserEntries(), formats: ['es']},
      rolldownOptions: {
        external: browserExternal,
        output: {
          preserveModules: true,
          preserveModulesRoot: 'src',
          // npm never publishes a folder named node_modules: built-in packages go to vendor/.
          entryFileNames: (chunk) => `${chunk.name.replace(/^node_modules\//, 'vendor/')}.js`,
          banner: (chunk) =>
            Object.entries(BUILT_IN).find(([name]) =>
              chunk.fileName.startsWith(`vendor/${name}/`),
            )?.[1] ?? '',
        },
      },
    },
  };
}

function nodeLibrary(): UserConfig {
  return {
    ...common,
    plugins: [
      creditCardTypeEsm(),
      everyModuleMapped(),
      guardedEntries(
        [
          {dir: 'server', subpath: 'pg-checkout/server'},
          {dir: 'sandbox', subpath: 'pg-checkout/sandbox'},
        ],
        pkg,
      ),
    ],
    // An SSR build leaves every package an import unless told otherwise.
    ssr: {noExternal: ['credit-card-type']},
    build: {
      ssr: true,
      outDir: 'dist',
      emptyOutDir: false,
      // No source maps: Node maps a stack frame to the map's source path (src/server/….ts),
      // a file the package does not publish, even with the text inside the map. Without
      // them a stack trace names dist/…/*.js, unminified, one module per source module.
      sourcemap: false,
      minify: false,
      target: 'es2022',
      rolldownOptions: {
        // Every module, as tsc emits them: a module that only re-exports (src/server/gateway/
        // index.ts) would otherwise be folded into its importers and miss from the layout.
        input: nodeEntries(),
        external: nodeExternal,
        output: {
          preserveModules: true,
          // src/server → dist/server, src/protocol → dist/protocol, src/rules → dist/rules,
          // sandbox → dist/sandbox:
          // the sandbox's imports of ../src/server/... come out as ../server/...
          // The browser modules the server shares (src/validation/brand.ts) and the package
          // built in go to dist/server/vendor/, which "files" publishes.
          entryFileNames: (chunk) => `${nodeOutputName(chunk)}.js`,
          banner: (chunk) =>
            Object.entries(BUILT_IN).find(([name]) =>
              chunk.fileName.startsWith(`server/vendor/${name}/`),
            )?.[1] ?? '',
        },
      },
    },
  };
}

/**
 * Vite wraps each dynamic `import()` of a page build in a helper that preloads the chunk's
 * own imports and CSS through `<link>` elements (600 B gzip). The CDN's only chunks are the
 * locale tables (src/i18n/catalogue.ts), which import nothing: the import alone does.
 */
function bareDynamicImports(): Plugin {
  const helper = '\0vite/preload-helper.js';
  return {
    name: 'pg-bare-dynamic-imports',
    enforce: 'pre',
    resolveId: (id) => (id === helper ? helper : undefined),
    load: (id) => (id === helper ? 'export const __vitePreload = (load) => load();' : undefined),
  };
}

/**
 * `hydrate`: the CDN file of pages rendered on the server (`pg-checkout/ssr`), beside
 * pg-checkout.js: the same elements with Lit's hydration support (src/hydrate.ts). Its
 * templates are not minified: hydration matches them against the server's, which come from
 * dist/browser as written.
 */
function cdnBundle(hydrate = false): UserConfig {
  const fileName = hydrate ? 'pg-checkout-hydrate.js' : 'pg-checkout.js';
  return {
    ...common,
    define: {
      __PG_DEV__: 'false',
      // The hydrating file builds the saved-card view in (src/card-form/order-details.ts);
      // the other hydrates nothing (src/i18n/messages.ts, LocaleController).
      ...(hydrate
        ? {'globalThis.__PG_SAVED_CARDS_PIN__': 'undefined'}
        : {'globalThis.__PG_NO_HYDRATION__': 'true'}),
    },
    resolve: {conditions: ['module', 'browser', 'production']},
    plugins: [
      creditCardTypeEsm(),
      ...(hydrate ? [] : [minifyTemplatesPlugin()]),
      bareDynamicImports(),
      // The locales but English (built in), as JSON files the bundle pins by their hashes.
      pinnedLocalesPlugin({dir: 'src/i18n/locales', builtIn: ['en']}),
      // The saved-card view, which few pages show, as a pinned file beside pg-checkout.js.
      ...(hydrate
        ? []
        : [
            pinnedModulesPlugin([
              {
                source: 'src/card-form/saved-cards/saved-cards-view.ts',
                name: 'saved-cards',
                define: '__PG_SAVED_CARDS_PIN__',
              },
            ]),
          ]),
      subresourceIntegrity({
        fileName,
        budgetGzip: hydrate ? CDN_HYDRATE_BUDGET_GZIP : CDN_BUDGET_GZIP,
      }),
      ...(hydrate
        ? [
            afterPaintLoader({
              source: 'src/hydrate-after-paint.ts',
              hydrateFile: fileName,
              fileName: 'pg-checkout-hydrate-after-paint.js',
              budgetGzip: CDN_AFTER_PAINT_BUDGET_GZIP,
            }),
          ]
        : []),
      // Last: the inventory of every file beside the bundle, from what is on disk.
      scriptInventory({version: pkg.version}),
    ],
    build: {
      outDir: 'dist/cdn',
      // The hydrating file is built second, beside the first.
      emptyOutDir: !hydrate,
      // No preload helper around the locales' `import()`: each is one file with no imports.
      modulePreload: false,
      sourcemap: false,
      minify: true,
      target: 'es2022',
      // Not library mode: Vite leaves the whitespace of a library's ES output unminified.
      rolldownOptions: {
        input: hydrate ? 'src/hydrate.ts' : 'src/index.ts',
        preserveEntrySignatures: 'strict',
        // The template minifier parses with TypeScript and the SRI step compresses at the
        // highest levels: both slower than Rolldown's own work by design, not worth a warning.
        checks: {bundlerTimings: false},
        output: {
          entryFileNames: fileName,
          // One file: every module the elements load on demand (the brand marks, the order
          // request, the 3-D Secure dialog's styles) is built in, so the hash of the page's
          // one `<script>` covers the code that runs. What loads later is checked against
          // hashes in the bundle: the locales, as JSON (pinnedLocalesPlugin), and in
          // pg-checkout.js the saved-card view, by a `<script integrity>` (pinnedModulesPlugin).
          codeSplitting: false,
          comments: {legal: false},
          // After minification, which would drop it with Lit's own licence comments; on the
          // bundle only, as the chunks hold our code alone. Then V8's compile hint (see
          // COMPILE_HINT): on the client-rendering bundle only, as the chunks' code runs later
          // or never.
          postBanner: (chunk) =>
            chunk.isEntry
              ? `/*! pg-checkout | MIT | bundles Lit (BSD-3-Clause, Google LLC) and credit-card-type (MIT, Braintree) */${hydrate ? '' : `\n${COMPILE_HINT}`}`
              : '',
        },
      },
    },
  };
}

/**
 * One environment per page, built one after the other by `builder.buildApp`: a single
 * Rolldown build of several entries would move the code they share (demo/scripts/dom.ts)
 * into a chunk of its own, and each page script is meant to be one file.
 */
function demoScripts(): UserConfig {
  const environment = (page: string) => `demo_${page}`;
  return {
    ...common,
    environments: Object.fromEntries(
      DEMO_PAGES.map((page) => [
        environment(page),
        {
          consumer: 'client',
          build: {
            outDir: 'dist/demo',
            emptyOutDir: false,
            sourcemap: true,
            minify: true,
            target: 'es2022',
            rolldownOptions: {
              input: {[page]: `demo/scripts/${page}.ts`},
              output: {entryFileNames: '[name].js', codeSplitting: false},
            },
          },
        },
      ]),
    ),
    builder: {
      async buildApp(builder) {
        rmSync('dist/demo', {recursive: true, force: true});
        for (const page of DEMO_PAGES) {
          const env = builder.environments[environment(page)];
          if (!env) throw new Error(`no environment for the demo page ${page}`);
          await builder.build(env);
        }
      },
    },
  };
}

export default defineConfig(({mode}) => {
  switch (mode) {
    case 'production':
      return browserLibrary(false);
    case 'development':
      return browserLibrary(true);
    case 'node':
      return nodeLibrary();
    case 'cdn':
      return cdnBundle();
    case 'cdn-hydrate':
      return cdnBundle(true);
    case 'demo':
      return demoScripts();
    default:
      throw new Error(
        `vite.config.ts has no target "${mode}" (production, development, node, cdn, cdn-hydrate, demo)`,
      );
  }
});
