/**
 * A normal customer's payment while slow senders are held (issue 35): the companion
 * (`createCheckoutApp`, SQLite in a temporary folder, default admission: 64 places) served
 * with `@hono/node-server` on 127.0.0.1 against the in-process sandbox; 0, 64, then 600
 * raw sockets each post to `/pay` declaring `Content-Length: 10000`, send one byte, and a
 * byte every 20 s after (the attack of the issue). While they are held, `BENCH_SLOW_PAYMENTS`
 * payments (default 200), one at a time, each from a customer of its own (an address in
 * `X-Forwarded-For` with `trustProxy: 1`, a card of its own), are timed from send to answer.
 *
 * Figures per step: p50 and p99 of the pay route (ms), payments not answered `success`,
 * requests answered `503 busy`, and the slow senders still open at the end (they must be:
 * `bodyTimeoutMs` is raised to 120 s here so every one is held for the whole step; with the
 * default 10 s each is answered 408 and cut instead). Before the door (issue 35), the 64
 * held every admission place and every payment was answered `503 busy` after the queue's
 * 5 s wait.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import type {Server} from 'node:http';
import net, {type AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox} from '../sandbox/index.js';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../src/protocol/checkout.js';
import {
  createCheckoutApp,
  createCheckoutLogger,
  SqlitePaymentStore,
  type CheckoutApp,
} from '../src/server/index.js';
import {DEMO_CUSTOMER} from '../server-example/catalog.js';
import {nextCustomer, payBody} from './server/payments.js';
import {percentile, round} from './stats.js';

const PAYMENTS = Math.max(1, Number(process.env['BENCH_SLOW_PAYMENTS'] ?? 200));
const STEPS = [0, 64, 600];

/** `n` slow senders on `port`, each connected and its head and first byte sent. */
async function holdSlowSenders(port: number, n: number) {
  const sockets: net.Socket[] = [];
  let closed = 0;
  for (let i = 0; i < n; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('close', () => closed++);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /pay HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `${CHECKOUT_HEADER}: ${CHECKOUT_PROTOCOL_VERSION}\r\nContent-Length: 10000\r\n\r\n{`,
    );
    sockets.push(socket);
  }
  const trickle = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write('"');
  }, 20_000);
  return {
    open: () => n - closed,
    release() {
      clearInterval(trickle);
      for (const s of sockets) s.destroy();
    },
  };
}

export default async function slowSendersBench() {
  const sandbox = await startSandbox({});
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-bench-slow-'));
  const store = new SqlitePaymentStore(path.join(dir, 'payments.db'));
  let handler: CheckoutApp['fetch'] = () => new Response(null, {status: 503});
  const server = createAdaptorServer({fetch: (req, env) => handler(req, env)}) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 1024, resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const app = createCheckoutApp({
    gateway: sandbox.clientOptions(),
    store,
    publicUrl: url,
    returnPage: '/thanks',
    resolveOrder: (orderRef) => ({
      amount: '1.50',
      currency: 'XTS',
      description: orderRef,
      customer: DEMO_CUSTOMER,
    }),
    logger: createCheckoutLogger({level: 'silent'}),
    trustProxy: 1,
    bodyTimeoutMs: 120_000,
  });
  app.start();
  handler = app.fetch;
  const figures: Record<string, unknown>[] = [];
  try {
    for (const held of STEPS) {
      const slow = await holdSlowSenders(port, held);
      const busyBefore = app.load().refusedBusy;
      const latencies: number[] = [];
      let errors = 0;
      for (let i = 0; i < PAYMENTS; i++) {
        const who = nextCustomer();
        const orderRef = `slow-${held}-${i}`;
        const started = performance.now();
        try {
          const res = await fetch(`${url}/pay`, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
              'X-Forwarded-For': who.ip,
            },
            body: payBody(orderRef, i, who),
          });
          const text = await res.text();
          if (res.status !== 200 || !text.includes('"outcome":"success"')) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - started);
      }
      latencies.sort((a, b) => a - b);
      figures.push({
        slowSenders: held,
        payments: PAYMENTS,
        payP50Ms: round(percentile(latencies, 0.5)),
        payP99Ms: round(percentile(latencies, 0.99)),
        errors,
        refusedBusy: app.load().refusedBusy - busyBefore,
        slowSendersStillHeld: slow.open(),
        ...(errors > 0
          ? {failure: `${errors} payments failed while ${held} slow senders held`}
          : {}),
      });
      slow.release();
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close({closeStore: true});
    await sandbox.close();
    rmSync(dir, {recursive: true, force: true});
  }
  return figures;
}
