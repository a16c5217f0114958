/**
 * No card number survives a CSP report into the example's data folder, its log or its back
 * office (issue 35): the test cards of three brands (Visa, Amex, a 19-digit UnionPay; each
 * confirmed valid, and of its brand, by card-validator) are spelt 69 ways each —
 * grouped and joined by spaces, two spaces, dashes, dots, underscores, slashes, pluses,
 * escaped and twice-escaped spaces, no-break and zero-width spaces; digit by digit;
 * full-width, mathematical bold, percent-escaped (once, twice, with a full-width `％`) —
 * and every spelling goes into every text field of a report, in both shapes browsers send
 * (`application/reports+json`, `application/csp-report`), posted over HTTP to the example
 * app. Then the SQLite file and its `-wal` and `-shm` (raw bytes, while the app runs and
 * after it closes), every row of every table, the captured log and the back office's
 * reports are searched: for each spelling as posted and as a URL or JSON writes it, and,
 * after decoding them again and again with `decodeURIComponent`, normalising them (NFKC)
 * and dropping everything but letters and digits, for the digits. None is found; the
 * reports themselves are there.
 */
import {after, test} from 'node:test';
import assert from 'node:assert/strict';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import type {AddressInfo} from 'node:net';
import {Writable} from 'node:stream';
import Database from 'better-sqlite3';
import cardValidator from 'card-validator';
import {createAdaptorServer} from '@hono/node-server';
import {CHECKOUT_BASE, createExampleApp} from '../../../server-example/app.js';
import {createCheckoutLogger} from '../../../src/server/index.js';
import {SECRET} from '../checkout/helpers.js';
import {call, dataDirs} from './helpers.js';

const ADMIN = 'admin-token-0123456789abcdef';
const gateway = {
  baseUrl: 'http://127.0.0.1:9',
  posId: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c0be11',
  credentials: {apiKey: 'k', apiSecret: SECRET, endpointsKey: 'e'},
};

const dirs = dataDirs('pg-report-cards-');
after(() => dirs.removeAll());

/** The test cards: the sandbox's Visa, Amex's and UnionPay's 19-digit test numbers. */
const CARDS = [
  {digits: '4242424242424242', brand: 'visa', groups: [4, 4, 4, 4]},
  {digits: '378282246310005', brand: 'american-express', groups: [4, 6, 5]},
  {digits: '6200000000000000005', brand: 'unionpay', groups: [4, 4, 4, 4, 3]},
];

const SEPARATORS = [
  '',
  ' ',
  '  ',
  '-',
  '.',
  '_',
  '/',
  '+',
  ' - ',
  '%20',
  '%2520',
  ',',
  '\u00a0',
  '\u200b',
];

const grouped = (digits: string, groups: number[], sep: string, digit = (d: string) => d) => {
  const out: string[] = [];
  let at = 0;
  for (const g of groups) {
    out.push([...digits.slice(at, at + g)].map(digit).join(''));
    at += g;
  }
  return out.join(sep);
};
const fullWidth = (d: string) => String.fromCharCode(0xff10 + Number(d));
const bold = (d: string) => String.fromCodePoint(0x1d7ce + Number(d));
const escaped = (d: string) => `%3${d}`;
const twiceEscaped = (d: string) => `%253${d}`;
const wideEscaped = (d: string) => `\uff05\uff13${fullWidth(d)}`;

/** Every spelling of `card`, with the digits each means. */
function spellingsOf(card: (typeof CARDS)[number]): string[] {
  const {digits, groups} = card;
  const perDigit = digits.split('').map(() => 1);
  return [
    ...SEPARATORS.map((sep) => grouped(digits, groups, sep)),
    grouped(digits, perDigit, ' '),
    grouped(digits, perDigit, '.'),
    grouped(digits, [digits.length], '', fullWidth),
    grouped(digits, groups, ' ', fullWidth),
    grouped(digits, groups, '\uff0e', fullWidth),
    grouped(digits, [digits.length], '', escaped),
    grouped(digits, groups, '%20', twiceEscaped),
    grouped(digits, [digits.length], '', wideEscaped),
    grouped(digits, groups, ' ', bold),
  ];
}

/** The oracle's decoding: `decodeURIComponent` over each run of escapes, then NFKC, until stable. */
function decoded(text: string): string {
  let current = text;
  for (let i = 0; i < 12; i++) {
    const next = current
      .replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
        try {
          return decodeURIComponent(run);
        } catch {
          return run;
        }
      })
      .normalize('NFKC');
    if (next === current) break;
    current = next;
  }
  return current;
}

/** Letters and digits only, after decoding: where any joined spelling reads as its digits. */
const squeezed = (text: string) => decoded(text).replace(/[^\p{L}\p{N}]+/gu, '');

const SPELLINGS = CARDS.flatMap((card) => spellingsOf(card).map((spelling) => ({card, spelling})));

test('each spelling is a valid test card of its brand (card-validator)', () => {
  assert.ok(SPELLINGS.length >= 50, `${SPELLINGS.length} spellings`);
  for (const {card, spelling} of SPELLINGS) {
    const digits = decoded(spelling).replace(/\D/g, '');
    assert.equal(digits, card.digits, `${JSON.stringify(spelling)} means ${card.digits}`);
    const verdict = cardValidator.number(digits);
    assert.ok(verdict.isValid, `${digits} passes card-validator`);
    assert.equal(verdict.card?.type, card.brand);
  }
});

/** Letters only, so a marker never joins the digits around it. */
const marker = (i: number) =>
  String.fromCharCode(97 + Math.floor(i / 26)) + String.fromCharCode(97 + (i % 26));

/** The reports: each field of each carries two spellings, apart by letters. */
function reportBodies(shape: 'reports+json' | 'csp-report'): {body: string; ua: string}[] {
  const half = Math.ceil(SPELLINGS.length / 2);
  const bodies: {body: string; ua: string}[] = [];
  for (let i = 0; i < half; i++) {
    const a = SPELLINGS[i]!.spelling;
    const b = (SPELLINGS[i + half] ?? SPELLINGS[0]!).spelling;
    const two = `${a}/zz/${b}`;
    const m = marker(i);
    const number = Number(SPELLINGS[i]!.card.digits);
    const fields = {
      document: `https://shop.example/${m}/${two}`,
      blocked: `https://evil.example/c/${two}`,
      referrer: `https://shop.example/r/${two}`,
      source: `https://cdn.example/${two}.js`,
      sample: two,
      policy: `default-src 'none'; report-uri /r/${two}`,
      directive: two,
      ua: `Mozilla/5.0 (${two})`,
    };
    // A header carries Latin-1 only: the escaped spelling of the same number there.
    const ua = `Mozilla/5.0 (${encodeURI(two)})`;
    const body =
      shape === 'reports+json'
        ? [
            {
              type: 'csp-violation',
              age: 1,
              url: fields.document,
              user_agent: fields.ua,
              body: {
                documentURL: fields.document,
                blockedURL: fields.blocked,
                referrer: fields.referrer,
                sourceFile: fields.source,
                sample: fields.sample,
                originalPolicy: fields.policy,
                effectiveDirective: fields.directive,
                disposition: 'enforce',
                lineNumber: Number.isSafeInteger(number) ? number : 1,
                columnNumber: Number.isSafeInteger(number) ? number : 1,
                statusCode: 200,
              },
            },
          ]
        : {
            'csp-report': {
              'document-uri': fields.document,
              'blocked-uri': fields.blocked,
              referrer: fields.referrer,
              'source-file': fields.source,
              'script-sample': fields.sample,
              'original-policy': fields.policy,
              'effective-directive': fields.directive,
              'violated-directive': fields.directive,
              disposition: 'report',
              'line-number': Number.isSafeInteger(number) ? number : 1,
              'column-number': 1,
              'status-code': 200,
            },
          };
    bodies.push({body: JSON.stringify(body), ua});
  }
  return bodies;
}

/** The ways a spelling may be written down: as posted, in JSON, in a URL's path. */
function writtenForms(spelling: string): string[] {
  const forms = new Set([spelling, JSON.stringify(spelling).slice(1, -1)]);
  forms.add(new URL(`https://x.example/${spelling}`).pathname.slice(1));
  forms.add(encodeURIComponent(spelling));
  return [...forms].filter((f) => f.length >= 12);
}

/** The spellings found anywhere, by their index in `SPELLINGS` (for the figures). */
const spellingsFound = new Set<number>();

/** What of the cards `text` (from `where`) holds: each spelling written, or the digits. */
function findings(where: string, text: string): string[] {
  const found: string[] = [];
  for (const [i, {spelling}] of SPELLINGS.entries()) {
    for (const form of writtenForms(spelling)) {
      if (text.includes(form)) {
        found.push(`${where}: ${JSON.stringify(form)}`);
        spellingsFound.add(i);
      }
    }
  }
  const plain = squeezed(text);
  for (const {digits} of CARDS) {
    if (plain.includes(digits)) found.push(`${where}: the digits ${digits}`);
  }
  return found;
}

/** The data folder's database files, each read as bytes and as text. */
function searchFiles(dir: string): {found: string[]; files: string[]} {
  const found: string[] = [];
  const files: string[] = [];
  for (const name of ['payments.db', 'payments.db-wal', 'payments.db-shm']) {
    const file = path.join(dir, name);
    if (!existsSync(file)) continue;
    files.push(name);
    const bytes = readFileSync(file);
    found.push(...findings(`${name} (latin1)`, bytes.toString('latin1')));
    found.push(...findings(`${name} (utf-8)`, new TextDecoder().decode(bytes)));
  }
  return {found, files};
}

/** Every row of every table of the file, as JSON. */
function everyRow(file: string): {text: string; reportRows: number} {
  const db = new Database(file, {readonly: true});
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    const text = tables
      .map(({name}) => JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all()))
      .join('\n');
    const reportRows = (
      db.prepare('SELECT count(*) AS n FROM pg_security_reports').get() as {n: number}
    ).n;
    return {text, reportRows};
  } finally {
    db.close();
  }
}

async function postEverySpelling(shape: 'reports+json' | 'csp-report') {
  const dir = dirs.make();
  const logLines: string[] = [];
  const logger = createCheckoutLogger(
    {level: 'info'},
    new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  const serving: {fetch?: (req: Request, env: unknown) => Response | Promise<Response>} = {};
  const server = createAdaptorServer({fetch: (req, env) => serving.fetch!(req, env)});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const example = createExampleApp({
    publicUrl: base,
    dataDir: dir,
    adminToken: ADMIN,
    logger,
    bundlePath: path.join(dir, 'no-bundle.js'),
    gateway,
  });
  await example.start();
  serving.fetch = example.app.fetch;
  try {
    const bodies = reportBodies(shape);
    for (const [i, {body, ua}] of bodies.entries()) {
      const answer = await call(base, `${CHECKOUT_BASE}/security-report`, {
        method: 'POST',
        headers: {'Content-Type': `application/${shape}`, 'User-Agent': ua},
        body,
        from: `127.0.3.${i + 1}`,
      });
      assert.equal(answer.status, 204, `report ${i}: ${answer.text}`);
    }
    const signIn = await call(base, '/admin/login', {
      method: 'POST',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({token: ADMIN}).toString(),
    });
    const cookie = (signIn.headers['set-cookie'] ?? [])
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('pg_admin=') && c !== 'pg_admin=');
    assert.ok(cookie, 'signed in to the back office');
    const page = await call(base, '/admin/api/security-reports', {headers: {Cookie: cookie}});
    assert.equal(page.status, 200);
    const listed = (JSON.parse(page.text) as {reports: unknown[]}).reports.length;

    const running = searchFiles(dir);
    const rows = everyRow(path.join(dir, 'payments.db'));
    const found = [
      ...running.found,
      ...findings('the rows', rows.text),
      ...findings('the log', logLines.join('')),
      ...findings('the back office', page.text),
    ];
    return {
      dir,
      found,
      listed,
      reportRows: rows.reportRows,
      files: running.files,
      sent: bodies.length,
    };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await example.close();
  }
}

for (const shape of ['reports+json', 'csp-report'] as const) {
  test(`every spelling in every field of application/${shape} reports: none in the data folder, the log or the back office`, async (t) => {
    spellingsFound.clear();
    const result = await postEverySpelling(shape);
    // The reports are there, one per report posted (each has its own page path).
    assert.equal(result.reportRows, result.sent, 'every report kept');
    assert.equal(result.listed, result.sent, 'every report in the back office');
    assert.ok(result.files.includes('payments.db-wal'), 'the WAL was searched');
    const closed = searchFiles(result.dir);
    const found = [...result.found, ...closed.found.map((f) => `after closing, ${f}`)];
    t.diagnostic(
      `${SPELLINGS.length} spellings × ${shape}: ${spellingsFound.size} spellings found, ${found.length} findings${found.length ? `: ${found.slice(0, 20).join('; ')}` : ''}`,
    );
    assert.deepEqual(found, []);
  });
}
