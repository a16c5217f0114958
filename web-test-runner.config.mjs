// web-test-runner configuration for the element tests (test/browser/**/*.test.ts): real
// Chromium, Firefox and WebKit (scripts/wtr-engines.mjs; `PG_BROWSERS=firefox` picks some),
// TypeScript with legacy decorators through esbuild, and card-validator and credit-card-type
// (CommonJS) served as ES modules. Run it through `npm run test:browser`.
import {createRequire} from 'node:module';
import {esbuildPlugin} from '@web/dev-server-esbuild';
import {defaultReporter} from '@web/test-runner';
import {build} from 'esbuild';
import {engineCommandsPlugin} from './scripts/wtr-engine-commands.mjs';
import {engineLaunchers} from './scripts/wtr-engines.mjs';
import {screenshotPlugin} from './scripts/wtr-screenshots.mjs';
import {timesReporter} from './scripts/wtr-times-reporter.mjs';

const require = createRequire(import.meta.url);
const CJS_PREFIX = '/__cjs__/';
const cjsCache = new Map();

/**
 * Serves `card-validator/dist/*.js` and `credit-card-type/dist/*.js` (CommonJS) as ES
 * modules: `module.exports` as the default export, its properties named.
 */
function commonJsAsEsm() {
  return {
    name: 'pg-commonjs-as-esm',
    resolveImport({source}) {
      if (/^(card-validator|credit-card-type)\//.test(source)) return CJS_PREFIX + source;
      return undefined;
    },
    async serve(context) {
      if (!context.path.startsWith(CJS_PREFIX)) return undefined;
      const specifier = context.path.slice(CJS_PREFIX.length);
      if (!cjsCache.has(specifier)) {
        const names = Object.keys(require(specifier)).filter(
          (n) => n !== '__esModule' && n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n),
        );
        const entry = `import * as m from ${JSON.stringify(specifier)};\nexport default m.default;\n${names
          .map((n) => `export const ${n} = m.${n};`)
          .join('\n')}\n`;
        const result = await build({
          stdin: {contents: entry, resolveDir: process.cwd(), loader: 'js'},
          bundle: true,
          format: 'esm',
          write: false,
          logLevel: 'silent',
        });
        cjsCache.set(specifier, result.outputFiles[0].text);
      }
      return {body: cjsCache.get(specifier), type: 'js'};
    },
  };
}

/**
 * `?pg-delay=<ms>` on any URL holds its response that long: a page script that arrives late,
 * as on a loaded machine (test/browser/fixtures/late-listener.html).
 */
async function delayedResponses(context, next) {
  const ms = Number(new URL(context.url, 'http://x').searchParams.get('pg-delay'));
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 5000)));
  return next();
}

/**
 * A companion saturated once: `POST /__pg__/busy/<seconds>[h]/pay` answers an order's first
 * payment `503` with error code `busy` and `Retry-After: <seconds>` (the wait in the body
 * too, unless `h`: the header alone), as the companion does when its work in flight is at
 * its limit; every later one of that order succeeds. `GET /__pg__/busy/log?order=<ref>`
 * lists the attempt ids it was sent, in order (test/browser/card-form-busy.test.ts).
 */
const busyLog = new Map();
async function saturatedCompanion(context, next) {
  const log = /^\/__pg__\/busy\/log$/.test(context.path);
  const pay = /^\/__pg__\/busy\/(\d+)(h?)\/pay$/.exec(context.path);
  if (log) {
    context.type = 'application/json';
    context.body = JSON.stringify(busyLog.get(context.query.order) ?? []);
    return;
  }
  if (!pay || context.method !== 'POST') return next();
  let text = '';
  for await (const chunk of context.req) text += chunk;
  const {orderRef, attemptId} = JSON.parse(text);
  const attempts = busyLog.get(orderRef) ?? [];
  busyLog.set(orderRef, [...attempts, attemptId]);
  context.type = 'application/json';
  if (attempts.length === 0) {
    const seconds = Number(pay[1]);
    const error = {code: 'busy', message: 'the instance is saturated: try again shortly'};
    context.status = 503;
    context.set('Retry-After', String(seconds));
    context.body = JSON.stringify({error: pay[2] ? error : {...error, retryAfter: seconds}});
    return;
  }
  context.body = JSON.stringify({outcome: 'success', orderRef, code: '1000', message: 'OK'});
}

export default {
  files: ['test/browser/**/*.test.ts'],
  middleware: [delayedResponses, saturatedCompanion],
  nodeResolve: true,
  // Pages at once: each engine's launcher sets its own (scripts/wtr-engines.mjs).
  concurrency: 2,
  concurrentBrowsers: 3,
  // Starting a second Firefox or WebKit while the other engines run takes a while on 2 cores.
  browserStartTimeout: 60_000,
  testsFinishTimeout: 240_000,
  // A guard against a hang, not a measure. A test that pays once per reason code types the
  // card 13 times and runs axe 13 times: seconds alone, far more with three engines on two
  // busy cores, and a test cut short keeps typing into the next one.
  testFramework: {config: {timeout: 60_000}},
  plugins: [
    commonJsAsEsm(),
    engineCommandsPlugin(),
    screenshotPlugin(),
    esbuildPlugin({
      ts: true,
      tsconfig: new URL('./tsconfig.json', import.meta.url).pathname,
      target: 'es2022',
    }),
  ],
  browsers: await engineLaunchers(),
  // Under `npm test`, each file's time in each engine for the run's ten slowest files.
  ...(process.env.PG_TEST_TIMES ? {reporters: [defaultReporter(), timesReporter()]} : {}),
};
