/**
 * Webhook ingestion: events per second through the companion's `POST /webhook` —
 * signature check on the raw `data`, decoding, deduplication and a durable SQLite write
 * of the event with the attempt's change — as a ratio to a bare endpoint on the same
 * server stack that reads the body and answers 200, in the same run. Then every event
 * is counted in the database: `lost` must be 0.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pino} from 'pino';
import {
  SqlitePaymentStore,
  createCheckoutApp,
  encodeWebhookData,
  signWebhook,
  type CheckoutGateway,
} from '../src/server/index.js';
import {median, round, runLoad, serveLoopback} from './load.js';

const EVENTS = 1500;
const ROUNDS = 3;
const CONCURRENCY = 8;
const SECRET = 'bench-webhook-secret';
const POS_ID = '11111111-2222-4333-8444-555555555555';

const noGateway: CheckoutGateway = {
  posId: POS_ID,
  createPayment: () => Promise.reject(new Error('not used')),
  getOperation: () => Promise.reject(new Error('not used')),
};

function webhookBody(orderId: string, status: string): string {
  const data = encodeWebhookData({
    payment_id: `pay-${orderId}`,
    order_id: orderId,
    pos_id: POS_ID,
    mode: 'direct',
    method: 'purchase',
    amount: 1.5,
    currency: 'XTS',
    status,
    status_code: status === 'success' ? '1000' : '2122',
    status_description: 'Transaction successful',
    cc_mask: '424242******4242',
    created_at: '2026-01-31T12:00:00.123',
    processed_at: '2026-01-31T12:00:01.456',
  });
  return new URLSearchParams({data, signature: signWebhook(data, SECRET)}).toString();
}

export default async function webhookIngestBench() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'pg-bench-webhooks-'));
  const store = new SqlitePaymentStore(path.join(tmp, 'webhooks.db'));
  const server = await serveLoopback();
  const bare = await serveLoopback(async function bareEndpoint(req) {
    await req.text();
    return new Response(null, {status: 200});
  });
  const app = createCheckoutApp({
    gateway: noGateway,
    webhookSecret: SECRET,
    store,
    publicUrl: server.url,
    returnPage: '/thanks',
    resolveOrder: () => null,
    onPaymentUpdate: () => {},
    logger: pino({level: 'info'}, pino.destination({dest: '/dev/null', sync: false})),
  });
  server.setHandler((req, env) => app.fetch(req, env as never));

  // One pending attempt per event, so each webhook changes an attempt and writes an update.
  const total = EVENTS * ROUNDS;
  const now = Date.now();
  await Promise.all(
    Array.from({length: total}, (_, i) =>
      store.insertAttempt({
        attemptId: `att-${i}`,
        orderRef: `wh-${i}`,
        gatewayOrderId: `wh-${i}-1`,
        seq: 1,
        method: 'purchase',
        amount: '1.50',
        currency: 'XTS',
        state: 'pending',
        createdAt: now,
        updatedAt: now,
      }),
    ),
  );
  const bodies = Array.from({length: total}, (_, i) => webhookBody(`wh-${i}-1`, 'success'));
  const post = (base: string) => async (i: number) => {
    const res = await fetch(`${base}/webhook`, {
      method: 'POST',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: bodies[i]!,
    });
    await res.arrayBuffer();
    return res.status === 200;
  };

  const bareRps: number[] = [];
  const companionRps: number[] = [];
  let errors = 0;
  try {
    // Warm-up on a throw-away store's worth of traffic: the bare endpoint, and duplicates.
    await runLoad(post(bare.url), {total: 200, concurrency: CONCURRENCY});
    for (let r = 0; r < ROUNDS; r++) {
      const b = await runLoad(post(bare.url), {
        total: EVENTS,
        concurrency: CONCURRENCY,
        offset: r * EVENTS,
      });
      const c = await runLoad(post(server.url), {
        total: EVENTS,
        concurrency: CONCURRENCY,
        offset: r * EVENTS,
      });
      bareRps.push(b.rps);
      companionRps.push(c.rps);
      errors += b.errors + c.errors;
    }
    await app.flushOutbox();
  } finally {
    await app.close();
    await server.close();
    await bare.close();
  }
  const events = (await store.listEvents()).length;
  const applied = (await store.listAttemptsInStates(['success'])).length;
  await store.close();
  rmSync(tmp, {recursive: true, force: true});
  const ratio = round(median(companionRps) / median(bareRps));
  return {
    events: total,
    concurrency: CONCURRENCY,
    bareEventsPerSecond: median(bareRps),
    companionEventsPerSecond: median(companionRps),
    ratio,
    storedEvents: events,
    appliedChanges: applied,
    lost: total - events,
    errors,
  };
}
