/**
 * Vite library mode for the npm browser build: unbundled ES modules, one per source module
 * (so `sideEffects` can name the modules that define elements and bundlers can tree-shake
 * the rest). What package.json declares (`lit`, and the optional peers) stays an import for
 * the merchant's bundler; card-validator's CommonJS modules are built in as ES modules
 * (dist/browser/vendor/), so no bundler needs a CommonJS plugin (plain Rollup has none) and
 * a browser-only install downloads Lit alone. Any other package imported is a build error.
 * Declarations come from `tsc -p tsconfig.browser.json`; the CDN bundle (everything
 * inlined, minified, SRI-hashed) is built by scripts/build-browser.mjs.
 *
 * Two builds of the same modules, as Lit ships them (src/internal/dev-mode.ts):
 *   vite build                     → dist/browser/              `__PG_DEV__` = false: the
 *                                     development checks and warnings are dead code, dropped
 *   vite build --mode development  → dist/browser/development/  `__PG_DEV__` = true
 * The entries are the browser subpaths of package.json "exports" (`.`, `./fingerprint`,
 * `./validation`, ...): each `import` target `./dist/browser/<name>.js` is built from
 * `src/<name>.ts`.
 */
import {readFileSync} from 'node:fs';
import {defineConfig} from 'vite';

type ExportTarget = string | {[condition: string]: string};
interface PackageJson {
  exports: Record<string, ExportTarget>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as PackageJson;

/** Packages built into dist/browser, with the notice their licence asks for. */
const BUILT_IN: Readonly<Record<string, string>> = {
  'card-validator': '/*! card-validator | MIT | (c) Braintree */',
  'credit-card-type': '/*! credit-card-type | MIT | (c) Braintree */',
  '@oxc-project/runtime': '',
};

const packageOf = (id: string) =>
  id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');

/** Declared packages stay imports; built-in ones are bundled; anything else fails the build. */
function external(id: string): boolean {
  if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
  const name = packageOf(id);
  if (pkg.dependencies?.[name] || pkg.peerDependencies?.[name]) return true;
  if (name in BUILT_IN) return false;
  throw new Error(
    `the browser build imports ${id}: declare ${name} in package.json (dependencies or peerDependencies) or build it in (BUILT_IN in vite.config.ts)`,
  );
}

/** `{'index': 'src/index.ts', 'fingerprint/collect': 'src/fingerprint/collect.ts', ...}`. */
function browserEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const target of Object.values(pkg.exports)) {
    const file = typeof target === 'string' ? target : (target['import'] ?? target['default']);
    const name = /^\.\/dist\/browser\/(?!development\/)(.+)\.js$/.exec(file ?? '')?.[1];
    if (name) entries[name] = `src/${name}.ts`;
  }
  return entries;
}

export default defineConfig(({mode}) => {
  const development = mode === 'development';
  return {
    define: {__PG_DEV__: JSON.stringify(development)},
    build: {
      outDir: development ? 'dist/browser/development' : 'dist/browser',
      emptyOutDir: false,
      sourcemap: true,
      minify: false,
      target: 'es2022',
      lib: {entry: browserEntries(), formats: ['es']},
      rollupOptions: {
        external,
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
});
