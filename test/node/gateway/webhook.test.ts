/**
 * Webhook signing and verification: the public vector, sign/verify round trips,
 * rejection of any single-character tampering, garbage signatures that only ever raise
 * `WebhookSignatureError`, every webhook kind parsed, and the verifier's fast path held
 * equal to the schemas.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {isDeepStrictEqual} from 'node:util';
import fc from 'fast-check';
import {
  encodeWebhookData,
  GatewayError,
  isValidWebhookSignature,
  parseWebhookForm,
  signWebhook,
  verifyWebhook,
  WebhookDecodeError,
  WebhookPayload,
  WebhookSignatureError,
} from '../../../src/server/gateway/index.js';
import {POS_ID} from './helpers.js';

const SECRET = 'whsec_4d3c2b1a';

/** The form the gateway would post for `payload`. */
function signed(payload: unknown, secret = SECRET) {
  const data = encodeWebhookData(payload);
  return {data, signature: signWebhook(data, secret)};
}

const purchase = (over: Record<string, unknown> = {}) => ({
  payment_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  order_id: 'order-1',
  pos_id: POS_ID,
  mode: 'direct',
  method: 'purchase',
  amount: 10.1,
  currency: 'UAH',
  status: 'success',
  status_code: '1000',
  created_at: '2026-01-31T12:00:00.123',
  processed_at: '2026-01-31T12:00:01.456',
  fee: {amount: 0.25, currency: 'UAH'},
  ...over,
});

const secondary = (method: string, over: Record<string, unknown> = {}) => ({
  operation_id: 'a1b2c3d4-0000-4000-8000-000000000001',
  payment_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  order_id: 'order-1',
  pos_id: POS_ID,
  mode: 'direct',
  method,
  amount: 4.5,
  currency: 'UAH',
  status: 'success',
  created_at: '2026-01-31T12:00:00.123',
  ...over,
});

/** Asserts `fn` throws a WebhookSignatureError (and nothing else). */
function assertSignatureError(fn: () => unknown): void {
  assert.throws(
    fn,
    (e: unknown) => e instanceof WebhookSignatureError && e.code === 'webhook_signature',
  );
}

describe('the public vector', () => {
  const data = 'eyJuYW1lIjoiSm9lIiwiYWdlIjoyMH0=';
  const signature = 'Bcj3hb-h00HrEMIoJ5nPW5ZHlVQ=';

  test('signWebhook gives the documented signature', () => {
    assert.equal(signWebhook(data, 'changeme'), signature);
  });

  test('the documented signature is valid, and is 28 characters', () => {
    assert.equal(isValidWebhookSignature(data, signature, 'changeme'), true);
    assert.equal(signature.length, 28);
  });

  test('verifyWebhook accepts its signature, then refuses its payload as no known event', () => {
    assert.throws(
      () => verifyWebhook({data, signature}, 'changeme'),
      (e: unknown) =>
        e instanceof WebhookDecodeError &&
        e.code === 'webhook_decode' &&
        /payment_id: is required/.test(e.message),
    );
  });

  test('the hash covers data as received: re-encoding it without padding fails', () => {
    assert.equal(isValidWebhookSignature(data.replace(/=+$/, ''), signature, 'changeme'), false);
    assertSignatureError(() =>
      verifyWebhook({data: data.replace(/=+$/, ''), signature}, 'changeme'),
    );
  });
});

describe('sign and verify', () => {
  test('property: any data signed with any secret verifies with that secret only', () => {
    fc.assert(
      fc.property(
        fc.string({maxLength: 400}),
        fc.string({minLength: 1, maxLength: 40}),
        fc.string({minLength: 1, maxLength: 40}),
        (data, secret, other) => {
          const signature = signWebhook(data, secret);
          assert.match(signature, /^[A-Za-z0-9_-]{27}=$/);
          assert.equal(isValidWebhookSignature(data, signature, secret), true);
          if (other !== secret)
            assert.equal(isValidWebhookSignature(data, signature, other), false);
        },
      ),
      {numRuns: 300},
    );
  });

  test('property: a signed payload verifies and comes back equal, with its kind', () => {
    fc.assert(
      fc.property(
        fc.record({
          amount: fc.integer({min: 1, max: 10_000_000}).map((m) => m / 100),
          order_id: fc.string({minLength: 1, maxLength: 64}),
          payload: fc.string({maxLength: 200}),
          status: fc.constantFrom('init', 'pending', 'success', 'failure'),
          method: fc.constantFrom('purchase', 'auth', 'credit', 'p2p', 'lookup'),
        }),
        (over) => {
          const payload = purchase(over);
          assert.deepEqual(verifyWebhook(signed(payload), SECRET), {...payload, kind: 'primary'});
        },
      ),
      {numRuns: 200},
    );
  });

  test('property: changing any single character of data is rejected', () => {
    const form = signed(purchase());
    fc.assert(
      fc.property(
        fc.nat({max: form.data.length - 1}),
        fc.string({minLength: 1, maxLength: 1, unit: 'binary'}),
        (i, c) => {
          fc.pre(form.data[i] !== c);
          const data = form.data.slice(0, i) + c + form.data.slice(i + 1);
          assertSignatureError(() => verifyWebhook({data, signature: form.signature}, SECRET));
        },
      ),
      {numRuns: 500},
    );
  });

  test('property: changing any single character of the signature is rejected', () => {
    const form = signed(purchase());
    fc.assert(
      fc.property(
        fc.nat({max: 27}),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ '),
        (i, c) => {
          fc.pre(form.signature[i] !== c);
          const signature = form.signature.slice(0, i) + c + form.signature.slice(i + 1);
          assertSignatureError(() => verifyWebhook({data: form.data, signature}, SECRET));
        },
      ),
      {numRuns: 1000},
    );
  });

  test('every spelling of the last signature character but one is rejected', () => {
    const form = signed(purchase());
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const accepted = [...alphabet].filter((c) =>
      isValidWebhookSignature(form.data, form.signature.slice(0, 26) + c + '=', SECRET),
    );
    assert.deepEqual(accepted, [form.signature[26]]);
  });

  test('property: garbage signatures of any length only ever raise WebhookSignatureError', () => {
    const form = signed(purchase());
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({maxLength: 64}),
          fc.string({unit: 'grapheme', maxLength: 40}),
          fc.string({minLength: 28, maxLength: 28}),
        ),
        (signature) => {
          fc.pre(signature !== form.signature);
          assertSignatureError(() => verifyWebhook({data: form.data, signature}, SECRET));
          assert.equal(isValidWebhookSignature(form.data, signature, SECRET), false);
        },
      ),
      {numRuns: 500},
    );
  });

  test('missing or non-string fields are signature errors, not crashes', () => {
    const form = signed(purchase());
    for (const bad of [
      {data: '', signature: form.signature},
      {data: form.data, signature: ''},
      {data: form.data},
      {signature: form.signature},
      {data: 42, signature: form.signature},
      {data: form.data, signature: ['x']},
      null,
      undefined,
    ]) {
      assertSignatureError(() => verifyWebhook(bad as never, SECRET));
    }
  });

  test('verification needs the secret', () => {
    assert.throws(() => verifyWebhook(signed(purchase()), ''), TypeError);
  });

  test('a signature made with another secret names the usual mistake', () => {
    assert.throws(
      () => verifyWebhook(signed(purchase(), 'other'), SECRET),
      (e: Error) => e instanceof WebhookSignatureError && /raw `data` field/.test(e.message),
    );
  });
});

describe('decoding after the signature', () => {
  const signRaw = (data: string) => ({data, signature: signWebhook(data, SECRET)});

  test('signed data that is not Base64Url is a decode error', () => {
    for (const data of ['not base64!', 'abc+/def', 'eyJh=x', 'a']) {
      assert.throws(() => verifyWebhook(signRaw(data), SECRET), WebhookDecodeError, data);
    }
  });

  test('signed Base64Url that is not JSON is a decode error', () => {
    const data = Buffer.from('{"broken":', 'utf8').toString('base64url');
    assert.throws(() => verifyWebhook(signRaw(data), SECRET), /does not decode to JSON/);
  });

  test('property: data is decoded exactly when it is canonical Base64Url', () => {
    // The reference: the alphabet by regex, then decoding and encoding back must give the text.
    const canonical = (data: string) => {
      const m = /^([A-Za-z0-9_-]*)(={0,2})$/.exec(data);
      if (!m || (m[2] !== '' && data.length % 4 !== 0)) return false;
      const body = m[1]!;
      return Buffer.from(body, 'base64url').toString('base64url') === body;
    };
    const char = fc.constantFrom(...'AQgwBZ09azr-_+/= !.\né€'.split(''));
    const json = Buffer.from('{"a":1}').toString('base64url');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({unit: char, maxLength: 12}),
          fc
            .tuple(fc.nat(json.length), fc.string({unit: char, maxLength: 3}))
            .map(([at, s]) => json.slice(0, at) + s + json.slice(at)),
        ),
        (data) => {
          let error: unknown;
          try {
            verifyWebhook(signRaw(data), SECRET);
          } catch (e) {
            error = e;
          }
          const refused =
            error instanceof WebhookDecodeError && /is not Base64Url/.test(error.message);
          assert.ok(
            data === '' || refused === !canonical(data),
            `${JSON.stringify(data)}: ${String(error)}`,
          );
        },
      ),
      {numRuns: 3000},
    );
  });

  test('Base64Url without padding is accepted too', () => {
    const data = encodeWebhookData(purchase({order_id: 'o'})).replace(/=+$/, '');
    assert.equal(verifyWebhook(signRaw(data), SECRET).kind, 'primary');
  });

  test('a payload missing a required field is a decode error naming it, never a value', () => {
    const {status: _s, ...noStatus} = purchase({cc_token: 'tok_secret_value'});
    assert.throws(
      () => verifyWebhook(signed(noStatus), SECRET),
      (e: unknown) =>
        e instanceof WebhookDecodeError &&
        e.issues?.some((i) => i.field === 'status' && i.message === 'is required') === true &&
        !JSON.stringify(e).includes('tok_secret_value'),
    );
  });

  test('the errors are GatewayErrors with stable codes', () => {
    try {
      verifyWebhook({data: 'x', signature: 'y'}, SECRET);
      assert.fail('no error');
    } catch (e) {
      assert.ok(e instanceof GatewayError);
      assert.equal((e as GatewayError).code, 'webhook_signature');
    }
  });
});

describe('every webhook kind', () => {
  test('a primary operation webhook', () => {
    for (const method of ['purchase', 'auth', 'credit', 'p2p', 'lookup']) {
      const result = verifyWebhook(signed(purchase({method})), SECRET);
      assert.equal(result.kind, 'primary', method);
    }
  });

  test('a subscription charge webhook carries recurring {id, status}', () => {
    const result = verifyWebhook(
      signed(purchase({recurring: {id: 'r-1', status: 'active'}})),
      SECRET,
    );
    assert.equal(result.kind, 'subscription_charge');
    if (result.kind === 'subscription_charge') assert.equal(result.recurring.id, 'r-1');
    assert.throws(
      () => verifyWebhook(signed(purchase({recurring: {id: 'r-1', status: 'paused'}})), SECRET),
      WebhookDecodeError,
    );
  });

  test('a capture webhook, with limit_info as an object', () => {
    const result = verifyWebhook(
      signed(
        secondary('capture', {
          limit_info: {retry_after: '2026-02-01T00:00:00.000', description: 'limit'},
        }),
      ),
      SECRET,
    );
    assert.equal(result.kind, 'capture');
    assert.equal(result.amount, 4.5);
  });

  test('a void webhook', () => {
    assert.equal(verifyWebhook(signed(secondary('void')), SECRET).kind, 'void');
  });

  test('a refund webhook, with receipt_url', () => {
    const result = verifyWebhook(
      signed(secondary('refund', {receipt_url: 'https://r.example/1', status_code: '1004'})),
      SECRET,
    );
    assert.equal(result.kind, 'refund');
    if (result.kind === 'refund') assert.equal(result.receipt_url, 'https://r.example/1');
  });

  test('a secondary webhook needs operation_id', () => {
    const {operation_id: _o, ...noId} = secondary('refund');
    assert.throws(() => verifyWebhook(signed(noId), SECRET), /operation_id: is required/);
  });

  test('limit_info as a string, unknown fields and nulls are kept', () => {
    const result = verifyWebhook(
      signed(
        purchase({limit_info: 'daily limit reached', brand_new: {a: [1]}, gateway_order_id: null}),
      ),
      SECRET,
    );
    assert.equal(result.kind, 'primary');
    assert.equal((result as Record<string, unknown>)['brand_new'] !== undefined, true);
    assert.deepEqual((result as Record<string, unknown>)['brand_new'], {a: [1]});
    assert.equal((result as Record<string, unknown>)['limit_info'], 'daily limit reached');
  });

  test('values the schemas normalise come back normalised', () => {
    const result = verifyWebhook(signed(purchase({amount: '10.10', status_code: 1000})), SECRET);
    assert.equal(result.amount, 10.1);
    assert.equal(result.status_code, '1000');
  });

  test('the kind tag wins over a payload field named kind', () => {
    assert.equal(verifyWebhook(signed(purchase({kind: 'refund'})), SECRET).kind, 'primary');
  });
});

describe('the fast path agrees with the schemas', () => {
  const anyValue = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.string({maxLength: 8}),
    fc.constantFrom(
      'purchase',
      'refund',
      'capture',
      'void',
      'success',
      'pending',
      'init',
      'active',
      '12.5',
      '1000',
    ),
    fc.integer(),
    fc.double({noNaN: true, noDefaultInfinity: true}),
    fc.boolean(),
    fc.constant({}),
    fc.constant([]),
    fc.record({
      amount: fc.oneof(fc.integer(), fc.string({maxLength: 3})),
      currency: fc.oneof(fc.string({maxLength: 3}), fc.integer()),
    }),
    fc.record({
      id: fc.oneof(fc.string({maxLength: 3}), fc.integer()),
      status: fc.constantFrom('init', 'active', 'canceled', 'x'),
    }),
    fc.record({
      retry_after: fc.oneof(fc.string({maxLength: 3}), fc.integer()),
      description: fc.option(fc.string({maxLength: 3})),
    }),
    fc.string({minLength: 257, maxLength: 260}),
  );
  const fields = [
    'payment_id',
    'order_id',
    'operation_id',
    'pos_id',
    'mode',
    'method',
    'amount',
    'currency',
    'status',
    'status_code',
    'created_at',
    'processed_at',
    'transaction_id',
    'fee',
    'fixed_fee',
    'percent_fee',
    'limit_info',
    'recurring',
    'processed_amount',
    'processed_currency',
    'receipt_url',
    'cc_token',
    'payload',
    'status_description',
    'eci',
  ];

  test('property: verifyWebhook returns what the schemas return, or fails where they fail', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          purchase(),
          secondary('capture'),
          secondary('void'),
          secondary('refund'),
          purchase({recurring: {id: 'r', status: 'init'}}),
        ),
        fc.array(fc.tuple(fc.constantFrom(...fields), anyValue), {maxLength: 4}),
        (base, changes) => {
          const payload: Record<string, unknown> = JSON.parse(JSON.stringify(base));
          for (const [field, value] of changes) payload[field] = value;
          const asSent = JSON.parse(JSON.stringify(payload));
          const expected = WebhookPayload.safeParse(asSent);
          let actual: unknown;
          let error: unknown;
          try {
            actual = verifyWebhook(signed(payload), SECRET);
          } catch (e) {
            error = e;
          }
          // Plain booleans: assert's diffs would make shrinking a counterexample very slow.
          if (expected.success) {
            assert.ok(error === undefined, 'the schemas accept it, verifyWebhook threw');
            assert.ok(
              isDeepStrictEqual(actual, expected.data),
              'verifyWebhook and the schemas differ',
            );
          } else {
            assert.ok(
              error instanceof WebhookDecodeError,
              'the schemas refuse it, verifyWebhook did not',
            );
          }
        },
      ),
      {numRuns: 1500},
    );
  });
});

describe('parseWebhookForm', () => {
  test('reads data and signature from a form body, padding kept', () => {
    const form = signed(purchase());
    const body = new URLSearchParams(form).toString();
    assert.deepEqual(parseWebhookForm(body), form);
    assert.equal(verifyWebhook(parseWebhookForm(body), SECRET).kind, 'primary');
  });

  test('a body without the fields gives empty fields, which verification refuses', () => {
    assert.deepEqual(parseWebhookForm('x=1'), {data: '', signature: ''});
    assertSignatureError(() => verifyWebhook(parseWebhookForm(''), SECRET));
  });
});
