/**
 * `GatewayClient` options for what the live gateway requires and tolerates, over real
 * HTTP (gateway-facts.md): the endpoints key is required at construction and sent as
 * `X-API-Key` on every request, whatever the auth strategy; `hostedContacts: 'optional'`
 * lets a hosted payment go without `customer_email` and `customer_phone`; and the clock
 * option is checked like every other option.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  checkPaymentRequest,
  GatewayClient,
  hmacAuth,
  GatewayRequestValidationError,
} from '../../../src/server/gateway/index.js';
import {clientServers, rejectsWith} from './client-fixtures.js';
import {
  API_SECRET,
  CREDENTIALS,
  directRequest,
  ENDPOINTS_KEY,
  hostedRequest,
  json,
  paymentRecord,
  POS_ID,
  type Handler,
} from './helpers.js';

const serve = clientServers({timeoutMs: 2000});

/** Answers a hosted creation with a 303 to the checkout page. */
const redirect: Handler = (_req, res) => {
  res.writeHead(303, {location: 'https://pay.example/checkout/abc'});
  res.end();
};

/** A hosted request without the contact fields. */
function hostedWithoutContacts() {
  const {customer_email: _e, customer_phone: _p, ...rest} = hostedRequest();
  return rest;
}

/** The `GatewayRequestValidationError` the call ends in. */
const refused = (promise: Promise<unknown>) => rejectsWith(promise, GatewayRequestValidationError);

/** Options of a client that is only constructed. */
const BASE = {baseUrl: 'https://cpay.example', posId: POS_ID, credentials: CREDENTIALS};

describe('the endpoints key (X-API-Key)', () => {
  test('a client without it fails at construction, naming the option and why', () => {
    const {endpointsKey: _k, ...withoutKey} = CREDENTIALS;
    assert.throws(
      () => new GatewayClient({...BASE, credentials: withoutKey}),
      (e: Error) =>
        e instanceof TypeError &&
        /`credentials\.endpointsKey` is required/.test(e.message) &&
        /X-API-Key/.test(e.message) &&
        /401/.test(e.message) &&
        !e.message.includes(API_SECRET),
    );
  });

  test('an empty one is refused too', () => {
    assert.throws(
      () => new GatewayClient({...BASE, credentials: {...CREDENTIALS, endpointsKey: ''}}),
      /`credentials\.endpointsKey` must be a non-empty string/,
    );
  });

  test('is sent on reads and writes alike', async () => {
    const {server, client} = await serve((req, res) =>
      req.method === 'GET' ? json(res, 200, [paymentRecord()]) : redirect(req, res, 0),
    );
    await client.getOrder('order-1');
    await client.createPayment(hostedRequest());
    assert.deepEqual(
      server.received.map((r) => r.headers['x-api-key']),
      [ENDPOINTS_KEY, ENDPOINTS_KEY],
    );
  });

  test('is sent even when the auth strategy leaves it out', async () => {
    const {endpointsKey: _k, ...withoutKey} = CREDENTIALS;
    const {server, client} = await serve((_req, res) => json(res, 200, [paymentRecord()]), {
      auth: hmacAuth(withoutKey),
    });
    await client.getOrder('order-1');
    const req = server.received[0]!;
    assert.equal(req.headers['x-api-key'], ENDPOINTS_KEY);
    assert.match(String(req.headers['x-api-auth']), /^CPAY-HMAC-SHA1 pk_test_key:/);
  });

  test("a strategy's own X-API-Key, in any case, is kept and not doubled", async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, [paymentRecord()]), {
      auth: {
        name: 'custom',
        headers: () => ({'X-API-Auth': `CPAY pk_test_key:${API_SECRET}`, 'x-api-key': 'other'}),
      },
    });
    await client.getOrder('order-1');
    assert.equal(server.received[0]!.headers['x-api-key'], 'other');
  });
});

describe("hostedContacts: 'optional'", () => {
  test('by default a hosted payment without email and phone is refused, nothing sent', async () => {
    const {server, client} = await serve(redirect);
    const e = await refused(client.createPayment(hostedWithoutContacts()));
    assert.deepEqual(e.issues.map((i) => i.field).sort(), ['customer_email', 'customer_phone']);
    assert.equal(server.received.length, 0);
  });

  test('lets a hosted payment go without email and phone', async () => {
    const {server, client} = await serve(redirect, {hostedContacts: 'optional'});
    const result = await client.createPayment(hostedWithoutContacts());
    assert.deepEqual(result, {kind: 'hosted', checkoutUrl: 'https://pay.example/checkout/abc'});
    const sent = JSON.parse(server.received[0]!.body) as Record<string, unknown>;
    assert.equal('customer_email' in sent, false);
    assert.equal('customer_phone' in sent, false);
    assert.equal(sent['pos_id'], POS_ID);
  });

  test('still checks the contacts that are sent, and every other rule', async () => {
    const {server, client} = await serve(redirect, {hostedContacts: 'optional'});
    const badEmail = await refused(
      client.createPayment({...hostedWithoutContacts(), customer_email: 'not-an-email'}),
    );
    assert.deepEqual(
      badEmail.issues.map((i) => i.field),
      ['customer_email'],
    );
    const badAmount = await refused(client.createPayment({...hostedWithoutContacts(), amount: 0}));
    assert.deepEqual(
      badAmount.issues.map((i) => i.field),
      ['amount'],
    );
    assert.equal(server.received.length, 0);
  });

  test('does not relax a direct payment', async () => {
    const {server, client} = await serve((_req, res) => json(res, 200, paymentRecord()), {
      hostedContacts: 'optional',
    });
    const {customer_email: _e, ...rest} = directRequest();
    const e = await refused(client.createPayment(rest as never));
    assert.deepEqual(
      e.issues.map((i) => i.field),
      ['customer_email'],
    );
    assert.equal(server.received.length, 0);
  });

  test('a request checked relaxed is sent as checked by a relaxed client', async () => {
    const {server, client} = await serve(redirect, {hostedContacts: 'optional'});
    const request = hostedWithoutContacts();
    const check = checkPaymentRequest(request, POS_ID, {hostedContacts: 'optional'});
    assert.ok(check.ok);
    await client.createPayment(request, check.checked);
    assert.equal(server.received[0]!.body, check.checked.json);
  });

  test('a request checked relaxed is checked again, and refused, by a strict client', async () => {
    const {server, client} = await serve(redirect);
    const request = hostedWithoutContacts();
    const check = checkPaymentRequest(request, POS_ID, {hostedContacts: 'optional'});
    assert.ok(check.ok);
    await refused(client.createPayment(request, check.checked));
    assert.equal(server.received.length, 0);
  });

  test('an unknown value is an error naming the option', () => {
    assert.throws(
      () => new GatewayClient({...BASE, hostedContacts: 'lenient' as 'optional'}),
      /`hostedContacts` must be 'required' or 'optional'/,
    );
  });
});

describe('the clock option', () => {
  test('must have now() and sleep()', () => {
    assert.throws(
      () => new GatewayClient({...BASE, clock: {now: () => 0} as never}),
      /`clock` must be a clock/,
    );
  });
});
