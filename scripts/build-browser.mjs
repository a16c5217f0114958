// Browser half of `npm run build`:
//   1. dist/browser/  unbundled ES modules (Vite library mode, vite.config.ts; `lit` and
//      `card-validator` stay imports) + .d.ts (tsc), for every browser subpath of package.json
//      "exports" (`pg-checkout`, the Lit-free `pg-checkout/fingerprint` and `pg-checkout/validation`).
//      Built twice: dist/browser with the development checks and warnings compiled out (the
//      default), dist/browser/development with them (the `development` export condition).
//   2. dist/cdn/pg-checkout.js  one minified ES module with Lit and card-validator inside
//      (Lit templates minified too: scripts/minify-templates.mjs), production mode,
//      its sha384 SRI hash (printed, and written to .sri and .integrity.json), size budget check
//   3. custom-elements.json from the JSDoc (@custom-elements-manifest/analyzer, configured in
//      custom-elements-manifest.config.mjs to describe dist/browser)
// `--cdn-only` does step 2 alone (the browser tests use it).
import {execFileSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {brotliCompressSync, gzipSync, constants} from 'node:zlib';
import {build} from 'esbuild';
import {minifyTemplatesPlugin} from './minify-templates.mjs';

/** Gzip budget of the CDN file, in bytes. */
export const CDN_BUDGET_GZIP = 24 * 1024;
const CDN_FILE = 'dist/cdn/pg-checkout.js';
const cdnOnly = process.argv.includes('--cdn-only');
const run = (args) => execFileSync(process.execPath, args, {stdio: 'inherit'});

if (!cdnOnly) {
  rmSync('dist/browser', {recursive: true, force: true});
  // Declarations from tsc, the modules from Vite's library mode (vite.config.ts).
  run(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.browser.json', '--emitDeclarationOnly']);
  run(['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn']);
  run(['node_modules/vite/bin/vite.js', 'build', '--mode', 'development', '--logLevel', 'warn']);
  // Every browser file package.json "exports" names (types, development and default builds)
  // must have been emitted.
  const {exports} = JSON.parse(readFileSync('package.json', 'utf8'));
  for (const [subpath, target] of Object.entries(exports)) {
    for (const file of typeof target === 'object' ? Object.values(target) : [target]) {
      if (file.startsWith('./dist/browser/') && !existsSync(file)) {
        console.error(
          `package.json exports["${subpath}"] names ${file}, which the build did not emit`,
        );
        process.exit(1);
      }
    }
  }
  const subpaths = Object.entries(exports)
    .filter(([, t]) => typeof t === 'object' && t.import?.startsWith('./dist/browser/'))
    .map(([subpath]) => (subpath === '.' ? 'pg-checkout' : `pg-checkout/${subpath.slice(2)}`));
  console.log(`built dist/browser and dist/browser/development (${subpaths.join(', ')})`);
}

rmSync('dist/cdn', {recursive: true, force: true});
mkdirSync('dist/cdn', {recursive: true});
await build({
  entryPoints: ['src/index.ts'],
  outfile: CDN_FILE,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  treeShaking: true,
  tsconfig: 'tsconfig.json',
  define: {__PG_DEV__: 'false'},
  conditions: ['production'],
  legalComments: 'none',
  charset: 'utf8',
  banner: {
    js: '/*! pg-checkout | MIT | bundles Lit (BSD-3-Clause, Google LLC) and card-validator (MIT, Braintree) */',
  },
  plugins: [minifyTemplatesPlugin()],
  logLevel: 'warning',
});
const code = readFileSync(CDN_FILE);
const integrity = `sha384-${createHash('sha384').update(code).digest('base64')}`;
const gzip = gzipSync(code, {level: 9}).length;
const brotli = brotliCompressSync(code, {params: {[constants.BROTLI_PARAM_QUALITY]: 11}}).length;
writeFileSync(`${CDN_FILE}.sri`, `${integrity}\n`);
writeFileSync(
  'dist/cdn/pg-checkout.integrity.json',
  `${JSON.stringify({file: 'pg-checkout.js', integrity, bytes: code.length, gzip, brotli}, null, 2)}\n`,
);
console.log(`built ${CDN_FILE}: ${code.length} B, ${gzip} B gzip, ${brotli} B brotli`);
console.log(`integrity="${integrity}"`);
if (gzip > CDN_BUDGET_GZIP) {
  console.error(`${CDN_FILE} is ${gzip} B gzip, over the ${CDN_BUDGET_GZIP} B budget`);
  process.exit(1);
}

if (!cdnOnly) {
  // Globs, plugins and output: custom-elements-manifest.config.mjs.
  run(['node_modules/@custom-elements-manifest/analyzer/cem.js', 'analyze', '--quiet']);
  console.log('wrote custom-elements.json');
}
