/**
 * The companion's traces and metrics with an OpenTelemetry SDK registered (otel-sdk.ts),
 * against the in-process sandbox over loopback HTTP: one trace from a pay request carrying
 * `traceparent` through the pay route to the gateway's create call; the payment counter
 * and the gateway latency histogram as the payments made; and no card number, CVV, card
 * token or credential in any span or metric.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {SpanKind} from '@opentelemetry/api';
import type {ReadableSpan} from '@opentelemetry/sdk-trace-base';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import type {SqlitePaymentStore} from '../../../src/server/index.js';
import {
  CARDS,
  PAY_HEADERS,
  SECRET,
  complete3ds,
  finalStatus,
  payBody,
  signedWebhook,
  payHttp,
  serveCompanion,
  tempStores,
  type ServedCompanion,
} from '../checkout/helpers.js';
import {pointsOf, registerSdk} from './otel-sdk.js';

const stores = tempStores('pg-otel');
let sdk: ReturnType<typeof registerSdk>;
let sandbox: Sandbox;
let store: SqlitePaymentStore;
let companion: ServedCompanion;

/** Every card number and CVV sent: none may be found in a span or a metric. */
const usedNumbers = new Set<string>();
const usedCvvs = new Set<string>();
const CVVS = ['0937', '0482', '0716', '0259'];
let cvvIndex = 0;
function body(orderRef: string, number: string) {
  const cvv = CVVS[cvvIndex++ % CVVS.length]!;
  usedNumbers.add(number);
  usedCvvs.add(cvv);
  return payBody(orderRef, `a-${orderRef}`, number, cvv);
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

const parentOf = (s: ReadableSpan) =>
  (s as {parentSpanContext?: {spanId: string}}).parentSpanContext?.spanId;

before(async () => {
  sdk = registerSdk();
  sandbox = await startSandbox();
  store = stores.open('otel');
  companion = await serveCompanion(sandbox, store);
});

after(async () => {
  await companion?.close();
  await store?.close();
  await sandbox?.close();
  await stores.cleanup();
  await sdk?.shutdown();
});

describe('traces', () => {
  test('one trace runs from the request carrying traceparent through the pay route to the gateway call', async () => {
    const r = await payHttp(companion.url, body('otel-trace', CARDS.success), {
      traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
    });
    assert.equal(r.json['outcome'], 'success');
    const spans = sdk.spans.getFinishedSpans().filter((s) => s.spanContext().traceId === TRACE_ID);
    const server = spans.find((s) => s.kind === SpanKind.SERVER);
    assert.ok(server, `a server span in the trace: ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(server.name, 'POST /pay');
    assert.equal(parentOf(server), PARENT_ID);
    assert.equal(server.attributes['http.request.method'], 'POST');
    assert.equal(server.attributes['http.route'], '/pay');
    assert.equal(server.attributes['http.response.status_code'], 200);
    assert.equal(server.attributes['pg_checkout.order.ref'], 'otel-trace');
    assert.equal(server.attributes['pg_checkout.payment.outcome'], 'success');
    assert.equal(server.attributes['pg_checkout.payment.mode'], 'direct');

    const client = spans.find((s) => s.kind === SpanKind.CLIENT && s.attributes['url.template']);
    assert.ok(client, 'a client span in the trace');
    assert.equal(client.name, 'POST /api/v1/payment');
    assert.equal(parentOf(client), server.spanContext().spanId);
    assert.equal(client.attributes['http.request.method'], 'POST');
    assert.equal(client.attributes['http.response.status_code'], 200);
    assert.equal(client.attributes['url.template'], '/api/v1/payment');
    assert.equal(client.attributes['server.address'], new URL(sandbox.url).hostname);
    assert.equal(client.attributes['server.port'], Number(new URL(sandbox.url).port));
    assert.equal(client.attributes['pg_checkout.gateway.operation'], 'createPayment');

    // The store's transactions of the route (the attempt's insert before the create, its
    // answer after) are spans of the same trace, under the route's.
    const store = spans.filter((s) => s.attributes['db.system.name'] === 'sqlite');
    const modes = store.map((s) => s.attributes['db.operation.name']);
    assert.ok(modes.includes('insert'), `the attempt's insert: ${modes.join(', ')}`);
    for (const s of store) {
      assert.equal(s.kind, SpanKind.CLIENT);
      assert.equal(parentOf(s), server.spanContext().spanId);
    }
    const ms = ([sec, ns]: [number, number]) => sec * 1e3 + ns / 1e6;
    const insert = store.find((s) => s.attributes['db.operation.name'] === 'insert')!;
    assert.ok(
      ms(insert.endTime) <= ms(client.startTime),
      'the attempt is stored before the create',
    );
  });

  test('a card form on another allowed origin may send traceparent and tracestate (CORS preflight)', async () => {
    const preflight = await fetch(`${companion.url}/pay`, {
      method: 'OPTIONS',
      headers: {
        Origin: companion.url,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,traceparent,tracestate',
      },
    });
    assert.equal(preflight.status, 204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '')
      .toLowerCase()
      .split(/\s*,\s*/);
    assert.ok(allowed.includes('traceparent') && allowed.includes('tracestate'), allowed.join());
  });

  test('a request without traceparent starts a trace of its own', async () => {
    await payHttp(companion.url, body('otel-root', CARDS.success));
    const server = sdk.spans
      .getFinishedSpans()
      .find(
        (s) => s.kind === SpanKind.SERVER && s.attributes['pg_checkout.order.ref'] === 'otel-root',
      );
    assert.ok(server);
    assert.notEqual(server.spanContext().traceId, TRACE_ID);
    assert.equal(parentOf(server), undefined);
  });
});

describe('metrics', () => {
  test('payments are counted by mode, outcome and failure reason; gateway latency by operation and status', async () => {
    const before = await sdk.metrics();
    const countOf = (m: typeof before, match: Record<string, unknown>) =>
      pointsOf(m.get('pg_checkout.payment.count'))
        .filter(([a]) => Object.entries(match).every(([k, v]) => a[k] === v))
        .reduce((n, [, v]) => n + (v as number), 0);
    const declines = countOf(before, {'pg_checkout.payment.outcome': 'failure'});
    const successes = countOf(before, {'pg_checkout.payment.outcome': 'success'});

    assert.equal(
      (await payHttp(companion.url, body('otel-ok', CARDS.success))).json['outcome'],
      'success',
    );
    const declined = await payHttp(companion.url, body('otel-decline', CARDS.decline));
    assert.equal(declined.json['outcome'], 'failure');
    const threeDs = await payHttp(companion.url, body('otel-3ds', CARDS.threeDS));
    assert.equal(threeDs.json['outcome'], '3ds_required');

    const m = await sdk.metrics();
    const counter = m.get('pg_checkout.payment.count');
    assert.equal(counter?.descriptor.unit, '{payment}');
    assert.equal(countOf(m, {'pg_checkout.payment.outcome': 'success'}), successes + 1);
    assert.equal(
      countOf(m, {
        'pg_checkout.payment.mode': 'direct',
        'pg_checkout.payment.outcome': 'failure',
        'pg_checkout.payment.failure_reason': declined.json['reason'],
        'pg_checkout.gateway.status_code': declined.json['code'],
      }),
      1,
    );
    assert.equal(countOf(m, {'pg_checkout.payment.outcome': 'failure'}), declines + 1);
    assert.equal(countOf(m, {'pg_checkout.payment.outcome': '3ds_required'}), 1);

    const latency = m.get('http.client.request.duration');
    assert.equal(latency?.descriptor.unit, 's');
    const creates = pointsOf(latency).filter(
      ([a]) =>
        a['pg_checkout.gateway.operation'] === 'createPayment' &&
        a['http.response.status_code'] === 200,
    );
    assert.equal(creates.length, 1);
    const histogram = creates[0]![1] as {count: number; sum: number};
    // Every payment of this file so far: two in the traces tests, three here.
    assert.equal(histogram.count, 5);
    assert.ok(histogram.sum > 0);

    const store = pointsOf(m.get('db.client.operation.duration')).filter(
      ([a]) => a['db.system.name'] === 'sqlite' && a['db.operation.name'] === 'insert',
    );
    assert.equal(m.get('db.client.operation.duration')?.descriptor.unit, 's');
    assert.equal(store.length, 1);
    assert.equal((store[0]![1] as {count: number}).count, 5);

    const routes = pointsOf(m.get('http.server.request.duration')).filter(
      ([a]) => a['http.route'] === '/pay',
    );
    assert.ok(routes.length > 0);
  });
});

describe('3-D Secure', () => {
  test('challenges are counted started, then approved, failed or abandoned', async () => {
    const stages = async () =>
      Object.fromEntries(
        pointsOf((await sdk.metrics()).get('pg_checkout.three_ds.count')).map(([a, v]) => [
          a['pg_checkout.three_ds.stage'],
          v,
        ]),
      ) as Record<string, number>;
    const before = await stages();
    const started = async (orderRef: string) => {
      const r = await payHttp(companion.url, body(orderRef, CARDS.threeDS));
      assert.equal(r.json['outcome'], '3ds_required');
      return String(r.json['userActionUrl']);
    };
    await complete3ds(await started('otel-3ds-yes'), 'approve');
    await complete3ds(await started('otel-3ds-no'), 'decline');
    await started('otel-3ds-gone');
    const abandoned = await fetch(`${companion.url}/abandon`, {
      method: 'POST',
      headers: {...PAY_HEADERS, Origin: companion.url},
      body: JSON.stringify({orderRef: 'otel-3ds-gone', attemptId: 'a-otel-3ds-gone'}),
    });
    assert.equal(abandoned.status, 200);
    assert.equal((await finalStatus(companion.url, 'otel-3ds-yes')).json['state'], 'success');
    assert.equal((await finalStatus(companion.url, 'otel-3ds-no')).json['state'], 'failure');
    const after = await stages();
    const added = (stage: string) => (after[stage] ?? 0) - (before[stage] ?? 0);
    assert.deepEqual(
      {
        started: added('started'),
        approved: added('approved'),
        failed: added('failed'),
        abandoned: added('abandoned'),
      },
      {started: 3, approved: 1, failed: 1, abandoned: 1},
    );
  });
});

describe('webhooks, admission and the card-testing breaker', () => {
  test('webhooks are counted accepted and refused (with the reason); admission and breaker gauges read the app', async () => {
    await sandbox.webhooksIdle();
    const delivered = sandbox.webhookLog().length;
    assert.ok(delivered > 0, 'the sandbox sent webhooks for the payments');
    const forged = await fetch(`${companion.url}/webhook`, {
      method: 'POST',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: signedWebhook({order_id: 'otel-forged', status: 'success'}, 'not-the-secret'),
    });
    assert.equal(forged.status, 403);

    // The webhook's own trace names the order, as the pay request's does.
    const webhookSpan = sdk.spans
      .getFinishedSpans()
      .find(
        (s) =>
          s.attributes['http.route'] === '/webhook' &&
          s.attributes['pg_checkout.order.ref'] === 'otel-trace',
      );
    assert.ok(webhookSpan, 'a webhook span tagged with the order');
    assert.equal(webhookSpan.kind, SpanKind.SERVER);

    const m = await sdk.metrics();
    const webhooks = pointsOf(m.get('pg_checkout.webhook.count'));
    const count = (outcome: string) =>
      webhooks
        .filter(([a]) => a['pg_checkout.webhook.outcome'] === outcome)
        .reduce((n, [, v]) => n + (v as number), 0);
    assert.ok(count('accepted') > 0 && count('accepted') <= delivered, `${count('accepted')}`);
    assert.deepEqual(
      webhooks.filter(([a]) => a['pg_checkout.webhook.outcome'] === 'refused'),
      [
        [
          {
            'pg_checkout.webhook.outcome': 'refused',
            'pg_checkout.webhook.refusal_reason': 'bad_signature',
          },
          1,
        ],
      ],
    );

    const value = (name: string) => pointsOf(m.get(name))[0]?.[1];
    assert.equal(value('pg_checkout.admission.in_flight'), 0);
    assert.equal(value('pg_checkout.admission.queued'), 0);
    assert.equal(value('pg_checkout.admission.refused'), 0);
    assert.equal(value('pg_checkout.card_testing.breaker.state'), 0);
    // The outbox as the store holds it (the updates are delivered by now: none pending).
    await companion.app.flushOutbox();
    const pending = await store.pendingOutbox(1000);
    const again = await sdk.metrics();
    assert.equal(pointsOf(again.get('pg_checkout.outbox.backlog'))[0]?.[1], pending.length);
    assert.equal(again.get('pg_checkout.outbox.oldest_age')?.descriptor.unit, 's');
    const state = await companion.app.cardTesting();
    assert.ok(state.decided > 0);
    assert.equal(value('pg_checkout.card_testing.decline_ratio'), state.declined / state.decided);
  });
});

describe('card data', () => {
  test('no card number, CVV, card token or credential in any span or metric', async () => {
    const spans = sdk.spans.getFinishedSpans();
    assert.ok(spans.length >= 5);
    const texts: string[] = [];
    const values: unknown[] = [];
    for (const s of spans) {
      texts.push(s.name, JSON.stringify(s.attributes), JSON.stringify(s.events));
      values.push(...Object.values(s.attributes));
    }
    for (const [name, m] of await sdk.metrics()) {
      texts.push(name);
      for (const [attributes] of pointsOf(m)) {
        texts.push(JSON.stringify(attributes));
        values.push(...Object.values(attributes));
      }
    }
    const options = sandbox.clientOptions();
    const secrets = [
      ...usedNumbers,
      ...[...usedNumbers].map((n) => n.replace(/(\d{4})(?=\d)/g, '$1 ')),
      options.credentials.apiKey,
      options.credentials.apiSecret,
      options.credentials.endpointsKey,
      SECRET,
    ];
    // Card tokens the sandbox issued for these payments, whatever the field's name.
    for (const p of sandbox.payments()) {
      for (const [k, v] of Object.entries(p)) {
        if (/token/i.test(k) && typeof v === 'string' && v.length >= 8) secrets.push(v);
      }
    }
    const all = texts.join('\n');
    for (const secret of secrets)
      assert.ok(!all.includes(secret), `found a secret: ${secret.slice(0, 4)}…`);
    // A CVV is short: it may be no attribute's value, nor a digit run in one.
    for (const v of values) {
      for (const cvv of usedCvvs) {
        assert.ok(!new RegExp(`(^|\\D)${cvv}(\\D|$)`).test(String(v)), 'found a CVV');
      }
    }
    assert.ok(!/\bcvv\b|card\.number|cc_number/i.test(all), 'a card field in an attribute');
  });
});
