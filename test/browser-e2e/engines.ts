/**
 * One way for an end-to-end test to drive a page in each browser engine: Chromium through
 * Playwright, Firefox through puppeteer-core over WebDriver BiDi, WebKit through webdriverio
 * and WebKitGTK's WebDriver in a private Xvfb (scripts/chromium.mjs, firefox.mjs, webkit.mjs).
 * `launchEngine(name)` starts a browser; `newPage()` opens a page of its own (a fresh context,
 * so no cache, cookie or storage is shared with another page); an `EnginePage` goes to a URL,
 * evaluates, clicks and types into the fields of a shadow root with real pointer and key
 * events, waits for an event or a console message, and lists console errors and failed
 * requests. `testedEngines()` are the engines a run asked for (`PG_BROWSERS`).
 *
 * What each engine lets a test see differs. Chromium and Firefox report their console, page
 * errors and failed requests over their protocols. Classic WebDriver (WebKit's) reports none
 * of them, so a page that wants them in WebKit, or wants `waitForEvent`, loads the page
 * recorder first: serve `RECORDER_SOURCE` at `RECORDER_PATH` and put `recorderTag([...])` first
 * in `<head>` (a same-origin script: allowed by `script-src 'self'`, and no Trusted Types
 * sink). It keeps what the page itself can see: console calls, uncaught errors and
 * rejections, Content Security Policy violations, elements whose resource failed to load, and
 * the events named in its tag. In every engine a refusal by the policy is a console error,
 * and a missing script a failed request (Firefox does not list policy refusals among failed
 * requests). Assert on what the product shows (an event, an element, a request the server
 * saw) rather than on one engine's wording of a console message.
 */
import type {Browser as PlaywrightBrowser} from 'playwright';
import type {Browser as PuppeteerBrowser} from 'puppeteer-core';
import {CHROMIUM_ARGS, launchChromium} from '../../scripts/chromium.mjs';
import {ENGINES, checkEngines, selectedEngines, type Engine} from '../../scripts/engines.mjs';
import {launchFirefox} from '../../scripts/firefox.mjs';
import {launchWebKit, pressActions, typeActions} from '../../scripts/webkit.mjs';

export {ENGINES, type Engine};

/** The engines this run tests in: all three, or those `PG_BROWSERS` names. */
export function testedEngines(): Engine[] {
  return selectedEngines();
}

/** Where a test server serves the page recorder. */
export const RECORDER_PATH = '/__pg-engine-recorder.js';

/**
 * The page recorder (see the module comment). Plain ES5-level script text, so no build step
 * touches it; it keeps its record in `window.__pgEngineRecord`.
 */
export const RECORDER_SOURCE = `(function () {
  var record = {names: [], console: [], errors: [], failed: [], events: []};
  Object.defineProperty(window, '__pgEngineRecord', {value: record});
  function text(v) {
    if (v instanceof Error) return v.name + ': ' + v.message;
    if (typeof v === 'string') return v;
    try { return JSON.stringify(v); } catch (e) { return String(v); }
  }
  ['log', 'info', 'warn', 'error', 'debug'].forEach(function (type) {
    var original = console[type];
    console[type] = function () {
      var args = Array.prototype.slice.call(arguments);
      record.console.push({type: type, text: args.map(text).join(' ')});
      return original.apply(this, args);
    };
  });
  addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href)) record.failed.push(String(t.src || t.href));
    else record.errors.push(text(e.error || e.message));
  }, true);
  addEventListener('unhandledrejection', function (e) {
    record.errors.push('unhandled rejection: ' + text(e.reason));
  });
  document.addEventListener('securitypolicyviolation', function (e) {
    record.errors.push('CSP ' + e.violatedDirective + ' ' + e.blockedURI);
    if (/^https?:/.test(e.blockedURI)) record.failed.push(e.blockedURI);
  });
  var script = document.currentScript;
  record.names = ((script && script.getAttribute('data-events')) || '').split(/\\s+/).filter(Boolean);
  record.names.forEach(function (name) {
    document.addEventListener(name, function (e) {
      var detail;
      try { detail = JSON.parse(JSON.stringify(e.detail === undefined ? null : e.detail)); }
      catch (err) { detail = String(e.detail); }
      record.events.push({type: e.type, detail: detail});
    }, true);
  });
})();
`;

/** The `<script>` tag that loads the recorder, recording the events named (on `document`). */
export function recorderTag(events: readonly string[] = []): string {
  for (const name of events) {
    if (!/^[\w-]+$/.test(name)) throw new Error(`recorderTag: not an event name: ${name}`);
  }
  return `<script src="${RECORDER_PATH}" data-events="${events.join(' ')}"></script>`;
}

export interface ConsoleMessage {
  type: string;
  text: string;
}

interface Record {
  names: string[];
  console: ConsoleMessage[];
  errors: string[];
  failed: string[];
  events: Array<{type: string; detail: unknown}>;
}

export interface EnginePage {
  readonly engine: Engine;
  /** Loads `url` and waits for its `load` event. */
  goto(url: string): Promise<void>;
  /**
   * Runs `fn` (serialised: no closure, no helper outside it) or a JavaScript expression in
   * the page and resolves with its JSON-able result, a promise's once settled.
   */
  evaluate<R, A = undefined>(fn: string | ((arg: A) => R | Promise<R>), arg?: A): Promise<R>;
  /** Clicks the middle of `selector` inside the shadow root of `host` with the pointer. */
  click(host: string, selector: string): Promise<void>;
  /** Focuses `selector` inside the shadow root of `host` and types `text` key by key. */
  typeInShadow(host: string, selector: string, text: string): Promise<void>;
  /** Presses one key (`Enter`, `Tab`, `Escape`, `ArrowDown`, `Backspace`...). */
  press(key: string): Promise<void>;
  /** Waits until `predicate` (a function or an expression, run in the page) is truthy. */
  waitFor(
    predicate: string | (() => unknown),
    options?: {timeout?: number; what?: string},
  ): Promise<void>;
  /** The detail of the next `name` event on `document` not yet returned (recorder needed). */
  waitForEvent(name: string, options?: {timeout?: number}): Promise<unknown>;
  /** The first console message matching `match` (any level), waiting for it. */
  waitForConsole(match: string | RegExp, options?: {timeout?: number}): Promise<ConsoleMessage>;
  /** Console errors, uncaught errors and rejections so far (see the module comment). */
  consoleErrors(): Promise<string[]>;
  /** Requests that failed or were refused so far, each with its URL. */
  failedRequests(): Promise<string[]>;
  close(): Promise<void>;
}

export interface EngineBrowser {
  readonly engine: Engine;
  newPage(): Promise<EnginePage>;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT = 10_000;

async function poll<T>(
  what: string,
  timeout: number,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const end = Date.now() + timeout;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Where an element inside a shadow root is, scrolled into view; as an expression's text. */
function centreOf(host: string, selector: string): string {
  return `(() => {
    const root = document.querySelector(${JSON.stringify(host)})?.shadowRoot;
    const el = root?.querySelector(${JSON.stringify(selector)});
    if (!el) throw new Error('no ' + ${JSON.stringify(`${selector} in ${host}`)});
    el.scrollIntoView({block: 'center', inline: 'center'});
    const r = el.getBoundingClientRect();
    return {x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2)};
  })()`;
}

function focusIn(host: string, selector: string): string {
  return `(() => {
    const root = document.querySelector(${JSON.stringify(host)})?.shadowRoot;
    const el = root?.querySelector(${JSON.stringify(selector)});
    if (!el) throw new Error('no ' + ${JSON.stringify(`${selector} in ${host}`)});
    el.focus();
    return root.activeElement === el;
  })()`;
}

/** An uncaught error as one line (Firefox's message already starts with the error's name). */
function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return e.message.startsWith(`${e.name}:`) ? e.message : `${e.name}: ${e.message}`;
}

/** The browser's own request for a tab icon (Firefox makes one) is not the page's. */
const isFavicon = (entry: string) => /^\S+\/favicon\.ico\b/.test(entry);

const matches = (match: string | RegExp, text: string) =>
  typeof match === 'string' ? text.includes(match) : match.test(text);

/** What every engine's page shares: finding and focusing fields, the page recorder, waiting. */
abstract class BasePage implements EnginePage {
  abstract readonly engine: Engine;
  protected readonly consoleLog: ConsoleMessage[] = [];
  protected readonly pageErrors: string[] = [];
  protected readonly failed: string[] = [];
  private readonly seen = new Map<string, number>();

  abstract goto(url: string): Promise<void>;
  abstract evaluate<R, A = undefined>(
    fn: string | ((arg: A) => R | Promise<R>),
    arg?: A,
  ): Promise<R>;
  protected abstract mouseClick(x: number, y: number): Promise<void>;
  protected abstract type(text: string): Promise<void>;
  abstract press(key: string): Promise<void>;
  abstract close(): Promise<void>;

  async click(host: string, selector: string): Promise<void> {
    const {x, y} = await this.evaluate<{x: number; y: number}>(centreOf(host, selector));
    await this.mouseClick(x, y);
  }

  async typeInShadow(host: string, selector: string, text: string): Promise<void> {
    const focused = await this.evaluate<boolean>(focusIn(host, selector));
    if (!focused) throw new Error(`${selector} in ${host} did not take the focus`);
    await this.type(text);
  }

  async waitFor(
    predicate: string | (() => unknown),
    {timeout = DEFAULT_TIMEOUT, what = String(predicate)} = {},
  ): Promise<void> {
    await poll(what, timeout, async () => ((await this.evaluate(predicate)) ? true : undefined));
  }

  protected record(): Promise<Record | null> {
    return this.evaluate<Record | null>('window.__pgEngineRecord ?? null');
  }

  async waitForEvent(name: string, {timeout = DEFAULT_TIMEOUT} = {}): Promise<unknown> {
    return poll(`the ${name} event`, timeout, async () => {
      const record = await this.record();
      if (!record) {
        throw new Error(
          `waitForEvent needs the page recorder: serve RECORDER_SOURCE at ${RECORDER_PATH} and put recorderTag(['${name}']) first in <head>`,
        );
      }
      if (!record.names.includes(name)) {
        throw new Error(`the page recorder does not record ${name}: add it to recorderTag([...])`);
      }
      const from = this.seen.get(name) ?? 0;
      const index = record.events.findIndex((e, i) => i >= from && e.type === name);
      if (index < 0) return undefined;
      this.seen.set(name, index + 1);
      return {detail: record.events[index]!.detail};
    }).then((found) => found.detail);
  }

  protected async consoleMessages(): Promise<ConsoleMessage[]> {
    return this.consoleLog;
  }

  async waitForConsole(
    match: string | RegExp,
    {timeout = DEFAULT_TIMEOUT} = {},
  ): Promise<ConsoleMessage> {
    return poll(`a console message ${String(match)}`, timeout, async () =>
      (await this.consoleMessages()).find((m) => matches(match, m.text)),
    );
  }

  async consoleErrors(): Promise<string[]> {
    const errors = this.consoleLog.filter((m) => m.type === 'error').map((m) => m.text);
    return [...errors, ...this.pageErrors];
  }

  async failedRequests(): Promise<string[]> {
    return this.failed.filter((entry) => !isFavicon(entry));
  }
}

/**
 * The part of a Playwright page and of a puppeteer page used here: the two libraries agree
 * on these names, and both report the console, page errors and requests as events.
 */
interface ScriptedPage {
  on(event: string, listener: (value: never) => void): unknown;
  goto(url: string, options: {waitUntil: 'load'}): Promise<unknown>;
  evaluate(fn: unknown, arg?: unknown): Promise<unknown>;
  mouse: {click(x: number, y: number): Promise<void>};
  keyboard: {type(text: string): Promise<void>; press(key: string): Promise<void>};
}

interface ScriptedMessage {
  type(): string;
  text(): string;
}

interface ScriptedRequest {
  url(): string;
  failure(): {errorText: string} | null;
}

interface ScriptedResponse {
  url(): string;
  status(): number;
}

/** Chromium (Playwright) and Firefox (puppeteer over BiDi): the engine reports its console. */
class ProtocolPage extends BasePage {
  constructor(
    readonly engine: Engine,
    private readonly page: ScriptedPage,
    private readonly closeContext: () => Promise<void>,
  ) {
    super();
    page.on('console', (m: ScriptedMessage) =>
      this.consoleLog.push({type: m.type(), text: m.text()}),
    );
    page.on('pageerror', (e: unknown) => this.pageErrors.push(errorText(e)));
    page.on('requestfailed', (r: ScriptedRequest) =>
      this.failed.push(`${r.url()} ${r.failure()?.errorText ?? ''}`),
    );
    page.on('response', (r: ScriptedResponse) => {
      if (r.status() >= 400) this.failed.push(`${r.url()} ${r.status()}`);
    });
  }

  async goto(url: string): Promise<void> {
    await this.page.goto(url, {waitUntil: 'load'});
  }

  evaluate<R, A = undefined>(fn: string | ((arg: A) => R | Promise<R>), arg?: A): Promise<R> {
    // A string is an expression: puppeteer would pass `arg` to it as to a function.
    const result = typeof fn === 'string' ? this.page.evaluate(fn) : this.page.evaluate(fn, arg);
    return result as Promise<R>;
  }

  protected mouseClick(x: number, y: number): Promise<void> {
    return this.page.mouse.click(x, y);
  }

  protected type(text: string): Promise<void> {
    return this.page.keyboard.type(text);
  }

  press(key: string): Promise<void> {
    return this.page.keyboard.press(key);
  }

  close(): Promise<void> {
    return this.closeContext();
  }
}

type WebKitSession = Awaited<ReturnType<typeof launchWebKit>>;

class WebKitPage extends BasePage {
  readonly engine = 'webkit';

  constructor(
    private readonly wk: WebKitSession,
    private readonly closed: () => void,
  ) {
    super();
  }

  private get driver() {
    return this.wk.browser;
  }

  async goto(url: string): Promise<void> {
    await this.driver.navigateTo(url);
  }

  evaluate<R, A = undefined>(fn: string | ((arg: A) => R | Promise<R>), arg?: A): Promise<R> {
    if (typeof fn === 'string') return this.driver.execute(`return (${fn});`) as Promise<R>;
    return this.driver.execute(fn as never, arg as never) as Promise<R>;
  }

  protected async mouseClick(x: number, y: number): Promise<void> {
    await this.driver.performActions([
      {
        type: 'pointer',
        id: 'mouse',
        parameters: {pointerType: 'mouse'},
        actions: [
          {type: 'pointerMove', duration: 0, x, y, origin: 'viewport'},
          {type: 'pointerDown', button: 0},
          {type: 'pointerUp', button: 0},
        ],
      },
    ]);
  }

  protected async type(text: string): Promise<void> {
    await this.driver.performActions(typeActions(text));
  }

  async press(key: string): Promise<void> {
    await this.driver.performActions(pressActions(key));
  }

  /** Classic WebDriver has no console or network events: only the page recorder knows. */
  private async needRecord(what: string): Promise<Record> {
    const record = await this.record();
    if (!record) {
      throw new Error(
        `${what} in WebKit needs the page recorder: serve RECORDER_SOURCE at ${RECORDER_PATH} and put recorderTag() first in <head>`,
      );
    }
    return record;
  }

  protected override async consoleMessages(): Promise<ConsoleMessage[]> {
    return (await this.needRecord('waitForConsole')).console;
  }

  override async consoleErrors(): Promise<string[]> {
    const record = await this.needRecord('consoleErrors');
    return [
      ...record.console.filter((m) => m.type === 'error').map((m) => m.text),
      ...record.errors,
    ];
  }

  override async failedRequests(): Promise<string[]> {
    return [...(await this.needRecord('failedRequests')).failed];
  }

  close(): Promise<void> {
    this.closed();
    return this.wk.close();
  }
}

/** Starts `engine`'s browser. Close it when done; its pages close with it. */
export async function launchEngine(engine: Engine): Promise<EngineBrowser> {
  if (engine === 'chromium' || engine === 'firefox') {
    // A context of its own per page: no cache, cookie or storage shared with another page.
    const {browser, newContext} =
      engine === 'chromium'
        ? await launchChromium().then((b: PlaywrightBrowser) => ({
            browser: b,
            newContext: () => b.newContext(),
          }))
        : await launchFirefox().then((b: PuppeteerBrowser) => ({
            browser: b,
            newContext: () => b.createBrowserContext(),
          }));
    return {
      engine,
      async newPage() {
        const context = await newContext();
        const page = await context.newPage();
        return new ProtocolPage(engine, page as unknown as ScriptedPage, () => context.close());
      },
      close: () => browser.close(),
    };
  }
  if (engine === 'webkit') {
    // One WebKit (its own display, driver and MiniBrowser) per page: WebKitWebDriver holds one
    // session, and a session's windows share their cache and storage.
    const open = new Set<WebKitSession>();
    return {
      engine,
      async newPage() {
        const wk = await launchWebKit();
        open.add(wk);
        return new WebKitPage(wk, () => open.delete(wk));
      },
      async close() {
        await Promise.all([...open].map((wk) => wk.close()));
        open.clear();
      },
    };
  }
  throw new Error(`no such engine: ${String(engine)}`);
}

/** Why `engine` cannot run here (a program missing, named with its package), or undefined. */
export async function missingEngine(engine: Engine): Promise<string | undefined> {
  return checkEngines([engine]).then(
    () => undefined,
    (error: Error) => error.message,
  );
}

/** A browser showing one page, until `close()`. */
export interface OpenBrowser {
  close(): Promise<void>;
}

/**
 * Opens `url` in `engine` and leaves it there: for pages that report what they saw to the
 * test's own server (tamper.test.ts, security-reports.test.ts), so the assertions need no
 * driver protocol. Chromium sends Reporting API reports within 100 ms, not a minute, and each
 * engine takes a test's own certificate on loopback HTTPS.
 */
export async function openInEngine(engine: Engine, url: string): Promise<OpenBrowser> {
  if (engine === 'chromium') {
    const browser = await launchChromium({
      args: [...CHROMIUM_ARGS, '--short-reporting-delay', '--ignore-certificate-errors'],
    });
    const page = await browser.newPage();
    await page.goto(url);
    return {close: () => browser.close()};
  }
  if (engine === 'firefox') {
    const browser = await launchFirefox({acceptInsecureCerts: true});
    const page = await browser.newPage();
    await page.goto(url);
    return {close: () => browser.close()};
  }
  const wk = await launchWebKit({capabilities: {acceptInsecureCerts: true}});
  await wk.browser.url(url);
  return {close: () => wk.close()};
}
