/**
 * Contract tests: the gateway core's `GatewayClient` against the sandbox over real HTTP,
 * for every endpoint and every documented error (authentication in each of its failure
 * kinds, field validation, unknown resources, wrong methods, non-JSON bodies, reused
 * order ids, cancel rules), plus the sandbox's own options and inspection endpoints.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  CancelResponse,
  ErrorBody,
  GatewayAuthenticationError,
  GatewayConflictError,
  GatewayMethodError,
  GatewayNotFoundError,
  GatewayValidationError,
  OperationRecord,
  OrderTransactions,
  PaymentRecord,
  SubscriptionRecord,
  assumedHmacSignature,
  hmacAuth,
} from '../../../src/server/gateway/index.js';
import {TEST_CARDS, startSandbox} from '../../../sandbox/index.js';
import {
  authHeaders,
  clientFor,
  directRequest,
  hostedRequest,
  offsetIso,
  orderId,
  raw,
  startTestSandbox,
  wireBody,
} from './helpers.js';
import type {TestSandbox} from './helpers.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;
const AUTH_BODY = {message: 'Invalid pos_id field or credentials', args: {code: 'S-404'}};

let t: TestSandbox;
before(async () => {
  // The spec's contract to the letter: these tests check the strict profile.
  t = await startTestSandbox({profile: 'strict'});
});
after(() => t.close());

describe('payment creation and lookups', () => {
  test('a direct payment answers a payment record the core schema accepts, with gateway timestamps', async () => {
    const req = directRequest({amount: 1040.99, payload: 'cart=7'});
    const res = await t.client.createPayment(req);
    assert.equal(res.kind, 'direct');
    const record = res.kind === 'direct' ? res.record : undefined;
    assert.ok(record);
    assert.equal(record.status, 'success');
    assert.equal(record.status_code, '1000');
    assert.equal(record.amount, 1040.99);
    assert.equal(record.order_id, req.order_id);
    assert.equal(record.pos_id, t.sandbox.credentials.posId);
    assert.equal(record.cc_mask, '424242******4242');
    assert.equal(record.payload, 'cart=7');
    assert.match(record.created_at!, TIMESTAMP);
    assert.match(record.processing_time!, TIMESTAMP);
    assert.ok(record.cc_token);
  });

  test('a hosted payment answers 303 with a location on the sandbox checkout page', async () => {
    const req = hostedRequest();
    const wire = await raw(t.sandbox, 'POST', '/api/v1/payment', {
      body: {...req, pos_id: t.sandbox.credentials.posId},
    });
    assert.equal(wire.status, 303);
    const location = wire.headers.get('location')!;
    assert.ok(location.startsWith(`${t.sandbox.url}/sandbox/checkout/`));
    assert.equal(PaymentRecord.parse(wire.json()).status, 'init');

    const viaClient = await t.client.createPayment(hostedRequest());
    assert.equal(viaClient.kind, 'hosted');
    if (viaClient.kind === 'hosted') {
      assert.match(viaClient.checkoutUrl, /\/sandbox\/checkout\/[0-9a-f-]{36}$/);
      assert.equal(viaClient.record?.status, 'init');
    }
  });

  test('getOperation, getOrder and resendWebhook answer the records of the order', async () => {
    const req = directRequest();
    await t.client.createPayment(req);
    const op = await t.client.getOperation(req.order_id, 'purchase');
    assert.equal(PaymentRecord.parse(op).order_id, req.order_id);
    const all = await t.client.getOrder(req.order_id);
    assert.equal(OrderTransactions.parse(all).length, 1);
    const resent = await t.client.resendWebhook(req.order_id, 'purchase');
    assert.equal(resent?.order_id, req.order_id);
  });

  test('a secondary operation is looked up by its method and listed after the primary record', async () => {
    const req = directRequest({method: 'auth'});
    await t.client.createPayment(req);
    const capture = await t.client.capture({order_id: req.order_id, order_currency: 'UAH'});
    const looked = await t.client.getOperation(req.order_id, 'capture');
    assert.equal(OperationRecord.parse(looked).operation_id, capture.operation_id);
    const all = await t.client.getOrder(req.order_id);
    assert.deepEqual(
      all.map((r) => r.method),
      ['auth', 'capture'],
    );
  });

  test('order ids with slashes, spaces, percent signs and non-ASCII work in every path, signed or not', async () => {
    const {apiKey, apiSecret, endpointsKey} = t.sandbox.credentials;
    const hmac = clientFor(t.sandbox, {auth: hmacAuth({apiKey, apiSecret, endpointsKey})});
    for (const [i, client] of [t.client, hmac].entries()) {
      const id = `a/b c?#%2F-ünï-${i}`;
      await client.createPayment(hostedRequest({order_id: id}));
      assert.equal((await client.getOrder(id))[0]!.order_id, id);
      assert.equal((await client.getOperation(id, 'purchase')).order_id, id);
      assert.equal((await client.cancelOrder(id)).status_code, '6007');
    }
  });

  test('GET /health answers OK', async () => {
    const res = await fetch(`${t.sandbox.url}/health`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'OK');
  });
});

describe('authentication', () => {
  test('every HMAC header form the core produces is accepted', async () => {
    const {apiKey, apiSecret, endpointsKey} = t.sandbox.credentials;
    const hmac = clientFor(t.sandbox, {auth: hmacAuth({apiKey, apiSecret, endpointsKey})});
    const req = directRequest({init_recurring: {interval_unit: 'month', interval_count: 1}});
    const created = await hmac.createPayment(req);
    assert.equal(created.kind === 'direct' && created.record.status, 'success');
    await hmac.getOrder(req.order_id);
    const now = Date.now();
    const started = await hmac.startRegister({
      start_date: offsetIso(now - 60_000),
      end_date: offsetIso(now + 60_000),
    });
    await hmac.fetchRegister(started.report_id);
    const recurringId = created.kind === 'direct' ? created.record.recurring?.id : undefined;
    const cancelled = await hmac.cancelSubscription(recurringId!);
    assert.equal(cancelled.recurring_status, 'canceled');
    const hosted = hostedRequest();
    await hmac.createPayment(hosted);
    assert.equal((await hmac.cancelOrder(hosted.order_id)).status_code, '6007');
    for (const form of ['hmac-sha1', 'hmac', 'signed-plain'] as const) {
      const forced = clientFor(t.sandbox, {
        auth: hmacAuth({apiKey, apiSecret, endpointsKey}, {form}),
      });
      assert.equal((await forced.getOrder(req.order_id)).length, 1, form);
    }
  });

  const c = () => t.sandbox.credentials;
  const failures: [string, () => Record<string, string>][] = [
    ['a missing X-API-Auth header', () => ({'X-API-Key': c().endpointsKey})],
    [
      'a malformed X-API-Auth header',
      () => ({'X-API-Auth': 'Bearer abc', 'X-API-Key': c().endpointsKey}),
    ],
    [
      'an unknown API key',
      () => ({'X-API-Auth': `CPAY other:${c().apiSecret}`, 'X-API-Key': c().endpointsKey}),
    ],
    [
      'a wrong API secret',
      () => ({'X-API-Auth': `CPAY ${c().apiKey}:wrong`, 'X-API-Key': c().endpointsKey}),
    ],
    [
      'a wrong endpoints key',
      () => ({'X-API-Auth': `CPAY ${c().apiKey}:${c().apiSecret}`, 'X-API-Key': 'wrong'}),
    ],
    [
      'the plain form without X-API-Key',
      () => ({'X-API-Auth': `CPAY ${c().apiKey}:${c().apiSecret}`}),
    ],
    [
      'a wrong HMAC signature',
      () => ({'X-API-Auth': `CPAY-HMAC-SHA1 ${c().apiKey}:${'0'.repeat(40)}`}),
    ],
    [
      'an HMAC signature made with another secret',
      () => ({
        'X-API-Auth': `CPAY-HMAC ${c().apiKey}:${assumedHmacSignature(
          {endpoint: 'getOrder', method: 'GET', pathAndQuery: '/api/v1/pos/x/orders/y', body: ''},
          'other',
        )}`,
      }),
    ],
  ];
  for (const [what, headers] of failures) {
    test(`401 S-404 for ${what}`, async () => {
      const res = await raw(t.sandbox, 'GET', `/api/v1/pos/${c().posId}/orders/any`, {
        auth: false,
        headers: headers(),
      });
      assert.equal(res.status, 401);
      assert.deepEqual(res.json(), AUTH_BODY);
      ErrorBody.parse(res.json());
    });
  }

  test('401 S-404 when pos_id in the body is not the sandbox project', async () => {
    const res = await raw(t.sandbox, 'POST', '/api/v1/payment', {
      body: wireBody(t.sandbox, {pos_id: '00000000-0000-4000-8000-000000000000'}),
    });
    assert.equal(res.status, 401);
    assert.deepEqual(res.json(), AUTH_BODY);
  });

  test('401 S-404 when pos_id in the path is not the sandbox project', async () => {
    const res = await raw(
      t.sandbox,
      'GET',
      '/api/v1/pos/00000000-0000-4000-8000-000000000000/orders/x',
    );
    assert.equal(res.status, 401);
    assert.deepEqual(res.json(), AUTH_BODY);
  });

  test('401 S-404 when a register names another project', async () => {
    const now = Date.now();
    const res = await raw(t.sandbox, 'POST', '/streaming-report/start', {
      body: {
        project_id: '00000000-0000-4000-8000-000000000000',
        start_date: offsetIso(now - 1000),
        end_date: offsetIso(now),
      },
    });
    assert.equal(res.status, 401);
  });

  test('the client reports a wrong secret as GatewayAuthenticationError S-404 on every endpoint kind', async () => {
    const {posId, apiKey, endpointsKey} = t.sandbox.credentials;
    const bad = clientFor(t.sandbox, {
      posId,
      credentials: {apiKey, apiSecret: 'nope', endpointsKey},
    });
    const calls: (() => Promise<unknown>)[] = [
      () => bad.createPayment(directRequest()),
      () => bad.getOrder('x'),
      () => bad.cancelSubscription('x'),
      () => bad.fetchRegister('x'),
      () => bad.refund({order_id: 'x', order_currency: 'UAH'}),
    ];
    for (const call of calls) {
      await assert.rejects(call(), (e: unknown) => {
        assert.ok(e instanceof GatewayAuthenticationError);
        assert.equal(e.gatewayCode, 'S-404');
        return true;
      });
    }
  });
});

describe('validation errors', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'a negative amount',
      {amount: -1},
      /amount: must be a positive number with at most 2 decimal places/,
    ],
    [
      'three decimals',
      {amount: 10.005},
      /amount: must be a positive number with at most 2 decimal places/,
    ],
    ['a missing currency', {currency: undefined}, /currency: is required/],
    ['an unknown currency', {currency: 'ABC'}, /currency: must be an ISO 4217 currency code/],
    ['an unknown field', {colour: 'red'}, /colour: is not a field of this request/],
    [
      'a payload over 4000 symbols',
      {payload: 'x'.repeat(4001)},
      /payload: must be at most 4000 symbols/,
    ],
    [
      'an interval_count over 30',
      {init_recurring: {interval_unit: 'day', interval_count: 31}},
      /init_recurring\.interval_count: must be a whole number from 1 to 30/,
    ],
    ['a CVV with letters', {card_cvv: '12a'}, /card_cvv: must be 3 or 4 digits/],
  ];
  for (const [what, change, message] of cases) {
    test(`400 V-400 naming the field for ${what}`, async () => {
      const body = wireBody(t.sandbox, change);
      for (const [k, v] of Object.entries(change))
        if (v === undefined) delete (body as Record<string, unknown>)[k];
      const res = await raw(t.sandbox, 'POST', '/api/v1/payment', {body});
      assert.equal(res.status, 400);
      const err = ErrorBody.parse(res.json());
      assert.equal(err.args?.code, 'V-400');
      assert.match(err.message, message);
    });
  }

  test('a Luhn-invalid card number is a 400 naming cc_number, without echoing it', async () => {
    const res = await raw(t.sandbox, 'POST', '/api/v1/payment', {
      body: wireBody(t.sandbox, {cc_number: '4242424242424241'}),
    });
    assert.equal(res.status, 400);
    assert.match(res.text, /cc_number: fails the Luhn check/);
    assert.doesNotMatch(res.text, /4242424242424241/);
  });

  test('the client surfaces a gateway 400 as GatewayValidationError', async () => {
    const req = directRequest({method: 'auth'});
    await t.client.createPayment(req);
    await assert.rejects(
      t.client.capture({order_id: req.order_id, order_currency: 'UAH', order_amount: 100}),
      (e: unknown) => e instanceof GatewayValidationError && e.gatewayCode === 'P-431',
    );
  });

  test('a secondary operation without order_currency is a 400 naming it', async () => {
    const res = await raw(t.sandbox, 'POST', '/api/v1/refund', {
      body: {pos_id: t.sandbox.credentials.posId, order_id: 'x'},
    });
    assert.equal(res.status, 400);
    assert.match(res.text, /order_currency: is required/);
  });

  test('callback must be true or false', async () => {
    const res = await raw(
      t.sandbox,
      'GET',
      `/api/v1/pos/${t.sandbox.credentials.posId}/orders/x/purchase?callback=yes`,
    );
    assert.equal(res.status, 400);
    assert.match(res.text, /callback/);
  });

  test('an unknown X-Sandbox-Fault is a 400 naming the word', async () => {
    const res = await raw(t.sandbox, 'POST', '/api/v1/payment', {
      body: wireBody(t.sandbox),
      headers: {'X-Sandbox-Fault': 'explode'},
    });
    assert.equal(res.status, 400);
    assert.match(res.text, /explode/);
  });
});

describe('unknown resources, wrong methods, non-JSON bodies', () => {
  const pos = () => t.sandbox.credentials.posId;

  test('404 N-404 for an unknown order, operation, subscription, report and path', async () => {
    const ok = directRequest();
    await t.client.createPayment(ok);
    const paths: [string, string][] = [
      ['GET', `/api/v1/pos/${pos()}/orders/unknown-order`],
      ['GET', `/api/v1/pos/${pos()}/orders/unknown-order/purchase`],
      ['GET', `/api/v1/pos/${pos()}/orders/${ok.order_id}/refund`],
      ['POST', `/api/v1/pos/${pos()}/order/unknown-order/cancel`],
      ['GET', `/api/v1/pos/${pos()}/recurring/unknown-subscription`],
      ['PUT', '/api/v1/recurring/unknown-subscription/cancel'],
      ['GET', '/streaming-report/fetch/unknown-report'],
      ['GET', '/api/v2/nothing'],
    ];
    for (const [method, path] of paths) {
      const res = await raw(t.sandbox, method, path);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(ErrorBody.parse(res.json()).args?.code, 'N-404');
    }
    const capture = await raw(t.sandbox, 'POST', '/api/v1/capture', {
      body: {pos_id: pos(), order_id: 'unknown-order', order_currency: 'UAH'},
    });
    assert.equal(capture.status, 404);
  });

  test('the client reports 404s as GatewayNotFoundError', async () => {
    await assert.rejects(t.client.getOrder('nope'), GatewayNotFoundError);
    await assert.rejects(t.client.getSubscriptionTransactions('nope'), GatewayNotFoundError);
    await assert.rejects(t.client.cancelSubscription('nope'), GatewayNotFoundError);
    await assert.rejects(t.client.fetchRegister('nope'), GatewayNotFoundError);
  });

  test('405 M-405 with an Allow header for a wrong method on a known path', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/api/v1/payment', 'POST'],
      ['DELETE', `/api/v1/pos/${pos()}/orders/x`, 'GET'],
      ['GET', `/api/v1/pos/${pos()}/order/x/cancel`, 'POST'],
      ['POST', '/streaming-report/fetch/x', 'GET'],
      ['POST', '/api/v1/recurring/x/cancel', 'PUT'],
      ['GET', '/api/v1/refund', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await raw(t.sandbox, method, path);
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(ErrorBody.parse(res.json()).args?.code, 'M-405');
      assert.equal(res.headers.get('allow'), allow);
    }
  });

  test('406 M-406 for a POST that is not JSON or does not parse', async () => {
    const bodies: [string, string][] = [
      ['text/plain', JSON.stringify(wireBody(t.sandbox))],
      ['application/x-www-form-urlencoded', 'pos_id=x&amount=1'],
      ['application/json', '{"pos_id": '],
    ];
    for (const [type, text] of bodies) {
      const res = await raw(t.sandbox, 'POST', '/api/v1/payment', {
        text,
        headers: {'Content-Type': type},
      });
      assert.equal(res.status, 406, type);
      assert.equal(ErrorBody.parse(res.json()).args?.code, 'M-406');
    }
  });

  test('the client maps 405 and 406 to GatewayMethodError', async () => {
    const noBody = clientFor(t.sandbox, {
      fetch: (url, init) =>
        fetch(url, {
          ...init,
          headers: {...(init.headers as Record<string, string>), 'Content-Type': 'text/plain'},
        }),
    });
    await assert.rejects(
      noBody.createPayment(directRequest()),
      (e: unknown) => e instanceof GatewayMethodError && e.status === 406,
    );
  });
});

describe('order ids and cancel rules', () => {
  test('a reused order_id is P-409, after a success, after a decline and after a hosted payment', async () => {
    const declined = TEST_CARDS.find((c) => c.outcome === 'generic_decline')!.number;
    const requests = [directRequest(), directRequest({cc_number: declined}), hostedRequest()];
    for (const req of requests) {
      await t.client.createPayment(req);
      await assert.rejects(t.client.createPayment({...req}), (e: unknown) => {
        assert.ok(e instanceof GatewayConflictError);
        assert.equal(e.gatewayCode, 'P-409');
        assert.equal(e.status, 400);
        return true;
      });
    }
    const raw409 = await raw(t.sandbox, 'POST', '/api/v1/payment', {
      body: wireBody(t.sandbox, {order_id: requests[1]!.order_id}),
    });
    assert.equal(raw409.status, 400);
    assert.equal(ErrorBody.parse(raw409.json()).args?.code, 'P-409');
  });

  test('cancelling an unpaid hosted order answers the record with status failure 6007 and nulls', async () => {
    const req = hostedRequest({method: 'auth', customer_city: 'Lviv'});
    await t.client.createPayment(req);
    const res = await raw(
      t.sandbox,
      'POST',
      `/api/v1/pos/${t.sandbox.credentials.posId}/order/${req.order_id}/cancel`,
    );
    assert.equal(res.status, 200);
    const [record] = CancelResponse.parse(res.json());
    assert.equal(record!.status, 'failure');
    assert.equal(record!.status_code, '6007');
    assert.equal(record!.user_action_required, false);
    assert.equal(record!.customer_city, 'Lviv');
    const body = (res.json() as Record<string, unknown>[])[0]!;
    assert.equal(body['cc_mask'], null);
    assert.equal(body['customer_fname'], null);
    assert.match(String(body['processed_at']), TIMESTAMP);
  });

  test('cancelling a direct payment, or a hosted one twice, is refused with a 4xx body', async () => {
    const direct = directRequest();
    await t.client.createPayment(direct);
    const hosted = hostedRequest();
    await t.client.createPayment(hosted);
    await t.client.cancelOrder(hosted.order_id);
    for (const id of [direct.order_id, hosted.order_id]) {
      const res = await raw(
        t.sandbox,
        'POST',
        `/api/v1/pos/${t.sandbox.credentials.posId}/order/${id}/cancel`,
      );
      assert.equal(res.status, 400);
      assert.equal(ErrorBody.parse(res.json()).args?.code, 'P-420');
    }
    await assert.rejects(t.client.cancelOrder(direct.order_id), GatewayValidationError);
  });
});

describe('subscription endpoints', () => {
  test('subscription transactions answer an array of records; cancel answers the subscription record', async () => {
    const req = directRequest({
      init_recurring: {interval_unit: 'week', interval_count: 2, amount: 3.5},
    });
    const res = await t.client.createPayment(req);
    const id = res.kind === 'direct' ? res.record.recurring!.id : '';
    assert.equal(res.kind === 'direct' && res.record.recurring?.status, 'init');
    const list = await t.client.getSubscriptionTransactions(id);
    assert.equal(list.length, 1);
    const viaRaw = await raw(
      t.sandbox,
      'GET',
      `/api/v1/pos/${t.sandbox.credentials.posId}/recurring/${id}?method=purchase&status=success`,
    );
    assert.ok(Array.isArray(viaRaw.json()));
    const bad = await raw(
      t.sandbox,
      'GET',
      `/api/v1/pos/${t.sandbox.credentials.posId}/recurring/${id}?method=auth`,
    );
    assert.equal(bad.status, 400);
    assert.match(bad.text, /method: must be purchase or refund/);
    const cancelled = SubscriptionRecord.parse(await t.client.cancelSubscription(id));
    assert.equal(cancelled.recurring_status, 'canceled');
    assert.equal(cancelled.recurring_payment.amount, 3.5);
    assert.equal(cancelled.recurring_config.interval_unit, 'week');
    assert.match(String(cancelled.recurring_payment.cc_token), /^rcr:/);
    assert.equal(cancelled.metadata.id, id);
  });
});

describe('sandbox options and inspection', () => {
  test('an unknown option is an error naming it, nested ones too', async () => {
    await assert.rejects(startSandbox({colour: 'red'} as never), /unknown option "colour"/);
    await assert.rejects(
      startSandbox({webhook: {retries: 3}} as never),
      /unknown option "webhook.retries"/,
    );
    await assert.rejects(
      startSandbox({host: '0.0.0.0'}),
      /option "host": must be a loopback address/,
    );
    await assert.rejects(
      startSandbox({webhook: {duplicateRate: 2}}),
      /option "webhook.duplicateRate"/,
    );
  });

  test('the inspection endpoints answer JSON without card numbers or CVVs', async () => {
    const req = directRequest({cc_number: '5454545454545454', card_cvv: '987'});
    await t.client.createPayment(req);
    const cards = (await (await fetch(`${t.sandbox.url}/sandbox/cards`)).json()) as {
      number: string;
    }[];
    assert.equal(cards.length, TEST_CARDS.length);
    const payments = await (await fetch(`${t.sandbox.url}/sandbox/payments`)).text();
    assert.ok(payments.includes(req.order_id));
    assert.ok(!payments.includes('5454545454545454'));
    assert.ok(!payments.includes('"987"'));
    const mine = t.sandbox.payments().find((p) => p.orderId === req.order_id)!;
    assert.equal(mine.ccMask, '545454******5454');
    assert.ok(!JSON.stringify(t.sandbox.payments()).includes('5454545454545454'));
    const index = (await (await fetch(`${t.sandbox.url}/sandbox`)).json()) as Record<
      string,
      unknown
    >;
    assert.ok(index['faults'] && index['errorCodes']);
    const clock = (await (await fetch(`${t.sandbox.url}/sandbox/clock`)).json()) as Record<
      string,
      unknown
    >;
    assert.equal(typeof clock['now'], 'string');
  });

  test('publicUrl is the base of the checkout location and of user_action_url', async () => {
    const proxied = await startTestSandbox({publicUrl: 'https://sandbox.example.test'});
    try {
      const hosted = await proxied.client.createPayment(hostedRequest());
      assert.match(
        (hosted as {checkoutUrl: string}).checkoutUrl,
        /^https:\/\/sandbox\.example\.test\/sandbox\/checkout\//,
      );
      const direct = await proxied.client.createPayment(
        directRequest({cc_number: '4000000000003220'}),
      );
      assert.match(
        String((direct as {record: {user_action_url: string}}).record.user_action_url),
        /^https:\/\/sandbox\.example\.test\/sandbox\/3ds\//,
      );
    } finally {
      await proxied.close();
    }
  });

  test('fetchHandler serves the same app without a socket', async () => {
    const res = await t.sandbox.fetchHandler(
      new Request(`${t.sandbox.url}/api/v1/payment`, {
        method: 'POST',
        headers: {...authHeaders(t.sandbox), 'Content-Type': 'application/json'},
        body: JSON.stringify(wireBody(t.sandbox, {order_id: orderId('in-process')})),
      }),
    );
    assert.equal(res.status, 200);
    assert.equal(PaymentRecord.parse(await res.json()).status, 'success');
  });
});
