/**
 * Vite library mode for the npm browser build: unbundled ES modules, one per source module
 * (so `sideEffects` can name the modules that define elements and bundlers can tree-shake
 * the rest), with `lit` and `card-validator` left as imports for the merchant's bundler.
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

/** `{'index': 'src/index.ts', 'fingerprint/collect': 'src/fingerprint/collect.ts', ...}`. */
function browserEntries(): Record<string, string> {
  const {exports} = JSON.parse(readFileSync('package.json', 'utf8')) as {
    exports: Record<string, ExportTarget>;
  };
  const entries: Record<string, string> = {};
  for (const target of Object.values(exports)) {
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
        external: [/^lit($|\/)/, /^@lit\//, /^card-validator($|\/)/],
        output: {
          preserveModules: true,
          preserveModulesRoot: 'src',
          entryFileNames: '[name].js',
        },
      },
    },
  };
});
