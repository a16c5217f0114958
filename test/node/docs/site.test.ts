/**
 * The documentation site (docs/, VitePress), built once for this file: it builds, every
 * page a reader can reach is there, the generated parts hold what their sources hold
 * (each element's API from custom-elements.json, the server reference from the
 * declarations, the changelog from CHANGELOG.md and the pending changesets), every internal
 * link and anchor resolves, every page is axe clean in Chromium in the light and the dark
 * scheme with no console error and no failed request, search finds the guides, the reading
 * aids work (the live examples follow the site's scheme, each element's playground changes
 * the element and its HTML, install commands have npm, pnpm and Yarn tabs, code blocks name
 * their files, tables fit at 1280 px, favicon, edit link, last update, version), and every
 * live example runs the built element — the card form's paying the gateway sandbox through
 * the companion, as written on the page.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {availableParallelism, tmpdir} from 'node:os';
import path from 'node:path';
import type {Browser, Page} from 'playwright';
import {sharedChromium} from '../../../scripts/chromium.mjs';
import {elementApiMarkdown, manifestElements} from '../../../scripts/docs/element-api.mjs';
import {serveBuiltSite, type ServedSite} from '../../../scripts/docs/serve.js';
import {LENIENCY_RULES} from '../../../sandbox/profiles.js';
import {publicSurface} from '../api/public-surface.js';
import {
  ROOT,
  TEST_REPOSITORY,
  buildSite,
  builtPages,
  fileOf,
  internalLinkProblems,
} from './site.js';
import {docPages, readPage} from './code-blocks.js';

const WAIT = 30_000;
/** The pages the axe pass has open at once (one per core, at least two). */
const AXE_TABS = Math.max(2, availableParallelism());
const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

let site: {dir: string; remove(): void};
let served: ServedSite;
let browser: Browser;

before(async () => {
  // Chromium starts while the site builds (and is closed by after() if the build fails).
  const launching = sharedChromium();
  try {
    site = await buildSite();
  } finally {
    browser = await launching;
  }
  served = await serveBuiltSite(0, site.dir);
});

after(async () => {
  await browser?.close();
  await served?.close();
  site?.remove();
});

const html = (sitePath: string) => readFileSync(fileOf(site.dir, sitePath)!, 'utf8');

/** A page of the served site, with console errors and page errors collected. */
async function open(
  sitePath: string,
): Promise<{page: Page; problems: string[]; close(): Promise<void>}> {
  const context = await browser.newContext({viewport: {width: 1200, height: 900}, locale: 'en-US'});
  context.setDefaultTimeout(WAIT);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error on ${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  await page.goto(served.url + sitePath);
  return {page, problems, close: () => context.close()};
}

/**
 * Waits until VitePress has mounted its app on the page (Vue marks the container): it does
 * so once the page's own chunk has loaded, which may be after the load event, and only then
 * are the parts its components fill in after mounting there (the appearance switch's name).
 * Before, axe saw the switch without a name on a busy machine.
 */
async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const app = document.querySelector('#app');
    return app !== null && '__vue_app__' in app;
  });
}

async function axe(page: Page): Promise<string[]> {
  return (await page.evaluate(`(async () => {
    if (!window.axe) { ${axeSource}\n }
    const result = await window.axe.run(document, {resultTypes: ['violations']});
    return result.violations.map((v) => v.id + ': ' + v.help + ' — ' +
      v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
  })()`)) as string[];
}

const GUIDES = [
  'first-payment',
  '3d-secure',
  'hosted-mode',
  'subscriptions',
  'webhooks',
  'saved-cards',
  'csp-and-sri',
  'theming-and-languages',
  'frameworks',
  'server-rendering',
  'reliability',
  'several-instances',
  'monitoring',
  'sandbox',
  'going-live',
  'security',
  'demo',
];
const ELEMENTS = {
  'pg-card-form': 'card-form',
  'pg-3ds-redirect': '3ds-redirect',
  'pg-fingerprint': 'fingerprint',
};

describe('the documentation site', () => {
  test('builds every guide, element page and the server reference, and the home page leads to them', () => {
    const pages = builtPages(site.dir);
    for (const p of [
      '/index.html',
      ...GUIDES.map((g) => `/guides/${g}.html`),
      ...Object.values(ELEMENTS).map((e) => `/elements/${e}.html`),
      '/reference/server/index.html',
      '/reference/http.html',
      '/reference/sandbox.html',
      '/contributing/index.html',
      '/contributing/benchmarks.html',
      '/changelog.html',
    ]) {
      assert.ok(pages.includes(p), `${p} is not built`);
    }
    const home = html('/');
    for (const link of [
      '/guides/first-payment',
      '/guides/theming-and-languages',
      '/guides/going-live',
    ]) {
      assert.ok(home.includes(`href="${link}`), `the home page does not link ${link}`);
    }
    // The snippets and examples are sources, not pages.
    assert.ok(!pages.some((p) => /^\/(snippets|examples|screenshots)\//.test(p)), pages.join(' '));
  });

  test("each element's page lists every attribute, event, part and custom property of custom-elements.json", () => {
    const elements = manifestElements();
    assert.deepEqual([...elements.keys()].sort(), Object.keys(ELEMENTS).sort());
    for (const [tag, slug] of Object.entries(ELEMENTS)) {
      const d = elements.get(tag)!;
      const page = html(`/elements/${slug}.html`);
      const names = [
        ...(d.attributes ?? []).map((a: {name: string}) => a.name),
        ...(d.events ?? []).map((e: {name: string}) => e.name),
        ...(d.cssParts ?? []).map((p: {name: string}) => p.name),
        ...(d.cssProperties ?? []).map((p: {name: string}) => p.name),
      ];
      assert.ok(names.length > 0, tag);
      for (const name of names) {
        assert.ok(page.includes(`<code>${name}</code>`), `<${tag}>'s page lacks ${name}`);
      }
      assert.ok(!page.includes('element-api:'), `<${tag}>'s placeholder was left in the page`);
    }
  });

  test('the API tables change with the manifest, and an unknown element is refused by name', () => {
    const elements = manifestElements();
    const d = elements.get('pg-fingerprint')!;
    const changed = new Map(elements);
    changed.set('pg-fingerprint', {
      ...d,
      attributes: [...d.attributes, {name: 'added-attribute', description: 'A | pipe {{ x }}'}],
    });
    const md = elementApiMarkdown('pg-fingerprint', changed);
    assert.match(md, /\| `added-attribute` \|/);
    assert.match(md, /A \\\| pipe &#123;&#123; x }}/, 'pipes and mustaches are escaped');
    assert.throws(() => elementApiMarkdown('pg-nothing', elements), /declares no <pg-nothing>/);
  });

  test('the server reference has a page for every export of pg-checkout/server', () => {
    const exported = publicSurface(ROOT, ['pg-checkout/server'])['pg-checkout/server'].map(
      (e) => e.split(':')[1]!,
    );
    const index = html('/reference/server/');
    const missing = exported.filter(
      (name) => !new RegExp(`href="[^"]*/${name}(\\.html)?"`).test(index),
    );
    assert.deepEqual(missing, [], 'exports without a reference page');
    // The error codes are in it, from the declarations: the gateway client's and the companion's.
    const gatewayCodes = html('/reference/server/variables/GATEWAY_ERROR_CODES');
    for (const code of ['outcome_unknown', 'webhook_signature', 'conflict']) {
      assert.ok(gatewayCodes.includes(code), `GATEWAY_ERROR_CODES lacks ${code}`);
    }
    const checkoutCodes = html('/reference/server/classes/CheckoutError');
    for (const code of ['order_not_payable', 'rate_limited', 'operation_refused']) {
      assert.ok(checkoutCodes.includes(code), `CheckoutError lacks ${code}`);
    }
  });

  test('every internal link and anchor of every page resolves', () => {
    const {problems, checked} = internalLinkProblems(site.dir);
    assert.deepEqual(problems, []);
    assert.ok(checked > 1000, `only ${checked} links checked`);
  });

  test('the link check names a missing page and a missing anchor', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pg-links-'));
    try {
      mkdirSync(path.join(dir, 'guides'));
      writeFileSync(path.join(dir, 'guides/a.html'), '<h2 id="here">Here</h2>');
      writeFileSync(
        path.join(dir, 'index.html'),
        '<a href="/guides/a#here">ok</a><a href="/guides/a.html#gone">x</a><a href="./nope">y</a>' +
          '<a href="https://example.com/x">away</a><pre><a href="/in-code">code</a></pre>',
      );
      const {problems, checked} = internalLinkProblems(dir);
      assert.equal(checked, 3);
      assert.deepEqual(problems, [
        '/index.html: /guides/a.html#gone → guides/a.html has no #gone',
        '/index.html: ./nope → no such page or file',
      ]);
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  });

  test('every page, the generated reference included, is axe clean in both colour schemes, without a console error or a failed request', async () => {
    const pages = builtPages(site.dir);
    const reference = pages.filter((p) => p.startsWith('/reference/server/'));
    assert.ok(pages.length >= 20 && reference.length >= 50, pages.join(' '));
    const violations: string[] = [];
    const problems: string[] = [];
    // The dark scheme on every hand-written page, and on three of the generated reference's,
    // which share one template and hold no example: a visit costs seconds on a busy machine.
    const dark = [
      ...pages.filter((p) => !p.startsWith('/reference/server/')),
      '/reference/server/index.html',
      ...['functions/createCheckoutApp', 'classes/CheckoutError'].map(
        (p) => `/reference/server/${p}.html`,
      ),
    ];
    for (const [colorScheme, visited] of [
      ['light', pages],
      ['dark', dark],
    ] as const) {
      const context = await browser.newContext({viewport: {width: 1280, height: 900}, colorScheme});
      context.setDefaultTimeout(WAIT);
      // AXE_TABS tabs take the pages from one queue: while one waits for its page to load
      // or for axe, another computes. Each page is still loaded on its own and checked whole.
      const queue = [...visited];
      const tab = async () => {
        const page = await context.newPage();
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(`${colorScheme} ${page.url()}: ${m.text()}`);
        });
        page.on('pageerror', (e) => problems.push(`${colorScheme} ${page.url()}: ${e.message}`));
        page.on('response', (r) => {
          if (r.status() >= 400)
            problems.push(`${colorScheme} ${page.url()}: ${r.status()} ${r.url()}`);
        });
        for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
          await page.goto(served.url + p);
          await hydrated(page);
          assert.equal(
            await page.evaluate(() => document.documentElement.classList.contains('dark')),
            colorScheme === 'dark',
            `${p} follows the reader's ${colorScheme} scheme`,
          );
          for (const v of await axe(page)) violations.push(`${colorScheme} ${p}: ${v}`);
        }
      };
      try {
        await Promise.all(Array.from({length: AXE_TABS}, tab));
      } finally {
        await context.close();
      }
      assert.equal(queue.length, 0);
    }
    assert.deepEqual(violations.sort(), []);
    assert.deepEqual(problems.sort(), []);
  });

  test('search finds a guide by a word in its text', async () => {
    const {page, close} = await open('/');
    try {
      await page.getByRole('button', {name: 'Search'}).click();
      await page.getByRole('searchbox').fill('leniencies');
      const hit = page.locator('.VPLocalSearchBox a[href*="/guides/sandbox"]').first();
      await hit.waitFor();
    } finally {
      await close();
    }
  });
});

describe('the pages that left the README', () => {
  test('each page shows every file it marks, as the file is (single-sourced snippets)', async () => {
    const includes = docPages().flatMap((page) =>
      [...readPage(page).matchAll(/^<!-- snippet: (\S+) -->$/gm)].map((m) => ({page, file: m[1]!})),
    );
    assert.ok(includes.length >= 15, `only ${includes.length} includes`);
    const context = await browser.newContext();
    context.setDefaultTimeout(WAIT);
    const tab = await context.newPage();
    const missing: string[] = [];
    try {
      const byPage = new Map<string, string[]>();
      for (const {page, file} of includes) byPage.set(page, [...(byPage.get(page) ?? []), file]);
      for (const [page, files] of byPage) {
        await tab.goto(`${served.url}/${page.replace(/\.md$/, '.html')}`);
        const shown = await tab.locator('div[class*="language-"] pre code').allInnerTexts();
        for (const file of files) {
          const text = readFileSync(path.join(ROOT, file), 'utf8');
          if (!shown.some((s) => `${s.trim()}\n` === text)) missing.push(`${page}: ${file}`);
        }
      }
    } finally {
      await context.close();
    }
    assert.deepEqual(missing, []);
  });

  test('the contributing pages hold the build targets, the test suites and how benchmarks run', () => {
    const contributing = html('/contributing/');
    for (const text of [
      'npm run test:node',
      'npm run test:browser',
      'npm run test:pack',
      'npm run test:e2e',
      'npm run lint',
      'cdn-hydrate',
      'dist/cdn/',
      'vite.config.ts',
      'src/protocol/',
      'test/node/api/exports.test.ts',
    ]) {
      assert.ok(contributing.includes(text), `the contributing page lacks ${text}`);
    }
    const benchmarks = html('/contributing/benchmarks');
    for (const text of ['npm run bench', 'BENCH_STEP_SECONDS', 'elements-size', 'companion']) {
      assert.ok(benchmarks.includes(text), `the benchmarks page lacks ${text}`);
    }
  });

  test('the sandbox reference holds the curl cookbook and every leniency rule the sandbox notes', () => {
    const page = html('/reference/sandbox');
    for (const example of ['direct c-1 4242424242424242', 'X-Sandbox-Fault']) {
      assert.ok(page.includes(example), `the curl examples lack ${example}`);
    }
    for (const rule of Object.keys(LENIENCY_RULES)) {
      assert.ok(page.includes(`<code>${rule}</code>`), `the leniency table lacks ${rule}`);
    }
  });
});

describe("the site's reading aids", () => {
  test("the live examples follow the site's colour scheme, also when the reader switches it", async () => {
    const context = await browser.newContext({
      viewport: {width: 1280, height: 900},
      colorScheme: 'dark',
    });
    context.setDefaultTimeout(WAIT);
    const page = await context.newPage();
    try {
      await page.goto(`${served.url}/elements/card-form.html`);
      const example = page.locator('.live-example pg-card-form').first();
      await example.locator('input[name="cc-number"]').waitFor();
      const surface = () =>
        example.evaluate((el) => getComputedStyle(el).getPropertyValue('--_pg-surface').trim());
      await page.waitForFunction(
        () =>
          document.querySelector('.live-example pg-card-form')?.getAttribute('theme') === 'dark',
      );
      assert.equal(await surface(), '#1b1b1f', 'the dark palette');
      // The reader's system is dark; they switch the site to light: the form follows the site.
      await page.locator('.VPNavBarAppearance button.VPSwitchAppearance').click();
      await page.waitForFunction(() => !document.documentElement.classList.contains('dark'));
      await page.waitForFunction(
        () =>
          document.querySelector('.live-example pg-card-form')?.getAttribute('theme') === 'light',
      );
      assert.equal(await surface(), 'transparent', 'the light palette');
    } finally {
      await context.close();
    }
  });

  test("each element page's playground has a control for every attribute, and changes the element and its HTML live", async () => {
    const elements = manifestElements();
    const context = await browser.newContext({viewport: {width: 1280, height: 900}});
    context.setDefaultTimeout(WAIT);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    try {
      for (const [tag, slug] of Object.entries(ELEMENTS)) {
        await page.goto(`${served.url}/elements/${slug}.html`);
        const playground = page.locator('.playground');
        const labels = await playground.locator('.playground-controls label').allInnerTexts();
        const attributes = (elements.get(tag)!.attributes ?? []).map((a: {name: string}) => a.name);
        assert.deepEqual(
          labels.map((l) => l.trim()),
          [...attributes, 'lang'],
          `<${tag}>'s controls`,
        );
      }

      await page.goto(`${served.url}/elements/card-form.html`);
      const playground = page.locator('.playground');
      const form = playground.locator('.playground-stage pg-card-form');
      const code = playground.locator('.playground-code code');
      await form.locator('input[name="cc-number"]').waitFor();
      assert.equal(await form.locator('input[name="cc-name"]').count(), 0);
      const pay = async () => (await form.locator('[part~="button"]').innerText()).trim();
      const english = await pay();

      await playground.getByLabel('holder-name').check();
      await form.locator('input[name="cc-name"]').waitFor();
      await playground.getByLabel('lang').selectOption('uk');
      await page.waitForFunction(
        () =>
          document.querySelector('.playground-stage pg-card-form')?.getAttribute('lang') === 'uk',
      );
      await page.waitForFunction(
        (before) =>
          document
            .querySelector('.playground-stage pg-card-form')
            ?.shadowRoot?.querySelector('[part~="button"]')
            ?.textContent?.trim() !== before,
        english,
      );
      await playground.getByLabel('theme').selectOption('dark');
      assert.equal(await form.getAttribute('theme'), 'dark');
      const html = await code.innerText();
      assert.equal(
        html,
        [
          '<pg-card-form',
          '  endpoint="/checkout/pay"',
          '  order-ref="ORDER-1004"',
          '  holder-name',
          '  amount="2.00"',
          '  currency="XTS"',
          '  theme="dark"',
          '  lang="uk"',
          '></pg-card-form>',
        ].join('\n'),
      );
      // The snippet is the element: the same attributes, with the same values.
      assert.deepEqual(
        (
          await form.evaluate((el) =>
            el
              .getAttributeNames()
              .filter((n) => n !== 'data-own-theme')
              .map((n) => `${n}=${el.getAttribute(n)}`),
          )
        ).sort(),
        [...html.matchAll(/^ {2}([\w-]+)(?:="([^"]*)")?$/gm)]
          .map((m) => `${m[1]}=${m[2] ?? ''}`)
          .sort(),
      );
      await playground.locator('.playground-code button.copy').click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), html);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('install commands have npm, pnpm and Yarn tabs, and code blocks the name of their file', async () => {
    const {page, problems, close} = await open('/guides/first-payment.html');
    try {
      const group = page.locator('.vp-code-group').first();
      assert.deepEqual(await group.locator('.tabs label').allInnerTexts(), ['npm', 'pnpm', 'yarn']);
      const blocks = (await group.locator('.blocks pre code').allInnerTexts()).map((t) => t.trim());
      const line = readFileSync(path.join(ROOT, 'docs/snippets/install-server.sh'), 'utf8').trim();
      assert.deepEqual(blocks, [
        line,
        line.replace('npm install', 'pnpm add'),
        line.replace('npm install', 'yarn add'),
      ]);
      await group.locator('.tabs label', {hasText: 'pnpm'}).click();
      assert.ok(await group.locator('.blocks pre code', {hasText: 'pnpm add'}).isVisible());

      const files = page.locator('.code-file');
      const names = (await files.locator('.code-file-name').allInnerTexts()).map((n) => n.trim());
      assert.deepEqual(names, [
        'checkout.ts',
        'orders.ts',
        'server.ts',
        'checkout-page.ts',
        'public/index.html',
        'public/result.html',
        'app/checkout/[...path]/route.ts',
      ]);
      const server = (await files.nth(2).locator('pre code').innerText()).trim();
      assert.equal(`${server}\n`, readFileSync(path.join(ROOT, 'docs/snippets/server.ts'), 'utf8'));
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test("every element page's tables fit at 1280 px: no column is cut", async () => {
    const context = await browser.newContext({viewport: {width: 1280, height: 900}});
    const page = await context.newPage();
    const cut: string[] = [];
    try {
      for (const slug of Object.values(ELEMENTS)) {
        await page.goto(`${served.url}/elements/${slug}.html`);
        const widths = await page.evaluate(() =>
          [...document.querySelectorAll('.vp-doc table')].map((t) => [
            t.scrollWidth,
            t.clientWidth,
          ]),
        );
        assert.ok(widths.length >= 2, `${slug}: ${widths.length} tables`);
        widths.forEach(([scroll, client], i) => {
          if (scroll! > client!) cut.push(`${slug} table ${i + 1}: ${scroll} px in ${client} px`);
        });
      }
    } finally {
      await context.close();
    }
    assert.deepEqual(cut, []);
  });

  test('every page has the favicon, an edit link to its file and its last update; the navigation shows the version', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
      repository?: {url: string};
    };
    // package.json names a repository once it is known (a GitHub address, as the edit
    // links take it); the test build names its own (PG_DOCS_REPOSITORY).
    if (pkg.repository) {
      assert.match(
        pkg.repository.url,
        /^(git\+)?https:\/\/github\.com\/[\w.-]+\/[\w.-]+?(\.git)?$/,
      );
    }
    const repository = TEST_REPOSITORY;
    assert.ok(readFileSync(fileOf(site.dir, '/favicon.svg')!, 'utf8').includes('<svg'));
    for (const guide of GUIDES) {
      const page = html(`/guides/${guide}`);
      assert.match(page, /<link rel="icon" type="image\/svg\+xml" href="\/favicon\.svg">/);
      const edit = new RegExp(`href="${repository}/edit/main/docs/guides/${guide}\\.md"`);
      assert.match(page, edit, `${guide}: the edit link`);
      assert.ok(page.includes(`>v${pkg.version}</span>`), `${guide}: the version`);
    }
    // A page that git knows: VitePress writes the time of its last commit.
    assert.match(html('/guides/sandbox'), /Last updated/);
  });

  test('the changelog page shows the next release, with what to change, and every released version', () => {
    const page = html('/changelog');
    const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
    for (const [, version] of changelog.matchAll(/^## (\d+\.\d+\.\d+)/gm)) {
      assert.match(page, new RegExp(`<h2 [^>]*>${version!.replace(/\./g, '\\.')} <a`), version);
    }
    assert.match(page, /Next release/);
    for (const file of readdirSync(path.join(ROOT, '.changeset')).filter(
      (f) => f !== 'README.md' && f.endsWith('.md'),
    )) {
      assert.match(
        readFileSync(path.join(ROOT, '.changeset', file), 'utf8'),
        /\*\*Upgrading from /,
      );
    }
    assert.match(page, /Upgrading from/);
  });
});

describe('live examples run the built elements', () => {
  test('the card form upgrades and pays ORDER-1001 with the sandbox, as the page shows', async () => {
    const {page, problems, close} = await open('/elements/card-form.html');
    try {
      const example = page.locator('.live-example pg-card-form');
      await example.locator('input[name="cc-number"]').waitFor();
      assert.equal(await example.getAttribute('order-ref'), 'ORDER-1001');
      assert.ok(await example.evaluate((el) => el.shadowRoot?.querySelector('form') !== null));
      // The code beside it is the example's file.
      const shown = await page
        .locator('.live-example + div[class*="language-html"] code')
        .innerText();
      assert.equal(
        `${shown.trim()}\n`,
        readFileSync(path.join(ROOT, 'docs/examples/card-form.html'), 'utf8'),
      );

      const before = served.backend.sandbox.chargeCount();
      await example.locator('input[name="cc-number"]').fill('4242424242424242');
      await example.locator('input[name="cc-exp"]').fill('1234');
      await example.locator('input[name="cc-csc"]').fill('123');
      await example.locator('input[name="cc-name"]').fill('Olena Kovalenko');
      const outcome = example.evaluate(
        (el) =>
          new Promise<string>((resolve) => {
            el.addEventListener('pg-success', (e) =>
              resolve(`success ${(e as CustomEvent).detail.orderRef}`),
            );
            for (const type of ['pg-failure', 'pg-error']) {
              el.addEventListener(type, (e) =>
                resolve(`${type} ${(e as CustomEvent).detail.code}`),
              );
            }
            setTimeout(() => resolve('no outcome in 30 s'), 30_000);
          }),
      );
      await example.locator('[part~="button"]').click();
      assert.equal(await outcome, 'success ORDER-1001');
      assert.equal(served.backend.sandbox.chargeCount(), before + 1);
      const paid = served.backend.sandbox
        .payments()
        .filter((p) => p.orderId.startsWith('ORDER-1001-'));
      assert.deepEqual(
        paid.map((p) => p.status),
        ['success'],
      );
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test('the 3-D Secure element upgrades and asks the companion about the order in the query, never believing the URL', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(WAIT);
    const page = await context.newPage();
    try {
      // ORDER-1002 was never paid, whatever the query says.
      const asked = page.waitForResponse((r) =>
        r.url().includes('/checkout/status?order=ORDER-1002'),
      );
      await page.goto(`${served.url}/elements/3ds-redirect.html?order=ORDER-1002&status=success`);
      const example = page.locator('.live-example pg-3ds-redirect');
      await example.locator('[part~="status"]').waitFor({state: 'attached'});
      const answer = (await (await asked).json()) as {orderRef: string; state: string};
      assert.equal(answer.orderRef, 'ORDER-1002');
      assert.notEqual(answer.state, 'success');
      assert.notEqual(
        await example.evaluate((el) => (el as HTMLElement & {state: string}).state),
        'success',
      );
    } finally {
      await context.close();
    }
  });

  test('the fingerprint element upgrades and puts the browser data into its form', async () => {
    const {page, problems, close} = await open('/elements/fingerprint.html');
    try {
      const example = page.locator('.live-example pg-fingerprint');
      await page.waitForFunction(() => customElements.get('pg-fingerprint') !== undefined);
      assert.ok(await example.evaluate((el) => el.shadowRoot !== null));
      await page.locator('.live-example button[type="submit"]').click();
      const submitted = JSON.parse(await page.locator('.fingerprint-submitted').innerText());
      assert.equal(submitted.browserLanguage, 'en-US');
      assert.equal(typeof submitted.browserScreenWidth, 'string');
      assert.equal(new URL(page.url()).pathname, '/elements/fingerprint.html');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test("the theming example's custom properties and parts reach the form's shadow root", async () => {
    const {page, close} = await open('/guides/theming-and-languages.html');
    try {
      const button = page.locator('.live-example pg-card-form [part~="button"]');
      await button.waitFor();
      assert.equal(
        await button.evaluate((b) => getComputedStyle(b).backgroundColor),
        'rgb(11, 122, 59)',
      );
      const brand = page.locator('.live-example pg-card-form [part~="brand"]');
      if (await brand.count())
        assert.equal(await brand.first().evaluate((b) => getComputedStyle(b).display), 'none');
    } finally {
      await close();
    }
  });
});
