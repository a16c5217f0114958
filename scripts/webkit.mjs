// Where the WebKit for tests comes from, in one place: WebKitGTK's WebDriver server
// ($WEBKIT_DRIVER_PATH, else Debian's /usr/bin/WebKitWebDriver from `webkit2gtk-driver`)
// driving WebKitGTK's MiniBrowser ($WEBKIT_BROWSER_PATH, else the one beside Debian's
// libwebkit2gtk) in a private X display of its own (Xvfb: $XVFB_PATH, else /usr/bin/Xvfb),
// since MiniBrowser has no headless mode. Nothing is downloaded (Playwright's own WebKit build
// cannot be had on every machine). A missing piece is reported in one line that names the
// Debian package. webdriverio speaks classic WebDriver to it: WebKitWebDriver has no BiDi.
import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {createServer} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PAGE_FONTS} from './firefox.mjs';

export const HOW_TO_GET_WEBKIT =
  'No WebKitWebDriver found: install it (Debian/Ubuntu: `apt-get install webkit2gtk-driver`) or set WEBKIT_DRIVER_PATH to a WebKitWebDriver executable.';
export const HOW_TO_GET_XVFB =
  'No Xvfb found (WebKit runs in a virtual display): install it (Debian/Ubuntu: `apt-get install xvfb`) or set XVFB_PATH to an Xvfb executable.';
const HOW_TO_GET_MINIBROWSER =
  'No WebKitGTK MiniBrowser found: install it (Debian/Ubuntu: `apt-get install webkit2gtk-driver`, which brings libwebkit2gtk) or set WEBKIT_BROWSER_PATH to a MiniBrowser executable.';

/** The X display's size: wide enough for any test page, as a laptop screen. */
const SCREEN = '1280x1024x24';

function fromEnvOr(name, candidates, howTo) {
  const fromEnv = process.env[name];
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`${name}=${fromEnv} does not exist. ${howTo}`);
    return fromEnv;
  }
  const found = candidates.find((p) => existsSync(p));
  if (found) return found;
  throw new Error(howTo);
}

/** WebKitWebDriver to start. Throws, in one line, when there is none. */
export function webkitDriverExecutable() {
  return fromEnvOr('WEBKIT_DRIVER_PATH', ['/usr/bin/WebKitWebDriver'], HOW_TO_GET_WEBKIT);
}

/** Xvfb to start. Throws, in one line, when there is none. */
export function xvfbExecutable() {
  return fromEnvOr('XVFB_PATH', ['/usr/bin/Xvfb'], HOW_TO_GET_XVFB);
}

/** The MiniBrowser of the installed WebKitGTK (Debian: /usr/lib/<arch>/webkit2gtk-4.1/). */
export function webkitBrowserExecutable() {
  const candidates = [];
  for (const lib of ['/usr/lib', '/usr/libexec']) {
    const dirs = existsSync(lib) ? readdirSync(lib) : [];
    for (const arch of ['', ...dirs.filter((d) => d.endsWith('-linux-gnu'))]) {
      for (const api of ['webkit2gtk-4.1', 'webkit2gtk-4.0', 'webkitgtk-6.0']) {
        candidates.push([lib, arch, api, 'MiniBrowser'].filter(Boolean).join('/'));
      }
    }
  }
  return fromEnvOr('WEBKIT_BROWSER_PATH', candidates, HOW_TO_GET_MINIBROWSER);
}

/** Checks every piece WebKit needs, so a missing one fails before any test starts. */
export function webkitExecutables() {
  return {
    driver: webkitDriverExecutable(),
    browser: webkitBrowserExecutable(),
    xvfb: xvfbExecutable(),
  };
}

/** Kills a child we started and waits for it to be gone. */
function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts Xvfb on a display number it chooses itself (`-displayfd`), so several test runs on
 * one machine never collide. Resolves with `{display: ':N', close()}`.
 */
export function startXvfb() {
  const child = spawn(
    xvfbExecutable(),
    ['-displayfd', '3', '-screen', '0', SCREEN, '-nolisten', 'tcp'],
    {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error('Xvfb did not start within 10 s')), 10_000);
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}`));
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`Xvfb exited (${code}) before it was ready`)));
    child.stdio[3].on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stderr.removeAllListeners('data');
      child.stderr.resume();
      resolve({display: `:${out.trim()}`, close: () => stopChild(child)});
    });
  });
}

/** A port free on loopback now (the driver needs one named on its command line). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function answersStatus(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/status`, {signal: AbortSignal.timeout(1000)});
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * GTK's user style sheet for MiniBrowser: its toolbar shrinks to nothing, so that its window
 * can be as narrow as a phone (it stops at 447 px otherwise) and a test can set a 320 px
 * viewport. The page itself is not styled by it.
 */
const NARROW_WINDOW_CSS =
  '* { min-width: 0; min-height: 0; padding: 0; margin: 0; border-width: 0; }\n';

/** A configuration folder of MiniBrowser's own (XDG_CONFIG_HOME), with NARROW_WINDOW_CSS. */
function browserConfigHome() {
  const home = mkdtempSync(path.join(tmpdir(), 'pg-webkit-'));
  mkdirSync(path.join(home, 'gtk-3.0'));
  writeFileSync(path.join(home, 'gtk-3.0', 'gtk.css'), NARROW_WINDOW_CSS);
  return home;
}

/**
 * Starts one WebKitWebDriver (it holds one session at a time) whose browsers open in
 * `display`. Resolves with `{port, close()}` once it answers `/status`.
 */
export async function startWebKitDriver(display) {
  const driver = webkitDriverExecutable();
  const config = browserConfigHome();
  const removeConfig = () => rmSync(config, {recursive: true, force: true});
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(driver, [`--port=${port}`, '--host=local'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      // NO_AT_BRIDGE: no accessibility bus to look for (there is no session bus to find it on).
      env: {...process.env, DISPLAY: display, XDG_CONFIG_HOME: config, NO_AT_BRIDGE: '1'},
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const end = Date.now() + 10_000;
    while (child.exitCode === null && Date.now() < end) {
      if (await answersStatus(port)) {
        return {port, close: () => stopChild(child).then(removeConfig)};
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stopChild(child);
    // Another process may have taken the port between our check and the driver's bind.
    if (attempt === 3) {
      removeConfig();
      throw new Error(`WebKitWebDriver did not start: ${stderr.trim().split('\n').pop() ?? ''}`);
    }
  }
}

/**
 * MiniBrowser's WebKitSettings: the page fonts Chromium uses (see PAGE_FONTS), the default
 * being serif as in other browsers (WebKitGTK's own default is sans-serif).
 */
const MINIBROWSER_ARGS = [
  '--automation',
  `--default-font-family=${PAGE_FONTS.serif}`,
  `--serif-font-family=${PAGE_FONTS.serif}`,
  `--sans-serif-font-family=${PAGE_FONTS['sans-serif']}`,
  `--monospace-font-family=${PAGE_FONTS.monospace}`,
];

/** webdriverio capabilities for WebKitGTK's MiniBrowser, in classic WebDriver. */
export function webkitCapabilities() {
  return {
    browserName: 'MiniBrowser',
    'wdio:enforceWebDriverClassic': true,
    'webkitgtk:browserOptions': {binary: webkitBrowserExecutable(), args: MINIBROWSER_ARGS},
  };
}

/**
 * Starts what one WebKit browser needs: an X display (unless `display` is given), a driver
 * and a webdriverio session. Resolves with `{browser, display, close()}`; `close()` ends
 * the session and stops every process it started. `capabilities` are added to the session's
 * (e.g. `acceptInsecureCerts` for a test's own certificate on loopback HTTPS).
 */
export async function launchWebKit({display, capabilities = {}} = {}) {
  webkitExecutables();
  const xvfb = display ? undefined : await startXvfb();
  const shown = display ?? xvfb.display;
  let driver;
  try {
    driver = await startWebKitDriver(shown);
    const {remote} = await import('webdriverio');
    const browser = await remote({
      hostname: '127.0.0.1',
      port: driver.port,
      logLevel: 'error',
      connectionRetryTimeout: 30_000,
      connectionRetryCount: 1,
      capabilities: {...webkitCapabilities(), ...capabilities},
    });
    return {
      browser,
      display: shown,
      async close() {
        await browser.deleteSession().catch(() => {});
        await driver.close();
        await xvfb?.close();
      },
    };
  } catch (error) {
    await driver?.close();
    await xvfb?.close();
    throw error;
  }
}

/** DOM key names (as Playwright's and puppeteer's keyboards take them) that are not one character. */
const NAMED_KEYS = {
  Backspace: '\uE003',
  Tab: '\uE004',
  Enter: '\uE007',
  Shift: '\uE008',
  Control: '\uE009',
  Alt: '\uE00A',
  Escape: '\uE00C',
  Space: ' ',
  PageUp: '\uE00E',
  PageDown: '\uE00F',
  End: '\uE010',
  Home: '\uE011',
  ArrowLeft: '\uE012',
  ArrowUp: '\uE013',
  ArrowRight: '\uE014',
  ArrowDown: '\uE015',
  Insert: '\uE016',
  Delete: '\uE017',
  Meta: '\uE03D',
};

/** The WebDriver key value of one DOM key name or character; throws on a name it does not know. */
function keyValue(key) {
  if ([...key].length === 1) return key;
  const value = NAMED_KEYS[key];
  if (!value) throw new Error(`no WebDriver key for "${key}"`);
  return value;
}

/**
 * WebDriver key actions that type `text` as a person does: each character pressed and
 * released before the next. (webdriverio's `keys()` presses every key of a string before it
 * releases any, a chord, in which a repeated character is pressed only once: "1228" arrives
 * as "128".)
 */
export function typeActions(text) {
  const actions = [...text].flatMap((c) => [
    {type: 'keyDown', value: keyValue(c)},
    {type: 'keyUp', value: keyValue(c)},
  ]);
  return [{type: 'key', id: 'keyboard', actions}];
}

/** WebDriver key actions for one press, Playwright's way: `Enter`, `ArrowDown`, `Shift+Tab`. */
export function pressActions(combo) {
  const keys = combo === '+' ? ['+'] : combo.split('+').map(keyValue);
  const actions = [
    ...keys.map((value) => ({type: 'keyDown', value})),
    ...[...keys].reverse().map((value) => ({type: 'keyUp', value})),
  ];
  return [{type: 'key', id: 'keyboard', actions}];
}
