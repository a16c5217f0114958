/**
 * The example's pages and files as Hono's pieces serve them, in-process: every page is
 * rendered with `hono/html`, so a hostile value in the shop's data or in a slot is escaped;
 * pages carry `hono/secure-headers` with the strict CSP and Trusted Types, while the
 * companion's answers keep their own headers; `serveStatic` serves the stylesheet, the
 * icon and the built scripts and nothing else of `demo/` or outside `dist/demo`; and the
 * back office's sign-in form refuses a cross-origin post (`hono/csrf`), as its API refuses
 * a form post from another site.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {createHash} from 'node:crypto';
import {mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {createCheckoutLogger} from '../../../src/server/index.js';
import {CHECKOUT_BASE, createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {PageTemplates} from '../../../server-example/pages.js';
import {dataDirs, sandboxGateway} from './helpers.js';

const ADMIN = 'admin-token-0123456789abcdef';
const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
const dirs = dataDirs('pg-example-pages-');

let sandbox: Sandbox;
let example: ExampleApp;
let dataDir: string;
let buildDir: string;
let cdnDir: string;

/** The files of the CDN folder's inventory in this test. */
const CDN_FILES: Record<string, string> = {
  'pg-checkout.js': 'export const bundle = 1;\n',
  'pg-checkout-hydrate.js': 'export const hydrate = 1;\n',
  'locales/index-abc123.json': '{"pl":"sha384-x"}',
  'locales/pl-abc123.json': '{"pay":"Zapłać"}',
};

before(async () => {
  sandbox = await startSandbox({});
  dataDir = dirs.make();
  buildDir = path.join(dirs.make(), 'demo-build');
  mkdirSync(buildDir);
  writeFileSync(path.join(buildDir, 'checkout.js'), 'export {};\n');
  // A CDN folder as the build writes it: the files its script inventory lists, and others.
  cdnDir = path.join(dirs.make(), 'cdn');
  mkdirSync(path.join(cdnDir, 'locales'), {recursive: true});
  for (const [file, text] of Object.entries(CDN_FILES))
    writeFileSync(path.join(cdnDir, file), text);
  const files = Object.keys(CDN_FILES).map((file) => ({
    file,
    kind: file.endsWith('.json') ? 'data' : 'script',
  }));
  writeFileSync(path.join(cdnDir, 'pg-checkout.inventory.json'), JSON.stringify({files}));
  writeFileSync(path.join(cdnDir, 'other-abc123.js'), 'export const other = 1;\n');
  writeFileSync(path.join(cdnDir, 'secret.txt'), 'not an asset\n');
  example = createExampleApp({
    publicUrl: 'http://shop.test',
    dataDir,
    adminToken: ADMIN,
    logger: createCheckoutLogger({level: 'silent'}),
    bundlePath: path.join(cdnDir, 'pg-checkout.js'),
    demoBuildDir: buildDir,
    gateway: sandboxGateway(sandbox),
  });
});

after(async () => {
  await example?.close();
  await sandbox?.close();
  dirs.removeAll();
});

const request = (pathname: string, init: RequestInit = {}) =>
  example.app.request(`http://shop.test${pathname}`, init);

describe('pages escape what they show (hono/html)', () => {
  test('a hostile order description on the CDN page is escaped, never markup', async () => {
    const created = await request('/api/orders', {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({productId: 'mug'}),
    });
    const {orderRef} = (await created.json()) as {orderRef: string};
    // The shop's data as another writer of the same database left it.
    const db = new Database(path.join(dataDir, 'payments.db'));
    db.prepare('UPDATE example_orders SET description = ? WHERE order_ref = ?').run(
      HOSTILE,
      orderRef,
    );
    db.close();
    const res = await request(`/cdn?order=${orderRef}`);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.ok(!page.includes('<script>alert'), 'no injected script element');
    assert.ok(!page.includes('<img src=x'), 'no injected element');
    assert.ok(
      page.includes(
        '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;',
      ),
      'the description is shown as text',
    );
    assert.match(
      page,
      new RegExp(
        `<pg-card-form\\s+endpoint="${CHECKOUT_BASE}/pay"\\s+order-ref="${orderRef}"\\s*>`,
      ),
    );
  });

  test('a text slot is escaped; markup made with html is kept', async () => {
    const dir = dirs.make();
    writeFileSync(path.join(dir, 'page.html'), '<main><!--slot:a--><!--slot:b--></main>\n');
    const templates = new PageTemplates(dir);
    const {html} = await import('hono/html');
    const page = await templates.render('page', {a: HOSTILE, b: html`<p>${HOSTILE}</p>`});
    assert.equal(
      String(page),
      '<main>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;' +
        '<p>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;</p></main>\n',
    );
  });
});

describe('security headers (hono/secure-headers)', () => {
  test('every page has the strict CSP with Trusted Types and the usual headers', async () => {
    for (const pathname of ['/', '/checkout', '/thanks', '/cdn', '/admin/login']) {
      const res = await request(pathname);
      assert.equal(res.status, 200, pathname);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, pathname);
      assert.match(csp, /script-src 'self'/, pathname);
      assert.match(csp, /require-trusted-types-for 'script'; trusted-types lit-html/, pathname);
      assert.match(csp, new RegExp(`form-action 'self' ${new URL(sandbox.url).origin}`));
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, pathname);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', pathname);
      assert.equal(res.headers.get('referrer-policy'), 'same-origin', pathname);
      assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN', pathname);
      assert.equal(res.headers.get('cache-control'), 'no-store', pathname);
      assert.equal(res.headers.get('strict-transport-security'), null, pathname);
    }
  });

  test("the companion's answers keep their own headers", async () => {
    const res = await request(`${CHECKOUT_BASE}/status?order=ord-000000000000`);
    // The companion's own: data that is never a page, never sniffed, never framed, rather
    // than the shop pages' policy (which would allow scripts and the gateway's form).
    assert.equal(
      res.headers.get('content-security-policy'),
      "default-src 'none'; frame-ancestors 'none'",
    );
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });
});

describe('static files (serveStatic)', () => {
  test('the stylesheet, the icon and the built scripts are served, revalidated each time', async () => {
    const css = await request('/demo/styles.css');
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
    assert.equal(css.headers.get('cache-control'), 'no-cache');
    assert.equal(css.headers.get('x-content-type-options'), 'nosniff');
    const icon = await request('/demo/favicon.svg');
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    const js = await request('/demo/js/checkout.js');
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(await js.text(), 'export {};\n');
  });

  test('nothing else of demo/ and nothing outside the build folder is served', async () => {
    for (const pathname of [
      '/demo/admin.html',
      '/demo/scripts/admin.ts',
      '/demo/js/missing.js',
      '/demo/js/../../payments.db',
      '/demo/js/%2e%2e/%2e%2e/payments.db',
      '/demo/js/..%2f..%2fpayments.db',
    ]) {
      const res = await request(pathname);
      assert.equal(res.status, 404, pathname);
      assert.doesNotMatch(await res.text(), /SQLite/, pathname);
    }
  });
});

describe('back-office forms and API from another site', () => {
  const FORM = {'Content-Type': 'application/x-www-form-urlencoded'};
  const signIn = (headers: Record<string, string>) =>
    request('/admin/login', {
      method: 'POST',
      headers: {...FORM, ...headers},
      body: new URLSearchParams({token: ADMIN}),
    });

  test('a sign-in posted from another origin or cross-site is refused without a session (hono/csrf)', async () => {
    const refused: Record<string, string>[] = [
      {Origin: 'https://evil.example'},
      {Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site'},
      {'Sec-Fetch-Site': 'cross-site'},
    ];
    for (const headers of refused) {
      const res = await signIn(headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(res.headers.get('set-cookie'), null, JSON.stringify(headers));
    }
    const same: Record<string, string>[] = [
      {Origin: 'http://shop.test'},
      {'Sec-Fetch-Site': 'same-origin'},
      {},
    ];
    for (const headers of same) {
      const res = await signIn(headers);
      assert.equal(res.status, 303, JSON.stringify(headers));
      assert.match(res.headers.get('set-cookie') ?? '', /^pg_admin=/);
    }
  });

  test('the API takes writes only as JSON, and grants no cross-origin preflight', async () => {
    const cookie = (await signIn({})).headers.get('set-cookie')!.split(';')[0]!;
    const form = await request('/admin/api/subscriptions/sub-1/cancel', {
      method: 'POST',
      headers: {...FORM, Cookie: cookie, Origin: 'https://evil.example'},
      body: 'x=1',
    });
    assert.equal(form.status, 403);
    const preflight = await request('/admin/api/subscriptions/sub-1/cancel', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    assert.ok(preflight.status >= 400, `preflight answered ${preflight.status}`);
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
  });
});

describe('the CDN files', () => {
  test('are served from the folder beside the bundle, as its script inventory lists them', async () => {
    for (const [file, text] of Object.entries(CDN_FILES)) {
      const res = await request(`/assets/${file}`);
      assert.equal(res.status, 200, file);
      const type = file.endsWith('.json') ? /^application\/json/ : /javascript/;
      assert.match(res.headers.get('content-type') ?? '', type, file);
      assert.equal(await res.text(), text);
    }
  });

  test('nothing else of the bundle folder is', async () => {
    for (const p of [
      '/assets/locales/../secret.txt',
      '/assets/locales/%2e%2e/secret.txt',
      '/assets/secret.txt',
      '/assets/other-abc123.js',
      '/assets/pg-checkout.inventory.json',
      '/assets/pg-checkout.js.sri',
      '/assets/locales/xx-none.json',
    ]) {
      const res = await request(p);
      assert.notEqual(res.status, 200, p);
    }
  });

  test('the pages name them with their SRI hashes', async () => {
    const page = await (await request('/thanks')).text();
    const hash = createHash('sha384').update(CDN_FILES['pg-checkout-hydrate.js']!).digest('base64');
    assert.match(
      page,
      new RegExp(
        `<script type="module" src="/assets/pg-checkout-hydrate.js" integrity="sha384-${hash.replace(/[+/]/g, '\\$&')}">`,
      ),
    );
  });
});
