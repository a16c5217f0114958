/**
 * A server-rendered checkout (`pg-checkout/ssr`, in Ukrainian) whose pinned files were
 * changed on the way, in each engine (engines.ts), under the strict CSP with Trusted Types:
 * the browser's own integrity check refuses the changed bytes, and the page must not fail
 * silently.
 *
 * - pg-checkout-hydrate.js changed (one byte of its licence comment, and a line that would
 *   mark the page if it ran), as the built after-paint loader loads it: the customer reads
 *   in Ukrainian that card payment is not available, the fields and the Pay button are off,
 *   the page hears `pg-error`, and the companion's security-report route (the real one,
 *   `createCheckoutApp`, mounted where the form's `endpoint` says) stores the report and
 *   hands it to `onSecurityReport`.
 * - the Ukrainian locale file changed (one byte): the form, hydrated, is English
 *   everywhere — labels, placeholders, field errors, the Pay button and the status line,
 *   including a payment's answer — never Ukrainian labels beside English errors.
 *
 * Needs dist/cdn (`node scripts/build.mjs cdn cdn-hydrate`).
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {createAdaptorServer} from '@hono/node-server';
import {Hono} from 'hono';
import type {Inventory} from '../../scripts/vite/script-inventory.js';
import {sriHash} from '../../scripts/vite/subresource-integrity.js';
import {en} from '../../src/i18n/locales/en.js';
import {uk} from '../../src/i18n/locales/uk.js';
import {UNAVAILABLE_TEXTS} from '../../src/i18n/unavailable.js';
import {
  SqlitePaymentStore,
  SqliteSecurityReportStore,
  type SecurityReportEvent,
} from '../../src/server/index.js';
import {renderCardForm, styleHashes} from '../../src/ssr.js';
import {StubGateway, inProcessApp} from '../node/checkout/helpers.js';
import {dataDirs} from '../node/example/helpers.js';
import {
  RECORDER_PATH,
  RECORDER_SOURCE,
  launchEngine,
  missingEngine,
  recorderTag,
  testedEngines,
  type EnginePage,
} from './engines.js';

const CDN = 'dist/cdn';
const MODULE = 'pg-checkout-hydrate.js';
const LOADER = 'pg-checkout-hydrate-after-paint.js';
const inventory = JSON.parse(
  readFileSync(`${CDN}/pg-checkout.inventory.json`, 'utf8'),
) as Inventory;
const files = new Map(inventory.files.map((f) => [f.file, readFileSync(`${CDN}/${f.file}`)]));
const ukFile = inventory.files.find((f) => /^locales\/uk-/.test(f.file))!.file;

/** `bytes` with one byte of `mark` changed (`at` characters in), as an attacker would. */
function oneByteChanged(bytes: Buffer, mark: string, at: number): Buffer {
  const changed = Buffer.from(bytes);
  const found = bytes.indexOf(mark);
  assert.ok(found >= 0, `no ${mark} to change`);
  changed[found + at] = changed[found + at] === 0x41 ? 0x42 : 0x41;
  return changed;
}

/** The hydrating module changed: its licence comment, and a line marking the page if it ran. */
const changedModule = Buffer.concat([
  oneByteChanged(files.get(MODULE)!, '/*! pg-checkout', 4),
  Buffer.from('\nwindow.tampered = true;\n'),
]);
/** The Ukrainian table changed: its key `"pay"` becomes `"Aay"`; still JSON, still a table. */
const changedLocale = oneByteChanged(files.get(ukFile)!, '"pay"', 1);

/** The cases, each a folder of the test server: its page and the CDN files beside it. */
const CASES = {
  'module-refused': {changed: MODULE, bytes: changedModule},
  'locale-refused': {changed: ukFile, bytes: changedLocale},
} as const;
type CaseName = keyof typeof CASES;

const FORM = {
  endpoint: '/checkout/pay',
  orderRef: 'ssr-uk',
  lang: 'uk',
  amount: '12.50',
  currency: 'UAH',
};
const formHtml = renderCardForm(FORM);

const csp = (styles: readonly string[]) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${styles.join(' ')}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "require-trusted-types-for 'script'",
    'trusted-types lit-html pg-checkout',
  ].join('; ');

const dirs = dataDirs('pg-ssr-refused-');
let server: ReturnType<typeof createAdaptorServer>;
let origin: string;
let reportStore: SqliteSecurityReportStore;
const heard: SecurityReportEvent[] = [];
const waiters = new Set<() => void>();

/** The report the companion heard about `blocked`, once it has. */
async function reportOf(blocked: string): Promise<SecurityReportEvent> {
  for (;;) {
    const event = heard.find((e) => e.report.blockedUrl === blocked);
    if (event) return event;
    await new Promise<void>((resolve) => waiters.add(resolve));
  }
}

before(async () => {
  const policy = csp(await styleHashes(await formHtml));
  reportStore = new SqliteSecurityReportStore({filename: path.join(dirs.make(), 'reports.db')});
  const companion = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
    securityReports: {
      store: reportStore,
      onSecurityReport: (event) => {
        heard.push(event);
        for (const wake of waiters) wake();
        waiters.clear();
      },
    },
  }).app;
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    c.res.headers.set('Content-Security-Policy', policy);
    c.res.headers.set('Cache-Control', 'no-store');
  });
  app.mount('/checkout', (request) => {
    // The page's own origin is the shop's: the pay route takes it.
    const headers = new Headers(request.headers);
    if (headers.get('origin') === origin) headers.set('origin', 'https://shop.example');
    return companion.fetch(new Request(request, {headers}));
  });
  app.get(RECORDER_PATH, (c) => c.body(RECORDER_SOURCE, 200, {'Content-Type': 'text/javascript'}));
  app.get('/:engine/:case/*', async (c) => {
    const name = c.req.param('case') as CaseName;
    const changed = CASES[name];
    if (!changed) return c.notFound();
    const file = c.req.path.split('/').slice(3).join('/');
    if (file === '') {
      const loader = sriHash(files.get(LOADER)!);
      return c.html(`<!doctype html><html lang="uk"><head><meta charset="utf-8"><title>Оплата</title>
${recorderTag(['pg-error'])}
<script type="module" src="${LOADER}" integrity="${loader}" crossorigin="anonymous"></script>
</head><body><main><h1>Оплата</h1>${await formHtml}</main></body></html>`);
    }
    const bytes = file === changed.changed ? changed.bytes : files.get(file);
    if (!bytes) return c.notFound();
    const type = file.endsWith('.js') ? 'text/javascript' : 'application/json';
    return c.body(new Uint8Array(bytes), 200, {'Content-Type': type});
  });
  server = createAdaptorServer({fetch: app.fetch});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server?.close(resolve));
  dirs.removeAll();
});

/** What the customer is shown by the form: every text and every attribute a person meets. */
interface Shown {
  labels: string[];
  errors: string[];
  button: string;
  buttonDisabled: boolean;
  inputsDisabled: boolean[];
  status: string;
  statusClass: string;
  /** Every text of the form and every placeholder, label and title. */
  all: string;
}

// Script text, not a function: tsx would name the inner functions with a helper the page lacks.
const SHOWN = `(() => {
  const root = document.querySelector('pg-card-form').shadowRoot;
  const clean = (el) => el.textContent.replace(/\\s+/g, ' ').trim();
  const button = root.querySelector('button[type="submit"]');
  const status = root.querySelector('[part~="status"]');
  const attributes = [...root.querySelectorAll('*')].flatMap((el) =>
    ['placeholder', 'aria-label', 'title', 'alt'].map((n) => el.getAttribute(n)).filter(Boolean));
  return {
    labels: [...root.querySelectorAll('label')].map(clean),
    errors: [...root.querySelectorAll('[part~="error"]')].map(clean).filter(Boolean),
    button: clean(button),
    buttonDisabled: button.matches(':disabled'),
    inputsDisabled: [...root.querySelectorAll('input')].map((i) => i.matches(':disabled')),
    status: clean(status),
    statusClass: status.className,
    all: clean(root.querySelector('form')) + ' ' + attributes.join(' '),
  };
})()`;

const shown = (page: EnginePage) => page.evaluate<Shown>(SHOWN);

const CYRILLIC = /[\u0400-\u04ff]/;

for (const engine of testedEngines()) {
  describe(`${engine}: a server-rendered form whose pinned file was changed`, async () => {
    const missing = await missingEngine(engine);
    let browser: Awaited<ReturnType<typeof launchEngine>> | undefined;
    before(async () => {
      if (!missing) browser = await launchEngine(engine);
    });
    after(async () => {
      await browser?.close();
    });

    it(
      'the hydrating module refused: the customer is told in Ukrainian, the page hears pg-error, the companion stores the report',
      {skip: missing, timeout: 60_000},
      async () => {
        const page = await browser!.newPage();
        const base = `${origin}/${engine}/module-refused/`;
        await page.goto(base);
        const error = (await page.waitForEvent('pg-error')) as Record<string, unknown>;
        assert.deepEqual(error, {
          orderRef: 'ssr-uk',
          code: 'misconfigured',
          message: `pg-checkout: ${base}${MODULE} could not be loaded: refused by its integrity hash, missing, or offline`,
          retryable: false,
        });
        const form = await shown(page);
        assert.equal(form.status, UNAVAILABLE_TEXTS['uk']);
        assert.equal(form.statusClass, 'status status--error');
        assert.equal(form.buttonDisabled, true, 'Pay is left on, doing nothing');
        assert.deepEqual(form.inputsDisabled, [true, true, true]);
        assert.equal(
          await page.evaluate(() => 'tampered' in window),
          false,
          'the changed file ran',
        );
        assert.equal(
          await page.evaluate(() => customElements.get('pg-card-form') === undefined),
          true,
        );

        // The companion heard it, stored it, and told the merchant's hook.
        const {report, isNew} = await reportOf(`${base}${MODULE}`);
        assert.equal(isNew, true);
        assert.equal(report.documentUrl, base);
        assert.equal(report.directive, 'integrity');
        assert.equal(report.disposition, 'enforce');
        assert.equal(report.sourceFile, `${base}${LOADER}`);
        const stored = await reportStore.list();
        assert.ok(
          stored.some((r) => r.blockedUrl === `${base}${MODULE}` && r.directive === 'integrity'),
          'not in the store',
        );
        assert.equal(
          heard.filter((e) => e.report.documentUrl === base).length,
          1,
          'reported twice',
        );
        await page.close();
      },
    );

    it(
      'the Ukrainian table refused: labels, errors, button and status are all English',
      {skip: missing, timeout: 60_000},
      async () => {
        // Rendered in Ukrainian on the server.
        assert.match(await formHtml, new RegExp(uk.cardNumber));
        const page = await browser!.newPage();
        await page.goto(`${origin}/${engine}/locale-refused/`);
        const error = (await page.waitForEvent('pg-error')) as {code: string; message: string};
        assert.equal(error.code, 'misconfigured');
        assert.match(
          error.message,
          new RegExp(`/${ukFile.replace('.', '\\.')} could not be loaded`),
        );
        await page.evaluate(
          () =>
            (
              document.querySelector('pg-card-form') as unknown as {
                updateComplete: Promise<unknown>;
              }
            ).updateComplete,
        );
        const idle = await shown(page);
        assert.doesNotMatch(idle.all, CYRILLIC, `Ukrainian left in: ${idle.all}`);
        assert.deepEqual(idle.labels.slice(0, 1), [en.cardNumber]);
        assert.equal(idle.labels[1], `${en.expiry} (${en.expiryHint})`);
        assert.match(idle.button, /^Pay UAH\s12\.50$/);

        // Pay with nothing typed: each field's error and the status, in English.
        await page.click('pg-card-form', 'button[type="submit"]');
        await page.waitFor(
          () =>
            document
              .querySelector('pg-card-form')!
              .shadowRoot!.querySelector('[part~="status"]')!
              .textContent!.trim() !== '',
        );
        const refused = await shown(page);
        assert.doesNotMatch(refused.all, CYRILLIC, `Ukrainian left in: ${refused.all}`);
        assert.deepEqual(refused.errors, [en.numberRequired, en.expiryRequired, en.cvvRequired]);
        assert.equal(refused.status, 'Please correct 3 fields.');

        // And the companion's answer to a payment (it wants the browser's fingerprint, which
        // this page does not collect: "check the details").
        const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
        await page.typeInShadow('pg-card-form', '#number', '4242424242424242');
        await page.typeInShadow('pg-card-form', '#expiry', `12${year}`);
        await page.typeInShadow('pg-card-form', '#cvv', '123');
        await page.click('pg-card-form', 'button[type="submit"]');
        await page.waitFor(
          () =>
            document.querySelector('pg-card-form')!.shadowRoot!.querySelector('.status--error') !==
            null,
        );
        const answered = await shown(page);
        assert.doesNotMatch(answered.all, CYRILLIC, `Ukrainian left in: ${answered.all}`);
        assert.equal(answered.status, en.checkDetails);
        assert.equal(answered.button, en.retry);
      },
    );
  });
}
