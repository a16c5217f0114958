/**
 * Vite library mode for the npm browser build (`dist/browser`): unbundled ES modules, one
 * per source module (so `sideEffects` can name the element modules and bundlers can
 * tree-shake the rest), with `lit` and `card-validator` left as imports for the
 * merchant's bundler. Declarations come from `tsc -p tsconfig.browser.json`; the CDN
 * bundle (everything inlined, minified, SRI-hashed) is built by scripts/build-browser.mjs.
 */
import {defineConfig} from 'vite';

export default defineConfig({
  build: {
    outDir: 'dist/browser',
    emptyOutDir: false,
    sourcemap: true,
    minify: false,
    target: 'es2022',
    lib: {
      entry: {
        index: 'src/index.ts',
        'fingerprint/collect': 'src/fingerprint/collect.ts',
        'validation/card': 'src/validation/card.ts',
      },
      formats: ['es'],
    },
    rollupOptions: {
      external: [/^lit($|\/)/, /^@lit\//, /^card-validator($|\/)/],
      output: {
        preserveModules: true,
        preserveModulesRoot: 'src',
        entryFileNames: '[name].js',
      },
    },
  },
});
