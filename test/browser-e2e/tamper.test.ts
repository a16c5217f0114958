/**
 * Tampering with the CDN, as an attacker who can change one file of dist/cdn/ would: for
 * every file a payment page may load (the script inventory's list, so a file added to the
 * build is tried here without a line of this test changing), the folder is served with that
 * one file changed by one byte, under the strict CSP with Trusted Types, in Chromium,
 * Firefox and WebKit. The browser must refuse the changed file: a script never runs; a
 * locale's texts (or the index of their hashes) are never shown, the form says so to the
 * merchant (`pg-error`, `misconfigured`) and still takes a payment, in English; the
 * saved-card view (`saved-cards-<hash>.js`, pinned by pg-checkout.js) is never shown, the
 * form says so and pays with a card typed in. Beside the tampered runs, the same pages
 * untouched: a Polish page shows Polish and pays, a page with a saved card shows it and
 * pays with it, and a server-rendered page hydrates through its after-paint loader and
 * pays, in each engine.
 *
 * Each engine is opened once (engines.ts, `openInEngine`) on the first case;
 * the page's own script (`PROBE`) reports what it saw to this server, which answers with
 * the next case's address, so the browser is only ever asked to open a URL.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {createServer, type IncomingMessage, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import type {Inventory} from '../../scripts/vite/script-inventory.js';
import {sriHash} from '../../scripts/vite/subresource-integrity.js';
import {en} from '../../src/i18n/locales/en.js';
import {renderCardForm, styleHashes} from '../../src/ssr.js';
import {missingEngine, openInEngine, testedEngines} from './engines.js';

const CDN = 'dist/cdn';
const inventory = JSON.parse(
  readFileSync(`${CDN}/pg-checkout.inventory.json`, 'utf8'),
) as Inventory;
const files = new Map(inventory.files.map((f) => [f.file, readFileSync(`${CDN}/${f.file}`)]));
const indexFile = inventory.files.find((f) => f.file.startsWith('locales/index-'))!.file;

/** `bytes` with one byte changed where the content still loads (a script still runs). */
function oneByteChanged(file: string, bytes: Buffer): Buffer {
  const changed = Buffer.from(bytes);
  // A script: its licence comment (`/*! pg-checkout`): it would still run, unchanged.
  // A locale: the key `"pay"` becomes `"Pay"`: the rest of the table would still show.
  // The index: a letter of the first hash: a file that is not the one built would be asked.
  const [mark, offset] = file.endsWith('.js')
    ? ['/*! pg-checkout', 4]
    : file === indexFile
      ? ['sha384-', 7]
      : ['"pay"', 1];
  const found = bytes.indexOf(mark);
  assert.ok(found >= 0, `${file}: no ${mark} to change`);
  const at = found + offset;
  changed[at] = changed[at] === 0x41 ? 0x42 : 0x41; // 'A', else 'B'
  if (!file.endsWith('.js') && file !== indexFile) changed[at] = 0x50; // 'p' → 'P'
  assert.equal(changed.length, bytes.length);
  assert.equal(
    changed.reduce((n, byte, i) => n + (byte === bytes[i] ? 0 : 1), 0),
    1,
  );
  return changed;
}

/** What a case's page is, and which file of the folder it serves changed (if any). */
interface Case {
  name: string;
  /**
   * `cdn`: pg-checkout.js in a `<script integrity>`; `saved`: the same with
   * `offer-save-card`, for a customer with a saved card; `ssr`: a server-rendered form and
   * the after-paint loader.
   */
  page: 'cdn' | 'saved' | 'ssr';
  lang: string;
  tampered?: string;
}

const codeOf = (file: string) => /^locales\/([a-z]+)-/.exec(file)?.[1];
/** A file of code that pg-checkout.js loads pinned (the saved-card view). */
const isPinnedModule = (file: string) => /^saved-cards-[\w-]+\.js$/.test(file);
/** The saved card the order route lists on a `saved` page. */
const SAVED_CARD = {
  id: 'card-1',
  mask: '555555******4444',
  brand: 'mastercard',
  expMonth: 12,
  expYear: new Date().getFullYear() + 2,
  expired: false,
};

const CASES: Case[] = [
  {name: 'untouched: a Polish page', page: 'cdn', lang: 'pl'},
  {name: 'untouched: a server-rendered page', page: 'ssr', lang: 'en'},
  {name: 'untouched: a page with a saved card', page: 'saved', lang: 'en'},
  ...inventory.files.map(({file}): Case => {
    if (file === 'pg-checkout.js') return {name: file, page: 'cdn', lang: 'en', tampered: file};
    if (isPinnedModule(file)) return {name: file, page: 'saved', lang: 'en', tampered: file};
    if (file.endsWith('.js')) return {name: file, page: 'ssr', lang: 'en', tampered: file};
    const lang = file === indexFile ? 'pl' : codeOf(file)!;
    return {name: file, page: 'cdn', lang, tampered: file};
  }),
];

/** The page's script: records what the page hears, fills and pays, reports, moves on. */
const PROBE = `(() => {
  const report = {errors: [], scriptErrors: [], violations: []};
  document.addEventListener('pg-error', (e) => report.errors.push(e.detail));
  document.addEventListener('error', (e) => {
    if (e.target && e.target.src) report.scriptErrors.push(e.target.src);
  }, true);
  document.addEventListener('securitypolicyviolation', (e) => {
    report.violations.push(e.violatedDirective + ' ' + e.blockedURI);
  });
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const label = (form) => form.shadowRoot.querySelector('label[for="number"]').textContent.trim();
  async function run() {
    const form = document.querySelector('pg-card-form');
    // Until the form runs, or the page hears that it cannot (its tag's error, a pg-error).
    const waiting = () => !(customElements.get('pg-card-form') && form.hasUpdated) &&
      report.scriptErrors.length + report.errors.length === 0;
    for (let i = 0; i < 50 && waiting(); i++) await sleep(100);
    report.defined = customElements.get('pg-card-form') !== undefined;
    if (report.defined) {
      await form.updateComplete;
      // The page's language: its texts, or the form's word that it cannot have them.
      for (let i = 0; i < 30 && document.documentElement.lang !== 'en' && label(form) === ${JSON.stringify(en.cardNumber)} && report.errors.length === 0; i++) await sleep(100);
      await form.updateComplete;
      if (form.hasAttribute('offer-save-card')) {
        // The order's answer, then the saved-card view, or the form's word that it cannot have it.
        const saved = () => form.shadowRoot.querySelector('[part="saved-cards"]');
        for (let i = 0; i < 30 && !saved() && report.errors.length === 0; i++) await sleep(100);
        await form.updateComplete;
        report.savedCardShown = saved() !== null;
      }
      report.label = label(form);
      report.button = form.shadowRoot.querySelector('button[type=submit]').textContent.trim();
      const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
      // With a saved card chosen the card's fields are hidden: it pays with that card.
      if (!report.savedCardShown) for (const [id, value] of [['number', '4242424242424242'], ['expiry', '12' + year], ['cvv', '123']]) {
        const input = form.shadowRoot.querySelector('#' + id);
        input.value = value;
        input.dispatchEvent(new InputEvent('input', {bubbles: true, composed: true, inputType: 'insertFromPaste', data: value}));
      }
      const outcome = new Promise((resolve) => {
        document.addEventListener('pg-success', () => resolve('success'));
        setTimeout(() => resolve('none'), 5000);
      });
      await form.submit();
      report.outcome = await outcome;
    } else {
      await sleep(300);
    }
    const answer = await fetch('result', {method: 'POST', body: JSON.stringify(report)});
    const next = await answer.text();
    if (next) location.href = next;
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run);
  else run();
})();`;

const csp = (styles: readonly string[]) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${styles.join(' ')}`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "require-trusted-types-for 'script'",
    'trusted-types lit-html pg-checkout',
  ].join('; ');

interface Report {
  errors: Array<{code: string; message: string; retryable: boolean; orderRef?: string}>;
  scriptErrors: string[];
  violations: string[];
  defined: boolean;
  label?: string;
  button?: string;
  outcome?: string;
  savedCardShown?: boolean;
}

let server: Server;
let origin: string;
let policy: string;
const ssrForm = renderCardForm({endpoint: 'checkout/pay', orderRef: 'ssr', lang: 'en'});
/** Reports of the engine running now, by case. */
let reports: Map<number, Report>;
let allReported: () => void = () => {};
/** Payments by the case whose page made them: with a saved card, or a card typed in. */
let payments: Array<{n: number; savedCardId?: string; card: boolean}>;

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

async function pageOf(n: number, c: Case): Promise<string> {
  const head = `<!doctype html><html lang="${c.lang}"><head><meta charset="utf-8"><title>Case ${n}</title>
<script src="probe.js"></script>`;
  if (c.page !== 'ssr') {
    const sri = sriHash(files.get('pg-checkout.js')!);
    const offer = c.page === 'saved' ? ' offer-save-card' : '';
    return `${head}
<script type="module" src="pg-checkout.js" integrity="${sri}" crossorigin="anonymous"></script>
</head><body><pg-card-form endpoint="checkout/pay" order-ref="case-${n}"${offer}></pg-card-form></body></html>`;
  }
  const sri = sriHash(files.get('pg-checkout-hydrate-after-paint.js')!);
  return `${head}
<script type="module" src="pg-checkout-hydrate-after-paint.js" integrity="${sri}" crossorigin="anonymous"></script>
</head><body>${(await ssrForm).replace('order-ref="ssr"', `order-ref="case-${n}"`)}</body></html>`;
}

before(async () => {
  policy = csp(await styleHashes(await ssrForm));
  server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, type: string, body: string | Buffer) => {
        res.writeHead(status, {
          'Content-Type': type,
          'Content-Security-Policy': policy,
          'Cache-Control': 'no-store',
        });
        res.end(body);
      };
      const match = /^\/case\/(\d+)\/(.*)$/.exec(url.pathname);
      const n = Number(match?.[1]);
      const c = CASES[n];
      if (!match || !c) return send(404, 'text/plain', 'not found');
      const rest = match[2]!;
      if (rest === '') return send(200, 'text/html; charset=utf-8', await pageOf(n, c));
      if (rest === 'probe.js') return send(200, 'text/javascript', PROBE);
      if (rest === 'result' && req.method === 'POST') {
        reports.set(n, JSON.parse(await readBody(req)) as Report);
        if (reports.size === CASES.length) allReported();
        return send(200, 'text/plain', n + 1 < CASES.length ? `${origin}/case/${n + 1}/` : '');
      }
      if (rest === 'checkout/pay' && req.method === 'POST') {
        const body = JSON.parse(await readBody(req)) as {
          orderRef: string;
          savedCardId?: string;
          card?: unknown;
        };
        payments.push({
          n,
          card: body.card !== undefined,
          ...(body.savedCardId ? {savedCardId: body.savedCardId} : {}),
        });
        const answer = {outcome: 'success', orderRef: body.orderRef, code: '1000', message: 'OK'};
        return send(200, 'application/json', JSON.stringify(answer));
      }
      if (rest === 'checkout/order' && req.method === 'POST') {
        const body = JSON.parse(await readBody(req)) as {orderRef: string};
        const answer = {
          orderRef: body.orderRef,
          amount: '10.00',
          currency: 'UAH',
          savedCards: [SAVED_CARD],
        };
        return send(200, 'application/json', JSON.stringify(answer));
      }
      const bytes = files.get(rest);
      if (!bytes) return send(404, 'text/plain', 'not found');
      const body = rest === c.tampered ? oneByteChanged(rest, bytes) : bytes;
      return send(200, rest.endsWith('.js') ? 'text/javascript' : 'application/json', body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

for (const engine of testedEngines()) {
  describe(`${engine}: one file of the CDN changed by one byte`, async () => {
    const missing = await missingEngine(engine);
    const results = new Map<number, Report>();
    const paid: Array<{n: number; savedCardId?: string; card: boolean}> = [];
    const paidBy = (n: number) => paid.filter((p) => p.n === n);

    before(
      async () => {
        if (missing) return;
        reports = results;
        payments = paid;
        const done = new Promise<void>((resolve) => (allReported = resolve));
        const browser = await openInEngine(engine, `${origin}/case/0/`);
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, 120_000).unref());
        await Promise.race([done, timeout]);
        await browser.close();
      },
      {timeout: 180_000},
    );

    CASES.forEach((c, n) => {
      it(c.name, {skip: missing}, () => {
        const report = results.get(n);
        assert.ok(report, `case ${n} (${c.name}) reported nothing`);
        const {errors, violations} = report;
        if (!c.tampered) {
          // The page's own language, no error, paid.
          assert.equal(report.defined, true);
          if (c.lang !== 'en') assert.notEqual(report.label, en.cardNumber);
          assert.deepEqual(errors, []);
          assert.equal(report.outcome, 'success');
          if (c.page === 'saved') {
            assert.equal(report.savedCardShown, true, 'the saved-card view did not show');
            assert.deepEqual(paidBy(n), [{n, card: false, savedCardId: SAVED_CARD.id}]);
          } else {
            assert.deepEqual(paidBy(n), [{n, card: true}]);
          }
        } else if (isPinnedModule(c.tampered)) {
          // The saved-card view refused: never shown, said once, paid with a card typed in.
          assert.equal(report.defined, true);
          assert.equal(report.savedCardShown, false, 'the changed view was shown');
          assert.deepEqual(
            errors.map((e) => [e.code, e.retryable, e.orderRef]),
            [['misconfigured', false, `case-${n}`]],
          );
          assert.match(errors[0]!.message, new RegExp(`/${c.tampered} could not be loaded`));
          assert.equal(report.outcome, 'success');
          assert.deepEqual(paidBy(n), [{n, card: true}]);
        } else if (c.tampered === 'pg-checkout.js' || c.tampered.endsWith('-after-paint.js')) {
          // The page's own script refused: nothing of pg-checkout runs, and its tag says so.
          assert.equal(report.defined, false, 'the changed script ran');
          assert.ok(
            report.scriptErrors.some((src) => src.endsWith(`/${c.tampered}`)),
            `no error on its tag: ${report.scriptErrors.join(' ')}`,
          );
          assert.deepEqual(paidBy(n), []);
        } else if (c.tampered.endsWith('.js')) {
          // The hydrating bundle, refused at its loader: the form says it cannot pay.
          assert.equal(report.defined, false, 'the changed script ran');
          assert.equal(errors.length, 1, JSON.stringify(errors));
          assert.equal(errors[0]!.code, 'misconfigured');
          assert.equal(errors[0]!.retryable, false);
          assert.equal(errors[0]!.orderRef, `case-${n}`);
          assert.match(errors[0]!.message, new RegExp(`/${c.tampered} could not be loaded`));
          assert.deepEqual(paidBy(n), []);
        } else {
          // Texts refused: English shown, never the changed table; said once; paid.
          assert.equal(report.defined, true);
          assert.equal(report.label, en.cardNumber, 'texts of the changed file were shown');
          assert.deepEqual(
            errors.map((e) => [e.code, e.retryable, e.orderRef]),
            [['misconfigured', false, `case-${n}`]],
          );
          assert.match(
            errors[0]!.message,
            new RegExp(`/${c.tampered.replace('.', '\\.')} could not`),
          );
          assert.equal(report.outcome, 'success');
          assert.deepEqual(paidBy(n), [{n, card: true}], 'no payment');
        }
        assert.deepEqual(violations, []);
      });
    });
  });
}
