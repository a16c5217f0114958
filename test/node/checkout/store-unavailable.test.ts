/**
 * The payment database goes away under a running companion (PostgreSQL behind a loopback
 * TCP relay the test cuts and restores): pay is refused with `503 store_unavailable`
 * before anything reaches the gateway; a webhook is answered 503, so the gateway sends it
 * again; once the database is back, the resent webhook is stored and applied, its update
 * delivered, and the refused pay request, sent again with the same attempt id, is paid
 * once. Nothing is lost. Skipped without a PostgreSQL server.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {createConnection, createServer, type Server, type Socket} from 'node:net';
import type {AddressInfo} from 'node:net';
import {PostgresPaymentStore} from '../../../src/server/index.js';
import {
  StubGateway,
  inProcessApp,
  pay,
  payBody,
  postWebhook,
  primaryWebhook,
  record,
  signedWebhook,
} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

after(dropSchemas);

/** A TCP relay to the test database that can be cut (every connection, and new ones refused). */
async function relay(): Promise<{
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}> {
  const target = new URL(PG_TEST_URL);
  const sockets = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(PG_TEST_URL);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.toString(),
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the payment database goes away and comes back', {skip: PG_SKIP}, () => {
  test('pay 503 store_unavailable before the gateway; webhook 503, resent and kept', async () => {
    const db = await relay();
    const store = new PostgresPaymentStore({
      connectionString: db.url,
      schema: schemaName('down'),
      connectTimeoutMs: 1000,
    });
    const gw = new StubGateway();
    gw.onCreate = async (req) =>
      record(req, req.order_id.startsWith('down-3ds') ? 'pending' : 'success');
    const {app, updates} = inProcessApp(store, gw);
    try {
      // Before: a 3-D Secure payment waits for its webhook.
      assert.equal((await pay(app, payBody('down-3ds', 'att-3ds'))).status, 200);
      const pendingId = gw.created[0]!.order_id;
      await app.flushOutbox();
      assert.deepEqual(
        updates.map((u) => u.state),
        ['pending'],
      );

      db.cut();
      const refused = await pay(app, payBody('down-new', 'att-new'));
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '5');
      const body = (await refused.json()) as {error: {code: string}};
      assert.equal(body.error.code, 'store_unavailable');
      assert.equal(gw.created.length, 1, 'nothing reached the gateway');
      const webhook = signedWebhook(primaryWebhook(pendingId, 'success'));
      const answered = await postWebhook(app, webhook);
      assert.equal(answered.status, 503, 'a 5xx: the gateway sends it again');
      assert.deepEqual((await app.health()).store, false);

      db.restore();
      assert.equal((await postWebhook(app, webhook)).status, 200, 'the resent webhook');
      assert.equal((await store.getAttemptByGatewayOrderId(pendingId))?.state, 'success');
      assert.equal((await store.listEvents()).length, 1, 'stored once');
      const again = await pay(app, payBody('down-new', 'att-new'));
      assert.equal(again.status, 200);
      assert.equal(((await again.json()) as {outcome: string}).outcome, 'success');
      assert.equal(gw.created.length, 2, 'one create for the refused order, once it could be kept');
      await app.flushOutbox();
      assert.deepEqual(
        updates.map((u) => `${u.orderRef}:${u.state}`),
        ['down-3ds:pending', 'down-3ds:success', 'down-new:success'],
      );
    } finally {
      await app.close();
      await store.close();
      await db.close();
    }
  });
});
