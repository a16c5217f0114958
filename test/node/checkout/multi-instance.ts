/**
 * Several instances on one PostgreSQL, proven from outside with real processes: three
 * `server-example` processes on one schema (`DATABASE_URL`), the gateway sandbox as its
 * own process (`sandbox/cli.ts`), and a loopback round-robin in front of the instances
 * (pay requests and the sandbox's webhooks go through it). Each instance reaches the
 * sandbox through a recording relay of this test, which also injects the sandbox's own
 * faults into some creates; each instance forwards its payment updates to a receiver here
 * (`PAYMENT_UPDATES_URL`), which counts deliveries.
 *
 * 200 pay requests at once over 100 orders (a double submit of one attempt, or two tabs
 * with two attempts), creates whose answer is lost after the charge, lost before it, or
 * slow; one instance `kill -9`-ed mid-flight and started again under a new name; the
 * customer retries as the card form does. Then: exactly 100 charges at the sandbox, every
 * attempt in the database in the sandbox's state, every webhook the sandbox delivered
 * stored once, every outbox entry delivered once (a second delivery is allowed only for
 * an entry the killed instance may have delivered just before it died), and no two
 * instances looking up one payment at the same time. Skipped without PostgreSQL.
 *
 * The suite runs twice, each in a test file of its own: with the instances connected to
 * PostgreSQL directly (`multi-instance.test.ts`), and through a PgBouncer in transaction
 * pooling mode (`multi-instance-pgbouncer.test.ts`).
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, type ChildProcess} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../../../src/protocol/checkout.js';
import {CARDS, freePort, isPaymentOf, payBody} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, pgQuery, schemaName} from './postgres.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const ORDERS = 100;
const INSTANCES = 3;
/**
 * The outbox's claim (the instances' LEASE_MS). An instance delivers an entry only in the
 * first half of its claim and marks it delivered with its next claim; should that mark land
 * after the claim ran out, another instance delivers the entry again — at least once, as the
 * outbox promises. 2 s left one second for a hook call and a commit, which a loaded two-core
 * machine overran (flake hunt, load 29: an entry delivered by i1-restarted, then by i2 821 ms
 * later); 8 s leaves four, and the killed instance's entries are taken over 6 s later.
 */
const LEASE_MS = 8000;
const CREDENTIALS = {
  posId: '7d3c6a1e-5b2f-4c8d-9e0a-1f2b3c4d5e6f',
  apiKey: 'multi-instance-key',
  apiSecret: 'multi-instance-secret',
  endpointsKey: 'multi-instance-endpoints',
};
/** `/api/v1/pos/<posId>/orders/<orderId>/<operation>`: a payment lookup. */
const LOOKUP = /^\/api\/v1\/pos\/[^/]+\/orders\/([^/?]+)\/[a-z_]+(?:\?|$)/;

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-multi-instance-'));
const children = new Set<ChildProcess>();
const servers: Server[] = [];
const schema = PG_SKIP ? '' : schemaName('multi');
/** Where the instances find the database (`DATABASE_URL`): set by `multiInstanceSuite`. */
let databaseUrl = PG_TEST_URL;

interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  stderr: string[];
}
/** Gateway requests seen by the relays: which instance, what, when it started and ended. */
interface GatewayCall {
  instance: string;
  method: string;
  path: string;
  orderId?: string;
  start: number;
  end: number;
  status: number;
}
const calls: GatewayCall[] = [];
/** Deliveries of payment updates: `updateId`, the instance that delivered it, when. */
const deliveries: {updateId: string; instance: string; at: number}[] = [];
/** Webhooks (sandbox → round-robin → instance) and what they were answered. */
const webhooks: {status: number}[] = [];
let sandboxUrl = '';
let roundRobin: {url: string; targets: string[]};
const instances: Instance[] = [];
/** The create faults to inject, per gateway order id prefix (an order's first create only). */
const faults = new Map<string, string>();

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Forwards `req` to `target` (whole bodies, which is all this test needs). */
async function forward(
  req: IncomingMessage,
  body: Buffer,
  target: string,
  extra: Record<string, string> = {},
): Promise<{status: number; headers: Headers; body: Buffer}> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k))
      headers[k] = v;
  }
  const res = await fetch(target + req.url, {
    method: req.method!,
    headers: {...headers, ...extra},
    ...(body.length > 0 ? {body: new Uint8Array(body)} : {}),
    redirect: 'manual',
  });
  return {status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer())};
}

function reply(
  res: ServerResponse,
  r: {status: number; headers: Headers; body: Buffer} | {status: number; json: unknown},
) {
  if ('json' in r) {
    res.writeHead(r.status, {'Content-Type': 'application/json'}).end(JSON.stringify(r.json));
    return;
  }
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => {
    if (!['content-encoding', 'transfer-encoding', 'content-length', 'connection'].includes(k))
      headers[k] = v;
  });
  res.writeHead(r.status, headers).end(r.body);
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  // Idle connections outlive the clients' (undici: 4 s), as a balancer's do: with Node's
  // 5 s a loaded machine let the server close one as the test's fetch reused it (a reset).
  server.keepAliveTimeout = 65_000;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The relay between one instance and the sandbox: records every call, injects faults. */
function gatewayRelay(instance: string): Promise<string> {
  return listen((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const call: GatewayCall = {
        instance,
        method: req.method!,
        path: req.url!,
        start: performance.now(),
        end: 0,
        status: 0,
      };
      const lookup = LOOKUP.exec(req.url!);
      if (lookup) call.orderId = decodeURIComponent(lookup[1]!);
      const extra: Record<string, string> = {};
      if (req.method === 'POST' && req.url === '/api/v1/payment') {
        const orderId = (JSON.parse(body.toString()) as {order_id: string}).order_id;
        call.orderId = orderId;
        for (const [prefix, fault] of faults) {
          if (orderId.startsWith(prefix)) {
            faults.delete(prefix);
            extra['X-Sandbox-Fault'] = fault;
          }
        }
      }
      try {
        const r = await forward(req, body, sandboxUrl, extra);
        call.status = r.status;
        reply(res, r);
      } catch {
        call.status = 599;
        res.destroy();
      } finally {
        call.end = performance.now();
        calls.push(call);
      }
    })();
  });
}

/** Round-robin over the instances; a refused connection tries the next one. */
async function startRoundRobin(): Promise<{url: string; targets: string[]}> {
  const targets: string[] = [];
  let next = 0;
  const url = await listen((req, res) => {
    void (async () => {
      const body = await readBody(req);
      for (let tries = 0; tries < targets.length * 2; tries++) {
        const target = targets[next++ % targets.length]!;
        try {
          const r = await forward(req, body, target);
          if (req.url!.endsWith('/webhook')) webhooks.push({status: r.status});
          return reply(res, r);
        } catch (error) {
          const code = (error as {cause?: {code?: string}}).cause?.code;
          // Refused: nothing reached that instance, try another. Else it died mid-request.
          if (code === 'ECONNREFUSED') continue;
          if (req.url!.endsWith('/webhook')) webhooks.push({status: 502});
          return reply(res, {status: 502, json: {error: {code: 'bad_gateway', message: 'x'}}});
        }
      }
      reply(res, {status: 502, json: {error: {code: 'bad_gateway', message: 'none up'}}});
    })();
  });
  return {url, targets};
}

/** The receiver of forwarded payment updates. */
function updateReceiver(): Promise<string> {
  return listen((req, res) => {
    void (async () => {
      const update = JSON.parse((await readBody(req)).toString()) as {updateId: string};
      deliveries.push({
        updateId: update.updateId,
        instance: String(req.headers['x-instance']),
        at: performance.now(),
      });
      res.writeHead(204).end();
    })();
  });
}

function track(child: ChildProcess, stderr: string[]) {
  children.add(child);
  child.stderr!.setEncoding('utf8').on('data', (c: string) => stderr.push(c));
  child.stdout!.resume();
  child.once('exit', () => children.delete(child));
}

async function startSandbox(): Promise<void> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'sandbox/cli.ts',
      '--port',
      String(port),
      '--pos-id',
      CREDENTIALS.posId,
      '--api-key',
      CREDENTIALS.apiKey,
      '--api-secret',
      CREDENTIALS.apiSecret,
      '--endpoints-key',
      CREDENTIALS.endpointsKey,
    ],
    {cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe']},
  );
  const stderr: string[] = [];
  children.add(child);
  child.stderr!.setEncoding('utf8').on('data', (c: string) => stderr.push(c));
  child.once('exit', () => children.delete(child));
  // Its line says it listens, or it exits first (no deadline: a hang is ended by the tier's
  // test timeout).
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sandbox exited (${code}): ${stderr.join('')}`)));
    createInterface({input: child.stdout!}).on('line', (line) => {
      if (line.startsWith('Gateway sandbox listening on ')) resolve();
    });
  });
  sandboxUrl = `http://127.0.0.1:${port}`;
}

async function startInstance(name: string): Promise<Instance> {
  const port = await freePort();
  const relay = await gatewayRelay(name);
  const receiver = await receiverUrl;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server-example/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: tmp,
      PUBLIC_URL: roundRobin.url,
      GATEWAY_BASE_URL: relay,
      POS_ID: CREDENTIALS.posId,
      API_KEY: CREDENTIALS.apiKey,
      API_SECRET: CREDENTIALS.apiSecret,
      ENDPOINTS_KEY: CREDENTIALS.endpointsKey,
      DATABASE_URL: databaseUrl,
      DATABASE_SCHEMA: schema,
      INSTANCE_ID: name,
      LEASE_MS: String(LEASE_MS),
      SWEEP_INTERVAL_MS: '500',
      PAYMENT_UPDATES_URL: receiver,
      ORDER_LIMIT: '1000000',
      PAY_ATTEMPTS_PER_IP: '1000000',
      PAY_ATTEMPTS_PER_ORDER: '1000',
      PAY_ATTEMPTS_PER_CARD: '1000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  track(child, stderr);
  const url = `http://127.0.0.1:${port}`;
  // Until it is healthy or has exited: no deadline ("i0 did not start" after 30 s was a
  // loaded machine, not a fault; a hang is ended by the tier's test timeout).
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited:\n${stderr.join('')}`);
    const ok = await fetch(`${url}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    await sleep(100);
  }
  return {name, url, child, stderr};
}

let receiverUrl: Promise<string>;

/**
 * Registers the suite: `title`, with the instances' database at `database()` (called
 * before they start; default the test database itself) and `done()` after the suite.
 */
export function multiInstanceSuite(
  title: string,
  opts: {skip: string | false; database?: () => Promise<string>; done?: () => Promise<void>},
): void {
  before(async () => {
    if (opts.skip) return;
    if (opts.database) databaseUrl = await opts.database();
    process.once('exit', killAll);
    receiverUrl = updateReceiver();
    roundRobin = await startRoundRobin();
    await startSandbox();
    const started = await Promise.all(
      Array.from({length: INSTANCES}, (_, i) => startInstance(`i${i}`)),
    );
    instances.push(...started);
    roundRobin.targets.push(...started.map((i) => i.url));
  });

  function killAll() {
    for (const c of children) c.kill('SIGKILL');
  }

  after(async () => {
    for (const c of [...children]) {
      c.kill('SIGTERM');
      await new Promise((resolve) => {
        const t = setTimeout(() => (c.kill('SIGKILL'), resolve(undefined)), 5000);
        c.once('exit', () => (clearTimeout(t), resolve(undefined)));
      });
    }
    process.off('exit', killAll);
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await dropSchemas();
    await opts.done?.();
    rmSync(tmp, {recursive: true, force: true});
  });

  const CHECKOUT = () => `${roundRobin.url}/api/checkout`;

  /** A pay request as the card form sends it, through the round-robin. */
  async function pay(orderRef: string, attemptId: string) {
    const res = await fetch(`${CHECKOUT()}/pay`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        Origin: new URL(roundRobin.url).origin,
        [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
      },
      body: JSON.stringify(payBody(orderRef, attemptId, CARDS.success)),
    });
    return {status: res.status, json: (await res.json()) as Record<string, unknown>};
  }

  /** Sends the same attempt again while the answer says to (a lost connection, a 5xx). */
  async function payRetrying(orderRef: string, attemptId: string) {
    for (let i = 0; ; i++) {
      const r = await pay(orderRef, attemptId).catch((error: unknown) => {
        if (i >= 20) throw error;
        return {status: 599, json: {} as Record<string, unknown>};
      });
      if (r.status < 500 || i >= 20) return r;
      await sleep(200);
    }
  }

  const logs = () =>
    instances.map((i) => `--- ${i.name}:\n${i.stderr.join('').slice(-1500)}`).join('\n');

  describe(title, {skip: opts.skip}, () => {
    test('200 submits over 100 orders: one charge each, states equal, webhooks and updates once, no lookup overlap', async (t) => {
      const started = performance.now();
      const orderRefs: string[] = [];
      for (let i = 0; i < ORDERS; i++) {
        const res = await fetch(`${roundRobin.url}/api/orders`, {
          method: 'POST',
          headers: {'Content-Type': 'application/json'},
          body: JSON.stringify({productId: 'mug'}),
        });
        assert.equal(res.status, 201);
        orderRefs.push(((await res.json()) as {orderRef: string}).orderRef);
      }
      // The sandbox's own faults on the first create of some orders.
      orderRefs.forEach((ref, i) => {
        if (i % 10 === 3) faults.set(`${ref}-`, '500-after-charge');
        if (i % 10 === 6) faults.set(`${ref}-`, '500');
        if (i % 10 === 8) faults.set(`${ref}-`, 'delay=1500');
      });

      // 200 at once: even orders submit one attempt twice, odd ones two attempts.
      const submits = orderRefs.flatMap((ref, i) =>
        i % 2 === 0
          ? [
              [ref, `${ref}-a`],
              [ref, `${ref}-a`],
            ]
          : [
              [ref, `${ref}-a`],
              [ref, `${ref}-b`],
            ],
      );
      const answers = Promise.all(submits.map(([ref, attempt]) => payRetrying(ref!, attempt!)));
      // Mid-flight: once the victim has sent some creates, kill -9 it; start it again later.
      const victim = instances[1]!;
      for (let i = 0; i < 300; i++) {
        if (calls.filter((c) => c.instance === victim.name && c.method === 'POST').length >= 5)
          break;
        await sleep(10);
      }
      const killedAt = performance.now();
      victim.child.kill('SIGKILL');
      await new Promise((resolve) => victim.child.once('exit', resolve));
      const exitedAt = performance.now();
      await answers;
      const restarted = await startInstance('i1-restarted');
      instances.push(restarted);
      roundRobin.targets[1] = restarted.url;

      // The customer: until the order is paid, "Try again" (a new attempt) after a pause.
      await Promise.all(
        orderRefs.map(async (ref) => {
          for (let k = 0; k < 60; k++) {
            const r = await payRetrying(ref, `${ref}-retry-${k}`);
            if (r.json['outcome'] === 'success') return;
            await sleep(500);
          }
          assert.fail(`${ref} was never paid\n${logs()}`);
        }),
      );

      // Quiet: the outbox delivered, a stored success webhook for every charge.
      const quiet = `SELECT
        (SELECT COUNT(*)::int FROM ${schema}.outbox WHERE delivered_at IS NULL) AS undelivered,
        (SELECT COUNT(*)::int FROM ${schema}.webhook_events WHERE status = 'success') AS successes`;
      for (let i = 0; i < 150; i++) {
        const [row] = await pgQuery<{undelivered: number; successes: number}>(quiet);
        if (row!.undelivered === 0 && row!.successes >= ORDERS) break;
        await sleep(200);
      }

      // 1. Exactly one charge per order at the sandbox.
      const payments = (
        (await (await fetch(`${sandboxUrl}/sandbox/payments`)).json()) as {
          orderId: string;
          status: string;
        }[]
      ).filter((p) => orderRefs.some((ref) => isPaymentOf(ref, p.orderId)));
      const charges = payments.filter((p) => p.status === 'success');
      const perOrder = orderRefs.map(
        (ref) => charges.filter((p) => isPaymentOf(ref, p.orderId)).length,
      );

      // 2. Every attempt in the database in the sandbox's state.
      const attempts = await pgQuery<{
        gateway_order_id: string;
        state: string;
        failure_reason: string | null;
      }>(`SELECT gateway_order_id, state, failure_reason FROM ${schema}.attempts`);
      const atSandbox = new Map(payments.map((p) => [p.orderId, p.status]));
      const differing = attempts.filter((a) =>
        atSandbox.has(a.gateway_order_id)
          ? atSandbox.get(a.gateway_order_id) !== a.state
          : !(a.state === 'failure' && a.failure_reason === 'not_created'),
      );

      // 3. Webhooks: each event the sandbox delivered is stored once.
      const log = (await (await fetch(`${sandboxUrl}/sandbox/webhooks`)).json()) as {
        ok: boolean;
        summary: {order_id?: string; status?: string};
      }[];
      const delivered = new Set(
        log.filter((d) => d.ok).map((d) => `${d.summary.order_id}:${d.summary.status}`),
      );
      const events = await pgQuery<{k: string; n: number}>(
        `SELECT gateway_order_id || ':' || status AS k, COUNT(*)::int AS n
       FROM ${schema}.webhook_events GROUP BY 1`,
      );
      const storedTwice = events.filter((e) => e.n !== 1);
      const missing = [...delivered].filter((k) => !events.some((e) => e.k === k));

      // 4. Outbox: every entry delivered; twice only if the victim may have sent it as it died.
      const entries = await pgQuery<{id: string; delivered_at: string | null}>(
        `SELECT id::text, delivered_at FROM ${schema}.outbox`,
      );
      const byUpdate = new Map<string, typeof deliveries>();
      for (const d of deliveries)
        byUpdate.set(d.updateId, [...(byUpdate.get(d.updateId) ?? []), d]);
      const notDelivered = entries.filter((e) => !byUpdate.has(e.id) || e.delivered_at === null);
      const twice = [...byUpdate.values()].filter((list) => list.length > 1);
      // The victim may have delivered an entry and died before marking it: another
      // instance delivers it again once the claim runs out (at least half a lease after
      // the victim began: it re-claims before that). Nothing else may come twice.
      const unexplained = twice.filter(
        (list) =>
          list.length > 2 ||
          list[0]!.instance !== victim.name ||
          list[0]!.at > exitedAt + 100 ||
          list[1]!.at < list[0]!.at + LEASE_MS / 2 - 50,
      );
      const takenOver = deliveries.filter(
        (d) => d.instance !== victim.name && d.at > killedAt,
      ).length;

      // 5. No lookup of one payment by two instances at once.
      const lookups = calls.filter((c) => c.method === 'GET' && c.orderId);
      const overlaps: string[] = [];
      for (const a of lookups) {
        for (const b of lookups) {
          if (
            a !== b &&
            a.orderId === b.orderId &&
            a.instance !== b.instance &&
            a.start < b.start &&
            b.start < a.end
          )
            overlaps.push(
              `${a.orderId}: ${a.instance} ${a.path} [${a.start.toFixed(0)}, ${a.end.toFixed(0)}] and ${b.instance} ${b.path} from ${b.start.toFixed(0)}`,
            );
        }
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      t.diagnostic(
        `charges ${charges.length} (expected ${ORDERS}); creates ${calls.filter((c) => c.method === 'POST').length}; ` +
          `lookups ${lookups.length}, overlapping ${overlaps.length}; webhooks through the round-robin ${webhooks.length} ` +
          `(${webhooks.filter((w) => w.status >= 500).length} answered 5xx), distinct delivered events ${delivered.size}, stored ${events.length}; ` +
          `outbox entries ${entries.length}, deliveries ${deliveries.length} (${twice.length} twice, after the kill by others ${takenOver}); ` +
          `attempts ${attempts.length}; ${seconds} s`,
      );
      assert.deepEqual(
        perOrder.map((n, i) => [orderRefs[i], n]).filter(([, n]) => n !== 1),
        [],
        `orders without exactly one charge\n${logs()}`,
      );
      assert.equal(charges.length, ORDERS);
      assert.deepEqual(differing, [], 'attempts whose state differs from the sandbox');
      assert.deepEqual(storedTwice, [], 'webhook events stored more than once');
      assert.deepEqual(missing, [], 'webhooks the sandbox delivered that were not stored');
      assert.deepEqual(notDelivered, [], 'outbox entries never delivered');
      assert.deepEqual(
        unexplained.map((list) =>
          list.map(
            (d) =>
              `${d.updateId} by ${d.instance} at kill${d.at >= killedAt ? '+' : ''}${Math.round(d.at - killedAt)} ms`,
          ),
        ),
        [],
        'outbox entries delivered twice',
      );
      assert.deepEqual(overlaps, [], 'lookups of one payment by two instances at once');
    });
  });
}
