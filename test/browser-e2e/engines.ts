/**
 * The one engine-specific part of the tests that run in Chromium, Firefox and WebKit
 * (tamper.test.ts): open a URL in a headless browser of that engine, and close it. Nothing
 * else is asked of the browser: the page under test reports what it saw to the test's own
 * server (a script of the page POSTs it), so the same assertions hold in every engine with
 * no driver protocol. Chromium is driven by Playwright (scripts/chromium.mjs); Firefox is
 * Debian's firefox-esr, headless, with a profile of its own; WebKit is WebKitGTK's
 * MiniBrowser under Xvfb (webkit2gtk). An engine that is not installed is reported, and
 * its tests are skipped, by `missingEngine`. When the project's Node-side engine helper
 * (puppeteer-core/BiDi for Firefox, WebKitWebDriver) lands, `openInEngine` is the one
 * function to point at it.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {CHROMIUM_ARGS, chromiumExecutable, launchChromium} from '../../scripts/chromium.mjs';

export const ENGINES = ['chromium', 'firefox', 'webkit'] as const;
export type Engine = (typeof ENGINES)[number];

const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const MINIBROWSER =
  process.env.WEBKIT_MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const XVFB_RUN = '/usr/bin/xvfb-run';

/** Why `engine` cannot run here (not installed), or undefined when it can. */
export async function missingEngine(engine: Engine): Promise<string | undefined> {
  switch (engine) {
    case 'chromium':
      return chromiumExecutable().then(
        () => undefined,
        (error: Error) => error.message,
      );
    case 'firefox':
      return existsSync(FIREFOX) ? undefined : `no ${FIREFOX} (apt-get install firefox-esr)`;
    case 'webkit':
      return existsSync(MINIBROWSER) && existsSync(XVFB_RUN)
        ? undefined
        : `no ${MINIBROWSER} under ${XVFB_RUN} (apt-get install webkit2gtk-driver xvfb)`;
  }
}

/** A browser showing one page, until `close()`. */
export interface OpenBrowser {
  close(): Promise<void>;
}

/** Stops a browser started in a process group of its own (the group: its helpers too). */
function stopGroup(child: ChildProcess, dir?: string): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      if (dir) rmSync(dir, {recursive: true, force: true});
      resolve();
    };
    if (child.exitCode !== null || child.pid === undefined) return done();
    child.once('exit', done);
    process.kill(-child.pid, 'SIGTERM');
  });
}

/** Opens `url` in a headless browser of `engine`. */
export async function openInEngine(engine: Engine, url: string): Promise<OpenBrowser> {
  if (engine === 'chromium') {
    // Reports of the Reporting API (a policy's `report-to`) sent within 100 ms, not a
    // minute; a test's own certificate on loopback HTTPS (security-reports.test.ts) taken.
    const browser = await launchChromium({
      args: [...CHROMIUM_ARGS, '--short-reporting-delay', '--ignore-certificate-errors'],
    });
    const page = await browser.newPage();
    await page.goto(url);
    return {close: () => browser.close()};
  }
  if (engine === 'firefox') {
    const profile = mkdtempSync(path.join(tmpdir(), 'pg-firefox-'));
    const child = spawn(FIREFOX, ['--headless', '--no-remote', '--profile', profile, url], {
      detached: true,
      stdio: 'ignore',
    });
    return {close: () => stopGroup(child, profile)};
  }
  const child = spawn(XVFB_RUN, ['-a', MINIBROWSER, '--private', '--ignore-tls-errors', url], {
    detached: true,
    stdio: 'ignore',
  });
  return {close: () => stopGroup(child)};
}
