/**
 * A refused origin names its cause for the developer, never for the customer: the request
 * log's warn line names the origin and `allowedOrigins` (with the origins allowed); the 403
 * body names them too in development (`NODE_ENV=development`, or a loopback `publicUrl`
 * without `NODE_ENV=production`) and only "not allowed" otherwise. The case of the issue:
 * `PUBLIC_URL=http://localhost:5221` and the page on a Vite dev server at `:5220`.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {SqlitePaymentStore} from '../../../src/server/index.js';
import {isDevelopment} from '../../../src/server/http/options-schema.js';
import {StubGateway, inProcessApp, pay, payBody} from './helpers.js';

type LogLine = Record<string, unknown> & {level: number; msg: string};
const WARN = 40;

async function refused(publicUrl: string) {
  const {app, lines} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
    publicUrl,
  });
  const res = await pay(app, payBody('origin-1', 'att-origin-1'), {
    Origin: 'http://localhost:5220',
  });
  const body = (await res.json()) as {error: {code: string; message: string}};
  const line = lines.map((l) => JSON.parse(l) as LogLine).find((l) => l.msg === 'request refused');
  return {status: res.status, body, line};
}

describe('a refused origin', () => {
  test('the warn log names the origin, allowedOrigins and the origins allowed', async () => {
    const {status, line} = await refused('https://shop.example/checkout');
    assert.equal(status, 403);
    assert.equal(line?.level, WARN);
    assert.equal(line?.code, 'forbidden');
    const message = String(line?.message);
    assert.match(message, /"http:\/\/localhost:5220"/);
    assert.match(message, /allowedOrigins/);
    assert.match(message, /"https:\/\/shop\.example"/);
  });

  test('in production the answer says only "not allowed"', async () => {
    const {body} = await refused('https://shop.example/checkout');
    assert.equal(body.error.code, 'forbidden');
    assert.equal(body.error.message, 'requests from this origin are not allowed');
  });

  test('in development (a loopback publicUrl) the answer names the origin and allowedOrigins', async () => {
    const {body} = await refused('http://localhost:5221/checkout');
    assert.equal(body.error.code, 'forbidden');
    assert.match(body.error.message, /"http:\/\/localhost:5220" is not in allowedOrigins/);
    assert.match(body.error.message, /"http:\/\/localhost:5221"/);
  });

  test('development is NODE_ENV=development, or a loopback publicUrl unless NODE_ENV=production', () => {
    assert.equal(isDevelopment('https://shop.example', 'development'), true);
    assert.equal(isDevelopment('https://shop.example', undefined), false);
    assert.equal(isDevelopment('http://localhost:3000', undefined), true);
    assert.equal(isDevelopment('http://127.0.0.1:3000', 'test'), true);
    assert.equal(isDevelopment('http://[::1]:3000', undefined), true);
    assert.equal(isDevelopment('http://localhost:3000', 'production'), false);
  });
});
