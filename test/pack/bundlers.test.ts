/**
 * The packed tarball in the apps merchants build: tiny apps, installed from the tarball
 * (test/pack/packed.ts), are bundled for production with Vite, esbuild, Rollup (with
 * node-resolve alone) and webpack, each page is loaded in Chromium from the same origin as
 * a companion (`createCheckoutApp` from the tarball's `pg-checkout/server`, against the
 * tarball's gateway sandbox), and `<pg-card-form>` must upgrade and pay. The ways to
 * import it: for its side effect (`import 'pg-checkout'`), the element class only, and a
 * type-only import next to the side-effect import (type-checked against the published
 * `.d.ts`). Also: the pure subpaths stay free of Lit and of element definitions;
 * production bundles carry no development warning and development builds (the
 * `development` export condition) do; and a page that loads the CDN bundle and an npm build
 * together does not throw, with a warning in development only.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {execFile} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import type {Server} from 'node:http';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {getRequestListener} from '@hono/node-server';
import Database from 'better-sqlite3';
import {nodeResolve} from '@rollup/plugin-node-resolve';
import {build as esbuild} from 'esbuild';
import type {Browser, Page} from 'playwright';
import {rollup} from 'rollup';
import {build as viteBuild} from 'vite';
import webpack from 'webpack';
import {sharedChromium} from '../../scripts/chromium.mjs';
import {pl} from '../../src/i18n/locales/pl.js';
import {uk} from '../../src/i18n/locales/uk.js';
import {importFrom, installedPackage, packed, serve} from './packed.js';

type ServerModule = typeof import('../../src/server/index.js');
type SandboxModule = typeof import('../../sandbox/index.js');
type Sandbox = Awaited<ReturnType<SandboxModule['startSandbox']>>;

const repo = fileURLToPath(new URL('../../', import.meta.url));
const APPS = path.join(packed.browser, 'apps');
const CDN = path.join(installedPackage(packed.browser), 'dist/cdn');

type Bundler = 'vite' | 'esbuild' | 'rollup' | 'webpack';
type Entry = 'side-effect' | 'class-only' | 'type-only' | 'subpaths' | 'locale';

/** The texts the `locale` app registers over the shipped Ukrainian table. */
const REGISTERED = {pay: 'Сплатити зараз'};

/** The app's own code, as a merchant would write it, and its page's language. */
const SOURCES: Record<Entry, {file: string; code: string; lang?: string}> = {
  'side-effect': {file: 'main.js', code: `import 'pg-checkout';\n`},
  'class-only': {
    file: 'main.js',
    code: `import {PgCardForm} from 'pg-checkout';

customElements.whenDefined('pg-card-form').then(() => {
  document.body.dataset.classOnly = String(document.querySelector('pg-card-form') instanceof PgCardForm);
});
`,
  },
  'type-only': {
    file: 'main.ts',
    code: `import 'pg-checkout';
import type {PgCardForm, PgSuccessEvent} from 'pg-checkout';

// Typed through HTMLElementTagNameMap: no cast, and no value import of the class.
const form: PgCardForm | null = document.querySelector('pg-card-form');
form?.addEventListener('pg-success', (event: PgSuccessEvent) => {
  document.body.dataset.paid = event.detail.orderRef;
});
`,
  },
  subpaths: {
    file: 'main.js',
    code: `import {validateNumber} from 'pg-checkout/validation';
import {collectBrowserFingerprint} from 'pg-checkout/fingerprint';

document.body.dataset.valid = String(validateNumber('4242424242424242').isValid);
document.body.dataset.language = collectBrowserFingerprint().browserLanguage;
`,
  },
  // A page in Ukrainian, loaded on demand, with one text changed (docs/guides/theming-and-languages.md).
  locale: {
    file: 'main.js',
    lang: 'uk',
    code: `import 'pg-checkout';
import {loadMessages, registerMessages} from 'pg-checkout';

registerMessages('uk', ${JSON.stringify(REGISTERED)});
loadMessages('uk').then(() => {
  document.body.dataset.messages = 'uk';
});
`,
  },
};

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
  include: ['main.ts'],
};

interface App {
  name: string;
  bundler: Bundler;
  entry: Entry;
  development: boolean;
  /** Served at /apps/<name>/ from here; index.html has `__ORDER__` where the order goes. */
  dist: string;
  /** Every JavaScript file the bundler wrote. */
  code: string;
  /** The same, file by file (path relative to `dist`). */
  files: Map<string, string>;
  /** The files of `dist` pages asked for, in order. */
  requested: string[];
}

const pageHtml = (scripts: string[], lang = 'en') => `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<title>Checkout</title>
${scripts.map((src) => `<script type="module" src="${src}"></script>`).join('\n')}
</head>
<body>
<main><pg-card-form endpoint="/pay" order-ref="__ORDER__"></pg-card-form></main>
</body>
</html>
`;

const jsFiles = (dir: string): string[] =>
  readdirSync(dir, {recursive: true})
    .map(String)
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(dir, f));

async function buildApp(bundler: Bundler, entry: Entry, development = false): Promise<App> {
  const name = `${bundler}-${entry}${development ? '-dev' : ''}`;
  const dir = path.join(APPS, name);
  const dist = path.join(dir, 'dist');
  rmSync(dir, {recursive: true, force: true});
  mkdirSync(dist, {recursive: true});
  const {file, code, lang} = SOURCES[entry];
  const main = path.join(dir, file);
  writeFileSync(main, code);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  switch (bundler) {
    case 'vite': {
      writeFileSync(path.join(dir, 'index.html'), pageHtml([`./${file}`], lang));
      await viteBuild({
        root: dir,
        base: `/apps/${name}/`,
        configFile: false,
        logLevel: 'error',
        mode: development ? 'development' : 'production',
        build: {outDir: dist, emptyOutDir: true},
      });
      break;
    }
    case 'esbuild': {
      await esbuild({
        entryPoints: [main],
        outfile: path.join(dist, 'bundle.js'),
        bundle: true,
        format: 'esm',
        platform: 'browser',
        minify: true,
        ...(development ? {conditions: ['development']} : {}),
        logLevel: 'error',
      });
      break;
    }
    case 'rollup': {
      const bundle = await rollup({
        input: main,
        plugins: [nodeResolve({browser: true})],
        onwarn: () => undefined,
      });
      // A directory, not one file: the locales other than en and uk are chunks of their own.
      await bundle.write({dir: dist, entryFileNames: 'bundle.js', format: 'es'});
      await bundle.close();
      break;
    }
    case 'webpack': {
      const compiler = webpack({
        mode: development ? 'development' : 'production',
        context: dir,
        entry: `./${file}`,
        // Where the chunks are served from. Webpack's default, `auto`, reads it from the
        // running script's URL, which a `type="module"` page script does not give: it would
        // take the page's last script, the CDN copy in the tests of a second copy.
        output: {path: dist, filename: 'bundle.js', publicPath: `/apps/${name}/`},
        devtool: false,
        performance: {hints: false},
        infrastructureLogging: {level: 'error'},
      });
      await new Promise<void>((resolve, reject) =>
        compiler.run((error, stats) => {
          compiler.close(() => undefined);
          if (error) return reject(error);
          if (stats?.hasErrors()) return reject(new Error(stats.toString('errors-only')));
          resolve();
        }),
      );
      break;
    }
  }
  if (bundler !== 'vite') {
    writeFileSync(path.join(dist, 'index.html'), pageHtml(['./bundle.js'], lang));
  }
  const files = new Map(
    jsFiles(dist).map((f) => [path.relative(dist, f), readFileSync(f, 'utf8')]),
  );
  const all = [...files.values()].join('\n');
  return {name, bundler, entry, development, dist, files, code: all, requested: []};
}

/** The text of the development-only warnings, as they appear in a bundle. */
const DEV_TEXT = ['needs an endpoint attribute', 'is not inside a <form>', 'was already defined'];
const LIT_CODE = /litHtmlVersions|reactiveElementVersions|litElementVersions/;

let sandbox: Sandbox;
let checkout: ReturnType<ServerModule['createCheckoutApp']>;
let db: Database.Database | undefined;
const companion = getRequestListener((request, env) => checkout.fetch(request, env));
let http: Server;
let origin: string;
let browser: Browser;
let orders = 0;
const apps = new Map<string, App>();

const MATRIX: Array<[Bundler, Entry, boolean?]> = [
  ['vite', 'side-effect'],
  ['vite', 'class-only'],
  ['vite', 'type-only'],
  ['vite', 'subpaths'],
  ['esbuild', 'side-effect'],
  ['esbuild', 'class-only'],
  ['esbuild', 'type-only'],
  ['esbuild', 'subpaths'],
  ['esbuild', 'side-effect', true],
  ['rollup', 'side-effect'],
  ['rollup', 'class-only'],
  ['rollup', 'subpaths'],
  ['webpack', 'side-effect'],
  ['webpack', 'class-only'],
  ['webpack', 'subpaths'],
  ['webpack', 'side-effect', true],
  ['vite', 'locale'],
  ['esbuild', 'locale'],
  ['rollup', 'locale'],
  ['webpack', 'locale'],
];

before(async () => {
  const server = await importFrom<ServerModule>(packed.server, 'pg-checkout/server');
  const sandboxModule = await importFrom<SandboxModule>(packed.server, 'pg-checkout/sandbox');
  sandbox = await sandboxModule.startSandbox();
  const served = await serve(
    async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (type: string, body: string | Buffer) => {
        res.writeHead(200, {'content-type': type, 'cache-control': 'no-store'});
        res.end(body);
        return true;
      };
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204).end();
        return true;
      }
      // The CDN folder as deployed: the bundle and the modules it loads on demand beside it.
      const cdnFile = /^\/cdn\/((?:locales\/)?[\w.-]+\.js)$/.exec(url.pathname)?.[1];
      if (cdnFile && existsSync(path.join(CDN, cdnFile))) {
        return send('text/javascript', readFileSync(path.join(CDN, cdnFile)));
      }
      const m = /^\/apps\/([^/]+)\/(.*)$/.exec(url.pathname);
      const app = m && apps.get(m[1]!);
      if (!app) return false;
      if (m[2] === '' || m[2] === 'index.html') {
        let html = readFileSync(path.join(app.dist, 'index.html'), 'utf8');
        html = html.replaceAll('__ORDER__', url.searchParams.get('order') ?? 'none');
        if (url.searchParams.get('cdn') === 'first') {
          html = html.replace(
            '<script',
            '<script type="module" src="/cdn/pg-checkout.js"></script>\n<script',
          );
        } else if (url.searchParams.get('cdn') === 'last') {
          html = html.replace(
            '</head>',
            '<script type="module" src="/cdn/pg-checkout.js"></script>\n</head>',
          );
        }
        return send('text/html; charset=utf-8', html);
      }
      const file = path.join(app.dist, m[2]!);
      if (!file.startsWith(app.dist) || !existsSync(file)) return false;
      app.requested.push(m[2]!);
      return send('text/javascript', readFileSync(file));
    },
    (req, res) => void companion(req, res),
  );
  http = served.server;
  origin = served.origin;
  checkout = server.createCheckoutApp({
    gateway: {
      ...sandbox.clientOptions(),
      retries: 0,
    },
    // SQLite in memory, on the repository's better-sqlite3 given as the store's connection:
    // the server app has none installed (server.test.ts checks the store names it there).
    store: new server.SqlitePaymentStore({
      filename: ':memory:',
      connection: (db = new Database(':memory:')),
    }),
    publicUrl: origin,
    returnPage: '/thanks',
    resolveOrder: (orderRef) => ({
      amount: '1.50',
      currency: 'XTS',
      description: `Order ${orderRef}`,
      customer: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        phone: '+380501234567',
      },
    }),
    onPaymentUpdate: () => undefined,
    logger: server.createCheckoutLogger({level: 'silent'}),
    rateLimit: {
      maxAttemptsPerIp: 10_000,
      maxAttemptsPerOrder: 100,
      maxAttemptsPerCard: 10_000,
      windowMs: 60_000,
    },
  });
  const [launched] = await Promise.all([
    sharedChromium(),
    (async () => {
      for (const [bundler, entry, development] of MATRIX) {
        const app = await buildApp(bundler, entry, development);
        apps.set(app.name, app);
      }
    })(),
  ]);
  browser = launched;
});

after(async () => {
  await browser?.close();
  await checkout?.close();
  db?.close();
  await new Promise((resolve) => http?.close(resolve));
  await sandbox?.close();
});

interface Visit {
  page: Page;
  order: string;
  warnings: string[];
  problems: string[];
  close(): Promise<void>;
}

async function visit(app: App, query = ''): Promise<Visit> {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const warnings: string[] = [];
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'warning') warnings.push(m.text());
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  const order = `pack-${app.name}-${++orders}`;
  await page.goto(`${origin}/apps/${app.name}/?order=${order}${query}`);
  return {page, order, warnings, problems, close: () => context.close()};
}

/** Types a card into the form and pays; resolves with the `pg-success` order reference. */
async function pay(page: Page): Promise<string> {
  const number = page.locator('pg-card-form input#number');
  await number.waitFor({state: 'visible'});
  const outcome = page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        document.addEventListener('pg-success', (e) => resolve(e.detail.orderRef), {once: true});
        for (const type of ['pg-failure', 'pg-error'] as const) {
          document.addEventListener(type, (e) => resolve(`${type}: ${JSON.stringify(e.detail)}`));
        }
        // No deadline: a payment with no outcome is ended by the pack tier's test timeout.
      }),
  );
  await number.pressSequentially('4242424242424242');
  const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
  await page.locator('pg-card-form input#expiry').pressSequentially(`12${year}`);
  await page.locator('pg-card-form input#cvv').pressSequentially('123');
  await page.locator('pg-card-form button[type=submit]').click();
  return outcome;
}

/**
 * A `<pg-fingerprint>` outside any form: the development build warns about it, at once as
 * it connects. Resolves once a console line the page writes after it has reached the test
 * (the page's console lines arrive in order): any warning is in `warnings` by then.
 */
async function addStrayFingerprint(page: Page): Promise<void> {
  const marker = 'pg-test: the stray fingerprint is in';
  const after = page.waitForEvent('console', {predicate: (m) => m.text() === marker});
  await page.evaluate((text) => {
    document.body.append(document.createElement('pg-fingerprint'));
    // eslint-disable-next-line no-console -- a line in the page's console is the marker
    console.info(text);
  }, marker);
  await after;
}

const paying = MATRIX.filter(([, entry]) => entry !== 'subpaths' && entry !== 'locale');

describe('the packed package in production bundles', () => {
  for (const [bundler, entry] of paying.filter(([, , dev]) => !dev)) {
    it(`${bundler}, ${entry}: <pg-card-form> upgrades and pays; no development code`, async () => {
      const app = apps.get(`${bundler}-${entry}`)!;
      for (const text of DEV_TEXT)
        assert.ok(!app.code.includes(text), `no "${text}" in the bundle`);
      assert.ok(!app.code.includes('/development/'), 'nothing from the development build');
      const charges = sandbox.chargeCount();
      const v = await visit(app);
      try {
        assert.equal(await pay(v.page), v.order);
        assert.equal(sandbox.chargeCount(), charges + 1, 'the sandbox charged once');
        if (entry === 'class-only') {
          assert.equal(await v.page.evaluate(() => document.body.dataset['classOnly']), 'true');
        }
        if (entry === 'type-only') {
          assert.equal(await v.page.evaluate(() => document.body.dataset['paid']), v.order);
        }
        await addStrayFingerprint(v.page);
        assert.deepEqual(v.warnings, [], 'production prints no warning');
        assert.deepEqual(v.problems, []);
      } finally {
        await v.close();
      }
    });
  }

  it('the type-only app type-checks against the published declarations', async () => {
    // `const form: PgCardForm | null = document.querySelector('pg-card-form')` compiles only
    // with the package's HTMLElementTagNameMap entry, read from the tarball's .d.ts.
    const run = promisify(execFile);
    for (const bundler of ['vite', 'esbuild'] as const) {
      const dir = path.dirname(apps.get(`${bundler}-type-only`)!.dist);
      await run(process.execPath, [path.join(repo, 'node_modules/typescript/bin/tsc'), '-p', dir]);
    }
  });

  for (const bundler of ['vite', 'esbuild', 'rollup', 'webpack'] as const) {
    it(`${bundler}, pure subpaths: no Lit, no element defined, and they work`, async () => {
      const app = apps.get(`${bundler}-subpaths`)!;
      assert.doesNotMatch(app.code, LIT_CODE, 'no Lit in the bundle');
      assert.ok(!app.code.includes('customElements.define'), 'no element definition');
      assert.ok(app.code.length < 30_000, `small: ${app.code.length} B`);
      const v = await visit(app);
      try {
        await v.page.waitForFunction(() => document.body.dataset['valid'] !== undefined);
        assert.equal(await v.page.evaluate(() => document.body.dataset['valid']), 'true');
        assert.equal(await v.page.evaluate(() => customElements.get('pg-card-form')), undefined);
        assert.deepEqual(v.problems, []);
      } finally {
        await v.close();
      }
    });
  }
});

describe('a page in a language loaded on demand (Ukrainian), in production bundles', () => {
  /** `text` as esbuild writes it by default (`charset: 'ascii'`): `\u041D`… */
  const ascii = (text: string) =>
    text.replace(
      /[^\x20-\x7e]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
    );
  /** The files of `app` holding `text`, each with whether it holds Lit too (the main bundle). */
  const holding = (app: App, text: string) =>
    [...app.files]
      .filter(([, code]) => code.includes(text) || code.includes(ascii(text)))
      .map(([file, code]) => ({file, withLit: LIT_CODE.test(code)}));

  for (const bundler of ['vite', 'rollup', 'webpack', 'esbuild'] as const) {
    // esbuild without `splitting` (one output file) inlines every import(): no chunks.
    const split = bundler !== 'esbuild';
    const title = split
      ? 'each locale and the brand marks are chunks, the page fetches the Ukrainian one'
      : 'one file';
    it(`${bundler}: shows the shipped and the registered Ukrainian texts and pays; ${title}`, async () => {
      const app = apps.get(`${bundler}-locale`)!;
      const ukrainian = holding(app, uk.threeDSCancelled);
      const polish = holding(app, pl.threeDSCancelled);
      const marks = holding(app, 'spacingAndGlyphs');
      for (const [what, found] of Object.entries({ukrainian, polish, marks})) {
        assert.equal(found.length, 1, `${what}: ${JSON.stringify(found)}`);
        assert.equal(found[0]!.withLit, !split, `${what} in the main bundle: ${found[0]!.file}`);
      }
      app.requested.length = 0;
      const v = await visit(app);
      try {
        const form = v.page.locator('pg-card-form');
        await v.page.waitForFunction(() => document.body.dataset['messages'] === 'uk');
        await form.locator('label[for="number"]').filter({hasText: uk.cardNumber}).waitFor();
        const button = form.locator('button[type=submit]');
        assert.equal((await button.textContent())?.trim(), REGISTERED.pay);
        // The brand marks come from their chunk too.
        const number = form.locator('input#number');
        await number.pressSequentially('4242');
        await form.locator('svg[part="brand"][data-brand="visa"]').waitFor();
        await number.fill('');
        assert.equal(await pay(v.page), v.order);
        await form.locator('[part="status"]').filter({hasText: uk.success}).waitFor();
        assert.equal((await button.textContent())?.trim(), uk.paid);
        if (split) {
          assert.ok(app.requested.includes(ukrainian[0]!.file), app.requested.join(', '));
          assert.ok(app.requested.includes(marks[0]!.file), app.requested.join(', '));
          assert.ok(!app.requested.includes(polish[0]!.file), 'a Ukrainian page fetched Polish');
        }
        assert.deepEqual(v.problems, []);
      } finally {
        await v.close();
      }
    });
  }
});

describe('the development export condition', () => {
  for (const bundler of ['esbuild', 'webpack'] as const) {
    it(`${bundler} with the development condition warns in development, and still pays`, async () => {
      const app = apps.get(`${bundler}-side-effect-dev`)!;
      assert.ok(app.code.includes('needs an endpoint attribute'), 'the development build is in');
      const v = await visit(app);
      try {
        assert.equal(await pay(v.page), v.order);
        await addStrayFingerprint(v.page);
        assert.ok(
          v.warnings.some((w) =>
            w.includes('[pg-checkout] <pg-fingerprint> is not inside a <form>'),
          ),
          `warned: ${v.warnings.join(' | ')}`,
        );
        assert.deepEqual(v.problems, []);
      } finally {
        await v.close();
      }
    });
  }
});

describe('a second copy on the page (the CDN bundle and an npm build)', () => {
  it('CDN first, production npm build second: no error, no warning, the form pays', async () => {
    const v = await visit(apps.get('esbuild-side-effect')!, '&cdn=first');
    try {
      assert.equal(await pay(v.page), v.order);
      assert.deepEqual(v.problems, [], 'customElements.define did not throw');
      assert.deepEqual(v.warnings, []);
    } finally {
      await v.close();
    }
  });

  it('CDN first, development npm build second: no error, one warning per element', async () => {
    const v = await visit(apps.get('esbuild-side-effect-dev')!, '&cdn=first');
    try {
      assert.equal(await pay(v.page), v.order);
      assert.deepEqual(v.problems, [], 'customElements.define did not throw');
      const ours = v.warnings.filter((w) => w.includes('was already defined'));
      assert.deepEqual(
        ours.map((w) => /<(pg-[\w-]+)>/.exec(w)?.[1]).sort(),
        ['pg-3ds-redirect', 'pg-card-form', 'pg-fingerprint'],
        `warned: ${v.warnings.join(' | ')}`,
      );
    } finally {
      await v.close();
    }
  });

  it('development npm build first, CDN second: no error, the form pays', async () => {
    const v = await visit(apps.get('webpack-side-effect-dev')!, '&cdn=last');
    try {
      assert.equal(await pay(v.page), v.order);
      assert.deepEqual(v.problems, [], 'the CDN copy did not throw');
    } finally {
      await v.close();
    }
  });
});
