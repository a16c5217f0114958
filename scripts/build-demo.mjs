// Demo half of `npm run build`: bundles the demo's page scripts (demo/scripts/*.ts, small
// vanilla modules) into dist/demo/*.js, which server-example serves under /demo/js/.
// The pages load the checkout elements from dist/cdn/pg-checkout.js (built before this).
import {rmSync} from 'node:fs';
import {build} from 'esbuild';

const ENTRIES = ['checkout', 'result', 'admin'];

rmSync('dist/demo', {recursive: true, force: true});
await build({
  entryPoints: ENTRIES.map((name) => `demo/scripts/${name}.ts`),
  outdir: 'dist/demo',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  tsconfig: 'tsconfig.json',
  legalComments: 'none',
  logLevel: 'warning',
});
console.log(`built dist/demo (${ENTRIES.map((n) => `${n}.js`).join(', ')})`);
