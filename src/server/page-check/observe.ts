/**
 * Loads a payment page in headless Chromium as a customer's browser would, for the page
 * check (`pg-checkout-verify-page`), and records what it received: the document's security
 * headers, every script (by URL, with its bytes; inline ones by their text), every response
 * of a pg-checkout data file (the locales), and the CSP violations the page reported. Once
 * loaded, the first field of a `<pg-card-form>` is focused, as a customer starts, so what
 * loads on focus is seen too.
 *
 * The browser is driven by `playwright-core` (an optional peer dependency: no browser
 * download of its own; `playwright` is taken when that is what is installed), and is the
 * Chromium at `CHROMIUM_PATH`, else Debian's /usr/bin/chromium, else Playwright's own.
 */
import {createHash} from 'node:crypto';
import {existsSync} from 'node:fs';
import type {Loaded} from './inventory.js';

/** The response headers of the page that a PCI DSS 11.6.1 check watches. */
export const SECURITY_HEADERS = [
  'content-security-policy',
  'content-security-policy-report-only',
  'reporting-endpoints',
  'report-to',
  'strict-transport-security',
  'x-content-type-options',
  'referrer-policy',
  'permissions-policy',
  'x-frame-options',
  'cross-origin-opener-policy',
] as const;

export interface Observed {
  /** The URL the page ended at (after redirects). */
  url: string;
  status: number;
  /** The security headers the document was served with (those it had), lower-case names. */
  headers: Record<string, string>;
  loaded: Loaded[];
  violations: string[];
}

/** Thrown when the page cannot be checked at all (no browser, no page): exit 2, not 1. */
export class PageCheckError extends Error {
  override readonly name = 'PageCheckError';
}

const hashOf = (bytes: Buffer) => (algorithm: string) =>
  `${algorithm}-${createHash(algorithm).update(bytes).digest('base64')}`;

/** The Chromium to launch: `CHROMIUM_PATH`, else /usr/bin/chromium, else Playwright's own. */
function chromiumPath(): string | undefined {
  const fromEnv = process.env['CHROMIUM_PATH'];
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new PageCheckError(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  return existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

type Chromium = typeof import('playwright-core').chromium;

async function chromiumLauncher(): Promise<Chromium> {
  for (const name of ['playwright-core', 'playwright']) {
    try {
      return ((await import(name)) as {chromium: Chromium}).chromium;
    } catch {
      // the next one
    }
  }
  throw new PageCheckError(
    'the page check drives Chromium with Playwright: npm i -D playwright-core (and set CHROMIUM_PATH, or apt-get install chromium)',
  );
}

/** Loads `url` and records what the browser received; `data` says which URLs to keep the bytes of. */
export async function observePage(
  url: string,
  opts: {timeoutMs: number; isData: (url: string) => boolean},
): Promise<Observed> {
  const chromium = await chromiumLauncher();
  const executablePath = chromiumPath();
  const browser = await chromium
    .launch({
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      ...(executablePath ? {executablePath} : {}),
    })
    .catch((error: Error) => {
      throw new PageCheckError(`Chromium did not start: ${error.message.split('\n')[0]}`);
    });
  try {
    const context = await browser.newContext({bypassCSP: false, serviceWorkers: 'block'});
    const page = await context.newPage();
    // Strings, not functions: they run in the page, and this module has no DOM types.
    await page.addInitScript({
      content: `window.__pgViolations = [];
        document.addEventListener('securitypolicyviolation', (e) =>
          window.__pgViolations.push(e.effectiveDirective + ' ' + (e.blockedURI || 'inline')));`,
    });
    const pending: Array<Promise<Loaded | undefined>> = [];
    page.on('response', (response) => {
      const type = response.request().resourceType();
      const kind = type === 'script' ? 'script' : opts.isData(response.url()) ? 'data' : undefined;
      if (!kind || response.status() >= 300) return;
      pending.push(
        response.body().then(
          (bytes) => ({url: response.url(), kind, hash: hashOf(bytes)}),
          () => undefined,
        ),
      );
    });
    const response = await page
      .goto(url, {waitUntil: 'load', timeout: opts.timeoutMs})
      .catch((error: Error) => {
        throw new PageCheckError(`${url} could not be loaded: ${error.message.split('\n')[0]}`);
      });
    if (!response) throw new PageCheckError(`${url} gave no document`);
    await page.waitForLoadState('networkidle', {timeout: opts.timeoutMs}).catch(() => undefined);
    // As a customer starts: what the form loads on focus is part of the page too.
    const field = page.locator('pg-card-form input').first();
    if (await field.count()) {
      await field.focus().catch(() => undefined);
      await page.waitForLoadState('networkidle', {timeout: opts.timeoutMs}).catch(() => undefined);
    }
    const inline = (await page.evaluate(
      "[...document.scripts].filter((s) => !s.src).map((s) => s.textContent ?? '')",
    )) as string[];
    const violations = (await page.evaluate('window.__pgViolations ?? []')) as string[];
    const received = response.headers();
    const headers: Record<string, string> = {};
    for (const name of SECURITY_HEADERS) {
      if (received[name] !== undefined) headers[name] = received[name];
    }
    const loaded = (await Promise.all(pending)).filter((l): l is Loaded => l !== undefined);
    for (const text of inline) {
      loaded.push({url: 'inline', kind: 'script', hash: hashOf(Buffer.from(text))});
    }
    return {url: page.url(), status: response.status(), headers, loaded, violations};
  } finally {
    await browser.close();
  }
}
