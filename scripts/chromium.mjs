// Where the Chromium for tests and benchmarks comes from, in one place: $CHROMIUM_PATH,
// else Debian's /usr/bin/chromium, else Playwright's own download (if one was installed).
// Browser downloads do not work on every machine, so a missing browser is reported in one
// line that says how to get one.
import {existsSync} from 'node:fs';

/** Flags that keep a headless Chromium quiet on a machine with no network but loopback. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
  // Chromium 156 loads its omnibox popup (a WebUI page of ~220 modules, in a renderer of its
  // own) for every new window, which every Playwright context is: without this, each page a
  // test or a benchmark loads shares the machine's cores with that load.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI',
];

export const HOW_TO_GET_CHROMIUM =
  'No Chromium found: install one (Debian/Ubuntu: `apt-get install chromium`) or set CHROMIUM_PATH to a Chromium/Chrome executable.';

/** The executable to launch, or `undefined` to let Playwright use its own browser. Throws when there is none. */
export async function chromiumExecutable() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist. ${HOW_TO_GET_CHROMIUM}`);
    return fromEnv;
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const {chromium} = await import('playwright');
  const own = chromium.executablePath();
  if (own && existsSync(own)) return undefined;
  throw new Error(HOW_TO_GET_CHROMIUM);
}

/** Launch options for Playwright's `chromium.launch()`. */
export async function chromiumLaunchOptions(extra = {}) {
  const executablePath = await chromiumExecutable();
  return {
    headless: true,
    args: CHROMIUM_ARGS,
    ...(executablePath ? {executablePath} : {}),
    ...extra,
  };
}

/** Launches headless Chromium with Playwright. */
export async function launchChromium(extra = {}) {
  const {chromium} = await import('playwright');
  return chromium.launch(await chromiumLaunchOptions(extra));
}

/** The variable that names a running Chromium server (`ws://…`) for the tests to share. */
export const SHARED_CHROMIUM_ENV = 'PG_CHROMIUM_WS';

/**
 * Starts a Chromium server with the tests' launch options (`chromium.launchServer`): one
 * browser for a whole run, whose files connect to it with sharedChromium() when its address
 * is in PG_CHROMIUM_WS (scripts/run-pack-tests.mjs does this). Close it when the run ends.
 */
export async function launchChromiumServer(extra = {}) {
  const {chromium} = await import('playwright');
  return chromium.launchServer(await chromiumLaunchOptions(extra));
}

/**
 * The Chromium a test file uses: a connection to the run's browser when PG_CHROMIUM_WS
 * names one (its `close()` closes this file's contexts and disconnects, leaving the browser
 * to the others), else a browser of its own, launched here, as launchChromium() does. Each
 * test opens its own context, so what one file leaves in the browser does not reach another.
 */
export async function sharedChromium() {
  const endpoint = process.env[SHARED_CHROMIUM_ENV];
  if (!endpoint) return launchChromium();
  const {chromium} = await import('playwright');
  return chromium.connect(endpoint);
}
