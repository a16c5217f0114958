/**
 * The example merchant app's money promises from outside, over real HTTP on 127.0.0.1 with
 * its SQLite database in a temporary folder: a double click and two identical API calls on
 * the back office's Refund, Capture and Void move money once; and after a restart with a
 * gateway that never answers, `/healthz` answers at once (`recovering`) while recovery waits.
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {createServer, type Server, type Socket} from 'node:net';
import path from 'node:path';
import type {AddressInfo} from 'node:net';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {SqlitePaymentStore} from '../../../src/server/index.js';
import {CHECKOUT_BASE, createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {CARDS, PAY_HEADERS, captureLogger, payBody} from '../checkout/helpers.js';
import {dataDirs, sandboxGateway} from './helpers.js';

const ADMIN = 'admin-token-0123456789abcdef';
let sandbox: Sandbox;

before(async () => {
  sandbox = await startSandbox({});
});
after(async () => {
  await sandbox?.close();
  dirs.removeAll();
});

const dirs = dataDirs('pg-example-rel-');
const dataDir = () => dirs.make();

const gateway = (baseUrl = sandbox.url) =>
  sandboxGateway(sandbox, {baseUrl, timeoutMs: 2_000, retries: 0});

async function serve(dir: string, gw = gateway()) {
  const route: {fetch?: (req: Request, env: unknown) => Response | Promise<Response>} = {};
  const server = createAdaptorServer({fetch: (req, env) => route.fetch!(req, env)});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const example: ExampleApp = createExampleApp({
    publicUrl: base,
    dataDir: dir,
    adminToken: ADMIN,
    logger: captureLogger().logger,
    bundlePath: path.join(dir, 'no-bundle.js'),
    gateway: gw,
  });
  route.fetch = example.app.fetch;
  return {
    base,
    example,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as {closeAllConnections(): void}).closeAllConnections();
      });
      await example.close();
    },
  };
}

/** Creates an order in the shop and pays it with a success card. */
async function paidOrder(base: string, productId: string): Promise<string> {
  const created = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json', Origin: base},
    body: JSON.stringify({productId}),
  });
  const {orderRef} = (await created.json()) as {orderRef: string};
  const paid = await fetch(`${base}${CHECKOUT_BASE}/pay`, {
    method: 'POST',
    headers: {...PAY_HEADERS, Origin: base},
    body: JSON.stringify(payBody(orderRef, `${orderRef}-a`, CARDS.success)),
  });
  assert.equal(((await paid.json()) as {outcome: string}).outcome, 'success');
  return orderRef;
}

const action = (base: string, orderRef: string, body: Record<string, unknown>) =>
  fetch(`${base}/admin/api/orders/${orderRef}/actions`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${ADMIN}`,
      Origin: base,
    },
    body: JSON.stringify(body),
  });

test('back office: a double click and two identical calls refund, capture and void once', async () => {
  const s = await serve(dataDir());
  try {
    s.example.start();
    const ref = await paidOrder(s.base, 'tea-sampler');
    const [attempt] = await s.example.store.listAttempts(ref);
    const gatewayOrderId = attempt!.gatewayOrderId;
    const refund = {action: 'refund', gatewayOrderId, amount: '0.10', key: 'refund-click-1'};
    const answers = await Promise.all([
      action(s.base, ref, refund),
      action(s.base, ref, refund),
      action(s.base, ref, refund),
    ]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    const sandboxPayment = () => sandbox.payments().find((p) => p.orderId === gatewayOrderId)!;
    assert.equal(sandboxPayment().refundedAmount, 0.1);
    assert.equal(sandboxPayment().operations.length, 1);
    // Without a key the request is refused, naming the field.
    const noKey = await action(s.base, ref, {action: 'refund', gatewayOrderId, amount: '0.10'});
    assert.equal(noKey.status, 400);
    assert.match(await noKey.text(), /key/);
    // More than is left: refused with the rule, nothing moves.
    const over = await action(s.base, ref, {...refund, amount: '5.00', key: 'refund-2'});
    assert.equal(over.status, 409);
    assert.match(await over.text(), /over_refund/);
    assert.equal(sandboxPayment().refundedAmount, 0.1);
    // The order detail lists the intents.
    const detail = (await (
      await fetch(`${s.base}/admin/api/orders/${ref}`, {
        headers: {Authorization: `Bearer ${ADMIN}`},
      })
    ).json()) as {intents: {key: string; state: string; kind: string}[]};
    assert.deepEqual(
      detail.intents.map((i) => [i.key, i.kind, i.state]),
      [['refund-click-1', 'refund', 'success']],
    );

    // A held order (the grinder rental is an auth): capture and void.
    const held = await paidOrder(s.base, 'grinder-rental');
    const [h] = await s.example.store.listAttempts(held);
    const heldPayment = () => sandbox.payments().find((p) => p.orderId === h!.gatewayOrderId)!;
    const capture = {action: 'capture', gatewayOrderId: h!.gatewayOrderId, key: 'cap-1'};
    const caps = await Promise.all([action(s.base, held, capture), action(s.base, held, capture)]);
    assert.deepEqual(
      caps.map((c) => c.status),
      [200, 200],
    );
    assert.equal(heldPayment().operations.filter((o) => o.method === 'capture').length, 1);
    const voided = await action(s.base, held, {
      action: 'void',
      gatewayOrderId: h!.gatewayOrderId,
      key: 'void-1',
    });
    assert.equal(voided.status, 409, 'a captured hold cannot be voided');
    assert.equal(heldPayment().operations.length, 1);
  } finally {
    await s.close();
  }
});

test('restart with a gateway that never answers: /healthz answers within 1 s', async () => {
  const dir = dataDir();
  // An attempt a crash left open, in the example's own database file.
  const store = new SqlitePaymentStore(path.join(dir, 'payments.db'));
  const now = Date.now();
  await store.insertAttempt({
    attemptId: 'left-open',
    orderRef: 'ord-000000000001',
    gatewayOrderId: 'ord-000000000001-1-abcd',
    seq: 1,
    method: 'purchase',
    amount: '1.20',
    currency: 'XTS',
    state: 'creating',
    createdAt: now,
    updatedAt: now,
    createSentAt: now,
  });
  await store.close();
  // A "gateway" that accepts connections and never says a word.
  const sockets: Socket[] = [];
  const silent: Server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const s = await serve(dir, gateway(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`));
  try {
    const started = performance.now();
    s.example.start();
    const res = await fetch(`${s.base}/healthz`, {signal: AbortSignal.timeout(1_000)});
    const ms = performance.now() - started;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {ok: true, state: 'recovering'});
    assert.ok(ms < 1_000, `answered in ${Math.round(ms)} ms`);
    // The shop's pages answer meanwhile too.
    assert.equal((await fetch(`${s.base}/`, {signal: AbortSignal.timeout(1_000)})).status, 200);
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
    await s.close();
  }
});
