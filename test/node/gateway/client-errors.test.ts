/**
 * How `GatewayClient` fails: every documented HTTP status mapped to its typed error,
 * `Retry-After` read as seconds or as a date, timeouts and dropped connections, GET
 * retries with backoff, payment creation never retried, malformed answers, and no card
 * data or secret in any error, even when the gateway echoes the request back.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  GatewayAuthenticationError,
  GatewayClient,
  GatewayConflictError,
  GatewayError,
  GatewayMethodError,
  GatewayNotFoundError,
  GatewayOutcomeUnknownError,
  GatewayProtocolError,
  GatewayRateLimitError,
  GatewayUnavailableError,
  GatewayValidationError,
  parseRetryAfter,
  GatewayRequestValidationError,
} from '../../../src/server/gateway/index.js';
import {
  API_SECRET,
  CARD_CVV,
  CARD_NUMBER,
  CREDENTIALS,
  directRequest,
  drop,
  ENDPOINTS_KEY,
  json,
  loopback,
  paymentRecord,
  POS_ID,
  type Handler,
} from './helpers.js';
import {clientServers, FakeClock, rejectsWith} from './client-fixtures.js';

/** A loopback server and a client pointed at it, waiting between attempts on a fake clock. */
const serve = clientServers({timeoutMs: 1000, retryDelayMs: 1, maxRetryDelayMs: 50});

/** The `GatewayError` the call ends in. */
const caught = (promise: Promise<unknown>) => rejectsWith(promise, GatewayError);

const answer = (status: number, body: unknown, headers = {}): Handler =>
  function answerWith(_req, res) {
    json(res, status, body, headers);
  };

describe('HTTP statuses become typed errors', () => {
  test('400 is GatewayValidationError with the gateway args', async () => {
    const {client} = await serve(
      answer(400, {message: 'amount is invalid', args: {code: 'P-400', field: 'amount'}}),
    );
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayValidationError);
    assert.equal(e.code, 'gateway_validation');
    assert.equal(e.status, 400);
    assert.deepEqual(e.args, {code: 'P-400', field: 'amount'});
    assert.equal(e.gatewayCode, 'P-400');
    assert.match(e.message, /amount is invalid/);
  });

  test('400 with args.code P-409 is GatewayConflictError telling to use a new order_id', async () => {
    const {client} = await serve(
      answer(400, {message: 'Order already exists', args: {code: 'P-409'}}),
    );
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayConflictError);
    assert.equal(e.code, 'conflict');
    assert.match(e.message, /new order_id/);
  });

  test('401 is GatewayAuthenticationError', async () => {
    const {client} = await serve(
      answer(401, {args: {code: 'S-404'}, message: 'Invalid pos_id field or credentials'}),
    );
    const e = await caught(client.getOrder('order-1'));
    assert.ok(e instanceof GatewayAuthenticationError);
    assert.equal(e.code, 'authentication');
    assert.equal(e.gatewayCode, 'S-404');
  });

  test('404 is GatewayNotFoundError and is not retried', async () => {
    const {server, client} = await serve(
      answer(404, {message: 'Order not found', args: {code: 'N-404'}}),
    );
    const e = await caught(client.getOperation('order-1', 'purchase'));
    assert.ok(e instanceof GatewayNotFoundError);
    assert.equal(e.code, 'not_found');
    assert.equal(server.received.length, 1);
  });

  test('405 and 406 are GatewayMethodError with their own codes', async () => {
    const {client} = await serve((_req, res, i) =>
      json(res, i === 0 ? 405 : 406, {message: 'nope'}),
    );
    const e405 = await caught(client.getOrder('o'));
    const e406 = await caught(client.cancelOrder('o'));
    assert.ok(e405 instanceof GatewayMethodError && e406 instanceof GatewayMethodError);
    assert.equal(e405.code, 'method_not_allowed');
    assert.equal(e406.code, 'not_acceptable');
  });

  test('an error body that is not JSON still maps by status', async () => {
    const {client} = await serve((_req, res) => {
      res.writeHead(401, {'content-type': 'text/plain'});
      res.end('Unauthorized');
    });
    const e = await caught(client.getOrder('o'));
    assert.ok(e instanceof GatewayAuthenticationError);
    assert.equal(e.args, undefined);
  });

  test('an undocumented status is a protocol error', async () => {
    const {client} = await serve(answer(418, {message: 'teapot'}));
    const e = await caught(client.cancelOrder('o'));
    assert.ok(e instanceof GatewayProtocolError);
  });
});

describe('error bodies in every shape the gateway sends', () => {
  test('args as a list of {field_name, violation} keeps each field and violation', async () => {
    const {client} = await serve(
      answer(400, {
        msg: ['Validation failed'],
        args: [
          {field_name: 'amount', violation: 'must be positive'},
          {field_name: 'customer_email', violation: ['is required', 'must be an email']},
        ],
      }),
    );
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayValidationError);
    assert.deepEqual(e.violations, [
      {field: 'amount', message: 'must be positive'},
      {field: 'customer_email', message: 'is required; must be an email'},
    ]);
    assert.equal(e.args, undefined);
    assert.match(e.message, /the gateway answered 400: Validation failed/);
    assert.match(e.message, /amount: must be positive/);
    assert.match(e.message, /customer_email: is required; must be an email/);
  });

  test('msg as a string, with args as an object, keeps both', async () => {
    const {client} = await serve(
      answer(400, {msg: 'Invalid data', args: {code: 'V-400', field: 'amount'}}),
    );
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayValidationError);
    assert.equal(e.gatewayCode, 'V-400');
    assert.deepEqual(e.args, {code: 'V-400', field: 'amount'});
    assert.match(e.message, /400 V-400: Invalid data/);
  });

  test('message as an array is read as its texts', async () => {
    const {client} = await serve(
      answer(400, {message: ['amount is invalid', 'currency is invalid'], args: {code: 'V-400'}}),
    );
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayValidationError);
    assert.match(e.message, /amount is invalid; currency is invalid/);
  });

  test('a top-level code, without args, is the gateway code', async () => {
    const {client} = await serve(answer(401, {message: 'Invalid credentials', code: 'S-404'}));
    const e = await caught(client.getOrder('o'));
    assert.ok(e instanceof GatewayAuthenticationError);
    assert.equal(e.gatewayCode, 'S-404');
  });

  test('an empty body maps by status, with nothing more said', async () => {
    const {client} = await serve((_req, res) => {
      res.writeHead(400);
      res.end();
    });
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayValidationError);
    assert.equal(e.message, 'payment creation: the gateway answered 400');
    assert.deepEqual(e.violations, []);
    assert.equal(e.args, undefined);
  });

  test('a short plain-text body is kept as the message; an HTML page is not', async () => {
    const {client} = await serve((_req, res, i) => {
      res.writeHead(400, {'content-type': i === 0 ? 'text/plain' : 'text/html'});
      res.end(i === 0 ? 'amount must be positive\n' : '<html><body>Bad request</body></html>');
    });
    const text = await caught(client.createPayment(directRequest()));
    assert.ok(text instanceof GatewayValidationError);
    assert.match(text.message, /answered 400: amount must be positive$/);
    const html = await caught(client.createPayment(directRequest()));
    assert.ok(html instanceof GatewayValidationError);
    assert.doesNotMatch(html.message, /html|Bad request/);
  });

  test('JSON of no known shape maps by status', async () => {
    const {client} = await serve(answer(404, 42));
    const e = await caught(client.getOrder('o'));
    assert.ok(e instanceof GatewayNotFoundError);
    assert.equal(e.message, 'order lookup: the gateway answered 404');
  });
});

describe('P-409, a reused order_id, whatever the HTTP status', () => {
  const cases: [string, number, unknown][] = [
    ['HTTP 409', 409, {message: 'Order exists', args: {code: 'P-409'}}],
    [
      'HTTP 422 and spaces around the code',
      422,
      {message: 'Order exists', args: {code: ' P-409 '}},
    ],
    ['HTTP 400 and a lower-case code', 400, {message: 'Order exists', args: {code: 'p-409'}}],
    ['HTTP 404 and a top-level code', 404, {message: 'Order exists', code: 'P-409'}],
    [
      'HTTP 400 and list args',
      400,
      {code: 'P-409', args: [{field_name: 'order_id', violation: 'is used'}]},
    ],
    ['HTTP 500', 500, {message: 'Order exists', args: {code: 'P-409'}}],
  ];
  for (const [what, status, body] of cases) {
    test(`is GatewayConflictError with ${what}`, async () => {
      const {server, client} = await serve(answer(status, body));
      const e = await caught(client.createPayment({...directRequest(), order_id: 'order-7'}));
      assert.ok(e instanceof GatewayConflictError, `${what}: ${e.name}`);
      assert.equal(e.code, 'conflict');
      assert.equal(e.status, status);
      assert.equal(e.gatewayCode?.toUpperCase(), 'P-409');
      assert.match(e.message, /new order_id/);
      assert.equal(server.received.length, 1);
    });
  }

  test('gatewayCode is trimmed on any GatewayError', () => {
    const e = new GatewayValidationError('gateway_validation', 'x', {args: {code: ' S-404 '}});
    assert.equal(e.gatewayCode, 'S-404');
    assert.equal(new GatewayValidationError('gateway_validation', 'x', {}).gatewayCode, undefined);
  });
});

describe('rate limits', () => {
  test('429 on a payment is GatewayRateLimitError with Retry-After seconds, not retried', async () => {
    const {server, client} = await serve(
      answer(429, {message: 'Too many requests'}, {'retry-after': '7'}),
    );
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayRateLimitError);
    assert.equal(e.code, 'rate_limited');
    assert.equal(e.retryAfterSeconds, 7);
    assert.equal(server.received.length, 1);
  });

  test('429 with an HTTP-date Retry-After gives the seconds until then', async () => {
    const when = new Date(Date.now() + 120_000).toUTCString();
    const {client} = await serve(answer(429, {message: 'slow down'}, {'retry-after': when}), {
      retries: 0,
    });
    const e = await caught(client.getOrder('o'));
    assert.ok(e instanceof GatewayRateLimitError);
    assert.ok(
      e.retryAfterSeconds !== undefined && e.retryAfterSeconds >= 118 && e.retryAfterSeconds <= 120,
    );
  });

  test('parseRetryAfter reads seconds and dates and ignores garbage', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter(' 30 ', now), 30);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
  });

  test('a GET answered 429 with a short Retry-After is retried and succeeds', async () => {
    const {server, client} = await serve((_req, res, i) =>
      i === 0
        ? json(res, 429, {message: 'wait'}, {'retry-after': '0'})
        : json(res, 200, [paymentRecord()]),
    );
    assert.equal((await client.getOrder('order-1')).length, 1);
    assert.equal(server.received.length, 2);
  });

  test('a GET answered 429 with a Retry-After beyond the longest wait fails at once', async () => {
    const {server, client} = await serve(answer(429, {message: 'wait'}, {'retry-after': '60'}));
    const e = await caught(client.getOrder('order-1'));
    assert.ok(e instanceof GatewayRateLimitError);
    assert.equal(e.retryAfterSeconds, 60);
    assert.equal(server.received.length, 1);
  });
});

describe('outcome unknown: payment creation and other writes are never retried', () => {
  for (const status of [500, 503]) {
    test(`createPayment answered ${status} is GatewayOutcomeUnknownError with the order_id, sent once`, async () => {
      const {server, client} = await serve(answer(status, {message: 'Internal error'}));
      const e = await caught(client.createPayment({...directRequest(), order_id: 'order-42'}));
      assert.ok(e instanceof GatewayOutcomeUnknownError);
      assert.equal(e.code, 'outcome_unknown');
      assert.equal(e.orderId, 'order-42');
      assert.equal(e.status, status);
      assert.match(e.message, /order_id order-42/);
      assert.equal(server.received.length, 1);
    });
  }

  // The exchange timeout is real time (the network's); the test's own timeout turns a
  // timeout that never fires into a failure, without asserting on elapsed time.
  test(
    'createPayment that times out is GatewayOutcomeUnknownError, sent once',
    {timeout: 10_000},
    async () => {
      const {server, client, clock} = await serve(() => undefined, {timeoutMs: 150});
      const e = await caught(client.createPayment({...directRequest(), order_id: 'order-slow'}));
      assert.ok(e instanceof GatewayOutcomeUnknownError);
      assert.equal(e.orderId, 'order-slow');
      assert.match(e.message, /no answer within 150 ms/);
      assert.deepEqual(clock.sleeps, [], 'a payment is not retried, so nothing waits');
      assert.equal(server.received.length, 1);
    },
  );

  test('createPayment whose connection is dropped is GatewayOutcomeUnknownError, sent once', async () => {
    const {server, client} = await serve((_req, res) => drop(res));
    const e = await caught(client.createPayment({...directRequest(), order_id: 'order-drop'}));
    assert.ok(e instanceof GatewayOutcomeUnknownError);
    assert.equal(e.orderId, 'order-drop');
    assert.equal(server.received.length, 1);
  });

  test('a body cut off midway is GatewayOutcomeUnknownError on a payment', async () => {
    const {client} = await serve((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-length': '500'});
      res.write('{"status":"succ', () => drop(res));
    });
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayOutcomeUnknownError);
  });

  for (const op of ['capture', 'void', 'refund'] as const) {
    test(`${op} answered 503 is GatewayOutcomeUnknownError, sent once`, async () => {
      const {server, client} = await serve(answer(503, {message: 'busy'}));
      const input = {order_id: 'order-9', order_currency: 'UAH'};
      const call =
        op === 'capture'
          ? client.capture(input)
          : op === 'void'
            ? client.void(input)
            : client.refund(input);
      const e = await caught(call);
      assert.ok(e instanceof GatewayOutcomeUnknownError);
      assert.equal(e.orderId, 'order-9');
      assert.equal(server.received.length, 1);
    });
  }

  test('cancelOrder and cancelSubscription are not retried either', async () => {
    const {server, client} = await serve(answer(500, {message: 'oops'}));
    assert.ok((await caught(client.cancelOrder('order-5'))) instanceof GatewayOutcomeUnknownError);
    assert.ok(
      (await caught(client.cancelSubscription('r-1'))) instanceof GatewayOutcomeUnknownError,
    );
    assert.equal(server.received.length, 2);
  });
});

describe('GET retries', () => {
  test('a GET answered 503 twice then 200 succeeds on the third attempt', async () => {
    const {server, client} = await serve((_req, res, i) =>
      i < 2 ? json(res, 503, {message: 'busy'}) : json(res, 200, [paymentRecord()]),
    );
    assert.equal((await client.getOrder('order-1')).length, 1);
    assert.equal(server.received.length, 3);
  });

  test('a GET that keeps failing is GatewayUnavailableError after retries + 1 attempts', async () => {
    const {server, client} = await serve(answer(500, {message: 'down'}), {retries: 3});
    const e = await caught(client.getOrder('order-1'));
    assert.ok(e instanceof GatewayUnavailableError);
    assert.equal(e.code, 'gateway_unavailable');
    assert.equal(e.status, 500);
    assert.match(e.message, /4 attempts/);
    assert.equal(server.received.length, 4);
  });

  test('a register start (a POST) answered 503 is GatewayUnavailableError, sent once', async () => {
    const {server, client} = await serve(answer(503, {message: 'busy'}));
    const e = await caught(
      client.startRegister({
        start_date: '2026-01-01T00:00:00.000+00:00',
        end_date: '2026-01-02T00:00:00.000+00:00',
      }),
    );
    assert.ok(e instanceof GatewayUnavailableError);
    assert.equal(server.received.length, 1);
  });

  test('retries: 0 makes one attempt', async () => {
    const {server, client} = await serve(answer(502, {message: 'bad gateway'}), {retries: 0});
    assert.ok((await caught(client.getOrder('o'))) instanceof GatewayUnavailableError);
    assert.equal(server.received.length, 1);
  });

  test('a dropped GET connection is retried', async () => {
    const {server, client} = await serve((_req, res, i) =>
      i === 0 ? drop(res) : json(res, 200, [paymentRecord()]),
    );
    assert.equal((await client.getOrder('order-1')).length, 1);
    assert.equal(server.received.length, 2);
  });

  test('a GET that times out every time is GatewayUnavailableError', async () => {
    const {server, client} = await serve(() => undefined, {timeoutMs: 80, retries: 1});
    const e = await caught(client.getOrder('order-1'));
    assert.ok(e instanceof GatewayUnavailableError);
    assert.match(e.message, /no answer within 80 ms \(2 attempts\)/);
    assert.equal(server.received.length, 2);
  });

  // A refused connection carried no request, so a payment or an operation cannot have
  // happened: "unavailable" (nothing charged, safe to retry), not "outcome unknown".
  test('a connection refused is GatewayUnavailableError for reads and writes alike: nothing was sent', async () => {
    const server = await loopback(() => undefined);
    const url = server.url;
    await server.close();
    const client = new GatewayClient({
      baseUrl: url,
      posId: POS_ID,
      credentials: CREDENTIALS,
      retries: 1,
      retryDelayMs: 1,
      clock: new FakeClock(),
    });
    assert.ok((await caught(client.getOrder('o'))) instanceof GatewayUnavailableError);
    const e = await caught(client.createPayment(directRequest()));
    assert.ok(e instanceof GatewayUnavailableError, `got ${String(e)}`);
    assert.match(String((e.cause as Error | undefined)?.message), /ECONNREFUSED/);
    const input = {order_id: 'order-refused', order_currency: 'UAH'};
    assert.ok((await caught(client.capture(input))) instanceof GatewayUnavailableError);
    assert.ok((await caught(client.refund(input))) instanceof GatewayUnavailableError);
  });

  test('backoff grows between attempts', async () => {
    const {server, client, clock} = await serve(answer(503, {message: 'busy'}), {
      retries: 2,
      retryDelayMs: 40,
      maxRetryDelayMs: 1000,
    });
    await caught(client.getOrder('o'));
    assert.equal(server.received.length, 3);
    const [first, second] = clock.sleeps as [number, number];
    assert.equal(clock.sleeps.length, 2);
    assert.ok(first >= 20 && first <= 40, `first wait ${first} ms`);
    assert.ok(second >= 40 && second <= 80, `second wait ${second} ms`);
  });

  test('backoff is capped at the longest wait, and a short Retry-After is waited exactly', async () => {
    const {client, clock} = await serve(
      (_req, res, i) =>
        i === 0
          ? json(res, 503, {message: 'busy'})
          : i === 1
            ? json(res, 429, {message: 'wait'}, {'retry-after': '1'})
            : json(res, 200, [paymentRecord()]),
      {retries: 2, retryDelayMs: 5000, maxRetryDelayMs: 2000},
    );
    assert.equal((await client.getOrder('order-1')).length, 1);
    const [first, second] = clock.sleeps as [number, number];
    assert.ok(first >= 1000 && first <= 2000, `first wait ${first} ms`);
    assert.equal(second, 1000);
  });
});

describe('malformed answers', () => {
  test('malformed JSON is a protocol error', async () => {
    const {client} = await serve((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json'});
      res.end('{"status": "success",');
    });
    const e = await caught(client.getOperation('o', 'purchase'));
    assert.ok(e instanceof GatewayProtocolError);
    assert.equal(e.code, 'protocol');
  });

  test('a wrongly shaped record is a protocol error with field issues', async () => {
    const {client} = await serve(
      answer(200, {status: 'success', amount: 'lots', recurring: {id: 1}}),
    );
    const e = await caught(client.getOperation('o', 'purchase'));
    assert.ok(e instanceof GatewayProtocolError);
    const fields = (e as GatewayProtocolError).issues?.map((i) => i.field) ?? [];
    assert.ok(fields.includes('amount'));
    assert.ok(fields.includes('recurring.id'));
  });

  test('a JSON scalar where a list is expected is a protocol error', async () => {
    const {client} = await serve(answer(200, 42));
    assert.ok(
      (await caught(client.getSubscriptionTransactions('r-1'))) instanceof GatewayProtocolError,
    );
  });
});

describe('no card data or secret in any error', () => {
  /** A gateway that echoes everything it got — body and headers — in its error bodies. */
  const echo =
    (status: number): Handler =>
    (req, res) =>
      json(res, status, {
        message: `refused ${req.body} with ${String(req.headers['x-api-auth'])} ${String(req.headers['x-api-key'])} card ${CARD_NUMBER.replace(/(\d{4})/g, '$1 ').trim()}`,
        args: {
          code: 'E-1',
          echo: req.body,
          auth: req.headers['x-api-auth'],
          nested: {list: Object.values(req.body ? (JSON.parse(req.body) as object) : {})},
        },
      });

  const forbidden = [CARD_NUMBER, CARD_CVV, API_SECRET, ENDPOINTS_KEY, '4242 4242 4242 4242'];

  function assertClean(e: unknown, label: string): void {
    assert.ok(e instanceof Error, label);
    const texts = [
      e.message,
      String(e.stack),
      JSON.stringify(e),
      String(e),
      JSON.stringify((e as GatewayError).args ?? null),
      e.cause instanceof Error ? `${e.cause.message} ${e.cause.stack}` : String(e.cause ?? ''),
    ];
    for (const text of texts) {
      for (const secret of forbidden) {
        assert.ok(
          !text.includes(secret),
          `${label}: error text contains ${secret}: ${text.slice(0, 300)}`,
        );
      }
    }
  }

  for (const status of [400, 401, 404, 405, 406, 409, 418, 429, 500, 503]) {
    test(`an echoing ${status} answer to a payment leaves no card data or secret`, async () => {
      const {client} = await serve(echo(status));
      const e = await caught(client.createPayment(directRequest()));
      assertClean(e, String(status));
    });
  }

  test('violations echoing card data and secrets are scrubbed', async () => {
    const {client} = await serve((req, res) =>
      json(res, 400, {
        msg: [`bad ${req.body}`],
        args: [
          {field_name: 'cc_number', violation: `${CARD_NUMBER} fails`},
          {field_name: 'card_cvv', violation: [`${CARD_CVV} is wrong`]},
          {field_name: 'auth', violation: String(req.headers['x-api-key'])},
        ],
      }),
    );
    const e = await caught(client.createPayment(directRequest()));
    assertClean(e, 'violations');
    assert.deepEqual(
      e.violations.map((v) => v.field),
      ['cc_number', 'card_cvv', 'auth'],
    );
    assert.match(e.violations[0]!.message, /\[redacted\] fails/);
  });

  test('a 400 answer echoing a token and the secret to a token payment is scrubbed', async () => {
    const {client} = await serve(echo(400));
    const {cc_number: _n, exp_month: _m, exp_year: _y, card_cvv: _c, ...rest} = directRequest();
    const token = 'rcr:tok_4f9a8b7c6d5e';
    const e = await caught(client.createPayment({...rest, cc_token: token}));
    assertClean(e, 'token');
    assert.ok(!JSON.stringify(e).includes(token) && !e.message.includes(token));
  });

  test('timeouts, dropped connections and protocol errors leave no card data or secret', async () => {
    const slow = await serve(() => undefined, {timeoutMs: 60});
    assertClean(await caught(slow.client.createPayment(directRequest())), 'timeout');
    const dropped = await serve((_req, res) => drop(res));
    assertClean(await caught(dropped.client.createPayment(directRequest())), 'dropped');
    const garbled = await serve((req, res) => {
      res.writeHead(200);
      res.end(`not json ${req.body}`);
    });
    assertClean(await caught(garbled.client.createPayment(directRequest())), 'not json');
    const shaped = await serve((req, res) =>
      json(res, 200, {status: 'weird', echo: JSON.parse(req.body)}),
    );
    assertClean(await caught(shaped.client.createPayment(directRequest())), 'shape');
  });

  test('request validation errors leave no card data', async () => {
    const {client} = await serve(echo(200));
    const bad = {
      ...directRequest(),
      cc_number: '4242424242424241',
      card_cvv: `${CARD_CVV}x`,
      amount: 0,
    };
    const e = await caught(client.createPayment(bad));
    assert.ok(e instanceof GatewayRequestValidationError);
    assertClean(e, 'validation');
    assert.ok(!e.message.includes('4242424242424241'));
    assert.ok(!JSON.stringify(e).includes('4242424242424241'));
  });

  test('a GET that fails after retries leaves no secret', async () => {
    const {client} = await serve(echo(503));
    assertClean(await caught(client.getOrder('order-1')), 'unavailable');
    const rate = await serve(echo(429), {retries: 0});
    assertClean(await caught(rate.client.getOrder('order-1')), 'rate');
  });
});
