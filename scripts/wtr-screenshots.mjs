// web-test-runner command `pg-screenshot`: saves a PNG of part of the test page (Playwright,
// server side) under docs/screenshots/, for tests that keep screenshots as documentation
// (test/browser/phone-layout.test.ts). Payload: {name: 'card-form-360-en.png', clip: {x, y,
// width, height}}; the name may hold only letters, digits, dots and dashes. The pictures are
// Chromium's: in the other engines the command saves nothing and answers false, so three
// engines never overwrite one picture with three renderings.
import {mkdirSync} from 'node:fs';
import path from 'node:path';

const DIR = 'docs/screenshots';

export function screenshotPlugin() {
  return {
    name: 'pg-screenshot',
    async executeCommand({command, payload, session}) {
      if (command !== 'pg-screenshot') return undefined;
      const {name, clip} = payload ?? {};
      if (typeof name !== 'string' || !/^[\w.-]+\.png$/.test(name) || name.startsWith('.')) {
        throw new Error(`pg-screenshot: not a file name: ${name}`);
      }
      if (session.browser.type !== 'playwright' || session.browser.name !== 'Chromium')
        return false;
      mkdirSync(DIR, {recursive: true});
      const page = session.browser.getPage(session.id);
      await page.screenshot({path: path.join(DIR, name), clip, animations: 'disabled'});
      return true;
    },
  };
}
