/**
 * Without `@opentelemetry/api` nothing changes and nothing fails: the loader answers
 * `undefined` for a missing package (and throws any other failure), and a `Telemetry` made
 * without the API runs the work it wraps, records nothing even with an SDK registered
 * globally, and hands back the very answers and errors of that work.
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {Hono} from 'hono';
import {loadOtelApi, OTEL_API} from '../../../src/server/telemetry/otel-api.js';
import {Telemetry, errorType} from '../../../src/server/telemetry/telemetry.js';
import {countedPayment} from '../../../src/server/payments/payment-telemetry.js';
import type {AttemptOutcome} from '../../../src/server/payments/attempt.js';
import {registerSdk} from './otel-sdk.js';

let sdk: ReturnType<typeof registerSdk>;
before(() => {
  sdk = registerSdk();
});
after(() => sdk.shutdown());

/** A require that fails as Node's does for a package that is not installed. */
function notInstalled(name: string): never {
  throw Object.assign(new Error(`Cannot find module '${name}'`), {code: 'MODULE_NOT_FOUND'});
}

test('the loader answers undefined when @opentelemetry/api is not installed', () => {
  assert.equal(loadOtelApi(notInstalled), undefined);
  const esm = (name: string): never => {
    throw Object.assign(new Error(`Cannot find package '${name}' imported from x`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
  };
  assert.equal(loadOtelApi(esm), undefined);
});

test('the loader throws a broken install rather than hide it', () => {
  // A dependency of the package missing, or any other error, is not "not installed".
  assert.throws(() => loadOtelApi(() => notInstalled('some-dependency-of-it')), /some-dependency/);
  assert.throws(
    () =>
      loadOtelApi(() => {
        throw new SyntaxError('broken');
      }),
    SyntaxError,
  );
  // And with the package here, it is the package.
  assert.equal(typeof loadOtelApi()?.trace.getTracer, 'function');
  assert.equal(OTEL_API, '@opentelemetry/api');
});

test('a Telemetry without the API runs the work and records nothing, even with an SDK registered', async () => {
  const off = new Telemetry(loadOtelApi(notInstalled));
  assert.equal(off.enabled, false);
  const app = new Hono();
  app.use('*', off.middleware());
  app.get('/x', async (c) => {
    const answer = await off.gatewayRequest(
      {
        operation: 'getOrder',
        method: 'GET',
        urlTemplate: '/o',
        url: 'http://127.0.0.1:9/o',
        resendCount: 0,
      },
      () => Promise.resolve({status: 201}),
    );
    off.countPayment('direct', 'o-1', {outcome: 'success'});
    return c.text(String(answer.status));
  });
  const res = await app.request('/x', {
    headers: {traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'},
  });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '201');
  const failure = new Error('no answer');
  await assert.rejects(
    off.gatewayRequest(
      {
        operation: 'getOrder',
        method: 'GET',
        urlTemplate: '/o',
        url: 'http://127.0.0.1:9/o',
        resendCount: 0,
      },
      () => Promise.reject(failure),
    ),
    (e) => e === failure,
  );
  const outcome: AttemptOutcome = {
    kind: 'refused',
    response: {outcome: 'failure', orderRef: 'o', code: 'x', reason: 'not_created', message: 'm'},
  };
  const sent = Promise.resolve(outcome);
  // Handed back as is: not even a promise of its own.
  assert.equal(countedPayment('direct', 'o', sent, off), sent);
  assert.equal(
    off.storeOperation('sqlite', 'read', () => sent),
    sent,
  );
  const answered = Promise.resolve({status: 200});
  const info = {
    operation: 'getOrder',
    method: 'GET',
    urlTemplate: '/o',
    url: 'http://127.0.0.1:9/o',
    resendCount: 0,
  };
  assert.equal(
    off.gatewayRequest(info, () => answered),
    answered,
  );

  assert.deepEqual(sdk.spans.getFinishedSpans(), []);
  assert.deepEqual([...(await sdk.metrics()).keys()], []);

  // The same calls through a Telemetry with the API record a span and metrics: the
  // emptiness above is the absent API's doing, not the SDK's.
  const on = new Telemetry(loadOtelApi());
  await on.gatewayRequest(
    {
      operation: 'getOrder',
      method: 'GET',
      urlTemplate: '/o',
      url: 'http://127.0.0.1:9/o',
      resendCount: 0,
    },
    () => Promise.resolve({status: 201}),
  );
  await countedPayment('direct', 'o', sent, on);
  assert.equal(sdk.spans.getFinishedSpans().length, 1);
  assert.deepEqual([...(await sdk.metrics()).keys()].sort(), [
    'http.client.request.duration',
    'pg_checkout.payment.count',
  ]);
});

test("error.type: the transport's timeout, an error's code, its class, else _OTHER", () => {
  assert.equal(
    errorType(Object.assign(new Error('gateway request timed out'), {name: 'TimeoutSignal'})),
    'timeout',
  );
  assert.equal(errorType(Object.assign(new Error('x'), {code: 'store_busy'})), 'store_busy');
  assert.equal(errorType(new TypeError('x')), 'TypeError');
  assert.equal(errorType(new Error('x')), '_OTHER');
  // A code that is not an identifier (it could hold anything) is not used.
  assert.equal(errorType(Object.assign(new Error('x'), {code: '4242 4242 4242 4242'})), '_OTHER');
  assert.equal(errorType(Object.assign(new Error('x'), {code: '4242424242424242'})), '_OTHER');
});
