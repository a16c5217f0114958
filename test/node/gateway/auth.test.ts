/**
 * Request authentication: the plain form the live gateway accepts, the spec's signed
 * forms per endpoint with the assumed (replaceable) signature recipe, and the receiving
 * side's check of every form, round trips and rejections.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  assumedHmacSignature,
  endpointPath,
  GATEWAY_ENDPOINTS,
  hmacAuth,
  plainAuth,
  specHeaderForm,
  verifyRequestAuth,
  type GatewayEndpoint,
  type SignContext,
} from '../../../src/server/gateway/index.js';
import {API_SECRET, CREDENTIALS, ENDPOINTS_KEY, POS_ID} from './helpers.js';

const ENDPOINTS = Object.keys(GATEWAY_ENDPOINTS) as GatewayEndpoint[];

function ctxOf(endpoint: GatewayEndpoint, body = ''): SignContext {
  const params = {
    posId: POS_ID,
    orderId: 'order 1',
    operation: 'purchase',
    recurringId: 'r-1',
    reportId: 'rep-1',
  };
  return {
    endpoint,
    method: GATEWAY_ENDPOINTS[endpoint].method,
    pathAndQuery: endpointPath(endpoint, params),
    body,
  };
}

/** A case-insensitive header lookup over what a strategy produced. */
function lookup(headers: Record<string, string>) {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return (name: string) => lower[name.toLowerCase()];
}

describe('endpoints', () => {
  test('every endpoint of the spec and the facts has its method and path', () => {
    assert.deepEqual(GATEWAY_ENDPOINTS.createPayment, {method: 'POST', path: '/api/v1/payment'});
    assert.equal(
      endpointPath('cancelOrder', {posId: POS_ID, orderId: 'A1'}),
      `/api/v1/pos/${POS_ID}/order/A1/cancel`,
    );
    assert.equal(
      endpointPath('getOrder', {posId: POS_ID, orderId: 'A1'}),
      `/api/v1/pos/${POS_ID}/orders/A1`,
    );
    assert.equal(
      endpointPath('getPeriodTransactions', {posId: POS_ID}),
      `/api/v1/pos/${POS_ID}/transactions`,
    );
    assert.equal(endpointPath('fetchRegister', {reportId: 'r'}), '/streaming-report/fetch/r');
    assert.equal(GATEWAY_ENDPOINTS.cancelSubscription.method, 'PUT');
    assert.equal(GATEWAY_ENDPOINTS.startRegister.path, '/streaming-report/start');
  });

  test('path parameters are percent-encoded and required', () => {
    assert.equal(
      endpointPath('getOrder', {posId: POS_ID, orderId: 'a/b c'}),
      `/api/v1/pos/${POS_ID}/orders/a%2Fb%20c`,
    );
    assert.throws(() => endpointPath('getOrder', {posId: POS_ID}), /orderId/);
  });
});

describe('plainAuth (default)', () => {
  test('sends X-API-Auth: CPAY key:secret and X-API-Key on every endpoint', () => {
    const auth = plainAuth(CREDENTIALS);
    for (const endpoint of ENDPOINTS) {
      assert.deepEqual(auth.headers(ctxOf(endpoint)), {
        'X-API-Auth': `CPAY pk_test_key:${API_SECRET}`,
        'X-API-Key': ENDPOINTS_KEY,
      });
    }
  });

  test('omits X-API-Key when there is no endpoints key', () => {
    const auth = plainAuth({apiKey: 'k', apiSecret: 's'});
    assert.deepEqual(auth.headers(ctxOf('getOrder')), {'X-API-Auth': 'CPAY k:s'});
  });

  test('refuses missing credentials and a key containing ":", without echoing them', () => {
    assert.throws(() => plainAuth({apiKey: '', apiSecret: API_SECRET}), /apiKey/);
    assert.throws(() => plainAuth({apiKey: 'k', apiSecret: ''}), /apiSecret/);
    assert.throws(
      () => plainAuth({apiKey: 'a:b', apiSecret: API_SECRET}),
      (e: Error) => /":"/.test(e.message) && !e.message.includes(API_SECRET),
    );
  });
});

describe('hmacAuth (the spec forms; the recipe is an assumption)', () => {
  const expectedScheme: Record<string, string> = {
    'hmac-sha1': 'CPAY-HMAC-SHA1',
    hmac: 'CPAY-HMAC',
    'signed-plain': 'CPAY',
    secret: 'CPAY',
  };

  test('each endpoint gets the header form the spec shows for it', () => {
    assert.equal(specHeaderForm('createPayment'), 'hmac-sha1');
    assert.equal(specHeaderForm('getOrder'), 'hmac-sha1');
    assert.equal(specHeaderForm('startRegister'), 'signed-plain');
    assert.equal(specHeaderForm('fetchRegister'), 'signed-plain');
    assert.equal(specHeaderForm('cancelSubscription'), 'hmac');
    assert.equal(specHeaderForm('cancelOrder'), 'secret');
    const auth = hmacAuth(CREDENTIALS);
    for (const endpoint of ENDPOINTS) {
      const ctx = ctxOf(endpoint, endpoint === 'createPayment' ? '{"a":1}' : '');
      const form = specHeaderForm(endpoint);
      const headers = auth.headers(ctx);
      const credential = form === 'secret' ? API_SECRET : assumedHmacSignature(ctx, API_SECRET);
      assert.equal(
        headers['X-API-Auth'],
        `${expectedScheme[form]} pk_test_key:${credential}`,
        endpoint,
      );
      assert.equal(headers['X-API-Key'], ENDPOINTS_KEY, endpoint);
    }
  });

  test('the assumed signature is 40 hex characters over method, path and body', () => {
    const ctx = ctxOf('createPayment', '{"amount":10.1}');
    const sig = assumedHmacSignature(ctx, API_SECRET);
    assert.match(sig, /^[0-9a-f]{40}$/);
    assert.notEqual(assumedHmacSignature({...ctx, body: '{"amount":10.2}'}, API_SECRET), sig);
    assert.notEqual(assumedHmacSignature({...ctx, pathAndQuery: '/api/v1/other'}, API_SECRET), sig);
    assert.notEqual(assumedHmacSignature({...ctx, method: 'PUT'}, API_SECRET), sig);
    assert.notEqual(assumedHmacSignature(ctx, 'other-secret'), sig);
  });

  test('a caller can replace the recipe and force one form everywhere', () => {
    const seen: SignContext[] = [];
    const auth = hmacAuth(CREDENTIALS, {
      sign: (ctx, secret) => {
        seen.push(ctx);
        return `sig-${secret.length}`;
      },
      form: 'hmac',
    });
    const headers = auth.headers(ctxOf('cancelOrder'));
    assert.equal(headers['X-API-Auth'], `CPAY-HMAC pk_test_key:sig-${API_SECRET.length}`);
    assert.equal(seen[0]?.endpoint, 'cancelOrder');
  });
});

describe('verifyRequestAuth', () => {
  test('accepts the plain form on every endpoint', () => {
    const auth = plainAuth(CREDENTIALS);
    for (const endpoint of ENDPOINTS) {
      const ctx = ctxOf(endpoint);
      assert.deepEqual(verifyRequestAuth(lookup(auth.headers(ctx)), ctx, CREDENTIALS), {
        ok: true,
        form: 'plain',
      });
    }
  });

  test('accepts every signed form on every endpoint, header names in any case', () => {
    const auth = hmacAuth(CREDENTIALS);
    const expected: Record<string, string> = {
      'hmac-sha1': 'hmac-sha1',
      hmac: 'hmac',
      'signed-plain': 'signed-plain',
      secret: 'plain',
    };
    for (const endpoint of ENDPOINTS) {
      const ctx = ctxOf(endpoint, '{"x":1}');
      const result = verifyRequestAuth(lookup(auth.headers(ctx)), ctx, CREDENTIALS);
      assert.deepEqual(result, {ok: true, form: expected[specHeaderForm(endpoint)]}, endpoint);
    }
  });

  test('refuses a signed request whose body, path or method changed', () => {
    const auth = hmacAuth(CREDENTIALS);
    const ctx = ctxOf('createPayment', '{"amount":10.1}');
    const headers = lookup(auth.headers(ctx));
    for (const changed of [
      {...ctx, body: '{"amount":10.2}'},
      {...ctx, pathAndQuery: ctx.pathAndQuery + '?x=1'},
      {...ctx, method: 'PUT'},
    ]) {
      assert.equal(verifyRequestAuth(headers, changed, CREDENTIALS).ok, false);
    }
  });

  test('refuses a missing or malformed header, an unknown key and a wrong secret', () => {
    const ctx = ctxOf('getOrder');
    const check = (auth: string | undefined, key: string | undefined = ENDPOINTS_KEY) =>
      verifyRequestAuth(
        (n) => (n === 'x-api-auth' ? auth : n === 'x-api-key' ? key : undefined),
        ctx,
        CREDENTIALS,
      );
    assert.deepEqual(check(undefined), {ok: false, reason: 'missing X-API-Auth header'});
    assert.deepEqual(check('Bearer abc'), {ok: false, reason: 'malformed X-API-Auth header'});
    assert.deepEqual(check(`CPAY pk_test_key`), {ok: false, reason: 'malformed X-API-Auth header'});
    assert.deepEqual(check(`CPAY other:${API_SECRET}`), {ok: false, reason: 'unknown API key'});
    assert.equal(check('CPAY pk_test_key:wrong').ok, false);
    assert.equal(check('CPAY-HMAC-SHA1 pk_test_key:' + 'a'.repeat(40)).ok, false);
  });

  test('refuses a wrong X-API-Key, and a plain request without one when it is configured', () => {
    const ctx = ctxOf('getOrder');
    const plain = `CPAY pk_test_key:${API_SECRET}`;
    const headers = (key: string | undefined) => (n: string) =>
      n === 'x-api-auth' ? plain : n === 'x-api-key' ? key : undefined;
    assert.deepEqual(verifyRequestAuth(headers('nope'), ctx, CREDENTIALS), {
      ok: false,
      reason: 'wrong X-API-Key',
    });
    assert.deepEqual(verifyRequestAuth(headers(undefined), ctx, CREDENTIALS), {
      ok: false,
      reason: 'missing X-API-Key header',
    });
    assert.deepEqual(
      verifyRequestAuth(headers(undefined), ctx, {apiKey: 'pk_test_key', apiSecret: API_SECRET}),
      {
        ok: true,
        form: 'plain',
      },
    );
  });

  test('checks with a replaced recipe when given one', () => {
    const sign = () => 'custom-signature';
    const ctx = ctxOf('getOrder');
    const headers = lookup(hmacAuth(CREDENTIALS, {sign}).headers(ctx));
    assert.equal(verifyRequestAuth(headers, ctx, CREDENTIALS, sign).ok, true);
    assert.equal(verifyRequestAuth(headers, ctx, CREDENTIALS).ok, false);
  });
});
