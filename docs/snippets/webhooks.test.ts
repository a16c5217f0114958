// webhooks.test.ts — your receiver, tested with webhooks signed as the gateway signs them.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {encodeWebhookData, signWebhook} from 'pg-checkout/server';
import app from './webhooks.js';

const secret = 'sandbox-api-secret'; // in your tests, any; live, your project's API secret
process.env.API_SECRET = secret;

// A payment's webhook, as the gateway sends it: `data` is Base64Url JSON.
const data = encodeWebhookData({
  payment_id: '8d6c3e0a-1b2c-4d5e-8f90-123456789abc',
  order_id: 'ORDER-1001',
  pos_id: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001',
  mode: 'direct',
  method: 'purchase',
  amount: 1.5,
  currency: 'XTS',
  status: 'success',
  status_code: '1000',
  created_at: '2027-01-31T09:00:00.000Z',
});
const post = (form: Record<string, string>) =>
  app.request('/gateway/webhooks', {method: 'POST', body: new URLSearchParams(form)});

test('a signed webhook is applied once, however often it arrives', async (t) => {
  const log = t.mock.method(console, 'log', () => {});
  const signature = signWebhook(data, secret);
  assert.equal((await post({data, signature})).status, 200);
  assert.equal((await post({data, signature})).status, 200);
  assert.deepEqual(
    log.mock.calls.map((call) => call.arguments[0]),
    ['primary webhook for ORDER-1001: success'],
  );
});

test('a forged or missing signature is refused', async () => {
  assert.equal((await post({data, signature: signWebhook(data, 'not-the-secret')})).status, 400);
  assert.equal((await post({data})).status, 400);
});
