/**
 * `browserAcceptHeader`, which 3-D Secure wants as the customer's browser sent it for the
 * checkout page: the page's server writes it into the form (`accept-header`, or
 * `renderCardForm({acceptHeader})` from pg-checkout/ssr), the form sends it in the
 * fingerprint, and the companion passes it to the gateway. Without it the companion sends
 * its documented default, never the pay request's own `Accept` (the form's fetch,
 * `application/json`); a value that is no header value is refused naming the field.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {SqlitePaymentStore} from '../../../src/server/index.js';
import {DEFAULT_PAGE_ACCEPT_HEADER} from '../../../src/server/payments/gateway-request.js';
import {renderCardForm} from '../../../src/ssr.js';
import {StubGateway, inProcessApp, pay, payBody} from './helpers.js';

const CHROMIUM_PAGE =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

function companion() {
  const gw = new StubGateway();
  const {app, catalogue} = inProcessApp(new SqlitePaymentStore(':memory:'), gw);
  catalogue.orders.set('ord-1', {amount: '12.50', currency: 'XTS', description: 'Two books'});
  return {app, gw};
}

describe("the page's Accept header in the gateway's fingerprint", () => {
  test('is the one the form was given, whatever the pay request itself accepts', async () => {
    const {app, gw} = companion();
    const body = payBody('ord-1', 'att-1');
    const res = await pay(
      app,
      {...body, fingerprint: {...body.fingerprint, browserAcceptHeader: CHROMIUM_PAGE}},
      {Accept: 'application/json'},
    );
    assert.equal(res.status, 200);
    assert.equal(gw.created[0]!.browser_fingerprint.browserAcceptHeader, CHROMIUM_PAGE);
  });

  test('is the documented default without it, never the form’s fetch header', async () => {
    const {app, gw} = companion();
    const res = await pay(app, payBody('ord-1', 'att-1'), {Accept: 'application/json'});
    assert.equal(res.status, 200);
    const sent = gw.created[0]!.browser_fingerprint.browserAcceptHeader;
    assert.equal(sent, DEFAULT_PAGE_ACCEPT_HEADER);
    assert.match(sent, /^text\/html,/);
  });

  test('refuses a value that is no HTTP header value, naming the field', async () => {
    const {app, gw} = companion();
    const body = payBody('ord-1', 'att-1');
    for (const bad of ['text/html\r\nX-Injected: 1', 'x'.repeat(2049), 'текст/html']) {
      const res = await pay(app, {
        ...body,
        fingerprint: {...body.fingerprint, browserAcceptHeader: bad},
      });
      assert.equal(res.status, 400, JSON.stringify(bad.slice(0, 20)));
      const error = ((await res.json()) as {error: {field?: string}}).error;
      assert.equal(error.field, 'fingerprint.browserAcceptHeader');
    }
    assert.equal(gw.created.length, 0);
  });

  test('renderCardForm writes the page request’s header into the form, and checks it', async () => {
    const html = await renderCardForm({
      endpoint: '/checkout/pay',
      orderRef: 'ord-1',
      acceptHeader: CHROMIUM_PAGE,
    });
    assert.match(
      html,
      new RegExp(`accept-header="${CHROMIUM_PAGE.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`),
    );
    await assert.rejects(
      renderCardForm({endpoint: '/p', orderRef: 'o', acceptHeader: 'a\nb'}),
      /renderCardForm: acceptHeader must be an HTTP header value/,
    );
    const without = await renderCardForm({endpoint: '/p', orderRef: 'o'});
    assert.doesNotMatch(without, /accept-header/);
  });
});
