/**
 * `pg-checkout/ssr` on the server side: what `renderCardForm` writes (a declarative shadow
 * root holding the fields, the attributes escaped, the language's texts), which options it
 * refuses (by name and rule), and the CSP hashes of its styles. In the browser, the
 * rendered form is tested in test/browser-e2e/ssr.test.ts.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {createHash} from 'node:crypto';
import {CardFormHtmlError, renderCardForm, styleHashes} from '../../../src/ssr.js';

const BASE = {endpoint: '/checkout/pay', orderRef: 'order-1'};

describe('renderCardForm', () => {
  test('writes the element with its fields in a declarative, focus-delegating shadow root', async () => {
    const html = await renderCardForm({
      ...BASE,
      amount: '1250.00',
      currency: 'UAH',
      theme: 'dark',
      holderName: true,
    });
    assert.match(html, /<pg-card-form[^>]* endpoint="\/checkout\/pay"/);
    assert.match(html, /<pg-card-form[^>]* order-ref="order-1"/);
    assert.match(html, /<pg-card-form[^>]* theme="dark"/);
    assert.match(html, /<pg-card-form[^>]* holder-name/);
    assert.match(
      html,
      /<template shadowroot="open" shadowrootmode="open" shadowrootdelegatesfocus>/,
    );
    for (const name of ['cc-number', 'cc-exp', 'cc-csc', 'cc-name']) {
      assert.match(html, new RegExp(`<input[^>]*name="${name}"`), name);
    }
    assert.doesNotMatch(html, /name="email"/, 'fields not asked for are not rendered');
    assert.match(html, /Pay UAH\s12,?50|Pay UAH\s1,?250\.00/);
    // Never submitted by the browser before hydration (the card would go in the URL).
    assert.match(html, /<form[^>]*method="dialog"/);
  });

  test('escapes every value', async () => {
    const html = await renderCardForm({...BASE, orderRef: '"><script>alert(1)</script>'});
    assert.doesNotMatch(html, /<script>/);
    assert.match(html, /order-ref="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
  });

  test('renders the texts of the language asked for', async () => {
    const html = await renderCardForm({...BASE, lang: 'uk'});
    assert.match(html, / lang="uk"/);
    assert.match(html, /Номер картки/);
    assert.doesNotMatch(html, /Card number/);
  });

  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    ['endpoint', {endpoint: ''}, /endpoint is required/],
    ['orderRef', {orderRef: ''}, /orderRef is required/],
    ['amount', {amount: '12.345', currency: 'UAH'}, /amount must be a decimal string/],
    ['amount', {amount: '1e3', currency: 'UAH'}, /amount must be a decimal string/],
    ['currency', {amount: '12.50', currency: 'uah'}, /currency must be an ISO 4217 code/],
    ['amount', {amount: '12.50'}, /amount and currency go together/],
    ['lang', {lang: 'en"><x'}, /lang must be a language tag/],
    ['theme', {theme: 'blue'}, /theme must be auto, light or dark/],
    ['threeDSMode', {threeDSMode: 'popup'}, /threeDSMode must be one of redirect, iframe/],
    ['challengeWindowSize', {challengeWindowSize: '06'}, /challengeWindowSize must be one of/],
  ];
  for (const [field, options, message] of refused) {
    test(`refuses a bad ${field} (${JSON.stringify(options)}), naming it`, async () => {
      await assert.rejects(
        renderCardForm({...BASE, ...options} as never),
        (error: unknown) =>
          error instanceof CardFormHtmlError &&
          error.field === field &&
          message.test(error.message),
      );
    });
  }

  test('renders concurrently without mixing forms', async () => {
    const refs = Array.from({length: 20}, (_, i) => `order-${i}`);
    const pages = await Promise.all(refs.map((orderRef) => renderCardForm({...BASE, orderRef})));
    pages.forEach((html, i) => {
      assert.equal(html.match(/order-ref="[^"]*"/g)?.join(), `order-ref="order-${i}"`);
    });
  });
});

describe('styleHashes', () => {
  test("is the sha256 of each <style>'s text, the same for every form", async () => {
    const a = await renderCardForm(BASE);
    const b = await renderCardForm({...BASE, orderRef: 'other', theme: 'dark', lang: 'pl'});
    const css = /<style>([\s\S]*?)<\/style>/.exec(a)![1]!;
    const expected = `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
    assert.deepEqual(await styleHashes(a), [expected]);
    assert.deepEqual(await styleHashes(b), [expected]);
    assert.deepEqual(await styleHashes('<p>no style</p>'), []);
  });
});
