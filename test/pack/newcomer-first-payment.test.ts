/**
 * docs/guides/first-payment.md, done as a newcomer does it (test/pack/newcomer.ts): an empty
 * folder, `npm init -y`, the packed tarball and exactly the packages the guide names, the
 * guide's files, `tsc --init`'s settings (and once more with `skipLibCheck: false`, so the
 * declarations need nothing the guide did not install), the page bundled as the guide says,
 * the sandbox and the server started with the guide's commands, and the payment made in
 * Chromium on the guide's page, ending on its result page. Also the way in the guide does not
 * take: the same project left CommonJS, as `npm init -y` wrote it, runs `npx tsx server.ts`
 * (it failed with ERR_PACKAGE_PATH_NOT_EXPORTED). The time from the empty folder to the first
 * payment, and of each step, is reported.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import type {Browser} from 'playwright';
import {sharedChromium} from '../../scripts/chromium.mjs';
import {freePort} from '../node/checkout/helpers.js';
import {
  doSteps as doGuideSteps,
  guideSteps,
  isSandboxCommand as isSandbox,
  isServerCommand as isServer,
  Newcomer,
  type GuideStep,
  type Running,
} from './newcomer.js';
import {packed} from './packed.js';

const GUIDE = 'first-payment.md';
const steps = guideSteps(GUIDE);

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

let shop: Newcomer;
let sandbox: Running | undefined;
let server: Running | undefined;
let serverCommand = '';
let origin = '';
let browser: Browser | undefined;
const started = Date.now();

before(() => {
  shop = new Newcomer(packed.tarball);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await sandbox?.stop();
  await shop?.remove();
});

/** Does the steps up to (not including) the first command that keeps running. */
const doSteps = (list: GuideStep[]): void => doGuideSteps(shop, list);

describe(`${GUIDE}, from an empty folder`, () => {
  it('has the steps a newcomer needs, in order', () => {
    const commands = steps.filter((s) => s.kind === 'command').map((s) => s.text);
    assert.equal(commands[0], 'npm init -y', 'it starts from npm init -y');
    assert.ok(commands.some((c) => /^npm install pg-checkout /.test(c)));
    assert.ok(commands.includes('npx tsc --init'));
    assert.ok(commands.some(isSandbox) && commands.some(isServer));
    const files = steps.filter((s) => s.kind === 'file').map((s) => s.name);
    assert.deepEqual(files, [
      'checkout.ts',
      'orders.ts',
      'server.ts',
      'checkout-page.ts',
      'public/index.html',
      'public/result.html',
    ]);
  });

  it('steps 1 to 4 as written: the project, the packages, the files, the bundled page', () => {
    const first = steps.findIndex((s) => s.kind === 'command' && s.text === 'npx tsc --noEmit');
    doSteps(steps.slice(0, first));
    const pkg = JSON.parse(shop.read('package.json')) as {
      type: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    assert.equal(pkg.type, 'module');
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), [
      '@hono/node-server',
      'better-sqlite3',
      'hono',
      'pg-checkout',
      'pino',
      'zod',
    ]);
    assert.match(shop.read('public/checkout-page.js'), /pg-card-form/);
  });

  it("step 5's type check passes with tsc --init's settings, and with skipLibCheck false", () => {
    const tsconfig = shop.read('tsconfig.json');
    assert.match(tsconfig, /"exactOptionalPropertyTypes": true/, 'tsc --init wrote its strict set');
    assert.match(tsconfig, /"verbatimModuleSyntax": true/);
    shop.run('npx tsc --noEmit');
    // The test's own check: the declarations need nothing the guide did not install.
    const strict = tsconfig.replace('"skipLibCheck": true', '"skipLibCheck": false');
    shop.write('tsconfig.json', strict, true);
    try {
      shop.run('npx tsc --noEmit', {}, true);
    } finally {
      shop.write('tsconfig.json', tsconfig, true);
    }
  });

  it('step 5: the sandbox and the server start with the commands as written', async () => {
    const rest = steps.slice(steps.findIndex((s) => s.kind === 'command' && isSandbox(s.text)));
    const sandboxCommand = rest.find((s) => s.kind === 'command' && isSandbox(s.text))!.text;
    serverCommand = rest.find((s) => s.kind === 'command' && isServer(s.text))!.text;
    // Ports the test may use (port 0 for the sandbox): the guide's 4010 and 3000 replaced.
    sandbox = shop.start(sandboxCommand, {SANDBOX_PORT: '0'});
    const [, sandboxUrl] = await sandbox.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const port = await freePort();
    origin = `http://localhost:${port}`;
    assert.match(serverCommand, /http:\/\/127\.0\.0\.1:4010/);
    assert.match(serverCommand, /http:\/\/localhost:3000/);
    server = shop.start(
      serverCommand
        .replace('http://127.0.0.1:4010', sandboxUrl!)
        .replace('http://localhost:3000', origin),
      {PORT: String(port)},
      serverCommand,
    );
    await server.waitFor(/listening on http:\/\/localhost:\d+/);
  });

  it('step 5: paying 4242 4242 4242 4242 on the page ends on the result page, paid', async (t) => {
    browser = await sharedChromium();
    const context = await browser.newContext();
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      // Chromium asks every site for /favicon.ico by itself; the guide's pages name none.
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) {
        problems.push(`console: ${m.text()} (${m.location().url})`);
      }
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    const opened = Date.now();
    await page.goto(`${origin}/`);
    const form = page.locator('pg-card-form');
    await form.locator('input[name="cc-number"]').pressSequentially('4242424242424242');
    const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
    await form.locator('input[name="cc-exp"]').pressSequentially(`12${year}`);
    await form.locator('input[name="cc-csc"]').pressSequentially('123');
    await form.locator('[part~="button"]').click();
    await page.waitForURL(`${origin}/order/result?order=ORDER-1001`);
    await page.waitForFunction(
      () =>
        (document.querySelector('pg-3ds-redirect') as {state?: string} | null)?.state === 'success',
    );
    // What the customer reads there (the English text of src/i18n/locales/en.ts).
    const status = page.locator('pg-3ds-redirect [part~="status"]');
    assert.equal((await status.innerText()).trim(), 'Payment successful.');
    await server!.waitFor(/order ORDER-1001 paid/);
    shop.timings.push({step: 'open the page and pay in Chromium', ms: Date.now() - opened});
    const extra = shop.timings.filter((x) => x.extra).reduce((sum, x) => sum + x.ms, 0);
    const total = Date.now() - started - extra;
    assert.deepEqual(problems, []);
    assert.doesNotMatch(server!.output(), /"level":(40|50|60)/, 'nothing logged at warn or above');
    await context.close();
    t.diagnostic(
      `first payment ${seconds(total)} after npm init -y (the guide's steps, machine time)`,
    );
    for (const {step, ms, extra} of shop.timings) {
      t.diagnostic(`${seconds(ms).padStart(7)}  ${extra ? '(test only) ' : ''}${step}`);
    }
  });

  it('left CommonJS, as npm init -y writes it, the same project runs server.ts with tsx', async () => {
    await server!.stop();
    shop.run('npm pkg set type=commonjs');
    try {
      const port = await freePort();
      const cjsOrigin = `http://localhost:${port}`;
      const sandboxUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(sandbox!.output())![1]!;
      server = shop.start(
        serverCommand
          .replace('http://127.0.0.1:4010', sandboxUrl)
          .replace('http://localhost:3000', cjsOrigin),
        {PORT: String(port)},
      );
      await server.waitFor(new RegExp(`listening on ${cjsOrigin}`));
      // The order paid above, read back from the SQLite file through the companion.
      const res = await fetch(`${cjsOrigin}/checkout/status?order=ORDER-1001`);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as {state: string}).state, 'success');
      assert.doesNotMatch(server.output(), /ERR_|Error/);
    } finally {
      shop.run('npm pkg set type=module');
    }
  });
});
