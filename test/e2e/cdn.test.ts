/**
 * The CDN page: the checkout from nothing but one `<script type="module" integrity
 * crossorigin>` tag, served with a strict Content-Security-Policy (no unsafe-inline, no
 * unsafe-eval) and Trusted Types enforced. The test reads the policy from the response,
 * checks the tag against the bundle's hash, pays, and fails on any policy violation.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {createHash} from 'node:crypto';
import {
  BASE,
  CARDS,
  chargesOf,
  checkA11y,
  fillCard,
  finish,
  formStatus,
  openPage,
  payButton,
  sharedBrowser,
} from './harness.js';

const browser = sharedBrowser();

describe('the CDN page', () => {
  test('pays under a strict CSP with Trusted Types, from one SRI-pinned script tag', async () => {
    const w = await openPage(browser());
    const {page} = w;
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        void (window as unknown as {reportViolation(v: string): void}).reportViolation(
          `${e.violatedDirective} ${e.blockedURI}`,
        );
      });
    });
    await page.goto(`${BASE}/cdn`);
    await page.getByRole('button', {name: 'Start an order'}).click();
    await page.waitForURL(/\/cdn\?order=ord-/);
    const orderRef = new URL(page.url()).searchParams.get('order')!;
    const response = await page.reload();
    const csp = response!.headers()['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /require-trusted-types-for 'script'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);

    const scripts = await page.locator('script').evaluateAll((els) =>
      els.map((s) => ({
        type: s.getAttribute('type'),
        src: s.getAttribute('src'),
        integrity: s.getAttribute('integrity'),
        crossorigin: s.getAttribute('crossorigin'),
        inline: (s.textContent ?? '').trim().length > 0,
      })),
    );
    assert.equal(scripts.length, 1, 'one script tag, nothing else');
    const [tag] = scripts;
    assert.equal(tag?.type, 'module');
    assert.equal(tag?.crossorigin, 'anonymous');
    assert.equal(tag?.inline, false);
    const bundle = Buffer.from(await (await fetch(new URL(tag!.src!, BASE))).arrayBuffer());
    assert.equal(tag?.integrity, `sha384-${createHash('sha384').update(bundle).digest('base64')}`);

    await payButton(page).waitFor();
    await checkA11y(page, 'the CDN page');
    await fillCard(page, CARDS.success);
    await payButton(page).click();
    await formStatus(page).filter({hasText: 'Payment successful.'}).waitFor();
    assert.equal(await chargesOf(orderRef), 1);
    assert.deepEqual(violations, [], 'no CSP or Trusted Types violation');
    await finish(w);
  });
});
