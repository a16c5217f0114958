/**
 * The 3-D Secure page in a real Chromium (Playwright): the customer approves or
 * declines, and the sandbox's own script sends them to the merchant's `result_url` with a
 * top-level cross-site POST carrying `order_id` (observed on a loopback merchant server);
 * a page opened twice, in two tabs, changes nothing the second time.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import type {Browser} from 'playwright';
import {sharedChromium} from '../../../scripts/chromium.mjs';
import {PaymentRecord} from '../../../src/server/gateway/index.js';
import {directRequest, startReceiver, startTestSandbox} from './helpers.js';
import type {Receiver, TestSandbox} from './helpers.js';

interface Arrival {
  method: string;
  body: URLSearchParams;
}

let t: TestSandbox;
let hooks: Receiver;
let browser: Browser;
let merchant: http.Server;
let resultUrl = '';
const arrivals: Arrival[] = [];

before(async () => {
  t = await startTestSandbox();
  hooks = await startReceiver(t.sandbox.credentials.apiSecret);
  merchant = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrivals.push({
        method: req.method ?? '',
        body: new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
      });
      res
        .writeHead(200, {'content-type': 'text/html; charset=utf-8'})
        .end('<!doctype html><title>Merchant</title><h1>Back at the merchant</h1>');
    });
  });
  await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', () => r()));
  // "localhost" makes the hand-back cross-site from the sandbox's 127.0.0.1 origin.
  resultUrl = `http://localhost:${(merchant.address() as AddressInfo).port}/return`;
  browser = await sharedChromium();
});

after(async () => {
  await browser?.close();
  await t?.close();
  await hooks?.close();
  merchant?.closeAllConnections();
  merchant?.close();
});

async function pending() {
  const req = directRequest({
    cc_number: '4000000000003220',
    result_url: resultUrl,
    server_url: hooks.url,
  });
  const res = await t.client.createPayment(req);
  const record = PaymentRecord.parse((res as {record: unknown}).record);
  return {req, record};
}

const finals = (orderId: string) =>
  hooks.received.filter((w) => w.payload.order_id === orderId && w.payload.status !== 'pending');

describe('3-D Secure page in Chromium', () => {
  test('Approve sends the customer to result_url with a POST of order_id and payment_id', async () => {
    const {req, record} = await pending();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    try {
      await page.goto(record.user_action_url!);
      await page.getByRole('heading', {name: /3-D Secure verification/}).waitFor();
      assert.ok(await page.getByText('400000******3220').isVisible());
      assert.ok(!(await page.content()).includes('4000000000003220'));
      await page.getByRole('button', {name: 'Approve'}).click();
      await page.waitForURL(resultUrl);
      await page.getByRole('heading', {name: 'Back at the merchant'}).waitFor();
      const arrival = arrivals.find((a) => a.body.get('order_id') === req.order_id);
      assert.equal(arrival?.method, 'POST');
      assert.equal(arrival?.body.get('payment_id'), record.payment_id);
      assert.equal((await t.client.getOperation(req.order_id, 'purchase')).status, 'success');
      await t.sandbox.webhooksIdle();
      assert.equal(finals(req.order_id).length, 1, 'the success webhook');
      assert.deepEqual(errors, [], 'no CSP or script errors');
    } finally {
      await page.close();
    }
  });

  test('Decline sends the customer back too, and the payment fails', async () => {
    const {req, record} = await pending();
    const page = await browser.newPage();
    try {
      await page.goto(record.user_action_url!);
      await page.getByRole('button', {name: 'Decline'}).click();
      await page.waitForURL(resultUrl);
      assert.ok(arrivals.some((a) => a.body.get('order_id') === req.order_id));
      const after = await t.client.getOperation(req.order_id, 'purchase');
      assert.equal(after.status, 'failure');
      assert.equal(after.status_code, '2123');
    } finally {
      await page.close();
    }
  });

  test('opened twice: the second tab says so, its answer changes nothing and sends no webhook', async () => {
    const {req, record} = await pending();
    const context = await browser.newContext();
    try {
      const first = await context.newPage();
      const second = await context.newPage();
      await first.goto(record.user_action_url!);
      await second.goto(record.user_action_url!);
      assert.ok(await second.getByText('This challenge was opened before').isVisible());
      await first.getByRole('button', {name: 'Approve'}).click();
      await first.waitForURL(resultUrl);
      await second.getByRole('button', {name: 'Decline'}).click();
      await second.getByRole('heading', {name: /already completed/}).waitFor();
      assert.ok(await second.getByText('Nothing was changed').isVisible());
      assert.equal(second.url(), record.user_action_url);
      assert.equal(arrivals.filter((a) => a.body.get('order_id') === req.order_id).length, 1);
      const after = await t.client.getOperation(req.order_id, 'purchase');
      assert.equal(after.status, 'success');
      await t.sandbox.webhooksIdle();
      assert.equal(finals(req.order_id).length, 1);
      await second.reload();
      assert.equal(await second.getByRole('button').count(), 0);
    } finally {
      await context.close();
    }
  });
});
