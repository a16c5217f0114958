/**
 * `GatewayClient` over real HTTP against loopback servers: configuration checks, the
 * request each endpoint sends (method, path, query, headers, exact body), the answers it
 * reads (303 hosted redirects, JSON arrays, newline-delimited bodies, a register that is
 * not ready yet), and validation before anything leaves.
 */
import {before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  GatewayClient,
  GatewayProtocolError,
  GatewayUnavailableError,
  hmacAuth,
  GatewayRequestValidationError,
  verifyRequestAuth,
} from '../../../src/server/gateway/index.js';
import {
  API_SECRET,
  CREDENTIALS,
  directRequest,
  ENDPOINTS_KEY,
  hostedRequest,
  json,
  ndjson,
  operationRecord,
  paymentRecord,
  POS_ID,
} from './helpers.js';
import {clientServers, rejectsWith} from './client-fixtures.js';

const serve = clientServers({timeoutMs: 2000, retryDelayMs: 1});

describe('configuration', () => {
  const base = {baseUrl: 'https://cpay.example', posId: POS_ID, credentials: CREDENTIALS};

  test('an unknown option is an error naming it', () => {
    assert.throws(() => new GatewayClient({...base, retry: 3} as never), /unknown option `retry`/);
    assert.throws(
      () => new GatewayClient({...base, credentials: {...CREDENTIALS, endpointKey: 'x'}} as never),
      /unknown option `credentials.endpointKey`/,
    );
  });

  test('invalid options are named, and secrets never echoed', () => {
    assert.throws(() => new GatewayClient({...base, posId: 'pos-1'}), /`posId` must be a UUID/);
    assert.throws(() => new GatewayClient({...base, baseUrl: 'ftp://x'}), /`baseUrl`/);
    assert.throws(() => new GatewayClient({...base, timeoutMs: 0}), /`timeoutMs`/);
    assert.throws(() => new GatewayClient({...base, retries: 11}), /`retries`/);
    assert.throws(() => new GatewayClient({...base, auth: {} as never}), /`auth`/);
    assert.throws(
      () => new GatewayClient({...base, credentials: {apiKey: '', apiSecret: API_SECRET}}),
      (e: Error) =>
        e instanceof TypeError &&
        /credentials.apiKey/.test(e.message) &&
        !e.message.includes(API_SECRET),
    );
    assert.throws(
      () => new GatewayClient({...base, credentials: undefined} as never),
      /`credentials` is required/,
    );
  });

  test('a valid configuration is accepted and the base URL trimmed', () => {
    const client = new GatewayClient({...base, baseUrl: 'https://cpay.example/'});
    assert.equal(client.baseUrl, 'https://cpay.example');
    assert.equal(client.posId, POS_ID);
  });
});

describe('createPayment', () => {
  test('a direct payment is posted as exact JSON with the default auth headers', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, paymentRecord()));
    const result = await client.createPayment(directRequest());
    assert.equal(result.kind, 'direct');
    if (result.kind === 'direct') assert.equal(result.record.status, 'success');
    const req = server.received[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/api/v1/payment');
    assert.equal(req.headers['x-api-auth'], `CPAY pk_test_key:${API_SECRET}`);
    assert.equal(req.headers['x-api-key'], ENDPOINTS_KEY);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['accept'], 'application/json');
    assert.match(req.body, /"amount":10\.1[,}]/);
    assert.equal(JSON.parse(req.body).pos_id, POS_ID);
  });

  test('amounts go on the wire as exact decimals: 10.1 as 10.1, minor-unit text as its number', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, paymentRecord()));
    await client.createPayment({...directRequest(), amount: 10.1});
    await client.createPayment({...directRequest(), amount: '1040.50', order_id: 'order-1b'});
    assert.ok(server.received[0]!.body.includes('"amount":10.1,'));
    assert.ok(server.received[1]!.body.includes('"amount":1040.5,'));
  });

  test('0.1 + 0.2 is refused before anything is sent', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, paymentRecord()));
    await rejectsWith(
      client.createPayment({...directRequest(), amount: 0.1 + 0.2}),
      GatewayRequestValidationError,
      (e) => e.code === 'invalid_request' && e.issues.some((i) => i.field === 'amount'),
    );
    assert.equal(server.received.length, 0);
  });

  test('pos_id defaults to the client project; a request names its missing fields', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, paymentRecord()));
    const {pos_id: _p, customer_email: _e, ...rest} = directRequest();
    await rejectsWith(client.createPayment(rest as never), GatewayRequestValidationError, (e) =>
      /customer_email: is required/.test(e.message),
    );
    assert.equal(server.received.length, 0);
  });

  test('the exact body text sent is the text the auth strategy signed', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, paymentRecord()), {
      auth: hmacAuth(CREDENTIALS),
    });
    await client.createPayment(directRequest());
    const req = server.received[0]!;
    assert.match(String(req.headers['x-api-auth']), /^CPAY-HMAC-SHA1 pk_test_key:[0-9a-f]{40}$/);
    const check = verifyRequestAuth(
      (n) => req.headers[n.toLowerCase()] as string | undefined,
      {endpoint: 'createPayment', method: req.method, pathAndQuery: req.url, body: req.body},
      CREDENTIALS,
    );
    assert.deepEqual(check, {ok: true, form: 'hmac-sha1'});
    const tampered = verifyRequestAuth(
      (n) => req.headers[n.toLowerCase()] as string | undefined,
      {
        endpoint: 'createPayment',
        method: req.method,
        pathAndQuery: req.url,
        body: req.body.replace('10.1', '10.2'),
      },
      CREDENTIALS,
    );
    assert.equal(tampered.ok, false);
  });

  test('a hosted payment answered with 303 gives the location as the checkout address', async () => {
    const {server, client} = await serve((_req, res) => {
      res.writeHead(303, {location: 'https://pay.example/checkout/abc'});
      res.end();
    });
    const result = await client.createPayment(hostedRequest());
    assert.deepEqual(result, {kind: 'hosted', checkoutUrl: 'https://pay.example/checkout/abc'});
    assert.equal(server.received.length, 1, 'the redirect is not followed');
  });

  test('a relative 303 location is resolved against the gateway', async () => {
    const {server, client} = await serve((_req, res) => {
      res.writeHead(303, {location: '/checkout/xyz'});
      res.end();
    });
    const result = await client.createPayment(hostedRequest());
    assert.equal(result.kind === 'hosted' && result.checkoutUrl, `${server.url}/checkout/xyz`);
  });

  test('a hosted payment answered with JSON redirect_url gives it, with the record', async () => {
    const {client} = await serve((_req, res) =>
      json(res, 200, {
        ...paymentRecord({mode: 'hosted', status: 'init'}),
        redirect_url: 'https://pay.example/c/1',
      }),
    );
    const result = await client.createPayment(hostedRequest());
    assert.equal(result.kind, 'hosted');
    if (result.kind === 'hosted') {
      assert.equal(result.checkoutUrl, 'https://pay.example/c/1');
      assert.equal(result.record?.status, 'init');
    }
  });

  test('a hosted answer with neither location nor redirect_url is a protocol error', async () => {
    const {client} = await serve((req, res, i) => {
      if (i === 0) {
        res.writeHead(303);
        res.end();
      } else json(res, 200, {ok: true});
    });
    await rejectsWith(client.createPayment(hostedRequest()), GatewayProtocolError);
    await rejectsWith(
      client.createPayment({...hostedRequest(), order_id: 'o-3'}),
      GatewayProtocolError,
      (e) => e.issues?.[0]?.field === 'redirect_url',
    );
  });

  test('a direct answer that is not a payment record is a protocol error naming the field', async () => {
    const {client} = await serve((_req, res) =>
      json(res, 200, {...paymentRecord(), status: 'done'}),
    );
    await rejectsWith(
      client.createPayment(directRequest()),
      GatewayProtocolError,
      (e) => e.issues?.some((i) => i.field === 'status') === true && e.code === 'protocol',
    );
  });

  test('a direct answer that is not JSON is a protocol error', async () => {
    const {client} = await serve((_req, res) => {
      res.writeHead(200, {'content-type': 'text/html'});
      res.end('<html>maintenance</html>');
    });
    await rejectsWith(
      client.createPayment(directRequest()),
      GatewayProtocolError,
      (e) => /not JSON/.test(e.message) && /text\/html/.test(e.message),
    );
  });
});

describe('order and operation endpoints', () => {
  test('cancelOrder posts to the cancel path and reads the record from the array', async () => {
    const {server, client} = await serve((_req, res) =>
      json(res, 200, [
        paymentRecord({
          mode: 'hosted',
          status: 'failure',
          status_code: '6007',
          customer_city: null,
        }),
      ]),
    );
    const record = await client.cancelOrder('order 7');
    assert.equal(record.status_code, '6007');
    assert.equal(server.received[0]!.method, 'POST');
    assert.equal(server.received[0]!.url, `/api/v1/pos/${POS_ID}/order/order%207/cancel`);
    assert.equal(server.received[0]!.body, '');
    assert.equal(server.received[0]!.headers['content-type'], undefined);
  });

  test('cancelOrder refuses an empty array', async () => {
    const {client} = await serve((_req, res) => json(res, 200, []));
    await rejectsWith(client.cancelOrder('o'), GatewayProtocolError);
  });

  test('getOperation reads a payment record for purchase and an operation record for refund', async () => {
    const {server, client} = await serve((req, res) =>
      json(res, 200, req.url.endsWith('/refund') ? operationRecord('refund') : paymentRecord()),
    );
    const purchase = await client.getOperation('order-1', 'purchase');
    const refund = await client.getOperation('order-1', 'refund');
    assert.equal(purchase.method, 'purchase');
    assert.equal(refund.method, 'refund');
    assert.ok('operation_id' in refund);
    assert.equal(server.received[0]!.method, 'GET');
    assert.equal(server.received[0]!.url, `/api/v1/pos/${POS_ID}/orders/order-1/purchase`);
    assert.equal(server.received[0]!.headers['x-api-auth'], `CPAY pk_test_key:${API_SECRET}`);
  });

  test('getOperation refuses an unknown operation and an order_id over 256 characters', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, paymentRecord()));
    await rejectsWith(
      client.getOperation('o', 'sale'),
      GatewayRequestValidationError,
      (e) => e.issues[0]?.field === 'operation',
    );
    await rejectsWith(
      client.getOperation('o'.repeat(257), 'purchase'),
      GatewayRequestValidationError,
      (e) => e.issues[0]?.field === 'orderId',
    );
    assert.equal(server.received.length, 0);
  });

  test('resendWebhook sends callback=true and transactionId, and returns the record', async () => {
    const {server, client} = await serve((_req, res) =>
      json(res, 200, paymentRecord({recurring: {id: 'r-1', status: 'active'}})),
    );
    const record = await client.resendWebhook('order-1', 'purchase', {transactionId: 't-9'});
    assert.equal(record?.status, 'success');
    assert.equal(
      server.received[0]!.url,
      `/api/v1/pos/${POS_ID}/orders/order-1/purchase?callback=true&transactionId=t-9`,
    );
  });

  test('resendWebhook without a record in the answer gives undefined', async () => {
    const {server, client} = await serve((_req, res, i) => {
      if (i === 0) {
        res.writeHead(200);
        res.end();
      } else json(res, 200, {message: 'sent'});
    });
    assert.equal(await client.resendWebhook('order-1', 'capture'), undefined);
    assert.equal(await client.resendWebhook('order-1', 'capture'), undefined);
    assert.equal(
      server.received[0]!.url,
      `/api/v1/pos/${POS_ID}/orders/order-1/capture?callback=true`,
    );
  });

  test('getOrder reads the primary record and then the operation records', async () => {
    const {server, client} = await serve((_req, res) =>
      json(res, 200, [
        paymentRecord({method: 'auth', status_code: '1002'}),
        operationRecord('capture'),
      ]),
    );
    const list = await client.getOrder('order-1');
    assert.deepEqual(
      list.map((r) => r.method),
      ['auth', 'capture'],
    );
    assert.equal(server.received[0]!.url, `/api/v1/pos/${POS_ID}/orders/order-1`);
  });

  test('getOrder refuses a body that is not an array of records', async () => {
    const {client} = await serve((_req, res) => json(res, 200, {records: 'none'}));
    await rejectsWith(client.getOrder('order-1'), GatewayProtocolError);
  });
});

describe('subscriptions', () => {
  const records = [
    paymentRecord({recurring: {id: 'r-1', status: 'active'}}),
    operationRecord('refund'),
  ];

  test('getSubscriptionTransactions reads a JSON array and sends the filters', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, records));
    const list = await client.getSubscriptionTransactions('r-1', {
      method: 'refund',
      status: 'success',
    });
    assert.equal(list.length, 2);
    assert.equal(
      server.received[0]!.url,
      `/api/v1/pos/${POS_ID}/recurring/r-1?method=refund&status=success`,
    );
  });

  test('getSubscriptionTransactions reads an object holding an array', async () => {
    const {client} = await serve((_req, res) => json(res, 200, {transactions: records, total: 2}));
    assert.equal((await client.getSubscriptionTransactions('r-1')).length, 2);
  });

  test('getSubscriptionTransactions reads one record per line', async () => {
    const {server, client} = await serve((_req, res) => ndjson(res, records));
    assert.equal((await client.getSubscriptionTransactions('r-1', {method: 'purchase'})).length, 2);
    assert.equal(server.received[0]!.url, `/api/v1/pos/${POS_ID}/recurring/r-1?method=purchase`);
  });

  test("getSubscriptionTransactions refuses method 'auth' before sending", async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, []));
    await rejectsWith(
      client.getSubscriptionTransactions('r-1', {method: 'auth' as never}),
      GatewayRequestValidationError,
      (e) => /method: must be purchase or refund/.test(e.message),
    );
    assert.equal(server.received.length, 0);
  });

  test('cancelSubscription sends PUT and reads the subscription record', async () => {
    const {server, client} = await serve((_req, res) =>
      json(res, 200, {
        recurring_payment: {pos_id: POS_ID, order_id: 'o-1', amount: 10.1, currency: 'UAH'},
        recurring_config: {interval_unit: 'month', interval_count: 1},
        recurring_status: 'canceled',
        metadata: {id: 'r-1'},
      }),
    );
    const record = await client.cancelSubscription('r-1');
    assert.equal(record.recurring_status, 'canceled');
    assert.equal(server.received[0]!.method, 'PUT');
    assert.equal(server.received[0]!.url, '/api/v1/recurring/r-1/cancel');
  });
});

describe('reports', () => {
  const entry = (over: Record<string, unknown> = {}) => ({
    projectId: POS_ID,
    orderId: 'o-1',
    paymentId: 'p-1',
    amount: '10.10',
    currency: 'UAH',
    method: 'purchase',
    status: 'success',
    dateTime: 1767225600000,
    ...over,
  });

  test('getPeriodTransactions sends startDate and enddate in ms and reads the lines', async () => {
    const {server, client} = await serve((_req, res) =>
      ndjson(res, [entry(), entry({status: 'pending', dateTime: ''})]),
    );
    const list = await client.getPeriodTransactions({
      start: new Date(Date.UTC(2026, 0, 1)),
      end: 1767312000000,
    });
    assert.equal(list.length, 2);
    assert.equal(list[1]!.dateTime, '');
    assert.equal(
      server.received[0]!.url,
      `/api/v1/pos/${POS_ID}/transactions?startDate=1767225600000&enddate=1767312000000`,
    );
  });

  test('getPeriodTransactions reads CRLF lines and an empty body', async () => {
    const {client} = await serve((_req, res, i) => {
      res.writeHead(200);
      res.end(i === 0 ? `${JSON.stringify(entry())}\r\n${JSON.stringify(entry())}\r\n` : '');
    });
    assert.equal((await client.getPeriodTransactions({start: 0, end: 1})).length, 2);
    assert.deepEqual(await client.getPeriodTransactions({start: 0, end: 1}), []);
  });

  test('getPeriodTransactions refuses a line that is not JSON, and an end before the start', async () => {
    const {server, client} = await serve((_req, res) => {
      res.writeHead(200);
      res.end(`${JSON.stringify(entry())}\n{broken\n`);
    });
    await rejectsWith(client.getPeriodTransactions({start: 0, end: 1}), GatewayProtocolError);
    await rejectsWith(
      client.getPeriodTransactions({start: 5, end: 1}),
      GatewayRequestValidationError,
      (e) => e.issues[0]?.field === 'end',
    );
    await rejectsWith(
      client.getPeriodTransactions({start: new Date('nope'), end: 1}),
      GatewayRequestValidationError,
      (e) => e.issues[0]?.field === 'start',
    );
    assert.equal(server.received.length, 1);
  });

  test('startRegister posts the request with project_id defaulted', async () => {
    const {server, client} = await serve((_req, res) =>
      json(res, 200, {report_id: 'rep-1', count: 3}),
    );
    const started = await client.startRegister({
      start_date: '2026-01-01T00:00:00.000+00:00',
      end_date: '2026-02-01T00:00:00.000+00:00',
      statuses: ['success'],
      transaction_details: ['orderId', 'amount'],
    });
    assert.deepEqual(started, {report_id: 'rep-1', count: 3});
    const req = server.received[0]!;
    assert.equal(req.url, '/streaming-report/start');
    assert.equal(JSON.parse(req.body).project_id, POS_ID);
  });

  test('startRegister refuses a period of 31 days and 1 ms before sending', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, {report_id: 'r', count: 0}));
    await rejectsWith(
      client.startRegister({
        start_date: '2026-01-01T00:00:00.000+00:00',
        end_date: '2026-02-01T00:00:00.001+00:00',
      }),
      GatewayRequestValidationError,
      (e) => /end_date: the register period must be at most 31 days/.test(e.message),
    );
    assert.equal(server.received.length, 0);
  });

  test('fetchRegister gives not ready for report_not_ready, whatever the status', async () => {
    const {server, client} = await serve((_req, res, i) =>
      json(res, i === 0 ? 400 : 200, {
        message: 'Report is not ready yet',
        code: 'report_not_ready',
      }),
    );
    assert.deepEqual(await client.fetchRegister('rep-1'), {
      ready: false,
      message: 'Report is not ready yet',
    });
    assert.deepEqual(await client.fetchRegister('rep-1'), {
      ready: false,
      message: 'Report is not ready yet',
    });
    assert.equal(server.received[0]!.url, '/streaming-report/fetch/rep-1');
    assert.equal(server.received.length, 2, 'not ready is not retried as an error');
  });

  test('fetchRegister reads records as NDJSON or a JSON array', async () => {
    const rows = [
      {orderId: 'o-1', amount: '1.00'},
      {orderId: 'o-2', amount: '2.50', dateTime: 1767225600000},
    ];
    const {client} = await serve((_req, res, i) =>
      i === 0 ? ndjson(res, rows) : json(res, 200, rows),
    );
    assert.deepEqual(await client.fetchRegister('rep-1'), {ready: true, records: rows});
    assert.deepEqual(await client.fetchRegister('rep-1'), {ready: true, records: rows});
  });

  test('waitForRegister fetches until ready, waiting longer each time', async () => {
    const {server, client, clock} = await serve((_req, res, i) =>
      i < 2
        ? json(res, 200, {message: 'wait', code: 'report_not_ready'})
        : ndjson(res, [{orderId: 'o-1'}]),
    );
    const records = await client.waitForRegister('rep-1', {
      initialDelayMs: 5,
      maxDelayMs: 20,
      deadlineMs: 5000,
    });
    assert.deepEqual(records, [{orderId: 'o-1'}]);
    assert.equal(server.received.length, 3);
    const [first, second] = clock.sleeps as [number, number];
    assert.equal(clock.sleeps.length, 2);
    assert.ok(first >= 3 && first <= 5, `first wait ${first} ms`);
    assert.ok(second >= 5 && second <= 10, `second wait ${second} ms`);
  });

  test('waitForRegister gives up at the deadline', async () => {
    const {server, client, clock} = await serve((_req, res) =>
      json(res, 200, {message: 'wait', code: 'report_not_ready'}),
    );
    await rejectsWith(
      client.waitForRegister('rep-1', {initialDelayMs: 10, maxDelayMs: 20, deadlineMs: 150}),
      GatewayUnavailableError,
      (e) => /not ready within 150 ms/.test(e.message),
    );
    const waited = clock.sleeps.reduce((a, b) => a + b, 0);
    assert.equal(waited, 150, 'it waits until the deadline, and no longer');
    assert.ok(clock.sleeps.every((ms) => ms <= 20));
    assert.equal(server.received.length, clock.sleeps.length + 1);
  });

  test('waitForRegister stops when its signal aborts', async () => {
    const controller = new AbortController();
    const {server, client} = await serve((_req, res, i) => {
      if (i === 1) controller.abort(new Error('stopped by caller'));
      json(res, 200, {message: 'wait', code: 'report_not_ready'});
    });
    await assert.rejects(
      client.waitForRegister('rep-1', {
        initialDelayMs: 20,
        maxDelayMs: 40,
        signal: controller.signal,
      }),
      /stopped by caller/,
    );
    assert.equal(server.received.length, 2, 'no fetch after the abort');
  });
});

describe('capture, void and refund (beyond the spec)', () => {
  for (const op of ['capture', 'void', 'refund'] as const) {
    test(`${op} posts to /api/v1/${op} and reads the operation record`, async () => {
      const {server, client} = await serve((_req, res) => json(res, 200, operationRecord(op)));
      const input = {order_id: 'order-1', order_currency: 'UAH'};
      const record =
        op === 'capture'
          ? await client.capture({...input, order_amount: 5.05})
          : op === 'void'
            ? await client.void(input)
            : await client.refund({...input, refund_amount: 1.1});
      assert.equal(record.method, op);
      const req = server.received[0]!;
      assert.equal(req.method, 'POST');
      assert.equal(req.url, `/api/v1/${op}`);
      const body = JSON.parse(req.body);
      assert.equal(body.pos_id, POS_ID);
      if (op === 'capture') assert.ok(req.body.includes('"order_amount":5.05'));
      if (op === 'refund') assert.ok(req.body.includes('"refund_amount":1.1'));
    });
  }

  test('a refund answered with a payment record is a protocol error', async () => {
    const {client} = await serve((_req, res) => json(res, 200, paymentRecord()));
    await rejectsWith(client.refund({order_id: 'o', order_currency: 'UAH'}), GatewayProtocolError);
  });

  test('a refund amount with float noise is refused before sending', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, operationRecord('refund')));
    await rejectsWith(
      client.refund({order_id: 'o', order_currency: 'UAH', refund_amount: 0.1 + 0.2}),
      GatewayRequestValidationError,
    );
    assert.equal(server.received.length, 0);
  });
});

describe('injected fetch', () => {
  let calls: {url: string; init: RequestInit}[];
  let client: GatewayClient;
  before(() => {
    calls = [];
    client = new GatewayClient({
      baseUrl: 'https://cpay.example/base',
      posId: POS_ID,
      credentials: CREDENTIALS,
      fetch: async (url, init) => {
        calls.push({url, init});
        return new Response(JSON.stringify([paymentRecord()]), {status: 200});
      },
    });
  });

  test('is used with the base path kept and redirects not followed', async () => {
    await client.getOrder('order-1');
    assert.equal(calls[0]!.url, `https://cpay.example/base/api/v1/pos/${POS_ID}/orders/order-1`);
    assert.equal(calls[0]!.init.redirect, 'manual');
    assert.equal(calls[0]!.init.method, 'GET');
  });
});
