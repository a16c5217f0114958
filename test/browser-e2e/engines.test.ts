/**
 * The end-to-end helper (./engines.ts) tells the same story in every engine: on a page under
 * a strict CSP with its recorder, typing into a shadow root arrives key by key (a repeated
 * digit included), a click reaches the button, an event's detail, a console message, an
 * uncaught error and an image the policy refuses show among the console errors, and a
 * script that is not there among the failed requests. A tamper test that asserts on these in three engines can trust each answer.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {
  RECORDER_PATH,
  RECORDER_SOURCE,
  launchEngine,
  recorderTag,
  testedEngines,
  type EngineBrowser,
} from './engines.js';

const CSP = "default-src 'none'; script-src 'self'; img-src 'self'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Engines</title>
${recorderTag(['probe-typed'])}
<script src="/probe.js"></script>
<script src="/missing.js"></script>
</head>
<body><probe-field></probe-field></body>
</html>`;

/** A field in a shadow root that reports what it was typed, key by key, when its button is clicked. */
const PROBE_JS = `
customElements.define('probe-field', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'open'});
    const input = document.createElement('input');
    input.id = 'field';
    const button = document.createElement('button');
    button.id = 'send';
    button.textContent = 'Send';
    root.append(input, button);
    const keys = [];
    input.addEventListener('keydown', (e) => keys.push(e.key));
    button.addEventListener('click', () => {
      console.info('probe sent ' + input.value);
      document.dispatchEvent(new CustomEvent('probe-typed', {detail: {value: input.value, keys}}));
    });
  }
});
console.error('probe: an error for the console');
addEventListener('DOMContentLoaded', () => {
  const img = document.createElement('img');
  img.src = 'http://example.invalid/pixel.png';
  document.body.append(img);
  throw new Error('probe: uncaught');
});
`;

let server: Server;
let origin: string;

before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {'Content-Type': type, 'Content-Security-Policy': CSP});
      res.end(body);
    };
    if (path === '/') return send(200, 'text/html; charset=utf-8', PAGE);
    if (path === RECORDER_PATH) return send(200, 'text/javascript', RECORDER_SOURCE);
    if (path === '/probe.js') return send(200, 'text/javascript', PROBE_JS);
    return send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise((resolve) => server?.close(resolve)));

for (const engine of testedEngines()) {
  describe(`the end-to-end helper in ${engine}`, () => {
    let browser: EngineBrowser;
    before(async () => {
      browser = await launchEngine(engine);
    });
    after(() => browser?.close());

    it('types, clicks, and reports events, console messages, errors and refused requests', async () => {
      const page = await browser.newPage();
      await page.goto(`${origin}/`);
      await page.typeInShadow('probe-field', '#field', '12289');
      await page.press('Backspace');
      await page.click('probe-field', '#send');
      assert.deepEqual(await page.waitForEvent('probe-typed'), {
        value: '1228',
        keys: ['1', '2', '2', '8', '9', 'Backspace'],
      });
      assert.equal((await page.waitForConsole(/^probe sent/)).text, 'probe sent 1228');
      await page.waitFor(`document.querySelector('img') !== null`);
      const seen = (await page.consoleErrors()).join('\n');
      assert.match(seen, /probe: an error for the console/);
      assert.match(seen, /probe: uncaught/);
      assert.match(seen, /example\.invalid\/pixel\.png/, 'the refusal of the CSP');
      const failed = (await page.failedRequests()).join('\n');
      assert.match(failed, /\/missing\.js/);
      assert.equal(await page.evaluate((n: number) => n * 2, 21), 42);
      await page.close();
    });
  });
}
