// The browser engines the element tests run in (scripts/engines.mjs) as web-test-runner
// launchers: Chromium through Playwright (Debian's chromium), Firefox through puppeteer-core
// over WebDriver BiDi (Debian's firefox-esr), WebKit through webdriverio and WebKitGTK's
// WebDriver (Debian's webkit2gtk-driver, MiniBrowser in a private Xvfb; scripts/wtr-webkit.mjs).
// Each types with real key events: @web/test-runner-commands' `sendKeys` drives Playwright's
// and puppeteer's keyboards, and calls the WebKit launcher's own `sendKeys` for WebDriver.
import {ChromeLauncher} from '@web/test-runner-chrome';
import {playwrightLauncher} from '@web/test-runner-playwright';
import {chromiumLaunchOptions} from './chromium.mjs';
import {selectedEngines} from './engines.mjs';
import {firefoxLaunchOptions} from './firefox.mjs';
import {WebKitLauncher} from './wtr-webkit.mjs';

/** The viewport every engine starts a test page with (Playwright's and puppeteer's launchers set it). */
export const VIEWPORT = {width: 800, height: 600};

/**
 * Firefox for web-test-runner: @web/test-runner-chrome's puppeteer launcher given
 * puppeteer-core and Firefox, with one Firefox per page run at once. Pages of one Firefox
 * cannot all have the focus: a tab behind another is hidden, and in a window behind another
 * `focus()` and `blur()` fire nothing, so a field never validates on leaving it.
 */
async function firefoxLauncher(concurrency) {
  const puppeteer = await import('puppeteer-core');
  const hosting = new Set();
  const extra = [];
  const createPage = async ({browser}) => {
    let host = browser;
    if (hosting.has(browser)) {
      host = await puppeteer.launch(firefoxLaunchOptions());
      extra.push(host);
    }
    hosting.add(host);
    const page = await host.newPage(); // a page opened over BiDi has the focus; the first tab has not
    // Firefox now and then aborts the test page's navigation while the new tab's own
    // about:blank is still loading (NS_BINDING_ABORTED, seen once in a full run): the
    // navigation is asked again, once, rather than the whole test file failing.
    const goto = page.goto.bind(page);
    page.goto = async (url, options) => {
      try {
        return await goto(url, options);
      } catch (error) {
        if (!/NS_BINDING_ABORTED/.test(String(error?.message))) throw error;
        return goto(url, options);
      }
    };
    return page;
  };
  class FirefoxLauncher extends ChromeLauncher {
    async stop() {
      await super.stop();
      await Promise.all(extra.splice(0).map((b) => b.close().catch(() => {})));
      hosting.clear();
    }
  }
  return new FirefoxLauncher(
    firefoxLaunchOptions(),
    ({browser}) => browser.defaultBrowserContext(),
    createPage,
    puppeteer,
    concurrency,
  );
}

/**
 * Pages each engine runs at once, for the 2 cores CI has (`PG_BROWSER_PAGES=<n>` sets every
 * engine's, on a bigger machine). The three engines run side by side.
 */
export const PAGES = {chromium: 1, firefox: 1, webkit: 1};

function pagesOf(engine) {
  const fromEnv = process.env.PG_BROWSER_PAGES;
  if (!fromEnv) return PAGES[engine];
  const n = Number(fromEnv);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`PG_BROWSER_PAGES=${fromEnv}: not a count of pages`);
  return n;
}

/** web-test-runner launchers for `engines`. */
export async function engineLaunchers(engines = selectedEngines()) {
  const launchers = [];
  for (const engine of engines) {
    const concurrency = pagesOf(engine);
    if (engine === 'chromium') {
      const launchOptions = await chromiumLaunchOptions();
      launchers.push(playwrightLauncher({product: 'chromium', launchOptions, concurrency}));
    }
    if (engine === 'firefox') launchers.push(await firefoxLauncher(concurrency));
    if (engine === 'webkit') launchers.push(new WebKitLauncher({concurrency, viewport: VIEWPORT}));
  }
  return launchers;
}
