/**
 * The checkout rush (`npm run bench -- rush`, issue #28): 1, 2 and 4 instances of the real
 * `server-example/main.ts` (separate processes) on one PostgreSQL schema, behind a
 * round-robin proxy process (for one instance too: the same hops), against one
 * standalone gateway sandbox. 1,000 orders are created first (untimed); then an open-loop
 * burst of 1,000 checkouts, each due at its time whether or not the earlier ones were
 * answered: a customer (an address and a card of their own) submits the pay form with a
 * double click (the same attempt twice) and from a second tab (another attempt) at once,
 * sends an attempt again after a 503 or 429 (after its `Retry-After`), another 5xx or a
 * lost connection, asks the status while the answer is not final ("Check again"), and tries a
 * new attempt after a final failure ("Try again"), until paid or two minutes passed.
 *
 * Reported per instance count: charges at the sandbox against orders, orders charged twice
 * (`doubled`, must be 0), `lost` (a customer told paid without a charge, or a charge the
 * shop does not show paid: must be 0), checkouts not paid at the end, every answer by
 * status (and error code), how many 503s were followed by a success of the same attempt,
 * the p50/p99 time from a checkout's due time to its first final answer, and the
 * throughput (checkouts paid per second of the burst) relative to one instance. The same
 * again with the machine's cores saturated by busy processes beside the instances
 * (`saturated`). A doubled or lost payment, a 503 that is not `busy` with `Retry-After`
 * (a `store_unavailable` while the database is up), a refused attempt never answered on
 * retry, a customer who gave up unpaid, or a request answered 5xx but 503 or cut (a reset,
 * a timeout) is a `failure` (the run exits 1).
 *
 * `RUSH_CHECKOUTS` (default 1000), `RUSH_RATE` (checkouts per second, default 200),
 * `RUSH_INSTANCES` (default `1,2,4`) and `RUSH_LOADS` (default `quiet,saturated`) narrow
 * it. `RUSH_SIZES` sweeps the sizing, a list of `<pool>x<maxInFlight>[x<queue>]` (each
 * instance's `DATABASE_POOL_SIZE`, `ADMISSION_MAX_IN_FLIGHT` and `ADMISSION_QUEUE`;
 * default `10x64x512`, the defaults): every variant runs once per size. Skipped, with the
 * reason, without PostgreSQL.
 */
import {randomBytes} from 'node:crypto';
import http from 'node:http';
import {cpus, loadavg, tmpdir} from 'node:os';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import path from 'node:path';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../src/protocol/checkout.js';
import {freePort, startChild, type Child} from './server/children.js';
import {
  appPayTarget,
  createOrders,
  nextCustomer,
  payBody,
  type Customer,
} from './server/payments.js';
import {percentile, round} from './stats.js';
import {
  createSchema,
  dropSchema,
  skipReason,
  startApp,
  startProxy,
  startSandbox,
  withPg,
  PG_TEST_URL,
} from './server/system.js';

const CHECKOUTS = Number(process.env['RUSH_CHECKOUTS'] ?? 1000);
const RATE = Number(process.env['RUSH_RATE'] ?? 200);
const INSTANCES = (process.env['RUSH_INSTANCES'] ?? '1,2,4').split(',').map(Number);
const LOADS = (process.env['RUSH_LOADS'] ?? 'quiet,saturated').split(',') as (
  'quiet' | 'saturated'
)[];
const SIZES = (process.env['RUSH_SIZES'] ?? '10x64x512').split(',').map((size) => {
  const [pool, maxInFlight, queue] = size.split('x').map(Number);
  if (!pool || !maxInFlight)
    throw new Error(`RUSH_SIZES: ${size} is not <pool>x<maxInFlight>[x<queue>]`);
  return {pool, maxInFlight, queue: queue ?? 512};
});
type Size = (typeof SIZES)[number];
/** A customer gives up this long after their checkout was due. */
const PATIENCE_MS = 120_000;
/** The longest wait a `Retry-After` may ask of the simulated customer. */
const MAX_RETRY_AFTER_S = 10;

type Json = Record<string, unknown>;
type Reply = {status: number; retryAfter: number | undefined; json: Json} | {error: string};

let agent = new http.Agent({keepAlive: true, maxSockets: Infinity});

function send(url: string, method: 'GET' | 'POST', headers: Json, body?: string): Promise<Reply> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers: {
          ...(headers as Record<string, string>),
          ...(body ? {'Content-Length': String(Buffer.byteLength(body))} : {}),
        },
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e: NodeJS.ErrnoException) => resolve({error: e.code ?? e.message}));
        res.on('end', () => {
          let json: Json = {};
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
          } catch {
            // not JSON: the status says enough
          }
          const after = Number(res.headers['retry-after']);
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: Number.isFinite(after) ? after : undefined,
            json,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({error: e.code ?? e.message}));
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers of one variant, by status (`503 busy`, `200`, `ECONNRESET`). */
class Tally {
  readonly answers: Record<string, number> = {};
  /** Sends of one attempt that met a 503 and then were answered 200, or were not. */
  retried = {thenAnswered: 0, never: 0};
  /** 503s that were not `busy` with a `Retry-After` (must be 0 while the database is up). */
  bad503 = 0;
  /** Requests answered 5xx but 503 (a 500, the balancer's 502), or cut (a reset, a timeout). */
  cut(): number {
    return Object.entries(this.answers)
      .filter(([key]) => !/^\d/.test(key) || (/^5\d\d/.test(key) && !key.startsWith('503')))
      .reduce((sum, [, n]) => sum + n, 0);
  }
  count(r: Reply): void {
    if (!('error' in r) && r.status === 503) {
      const code = (r.json['error'] as Json | undefined)?.['code'];
      if (code !== 'busy' || r.retryAfter === undefined) this.bad503++;
    }
    const key =
      'error' in r
        ? r.error
        : r.status >= 400 && typeof (r.json['error'] as Json | undefined)?.['code'] === 'string'
          ? `${r.status} ${String((r.json['error'] as Json)['code'])}`
          : String(r.status);
    this.answers[key] = (this.answers[key] ?? 0) + 1;
  }
}

interface Outcome {
  orderRef: string;
  /** When the customer first had a final answer, from the checkout's due time (ms). */
  finalMs: number | undefined;
  /** When the customer was told paid, from the checkout's due time (ms). */
  paidMs: number | undefined;
  toldPaid: boolean;
}

/** One customer's checkout, as the card form and its page behave (see the module comment). */
async function checkout(
  appUrl: string,
  orderRef: string,
  customer: Customer,
  due: number,
  tally: Tally,
): Promise<Outcome> {
  const pay = appPayTarget(appUrl);
  const headers = {...pay.headers, 'X-Forwarded-For': customer.ip};
  const outcome: Outcome = {orderRef, finalMs: undefined, paidMs: undefined, toldPaid: false};
  const note = (json: Json, final: boolean) => {
    const at = performance.now() - due;
    if (final) outcome.finalMs ??= at;
    if (json['outcome'] === 'success' || json['state'] === 'success') {
      outcome.toldPaid = true;
      outcome.paidMs ??= at;
    }
  };
  const deadline = due + PATIENCE_MS;
  /** Sends attempt `k` until it is answered with something but 503/429 or a lost connection. */
  const attempt = async (k: number): Promise<Json | undefined> => {
    let refused = false;
    while (performance.now() < deadline) {
      const r = await send(pay.url, 'POST', headers, payBody(orderRef, k, customer));
      tally.count(r);
      if ('error' in r) {
        await sleep(500);
        continue;
      }
      if (r.status === 503 || r.status === 429) {
        refused ||= r.status === 503;
        await sleep(Math.min(MAX_RETRY_AFTER_S, r.retryAfter ?? 1) * 1000);
        continue;
      }
      // A 502 (the proxy lost the instance's answer) or a 500: the card form offers the
      // same attempt again, and the customer takes it.
      if (r.status >= 500) {
        await sleep(500);
        continue;
      }
      if (refused) tally.retried[r.status === 200 ? 'thenAnswered' : 'never']++;
      if (r.status !== 200) return undefined;
      const json = r.json;
      const final =
        json['outcome'] === 'success' ||
        (json['outcome'] === 'failure' && json['code'] !== 'not_confirmed');
      note(json, final);
      return json;
    }
    if (refused) tally.retried.never++;
    return undefined;
  };
  // The double click and the second tab, at once.
  const first = await Promise.all([attempt(0), attempt(0), attempt(1)]);
  if (first.some((j) => j?.['outcome'] === 'success')) return outcome;
  for (let k = 2; performance.now() < deadline; k++) {
    // "Check again" until the payment's state is final.
    let state: string | undefined;
    while (performance.now() < deadline) {
      const r = await send(`${appUrl}/api/checkout/status?order=${orderRef}`, 'GET', {
        [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
        'X-Forwarded-For': customer.ip,
      });
      tally.count(r);
      if (!('error' in r) && r.status === 200 && r.json['final'] === true) {
        state = String(r.json['state']);
        note(r.json, true);
        break;
      }
      await sleep(!('error' in r) && r.retryAfter ? r.retryAfter * 1000 : 500);
    }
    if (state === 'success') return outcome;
    // "Try again": a new attempt.
    const again = await attempt(k);
    if (again?.['outcome'] === 'success') return outcome;
  }
  return outcome;
}

/**
 * The machine's count of connections the kernel dropped or reset because a listening
 * socket's accept queue was full (`ListenOverflows` in /proc/net/netstat), or undefined.
 */
function listenOverflows(): number | undefined {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const i = lines.findIndex((l) => l.startsWith('TcpExt:'));
    const names = lines[i]!.split(/\s+/);
    const values = lines[i + 1]!.split(/\s+/);
    const value = Number(values[names.indexOf('ListenOverflows')]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `n` busy processes beside the system (one per core saturates the machine). */
async function busy(n: number, dir: string, started: Child[]): Promise<void> {
  await Promise.all(
    Array.from({length: n}, (_, i) =>
      startChild({
        started,
        name: `busy-${i}`,
        script: 'bench/server/busy-process.ts',
        logFile: path.join(dir, `busy-${i}.log`),
        readyPattern: /busy/,
      }),
    ),
  );
}

interface Figures {
  instances: number;
  load: 'quiet' | 'saturated';
  /** Each instance's pool, requests at once and queue. */
  size: Size;
  checkouts: number;
  rate: number;
  orders: number;
  charges: number;
  doubled: number;
  lost: number;
  notPaid: number;
  answers: Record<string, number>;
  retriedAfter503: {thenAnswered: number; never: number};
  /** 503s other than `busy` with `Retry-After` (`store_unavailable` among them). */
  not503Busy: number;
  finalP50Ms: number;
  finalP99Ms: number;
  paidP99Ms: number;
  throughput: number;
  relativeToOne?: number;
  loadAvg: {before: number; after: number};
  /** Connections the machine's kernel dropped for a full accept queue during the burst. */
  listenOverflows?: number;
  failure?: string;
}

async function runVariant(
  instances: number,
  load: 'quiet' | 'saturated',
  size: Size,
): Promise<Figures> {
  const dir = mkdtempSync(path.join(tmpdir(), `pg-bench-rush-${instances}-`));
  const schema = `bench_rush_${randomBytes(4).toString('hex')}`;
  const started: Child[] = [];
  const loadBefore = loadavg()[0]!;
  await createSchema(schema);
  try {
    const sandbox = await startSandbox(started, dir);
    const sandboxUrl = sandbox.ready[1]!;
    const frontPort = await freePort();
    const frontUrl = `http://127.0.0.1:${frontPort}`;
    const ports = await Promise.all(Array.from({length: instances}, () => freePort()));
    await Promise.all(
      ports.map((port, i) =>
        startApp(started, {
          port,
          publicUrl: frontUrl,
          sandboxUrl,
          dataDir: path.join(dir, `app-${i}`),
          logFile: path.join(dir, `app-${i}.log`),
          instanceId: `rush-${i}`,
          databaseUrl: PG_TEST_URL,
          schema,
          // A customer's double click, second tab and retries are more than 5 attempts.
          env: {
            PAY_ATTEMPTS_PER_ORDER: '100',
            ORDER_LOOKUPS_PER_IP: '100000',
            DATABASE_POOL_SIZE: String(size.pool),
            ADMISSION_MAX_IN_FLIGHT: String(size.maxInFlight),
            ADMISSION_QUEUE: String(size.queue),
          },
        }),
      ),
    );
    await startProxy(
      started,
      'round-robin',
      ports.map((p) => `http://127.0.0.1:${p}`),
      dir,
      frontPort,
    );
    const orderRefs = await createOrders(frontUrl, CHECKOUTS);
    const customers = orderRefs.map(() => nextCustomer());
    if (load === 'saturated') await busy(cpus().length, dir, started);

    // The burst, open loop: checkout i is due at start + i / RATE.
    const tally = new Tally();
    const overflowsBefore = listenOverflows();
    const start = performance.now();
    const runs: Promise<Outcome>[] = [];
    for (let i = 0; i < CHECKOUTS; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      runs.push(checkout(frontUrl, orderRefs[i]!, customers[i]!, due, tally));
    }
    const outcomes = await Promise.all(runs);
    const overflowsAfter = listenOverflows();
    const burstMs = Math.max(
      ...outcomes.map((o, i) => (o.paidMs ?? 0) + (i * 1000) / RATE),
      (CHECKOUTS * 1000) / RATE,
    );
    const paidCount = outcomes.filter((o) => o.toldPaid).length;

    // The shop marks an order paid when the update reaches it (the outbox): a moment later.
    const charged = async () => {
      const payments = (await (await fetch(`${sandboxUrl}/sandbox/payments`)).json()) as {
        orderId: string;
        status: string;
      }[];
      const byOrder = new Map<string, number>();
      for (const p of payments) {
        if (p.status !== 'success') continue;
        const ref = /^(ord-[0-9a-f]{12})-/.exec(p.orderId)?.[1];
        if (ref) byOrder.set(ref, (byOrder.get(ref) ?? 0) + 1);
      }
      return byOrder;
    };
    const paidInShop = () =>
      withPg(async (c) => {
        const rows = await c.query<{order_ref: string}>(
          `SELECT order_ref FROM ${schema}.example_orders WHERE paid = 1`,
        );
        return new Set(rows.rows.map((r) => r.order_ref));
      });
    let byOrder = await charged();
    let shown = await paidInShop();
    for (let i = 0; i < 150 && [...byOrder.keys()].some((ref) => !shown.has(ref)); i++) {
      await sleep(200);
      [byOrder, shown] = await Promise.all([charged(), paidInShop()]);
    }
    const charges = [...byOrder.values()].reduce((a, b) => a + b, 0);
    const doubled = [...byOrder.values()].filter((n) => n > 1).length;
    const toldWithoutCharge = outcomes.filter((o) => o.toldPaid && !byOrder.has(o.orderRef));
    const chargedNotShown = [...byOrder.keys()].filter((ref) => !shown.has(ref));
    const lost = toldWithoutCharge.length + chargedNotShown.length;

    const finals = outcomes.map((o) => o.finalMs ?? PATIENCE_MS).sort((a, b) => a - b);
    const paidTimes = outcomes.map((o) => o.paidMs ?? PATIENCE_MS).sort((a, b) => a - b);
    const failure = [
      doubled ? `${doubled} orders charged twice` : '',
      tally.bad503 ? `${tally.bad503} answers of 503 that were not busy with Retry-After` : '',
      lost
        ? `${lost} payments lost (${toldWithoutCharge.length} told paid without a charge, ${chargedNotShown.length} charged and not shown paid)`
        : '',
      tally.retried.never
        ? `${tally.retried.never} attempts refused 503 and never answered 200 on retry`
        : '',
      CHECKOUTS - paidCount ? `${CHECKOUTS - paidCount} customers gave up unpaid` : '',
      tally.cut()
        ? `${tally.cut()} requests answered 5xx but 503, or cut (a reset, no answer in 60 s)`
        : '',
    ]
      .filter(Boolean)
      .join('; ');
    return {
      instances,
      load,
      size,
      checkouts: CHECKOUTS,
      rate: RATE,
      orders: orderRefs.length,
      charges,
      doubled,
      lost,
      notPaid: CHECKOUTS - paidCount,
      answers: tally.answers,
      retriedAfter503: tally.retried,
      not503Busy: tally.bad503,
      finalP50Ms: round(percentile(finals, 0.5), 0),
      finalP99Ms: round(percentile(finals, 0.99), 0),
      paidP99Ms: round(percentile(paidTimes, 0.99), 0),
      throughput: round(paidCount / (burstMs / 1000), 1),
      loadAvg: {before: round(loadBefore), after: round(loadavg()[0]!)},
      ...(overflowsBefore !== undefined && overflowsAfter !== undefined
        ? {listenOverflows: overflowsAfter - overflowsBefore}
        : {}),
      ...(failure ? {failure} : {}),
    };
  } finally {
    agent.destroy();
    agent = new http.Agent({keepAlive: true, maxSockets: Infinity});
    await Promise.all(started.map((c) => c.stop()));
    await dropSchema(schema);
    if (process.env['BENCH_KEEP_LOGS']) console.error(`bench: logs kept in ${dir}`);
    else rmSync(dir, {recursive: true, force: true});
  }
}

export default async function rushBench(): Promise<Record<string, unknown>[]> {
  const skip = await skipReason('postgres-1');
  if (skip) return [{skipped: skip}];
  const results: Figures[] = [];
  for (const size of SIZES) {
    for (const load of LOADS) {
      for (const instances of INSTANCES) {
        const figures = await runVariant(instances, load, size);
        const one = results.find((r) => r.load === load && r.instances === 1 && r.size === size);
        if (one) figures.relativeToOne = round(figures.throughput / one.throughput);
        else if (instances === 1) figures.relativeToOne = 1;
        results.push(figures);
      }
    }
  }
  return results as unknown as Record<string, unknown>[];
}
