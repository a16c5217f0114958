/**
 * Webhooks as the sandbox sends them: form-encoded, signed with the API secret and
 * verified with the core's `verifyWebhook`; retried on the configured schedule when the
 * receiver fails or hangs; duplicated and reordered on purpose when the rates say so;
 * suppressed or multiplied by faults; resent on request; and logged attempt by attempt.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {
  CaptureWebhook,
  PrimaryWebhook,
  RefundWebhook,
  VoidWebhook,
  WebhookSignatureError,
  verifyWebhook,
} from '../../../src/server/gateway/index.js';
import {SandboxClock} from '../../../sandbox/clock.js';
import {WebhookDispatcher} from '../../../sandbox/webhooks.js';
import {directRequest, postForm, raw, startReceiver, startTestSandbox} from './helpers.js';
import type {SandboxOptions} from '../../../sandbox/index.js';

async function withSandbox(
  options: SandboxOptions,
  answer: ((hit: number) => number) | undefined,
  fn: (
    t: Awaited<ReturnType<typeof startTestSandbox>>,
    hooks: Awaited<ReturnType<typeof startReceiver>>,
  ) => Promise<void>,
) {
  const t = await startTestSandbox(options);
  const hooks = await startReceiver(t.sandbox.credentials.apiSecret, answer);
  try {
    await fn(t, hooks);
  } finally {
    await t.close();
    await hooks.close();
  }
}

describe('delivery and signature', () => {
  test('a webhook is form-encoded data + signature that verifyWebhook accepts with the API secret only', async () => {
    await withSandbox({}, undefined, async (t, hooks) => {
      let contentType = '';
      const req = directRequest({server_url: hooks.url, payload: 'p-1', customer_id: 'c-9'});
      await t.client.createPayment(req);
      await t.sandbox.webhooksIdle();
      assert.equal(hooks.received.length, 1);
      const [w] = hooks.received;
      assert.equal(w!.signature.length, 28);
      assert.match(w!.data, /^[A-Za-z0-9_-]+=*$/);
      const payload = PrimaryWebhook.parse(w!.payload);
      assert.equal(w!.payload.kind, 'primary');
      assert.equal(payload.order_id, req.order_id);
      assert.equal(payload.status, 'success');
      assert.equal(payload.payload, 'p-1');
      assert.equal(payload.customer_id, 'c-9');
      assert.ok(payload.processed_at);
      assert.throws(
        () => verifyWebhook({data: w!.data, signature: w!.signature}, 'another-secret'),
        WebhookSignatureError,
      );
      // The raw form as sent: check the content type with a receiver of our own.
      const server = http.createServer((r, res) => {
        contentType = r.headers['content-type'] ?? '';
        r.resume();
        r.on('end', () => res.writeHead(200).end());
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      await t.client.createPayment(directRequest({server_url: url}));
      await t.sandbox.webhooksIdle();
      server.close();
      assert.equal(contentType, 'application/x-www-form-urlencoded');
    });
  });

  test('capture, void and refund webhooks have their shapes and go to the request server_url', async () => {
    await withSandbox({}, undefined, async (t, hooks) => {
      const other = await startReceiver(t.sandbox.credentials.apiSecret);
      try {
        const auth = directRequest({method: 'auth', amount: 40, server_url: hooks.url});
        await t.client.createPayment(auth);
        await t.client.capture({order_id: auth.order_id, order_currency: 'UAH', order_amount: 25});
        await t.client.refund({
          order_id: auth.order_id,
          order_currency: 'UAH',
          refund_amount: 5,
          server_url: other.url,
        });
        const held = directRequest({method: 'auth', amount: 9, server_url: hooks.url});
        await t.client.createPayment(held);
        await t.client.void({order_id: held.order_id, order_currency: 'UAH'});
        await t.sandbox.webhooksIdle();
        const kinds = hooks.received.map((w) => w.payload.kind);
        assert.deepEqual(kinds, ['primary', 'capture', 'primary', 'void']);
        const capture = CaptureWebhook.parse(hooks.received[1]!.payload);
        assert.equal(capture.amount, 25);
        assert.equal(capture.order_id, auth.order_id);
        assert.ok(capture.operation_id);
        assert.equal(VoidWebhook.parse(hooks.received[3]!.payload).amount, 9);
        assert.equal(other.received.length, 1);
        const refund = RefundWebhook.parse(other.received[0]!.payload);
        assert.equal(refund.amount, 5);
        assert.equal(refund.status_code, '1004');
      } finally {
        await other.close();
      }
    });
  });

  test('the delivery log records every attempt and is served at GET /sandbox/webhooks', async () => {
    await withSandbox({}, undefined, async (t, hooks) => {
      const req = directRequest({server_url: hooks.url});
      await t.client.createPayment(req);
      await t.sandbox.webhooksIdle();
      const log = t.sandbox.webhookLog();
      assert.equal(log.length, 1);
      const entry = log[0]!;
      assert.equal(entry.url, hooks.url);
      assert.equal(entry.attempt, 1);
      assert.equal(entry.duplicate, false);
      assert.equal(entry.responseStatus, 200);
      assert.equal(entry.ok, true);
      assert.equal(entry.summary.order_id, req.order_id);
      assert.equal(entry.summary.status, 'success');
      assert.match(entry.eventId, /^evt_/);
      assert.equal(hooks.received[0]!.eventId, entry.eventId);
      const served = await (await fetch(`${t.sandbox.url}/sandbox/webhooks`)).json();
      assert.deepEqual(served, log);
      assert.ok(!JSON.stringify(log).includes('4242424242424242'));
    });
  });

  test('a resend (callback=true) sends the current status again, marked as a resend', async () => {
    await withSandbox({}, undefined, async (t, hooks) => {
      const req = directRequest({server_url: hooks.url});
      await t.client.createPayment(req);
      await t.client.resendWebhook(req.order_id, 'purchase');
      await t.sandbox.webhooksIdle();
      assert.equal(hooks.received.length, 2);
      assert.equal(hooks.received[1]!.data, hooks.received[0]!.data);
      assert.deepEqual(
        t.sandbox.webhookLog().map((e) => e.resend),
        [false, true],
      );
    });
  });
});

describe('retries', () => {
  // Retries wait on the sandbox clock: on a manual clock they go out only when the test
  // advances it, so nothing here sleeps or depends on how fast the machine is.
  const manual = {clock: {manual: true}} as const;

  test('a receiver answering 500 is retried on the schedule until it answers 2xx', async () => {
    await withSandbox(
      {...manual, webhook: {retryDelaysMs: [30, 60, 90]}},
      (hit) => (hit <= 2 ? 500 : 200),
      async (t, hooks) => {
        const req = directRequest({server_url: hooks.url});
        await t.client.createPayment(req);
        await t.sandbox.webhooksIdle();
        assert.equal(t.sandbox.webhookLog().length, 1);
        await t.sandbox.clock.advance(29);
        assert.equal(t.sandbox.webhookLog().length, 1, 'the first retry waits 30 ms');
        await t.sandbox.clock.advance(1);
        assert.equal(t.sandbox.webhookLog().length, 2);
        await t.sandbox.clock.advance(59);
        assert.equal(t.sandbox.webhookLog().length, 2, 'the second retry waits 60 ms');
        await t.sandbox.clock.advance(1);
        assert.equal(hooks.received.length, 1);
        const log = t.sandbox.webhookLog();
        assert.deepEqual(
          log.map((e) => [e.attempt, e.responseStatus, e.ok]),
          [
            [1, 500, false],
            [2, 500, false],
            [3, 200, true],
          ],
        );
        assert.ok(new Set(log.map((e) => e.eventId)).size === 1);
      },
    );
  });

  test('one advance runs every retry that falls due within it', async () => {
    await withSandbox(
      {...manual, webhook: {retryDelaysMs: [30, 60, 90]}},
      (hit) => (hit <= 3 ? 500 : 200),
      async (t, hooks) => {
        await t.client.createPayment(directRequest({server_url: hooks.url}));
        await t.sandbox.webhooksIdle();
        const start = t.sandbox.clock.now().getTime();
        await t.sandbox.clock.advance(30 + 60 + 90);
        const log = t.sandbox.webhookLog();
        assert.deepEqual(
          log.map((e) => [e.attempt, e.ok]),
          [
            [1, false],
            [2, false],
            [3, false],
            [4, true],
          ],
        );
        // Each attempt is stamped with the sandbox time it was due at.
        const at = log.map((e) => Date.parse(`${e.at}Z`) - start);
        assert.deepEqual(at.slice(1), [30, 90, 180]);
        assert.equal(hooks.received.length, 1);
      },
    );
  });

  test('a receiver that never answers within timeoutMs is retried', async () => {
    let hits = 0;
    const server = http.createServer((req, res) => {
      hits++;
      req.resume();
      if (hits === 1) return; // hang: no answer
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
    const t = await startTestSandbox({
      ...manual,
      webhook: {timeoutMs: 250, retryDelaysMs: [20, 20, 20]},
    });
    try {
      await t.client.createPayment(directRequest({server_url: url}));
      // The first attempt ends when the sandbox gives up on it (a real network timeout).
      await t.sandbox.webhooksIdle();
      assert.equal(t.sandbox.webhookLog().length, 1);
      await t.sandbox.clock.advance(20);
      const log = t.sandbox.webhookLog();
      assert.equal(log.length, 2);
      assert.equal(log[0]!.responseStatus, null);
      assert.match(log[0]!.error!, /no answer within 250 ms/);
      assert.equal(log.at(-1)!.responseStatus, 204);
      assert.ok(log.at(-1)!.ok);
    } finally {
      await t.close();
      server.closeAllConnections();
      server.close();
    }
  });

  test('after the last scheduled retry the sandbox gives up', async () => {
    await withSandbox(
      {...manual, webhook: {retryDelaysMs: [10, 10]}},
      () => 503,
      async (t, hooks) => {
        await t.client.createPayment(directRequest({server_url: hooks.url}));
        await t.sandbox.webhooksIdle();
        await t.sandbox.clock.advance(20);
        assert.equal(t.sandbox.webhookLog().length, 3);
        await t.sandbox.clock.advance(24 * 3600_000);
        assert.equal(t.sandbox.webhookLog().length, 3);
        assert.equal(hooks.hits, 3);
      },
    );
  });

  test('close() cancels pending retries', async () => {
    const t = await startTestSandbox({...manual, webhook: {retryDelaysMs: [500]}});
    const hooks = await startReceiver(t.sandbox.credentials.apiSecret, () => 500);
    try {
      await t.client.createPayment(directRequest({server_url: hooks.url}));
      await t.sandbox.webhooksIdle();
      assert.equal(hooks.hits, 1);
      await t.close();
      await t.sandbox.clock.advance(700);
      await t.sandbox.webhooksIdle();
      assert.equal(hooks.hits, 1);
    } finally {
      await hooks.close();
    }
  });

  test('the dispatcher runs its retries on the clock and close() calls them off', async () => {
    const clock = new SandboxClock({manual: true});
    const webhooks = new WebhookDispatcher(
      {timeoutMs: 1000, retryDelaysMs: [500, 500], duplicateRate: 0, reverseOrderRate: 0, seed: 1},
      'secret',
      clock,
    );
    const hooks = await startReceiver('secret', () => 500);
    try {
      const summary = {
        method: 'purchase',
        status: 'success',
        status_code: '1000',
        order_id: 'o-1',
        payment_id: 'p-1',
        operation_id: null,
        recurring_id: null,
      };
      webhooks.send({eventId: 'evt_1', url: hooks.url, payload: {}, summary});
      await webhooks.idle();
      assert.equal(webhooks.scheduledRetries, 1);
      assert.equal(clock.pending, 1);
      await clock.advance(500);
      assert.equal(hooks.hits, 2);
      assert.equal(webhooks.scheduledRetries, 1);
      webhooks.close();
      assert.equal(webhooks.scheduledRetries, 0);
      assert.equal(clock.pending, 0);
      await clock.advance(1000);
      assert.equal(hooks.hits, 2);
    } finally {
      clock.close();
      await hooks.close();
    }
  });
});

describe('duplicates, reordering and webhook faults', () => {
  test('at duplicateRate 1 every webhook arrives twice, identical, the second flagged duplicate', async () => {
    await withSandbox({webhook: {duplicateRate: 1}}, undefined, async (t, hooks) => {
      await t.client.createPayment(directRequest({server_url: hooks.url}));
      await t.sandbox.webhooksIdle();
      assert.equal(hooks.received.length, 2);
      assert.equal(hooks.received[0]!.data, hooks.received[1]!.data);
      assert.equal(hooks.received[0]!.signature, hooks.received[1]!.signature);
      assert.deepEqual(
        t.sandbox.webhookLog().map((e) => e.duplicate),
        [false, true],
      );
    });
  });

  test('at reverseOrderRate 1 an older status arrives after the newer one', async () => {
    await withSandbox({webhook: {reverseOrderRate: 1}}, undefined, async (t, hooks) => {
      const req = directRequest({cc_number: '4000000000003220', server_url: hooks.url});
      const res = await t.client.createPayment(req);
      const url = (res as {record: {user_action_url: string}}).record.user_action_url;
      await postForm(url, {decision: 'approve'});
      await t.sandbox.webhooksIdle();
      assert.deepEqual(
        hooks.received.map((w) => w.payload.status),
        ['pending', 'success', 'pending'],
      );
      assert.deepEqual(
        t.sandbox.webhookLog().map((e) => e.reordered),
        [false, false, true],
      );
    });
  });

  test('no-webhook (header) sends nothing for that payment, webhook-times=3 sends three copies', async () => {
    await withSandbox({}, undefined, async (t, hooks) => {
      const silent = directRequest({server_url: hooks.url});
      await t.client.createPayment(silent);
      const hdr = (fault: string) => ({'X-Sandbox-Fault': fault});
      const silentRaw = await raw(t.sandbox, 'POST', '/api/v1/payment', {
        body: {
          ...directRequest({server_url: hooks.url, order_id: `${silent.order_id}-b`}),
          pos_id: t.sandbox.credentials.posId,
        },
        headers: hdr('no-webhook'),
      });
      assert.equal(silentRaw.status, 200);
      const thrice = await raw(t.sandbox, 'POST', '/api/v1/payment', {
        body: {
          ...directRequest({server_url: hooks.url, order_id: `${silent.order_id}-c`}),
          pos_id: t.sandbox.credentials.posId,
        },
        headers: hdr('webhook-times=3'),
      });
      assert.equal(thrice.status, 200);
      await t.sandbox.webhooksIdle();
      const count = (id: string) => hooks.received.filter((w) => w.payload.order_id === id).length;
      assert.equal(count(silent.order_id), 1);
      assert.equal(count(`${silent.order_id}-b`), 0);
      assert.equal(count(`${silent.order_id}-c`), 3);
    });
  });

  test('fault rules suppress or multiply webhooks by order id, then run out', async () => {
    await withSandbox({}, undefined, async (t, hooks) => {
      const a = directRequest({server_url: hooks.url});
      const b = directRequest({server_url: hooks.url});
      t.sandbox.addFault({match: {order_id: a.order_id}, fault: 'no-webhook', times: 1});
      t.sandbox.addFault({match: {order_id: b.order_id}, fault: 'webhook-times=2', times: 1});
      await t.client.createPayment(a);
      await t.client.createPayment(b);
      await t.client.refund({order_id: a.order_id, order_currency: 'UAH', refund_amount: 1});
      await t.sandbox.webhooksIdle();
      assert.deepEqual(
        hooks.received.map((w) => [w.payload.order_id, w.payload.kind]),
        [
          [b.order_id, 'primary'],
          [b.order_id, 'primary'],
          [a.order_id, 'refund'],
        ],
      );
      assert.equal(t.sandbox.faults().length, 0);
    });
  });
});
