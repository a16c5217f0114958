/**
 * The example merchant app in-process over HTTP against the sandbox: health check,
 * server-side orders (the price comes from the catalogue), the pages (the checkout's
 * summary and preloads rendered by the server), a test card through 3-D Secure to a
 * successful status, the shop's order marked paid, and the admin route.
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {AddressInfo} from 'node:net';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {CHECKOUT_BASE, createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {CARDS, PAY_HEADERS, captureLogger, complete3ds, eventually, payBody} from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-example-'));
let sandbox: Sandbox;
let example: ExampleApp;
let base: string;
let server: ReturnType<typeof createAdaptorServer>;
const ADMIN = 'admin-token-0123456789';

before(async () => {
  sandbox = await startSandbox({});
  let handler: ((req: Request, env: unknown) => Response | Promise<Response>) | undefined =
    undefined;
  server = createAdaptorServer({fetch: (req, env) => handler!(req, env)});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  example = createExampleApp({
    publicUrl: base,
    dataDir: tmp,
    adminToken: ADMIN,
    logger: captureLogger().logger,
    bundlePath: path.join(tmp, 'no-bundle.js'),
    gateway: {
      ...sandbox.clientOptions(),
    },
  });
  await example.start();
  handler = example.app.fetch;
});

after(async () => {
  await example?.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as unknown as {closeAllConnections(): void}).closeAllConnections();
  });
  await sandbox?.close();
  rmSync(tmp, {recursive: true, force: true});
});

test('GET /healthz answers 200 when the app and its store are ready', async () => {
  const res = await fetch(`${base}/healthz`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {ok: true, state: 'ready'});
});

test('the checkout page has the card form, and the pages say when the bundle is not built', async () => {
  const created = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'mug'}),
  });
  const {orderRef} = (await created.json()) as {orderRef: string};
  const html = await (await fetch(`${base}/checkout?order=${orderRef}`)).text();
  // Rendered on the server for the order, its fields in a declarative shadow root.
  assert.match(html, /<pg-card-form[^>]*\sendpoint="\/api\/checkout\/pay"/);
  assert.match(html, new RegExp(`<pg-card-form[^>]*\\sorder-ref="${orderRef}"`));
  assert.match(html, /<template shadowroot(mode)?="open"/);
  assert.match(html, /npm run build/);
  // Without an order there is no form to render.
  assert.doesNotMatch(await (await fetch(`${base}/checkout`)).text(), /<pg-card-form/);
  assert.match(await (await fetch(`${base}/`)).text(), /npm run build/);
  assert.match(
    await (await fetch(`${base}/thanks?order=x`)).text(),
    /<pg-3ds-redirect[^>]*\sresolve/,
  );
  assert.equal((await fetch(`${base}/assets/pg-checkout.js`)).status, 404);
});

test('orders are created server-side; an unknown product is refused', async () => {
  const bad = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'yacht'}),
  });
  assert.equal(bad.status, 400);
});

test('a test card goes through 3-D Secure to success, and the order is marked paid', async () => {
  const created = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'mug'}),
  });
  const order = (await created.json()) as {orderRef: string; amount: string};
  assert.equal(order.amount, '1.50');
  const res = await fetch(`${base}${CHECKOUT_BASE}/pay`, {
    method: 'POST',
    headers: {...PAY_HEADERS, Origin: base},
    body: JSON.stringify(payBody(order.orderRef, 'ex-attempt-1', CARDS.threeDS)),
  });
  const answer = (await res.json()) as {outcome: string; userActionUrl: string};
  assert.equal(answer.outcome, '3ds_required');
  const back = await complete3ds(answer.userActionUrl, 'approve');
  assert.equal(back.status, 303);
  assert.equal(back.location, `/thanks?order=${order.orderRef}`);
  await sandbox.webhooksIdle();
  const status = await eventually(async () => {
    const s = (await (
      await fetch(`${base}${CHECKOUT_BASE}/status?order=${order.orderRef}`)
    ).json()) as {
      state: string;
      final: boolean;
    };
    return s.final ? s : undefined;
  });
  assert.equal(status.state, 'success');
  assert.equal(sandbox.payments().find((p) => p.orderId.startsWith(order.orderRef))?.amount, 1.5);
  await example.checkout.flushOutbox();
  const admin = await fetch(`${base}/admin/orders/${order.orderRef}`, {
    headers: {Authorization: `Bearer ${ADMIN}`},
  });
  assert.equal(admin.status, 200);
  const detail = (await admin.json()) as {order: {paid: boolean}; attempts: {state: string}[]};
  assert.equal(detail.order.paid, true);
  assert.deepEqual(
    detail.attempts.map((a) => a.state),
    ['success'],
  );
  const denied = await fetch(`${base}/admin/orders/${order.orderRef}`, {
    headers: {Authorization: 'Bearer wrong-token-0123456'},
  });
  assert.equal(denied.status, 403);
});

test('the checkout page: the summary and the startup modules are in its HTML; a paid order goes to its result page', async () => {
  const order = async (productId: string) =>
    (
      (await (
        await fetch(`${base}/api/orders`, {
          method: 'POST',
          headers: {'Content-Type': 'application/json'},
          body: JSON.stringify({productId}),
        })
      ).json()) as {orderRef: string}
    ).orderRef;
  const checkoutPage = (orderRef: string) =>
    fetch(`${base}/checkout?order=${encodeURIComponent(orderRef)}`, {redirect: 'manual'});

  const orderRef = await order('tea-sampler');
  const page = await (await checkoutPage(orderRef)).text();
  // What the page script used to ask /api/orders for after load.
  assert.match(page, new RegExp(`data-field="orderRef">${orderRef}<`));
  assert.match(page, /data-field="description">[^<]+</);
  assert.match(page, /data-field="total">1\.20 XTS</);
  assert.doesNotMatch(page, /id="kind-note"/);
  // The bundles hold every module the form runs: nothing to preload beside them.
  assert.doesNotMatch(page, /modulepreload/);

  // A deposit and a subscription say so, in the page.
  const held = await (await checkoutPage(await order('grinder-rental'))).text();
  assert.match(held, /id="kind-note">A deposit: the amount is held on your card now/);
  const sub = await (await checkoutPage(await order('coffee-club'))).text();
  assert.match(
    sub,
    /id="kind-note">A subscription: this card is charged now and then [^<]+, until you cancel\./,
  );

  // Paid: the checkout is the result page now.
  const res = await fetch(`${base}${CHECKOUT_BASE}/pay`, {
    method: 'POST',
    headers: {...PAY_HEADERS, Origin: base},
    body: JSON.stringify(payBody(orderRef, `checkout-${orderRef}`, CARDS.success)),
  });
  assert.equal(((await res.json()) as {outcome: string}).outcome, 'success');
  const paid = await checkoutPage(orderRef);
  assert.equal(paid.status, 303);
  assert.equal(paid.headers.get('location'), `/thanks?order=${orderRef}`);

  // No order: no form, no summary, nothing to preload.
  const none = await (await checkoutPage('ord-000000000000')).text();
  assert.doesNotMatch(none, /<pg-card-form|id="summary"|modulepreload/);
});

test('the result page: a success the server knows is the page itself, else the element asks', async () => {
  const order = async () =>
    (
      (await (
        await fetch(`${base}/api/orders`, {
          method: 'POST',
          headers: {'Content-Type': 'application/json'},
          body: JSON.stringify({productId: 'tea-sampler'}),
        })
      ).json()) as {orderRef: string}
    ).orderRef;
  const pay = async (orderRef: string, card: string) =>
    (
      (await (
        await fetch(`${base}${CHECKOUT_BASE}/pay`, {
          method: 'POST',
          headers: {...PAY_HEADERS, Origin: base},
          body: JSON.stringify(payBody(orderRef, `result-${orderRef}`, card)),
        })
      ).json()) as {outcome: string}
    ).outcome;
  const resultPage = async (orderRef: string) =>
    (await fetch(`${base}/thanks?order=${encodeURIComponent(orderRef)}`)).text();
  const asks = (page: string) => {
    assert.match(
      page,
      /<pg-3ds-redirect[^>]*\sresolve[^>]*status-endpoint="\/api\/checkout\/status"/,
    );
    assert.match(page, /<script type="module" src="\/demo\/js\/result\.js"><\/script>/);
    assert.match(page, /<h1 id="result-title">Payment result<\/h1>/);
  };

  // Not paid yet: the summary and links are there, the outcome is asked for.
  const paid = await order();
  const before = await resultPage(paid);
  asks(before);
  assert.match(before, new RegExp(`data-field="orderRef">${paid}<`));
  assert.match(before, /data-field="total">1\.20 XTS</);
  assert.match(before, new RegExp(`id="retry-link" href="/checkout\\?order=${paid}"`));

  // Paid with a frictionless card: the answer is the page, with no script and no request.
  assert.equal(await pay(paid, CARDS.success), 'success');
  const after = await resultPage(paid);
  assert.match(after, /<h1 id="result-title">Thank you: your payment went through<\/h1>/);
  assert.match(after, /<title>Paid · Payment result/);
  assert.match(after, /data-field="total">1\.20 XTS</);
  assert.match(after, new RegExp(`id="admin-link" href="/admin\\?order=${paid}"`));
  assert.doesNotMatch(after, /<script|<pg-3ds-redirect/);

  // Declined: final, but not a success: the element says it, in the customer's language.
  const declined = await order();
  assert.equal(await pay(declined, CARDS.decline), 'failure');
  asks(await resultPage(declined));

  // An address that is no order of the shop: no summary, the element (it may know better).
  const unknown = await resultPage('ord-000000000000');
  asks(unknown);
  assert.doesNotMatch(unknown, /id="summary"/);
  const hostile = await resultPage('"><script>alert(1)</script>');
  asks(hostile);
  assert.doesNotMatch(hostile, /alert\(1\)/);
});

test('a hosted payment: 303 to the gateway page, reused by a second click, refused cross-site', async () => {
  const created = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'tea-sampler'}),
  });
  const {orderRef} = (await created.json()) as {orderRef: string};
  const post = (origin: string) =>
    fetch(`${base}${CHECKOUT_BASE}/hosted`, {
      method: 'POST',
      redirect: 'manual',
      headers: {'Content-Type': 'application/x-www-form-urlencoded', Origin: origin},
      body: new URLSearchParams({order: orderRef}),
    });
  const first = await post(base);
  assert.equal(first.status, 303);
  const location = first.headers.get('location') ?? '';
  assert.ok(location.startsWith(`${sandbox.url}/sandbox/checkout/`), location);
  const again = await post(base);
  assert.equal(again.headers.get('location'), location, 'the open hosted payment is reused');
  const hosted = sandbox.payments().filter((p) => p.orderId.startsWith(`${orderRef}-`));
  assert.deepEqual(
    hosted.map((p) => [p.mode, p.status]),
    [['hosted', 'init']],
  );
  assert.equal((await post('https://evil.example')).status, 403);
});
