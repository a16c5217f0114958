// web-test-runner commands that every engine of scripts/wtr-engines.mjs answers, where
// @web/test-runner-commands answers only some: `pg-set-viewport` (its `setViewport` knows
// Playwright and puppeteer, not WebDriver) and `pg-emulate-media` (its `emulateMedia`
// needs Chrome's DevTools protocol under puppeteer, so Firefox over BiDi fails it). The
// tests call them through test/browser/engine.ts.

/** Why an engine cannot emulate `prefers-color-scheme`: no protocol it speaks has the command. */
const NO_COLOR_SCHEME = {
  puppeteer:
    'Firefox over WebDriver BiDi cannot emulate prefers-color-scheme (puppeteer needs CDP for it)',
  webdriver: 'WebKitGTK over classic WebDriver cannot emulate prefers-color-scheme',
};

function isSize(payload) {
  return (
    payload != null &&
    Number.isInteger(payload.width) &&
    Number.isInteger(payload.height) &&
    payload.width > 0 &&
    payload.height > 0
  );
}

export function engineCommandsPlugin() {
  return {
    name: 'pg-engine-commands',
    async executeCommand({command, payload, session}) {
      const {browser} = session;
      if (command === 'pg-set-viewport') {
        if (!isSize(payload)) throw new Error('pg-set-viewport: expected {width, height} in px');
        const size = {width: payload.width, height: payload.height};
        if (browser.type === 'playwright') await browser.getPage(session.id).setViewportSize(size);
        else if (browser.type === 'puppeteer') await browser.getPage(session.id).setViewport(size);
        else if (typeof browser.setViewport === 'function')
          await browser.setViewport(session.id, size);
        else throw new Error(`pg-set-viewport: no way for ${browser.type}`);
        return true;
      }
      if (command === 'pg-emulate-media') {
        const scheme = payload?.colorScheme;
        if (!['light', 'dark', 'no-preference'].includes(scheme)) {
          throw new Error(
            'pg-emulate-media: expected {colorScheme: "light" | "dark" | "no-preference"}',
          );
        }
        if (browser.type === 'playwright') {
          await browser.getPage(session.id).emulateMedia({colorScheme: scheme});
          return {applied: true};
        }
        if (browser.type === 'puppeteer') {
          const page = browser.getPage(session.id);
          const applied = await page
            .emulateMediaFeatures([{name: 'prefers-color-scheme', value: scheme}])
            .then(
              () => true,
              () => false,
            );
          if (applied) return {applied};
        }
        const reason = NO_COLOR_SCHEME[browser.type] ?? `no way for ${browser.type}`;
        return {applied: false, reason};
      }
      return undefined;
    },
  };
}
