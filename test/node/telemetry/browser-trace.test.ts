/**
 * One trace from the customer's Pay to the gateway and the webhook: the demo shop
 * (`createExampleApp`, in this process, over loopback HTTP) with an OpenTelemetry SDK
 * registered (otel-sdk.ts: in-memory span exporter), paid in Chromium by the real, built
 * `<pg-card-form>` against the in-process sandbox. The `traceparent` the browser sent with
 * its order and pay requests (read off the requests as Chromium sent them, and checked
 * against the W3C format) is the trace of the companion's pay route span, its gateway
 * create call and the `pg_checkout.webhook` span of the gateway's webhook (linked to the
 * webhook's own request span); and no span holds the card number or the CVV typed.
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import {mkdtempSync, rmSync} from 'node:fs';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createAdaptorServer} from '@hono/node-server';
import {SpanKind} from '@opentelemetry/api';
import type {ReadableSpan} from '@opentelemetry/sdk-trace-base';
import type {Browser, Request} from 'playwright';
import {sharedChromium} from '../../../scripts/chromium.mjs';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {captureLogger} from '../checkout/helpers.js';
import {registerSdk} from './otel-sdk.js';

/** W3C Trace Context, version 00: ids of lower-case hex, neither all zeros. */
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-01$/;
const CARD = '4242424242424242';
const CVV = '739';

const dir = mkdtempSync(path.join(tmpdir(), 'pg-browser-trace-'));
let sdk: ReturnType<typeof registerSdk>;
let sandbox: Sandbox;
let example: ExampleApp;
let server: http.Server;
let base = '';
let browser: Browser;

before(async () => {
  sdk = registerSdk();
  const launching = sharedChromium();
  server = createAdaptorServer({
    fetch: (req, bindings) => example.app.fetch(req, bindings),
  }) as http.Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sandbox = await startSandbox({port: 0});
  example = createExampleApp({
    publicUrl: base,
    dataDir: dir,
    gateway: sandbox.clientOptions(),
    logger: captureLogger().logger,
  });
  example.start();
  browser = await launching;
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await example?.close();
  await sandbox?.close();
  await sdk?.shutdown();
  rmSync(dir, {recursive: true, force: true});
});

const traceOf = (s: ReadableSpan) => s.spanContext().traceId;

test('the trace the card form starts runs through the pay route, the gateway call and the webhook', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const sent: {path: string; traceparent: string | undefined}[] = [];
  page.on('request', (r: Request) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/checkout/')) {
      sent.push({path: url.pathname, traceparent: r.headers()['traceparent']});
    }
  });
  const order = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'mug'}),
  });
  assert.equal(order.status, 201);
  const {orderRef} = (await order.json()) as {orderRef: string};
  await page.goto(`${base}/checkout?order=${orderRef}`);
  await page.locator('input[name="cc-number"]').fill(CARD);
  await page.locator('input[name="cc-exp"]').fill('1234');
  await page.locator('input[name="cc-csc"]').fill(CVV);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/api/checkout/pay'),
    page.locator('pg-card-form [part~="button"]').click(),
  ]);
  const paid = (await answer.json()) as {outcome: string};
  assert.equal(paid.outcome, 'success', JSON.stringify(paid));
  await sandbox.webhooksIdle();
  await context.close();

  // Every request the form sent to the companion carried a valid traceparent of its own.
  assert.ok(
    sent.some((s) => s.path === '/api/checkout/pay'),
    JSON.stringify(sent),
  );
  for (const s of sent) assert.match(s.traceparent ?? '', TRACEPARENT, s.path);
  assert.equal(new Set(sent.map((s) => s.traceparent)).size, sent.length, 'one trace each');
  const pay = sent.find((s) => s.path === '/api/checkout/pay')!;
  const [, traceId, parentId] = TRACEPARENT.exec(pay.traceparent!)!;

  const spans = sdk.spans.getFinishedSpans();
  const inTrace = spans.filter((s) => traceOf(s) === traceId);
  const route = inTrace.find(
    (s) => s.kind === SpanKind.SERVER && s.name === 'POST /api/checkout/pay',
  );
  assert.ok(route, `the pay route's span is in the browser's trace: ${inTrace.map((s) => s.name)}`);
  assert.equal(
    (route as {parentSpanContext?: {spanId: string}}).parentSpanContext?.spanId,
    parentId,
    "a child of the browser's parent id",
  );
  assert.equal(route.attributes['pg_checkout.order.ref'], orderRef);
  const create = inTrace.find(
    (s) =>
      s.kind === SpanKind.CLIENT &&
      s.attributes['pg_checkout.gateway.operation'] === 'createPayment',
  );
  assert.ok(create, "the gateway's create call is in the browser's trace");
  const webhook = inTrace.find((s) => s.name === 'pg_checkout.webhook');
  assert.ok(webhook, `the webhook's span is in the browser's trace: ${inTrace.map((s) => s.name)}`);
  assert.equal(webhook.attributes['pg_checkout.order.ref'], orderRef);
  // ...and linked to the webhook's own request span (a trace of the gateway's making).
  const request = spans.find(
    (s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/api/checkout/webhook',
  );
  assert.ok(request, 'the webhook request span');
  assert.deepEqual(
    webhook.links.map((l) => l.context.spanId),
    [request.spanContext().spanId],
  );
  assert.ok(
    request.links.some((l) => l.context.traceId === traceId),
    'the webhook request links back to the pay trace',
  );

  // No card data in any span: name, attributes, events, links.
  const everything = JSON.stringify(
    spans.map((s) => ({name: s.name, attributes: s.attributes, events: s.events, links: s.links})),
  );
  assert.ok(!everything.includes(CARD), 'the card number in a span');
  assert.ok(!everything.includes(CARD.slice(-10)), 'part of the card number in a span');
  assert.ok(!new RegExp(`(^|\\D)${CVV}(\\D|$)`).test(everything), 'the CVV in a span');
});
