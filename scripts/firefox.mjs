// Where the Firefox for tests comes from, in one place: $FIREFOX_PATH, else Debian's
// /usr/bin/firefox-esr (or /usr/bin/firefox). puppeteer-core drives it over WebDriver BiDi;
// nothing is downloaded (Playwright's own Firefox build cannot be had on every machine). A
// missing browser is reported in one line that names the Debian package.
import {existsSync} from 'node:fs';

export const HOW_TO_GET_FIREFOX =
  'No Firefox found: install one (Debian/Ubuntu: `apt-get install firefox-esr`) or set FIREFOX_PATH to a Firefox executable.';

const DEBIAN_FIREFOX = ['/usr/bin/firefox-esr', '/usr/bin/firefox'];

/**
 * The page fonts Chromium uses on Debian, for the generic families a page falls back to:
 * Chromium asks for Times New Roman, Arial and Courier New (fontconfig gives their
 * metric-compatible Liberation twins, as Windows and macOS browsers have the originals),
 * where Firefox and WebKitGTK take fontconfig's wider DejaVu. The same fonts in every engine,
 * so a layout test compares engines, not the distribution's font choices.
 */
export const PAGE_FONTS = {
  serif: 'Liberation Serif',
  'sans-serif': 'Liberation Sans',
  monospace: 'Liberation Mono',
};

/**
 * Firefox chooses fonts per language group: those of the shipped locales (Latin, Cyrillic,
 * Arabic, whose letters then fall back to the one font that has them, as in Chromium).
 */
const FONT_PREFS = Object.fromEntries(
  ['x-western', 'x-cyrillic', 'ar'].flatMap((group) => [
    [`font.default.${group}`, 'serif'],
    ...Object.entries(PAGE_FONTS).map(([generic, font]) => [`font.name.${generic}.${group}`, font]),
  ]),
);

/**
 * Preferences of the test profile: no network but loopback, no first-run pages, no throttling
 * of timers in a window that is not in front (the element tests run two at once), and
 * Chromium's page fonts.
 */
export const FIREFOX_PREFS = {
  ...FONT_PREFS,
  'browser.shell.checkDefaultBrowser': false,
  'app.update.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'browser.safebrowsing.update.enabled': false,
  'extensions.update.enabled': false,
  'dom.min_background_timeout_value': 0,
  'dom.timeout.enable_budget_timer_throttling': false,
  'dom.suspend_inactive.enabled': false,
  'intl.accept_languages': 'en-US, en',
};

/** The executable to launch. Throws, in one line, when there is none. */
export function firefoxExecutable() {
  const fromEnv = process.env.FIREFOX_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new Error(`FIREFOX_PATH=${fromEnv} does not exist. ${HOW_TO_GET_FIREFOX}`);
    return fromEnv;
  }
  const found = DEBIAN_FIREFOX.find((p) => existsSync(p));
  if (found) return found;
  throw new Error(HOW_TO_GET_FIREFOX);
}

/** Launch options for puppeteer-core's `launch()`: headless Firefox over WebDriver BiDi. */
export function firefoxLaunchOptions(extra = {}) {
  return {
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    headless: true,
    executablePath: firefoxExecutable(),
    extraPrefsFirefox: FIREFOX_PREFS,
    ...extra,
  };
}

/** Launches headless Firefox with puppeteer-core. */
export async function launchFirefox(extra = {}) {
  const puppeteer = await import('puppeteer-core');
  return puppeteer.launch(firefoxLaunchOptions(extra));
}
