/**
 * Shared pieces of the end-to-end suite. `scripts/run-e2e.mjs` starts ONE demo server
 * (`server-example/main.ts` as a child process, with the embedded sandbox and a temporary
 * data folder) and passes its addresses here through the environment; every test file
 * launches one Chromium and gives each test its own context and its own order.
 *
 * Every page a test opens is watched: console errors, uncaught exceptions and
 * Content-Security-Policy violations are collected and must be empty at the end of the
 * test; `checkA11y` runs axe-core on the page as it is.
 */
import assert from 'node:assert/strict';
import {after, before} from 'node:test';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import type {Browser, BrowserContext, BrowserContextOptions, Page} from 'playwright';
import {launchChromium} from '../../scripts/chromium.mjs';
import type {SandboxPayment} from '../../sandbox/index.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the end-to-end suite with npm run test:e2e`);
  return value;
}

export const BASE = env('E2E_BASE_URL');
export const SANDBOX = env('E2E_SANDBOX_URL');
export const ADMIN_TOKEN = env('E2E_ADMIN_TOKEN');
export const DATA_DIR = env('E2E_DATA_DIR');
export const LOG_FILE = env('E2E_LOG_FILE');

/** Generous: the machine may be loaded; nothing here asserts on timing. */
export const WAIT = 30_000;

/**
 * The test cards, each with a CVV of its own, so the card-data check at the end of the
 * suite can look for every number and code used.
 */
export const CARDS = {
  success: {number: '4242424242424242', cvv: '371'},
  mastercard: {number: '5454545454545454', cvv: '482'},
  threeDS: {number: '4000000000003220', cvv: '593'},
  declined: {number: '4000000000000002', cvv: '614'},
  wrongCvv: {number: '4000000000000127', cvv: '725'},
  /** Any other Luhn-valid number succeeds; this one is kept for the fault test. */
  faulty: {number: '4111111111111111', cvv: '836'},
  keyboard: {number: '5555555555554444', cvv: '947'},
} as const;
export type Card = (typeof CARDS)[keyof typeof CARDS];

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/**
 * One Chromium for the calling test file, launched before its first test and closed after
 * its last: call it at the top level of the file (`const browser = sharedBrowser();`) and
 * give `browser()` to `openPage`.
 */
export function sharedBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('no browser: call sharedBrowser() at the top level of the file');
    return browser;
  };
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
}

/** A fresh context and page, watched for console errors and CSP violations. */
export async function openPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<Watched> {
  const context = await browser.newContext({
    viewport: {width: 1000, height: 800},
    locale: 'en-US',
    timezoneId: 'UTC',
    ...options,
  });
  context.setDefaultTimeout(WAIT);
  context.setDefaultNavigationTimeout(WAIT);
  const problems: string[] = [];
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const page = await context.newPage();
  const watch = (p: Page) => {
    p.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console error on ${p.url()}: ${msg.text()}`);
    });
    p.on('pageerror', (error) => problems.push(`page error on ${p.url()}: ${error.message}`));
  };
  watch(page);
  context.on('page', watch);
  return {context, page, problems};
}

/** Asserts that nothing went wrong in the page's console, then closes the context. */
export async function finish(w: Watched): Promise<void> {
  await w.context.close();
  assert.deepEqual(w.problems, [], 'no console errors, page errors or CSP violations');
}

/**
 * Runs axe-core on the page as it is and fails on any violation. axe is evaluated through
 * the DevTools protocol, which a page's CSP does not govern, so the pages keep their strict
 * policy (and Trusted Types) during the check.
 */
export async function checkA11y(page: Page, what: string): Promise<void> {
  const violations = (await page.evaluate(`(async () => {
    if (!window.axe) { ${axeSource}\n }
    const result = await window.axe.run(document, {resultTypes: ['violations']});
    return result.violations.map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' — ' +
      v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
  })()`)) as string[];
  assert.deepEqual(violations, [], `axe on ${what}`);
}

/** Creates an order through the shop's API (tests that start at the checkout use this). */
export async function createOrder(productId: string): Promise<string> {
  const res = await fetch(`${BASE}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId}),
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as {orderRef: string}).orderRef;
}

/** Types a card into `<pg-card-form>` (Playwright's CSS selectors pierce its shadow root). */
export async function fillCard(page: Page, card: Card, expiry = '1234'): Promise<void> {
  await page.locator('input[name="cc-number"]').fill(card.number);
  await page.locator('input[name="cc-exp"]').fill(expiry);
  await page.locator('input[name="cc-csc"]').fill(card.cvv);
}

export const payButton = (page: Page) => page.locator('pg-card-form [part~="button"]');

/** The live status line of the card form. */
export const formStatus = (page: Page) => page.locator('pg-card-form [part~="status"]').first();

/** The sandbox's record of every payment of one shop order (gateway order ids `<ref>-<n>-<hex>`). */
export async function gatewayPayments(orderRef: string): Promise<SandboxPayment[]> {
  const all = (await (await fetch(`${SANDBOX}/sandbox/payments`)).json()) as SandboxPayment[];
  return all.filter((p) => p.orderId.startsWith(`${orderRef}-`));
}

/** Successful charges of one order (purchases and subscription charges). */
export async function chargesOf(orderRef: string): Promise<number> {
  return (await gatewayPayments(orderRef)).filter(
    (p) => p.status === 'success' && p.method === 'purchase',
  ).length;
}

export async function sandboxPost(pathName: string, body: unknown): Promise<Response> {
  return fetch(`${SANDBOX}${pathName}`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(body),
  });
}

/** Polls `fn` until it returns a truthy value. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  what: string,
): Promise<T> {
  const deadline = Date.now() + WAIT;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Signs in to the back office in this page's context. */
export async function login(page: Page): Promise<void> {
  await page.goto(`${BASE}/admin/login`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', {name: 'Sign in'}).click();
  await page.waitForURL(`${BASE}/admin`);
  await page.locator('body[data-ready="true"]').waitFor();
}

/**
 * Where the suite saves its screenshots: `test-results/screenshots` on every run, and
 * `docs/screenshots` (the site's pictures) when `PG_UPDATE_SCREENSHOTS=1`, so an
 * ordinary `npm test` leaves the tracked pictures alone.
 */
const SHOTS = [
  path.resolve('test-results/screenshots'),
  ...(process.env['PG_UPDATE_SCREENSHOTS'] === '1' ? [path.resolve('docs/screenshots')] : []),
];

/** Saves a screenshot (small: the context's 1000×800 viewport). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const image = await page.screenshot();
  for (const dir of SHOTS) {
    mkdirSync(dir, {recursive: true});
    writeFileSync(path.join(dir, `${name}.png`), image);
  }
}
