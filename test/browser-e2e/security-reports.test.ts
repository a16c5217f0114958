/**
 * A real CSP violation on the example app's payment page, in Chromium, Firefox and WebKit,
 * reaches the companion's report endpoint as each browser sends it, then the merchant's
 * `onSecurityReport` hook, the store and the back office (its API and its page). The page
 * is the example's CDN page with the example's own headers, and one image from another
 * origin put in on the way, which `img-src 'self'` refuses.
 *
 * The example names the endpoint twice, as the recommended policy does: `report-to` (with
 * `Reporting-Endpoints`) and `report-uri`. Measured here: Chromium 156 and Firefox 153 ESR
 * read `Reporting-Endpoints` only on HTTPS, and with `report-to` in the policy they ignore
 * `report-uri`, so over plain HTTP they send nothing. So Chromium and WebKit get the page
 * over HTTPS (a certificate made for the test with `openssl`; the browsers are told to take
 * it): Chromium posts `application/reports+json`, WebKit posts its own shapes as
 * `application/csp-report`. Firefox, which cannot be told to take the certificate without
 * changing its installation, gets the page over HTTP with `report-to` taken out of the
 * policy on the way: the `report-uri` path, as Firefox uses it where it has no Reporting
 * API.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {createServer as createHttpsServer} from 'node:https';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../sandbox/index.js';
import {createCheckoutLogger, type SecurityReportEvent} from '../../src/server/index.js';
import {createExampleApp, type ExampleApp} from '../../server-example/app.js';
import {CHROMIUM_ARGS, launchChromium} from '../../scripts/chromium.mjs';
import {dataDirs, sandboxGateway} from '../node/example/helpers.js';
import {missingEngine, openInEngine, testedEngines, type Engine} from './engines.js';

const ADMIN = 'admin-token-security-reports-0123';
const BLOCKED = 'https://blocked.invalid/pixel.png';
const dirs = dataDirs('pg-security-reports-e2e-');

let sandbox: Sandbox;
let example: ExampleApp;
let https: ReturnType<typeof createAdaptorServer>;
let http: ReturnType<typeof createAdaptorServer>;
/** The example over HTTPS (its `publicUrl`), and over HTTP. */
let secure: string;
let plain: string;
const heard: SecurityReportEvent[] = [];
/** Called, and forgotten, when the hook hears a report. */
const waiting: (() => void)[] = [];

/** A self-signed certificate for 127.0.0.1, made with openssl. */
function certificate(): {key: Buffer; cert: Buffer} {
  const dir = dirs.make();
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    {stdio: 'ignore'},
  );
  return {key: readFileSync(key), cert: readFileSync(cert)};
}

const listen = async (server: ReturnType<typeof createAdaptorServer>, scheme: string) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

before(async () => {
  sandbox = await startSandbox({});
  let handler: (request: Request) => Promise<Response> = async () =>
    new Response(null, {status: 503});
  https = createAdaptorServer({
    fetch: (request: Request) => handler(request),
    createServer: createHttpsServer,
    serverOptions: certificate(),
  });
  http = createAdaptorServer({fetch: (request: Request) => handler(request)});
  secure = await listen(https, 'https');
  plain = await listen(http, 'http');
  example = createExampleApp({
    publicUrl: secure,
    dataDir: dirs.make(),
    adminToken: ADMIN,
    logger: createCheckoutLogger({level: 'silent'}),
    gateway: sandboxGateway(sandbox),
    onSecurityReport: (event) => {
      heard.push(event);
      for (const wake of waiting.splice(0)) wake();
    },
  });
  example.start();
  handler = async (request) => {
    const url = new URL(request.url);
    const engine = /^\/violating-page\/(\w+)$/.exec(url.pathname)?.[1];
    if (!engine) return example.app.fetch(request);
    // The CDN page, with the example's headers, and an image from elsewhere.
    const page = await example.app.fetch(
      new Request(`${url.origin}/cdn`, {headers: request.headers}),
    );
    const text = (await page.text()).replace('</main>', `<img src="${BLOCKED}" alt=""></main>`);
    const headers = new Headers(page.headers);
    if (url.protocol === 'http:') {
      // Over HTTP: report-uri only, to this origin (see above).
      const csp = headers.get('content-security-policy')!;
      headers.set(
        'content-security-policy',
        csp.replace(/; report-to [^;]+/, '').replaceAll(secure, plain),
      );
    }
    return new Response(text, {status: page.status, headers});
  };
});

after(async () => {
  await Promise.all([https, http].map((s) => new Promise((resolve) => s?.close(resolve))));
  await example?.close();
  await sandbox?.close();
  dirs.removeAll();
});

/**
 * Resolves when the hook has heard the violation of `engine`'s page: each report it hears
 * wakes this to look (an engine that sends none is ended by the test's timeout).
 */
async function heardFrom(origin: string, engine: string): Promise<SecurityReportEvent> {
  for (;;) {
    const event = heard.find((e) => e.report.documentUrl === `${origin}/violating-page/${engine}`);
    if (event) return event;
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

const ORIGIN: Record<Engine, () => string> = {
  chromium: () => secure,
  firefox: () => plain,
  webkit: () => secure,
};

describe('a CSP violation on the payment page reaches the hook and the back office', () => {
  it('the example sends Reporting-Endpoints, report-to and report-uri, naming the companion', async () => {
    const res = await example.app.request(`${secure}/cdn`);
    const endpoint = `${secure}/api/checkout/security-report`;
    assert.equal(res.headers.get('reporting-endpoints'), `csp-endpoint="${endpoint}"`);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /(^|; )report-to csp-endpoint(;|$)/);
    assert.ok(csp.includes(`report-uri ${endpoint}`), csp);
  });

  for (const engine of testedEngines()) {
    it(`from ${engine}`, {timeout: 120_000}, async (t) => {
      const missing = await missingEngine(engine);
      if (missing) return t.skip(missing);
      const origin = ORIGIN[engine]();
      const browser = await openInEngine(engine, `${origin}/violating-page/${engine}`);
      const event = await heardFrom(origin, engine).finally(() => browser.close());
      assert.equal(event.isNew, true);
      assert.equal(event.report.directive, 'img-src');
      assert.equal(event.report.blockedUrl, BLOCKED);
      assert.equal(event.report.disposition, 'enforce');
      // Kept, and in the back office's API.
      const res = await example.app.request(`${secure}/admin/api/security-reports`, {
        headers: {Authorization: `Bearer ${ADMIN}`},
      });
      const {reports} = (await res.json()) as {
        reports: Array<{documentUrl: string; count: number}>;
      };
      const row = reports.find((r) => r.documentUrl === `${origin}/violating-page/${engine}`);
      assert.ok(row, `the back office lists no report of ${engine}'s page`);
      assert.equal(row.count, 1);
    });
  }

  it('shows them on the back office page', {timeout: 120_000}, async () => {
    if (!heard.some((e) => e.report.documentUrl === `${secure}/violating-page/chromium`)) {
      const browser = await openInEngine('chromium', `${secure}/violating-page/chromium`);
      await heardFrom(secure, 'chromium').finally(() => browser.close());
    }
    const browser = await launchChromium({args: [...CHROMIUM_ARGS, '--ignore-certificate-errors']});
    try {
      const page = await browser.newPage();
      await page.goto(`${secure}/admin/login`);
      await page.getByLabel('Admin token').fill(ADMIN);
      await page.getByRole('button', {name: 'Sign in'}).click();
      await page.waitForURL(`${secure}/admin`);
      await page.locator('body[data-ready="true"]').waitFor();
      const row = page
        .locator('#security-reports-table tbody tr')
        .filter({hasText: `${secure}/violating-page/chromium`});
      await row.waitFor();
      const text = (await row.textContent()) ?? '';
      assert.ok(
        text.includes('img-src') && text.includes(BLOCKED) && text.includes('blocked'),
        text,
      );
    } finally {
      await browser.close();
    }
  });
});
