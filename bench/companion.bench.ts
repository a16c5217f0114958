/**
 * The pay route's added cost. Against the same sandbox, in the same run, alternating
 * rounds: (a) a bare pass-through proxy that forwards a ready direct-payment JSON to the
 * sandbox's create-payment endpoint and returns its answer, and (b) the companion's
 * `POST /pay` (validation, order lookup, request building, durable SQLite writes before
 * and after the gateway call, webhook ingestion). Figures: requests/s and p99 latency of
 * each, and the ratios companion/proxy. Goals: p99 ratio ≤ 1.3, throughput ratio ≥ 0.75.
 *
 * Both sides get the same warm-up, concurrency and number of requests; the order of the
 * two alternates from round to round, and before each round the sandbox's webhooks of
 * the previous one are delivered (untimed; reported), so neither side's rounds carry the
 * other's leftover work. Throughput is the median of the rounds; p99 is over every
 * request of a side, pooled, so it rests on enough requests to be stable.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pino} from 'pino';
import {startSandbox} from '../sandbox/index.js';
import {SqlitePaymentStore, createCheckoutApp} from '../src/server/index.js';
import {median, pooledPercentile, round, runLoad, serveLoopback, type LoadResult} from './load.js';

const ROUNDS = 6;
const PER_ROUND = 400;
const WARM_UP = 200;
const CONCURRENCY = 8;

const fingerprint = {
  browserColorDepth: '24',
  browserScreenHeight: '1080',
  browserScreenWidth: '1920',
  browserJavaEnabled: 'false',
  browserLanguage: 'en-US',
  browserTimeZone: 'Europe/Kyiv',
  browserTimeZoneOffset: '-120',
  browserUserAgent: 'bench',
};
const card = {
  number: '4242424242424242',
  expMonth: 12,
  expYear: new Date().getFullYear() + 2,
  cvv: '123',
};
const customer = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  phone: '+380501234567',
};

export default async function companionBench() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'pg-bench-companion-'));
  const sandbox = await startSandbox({});
  const store = new SqlitePaymentStore({
    filename: path.join(tmp, 'bench.db'),
    synchronous: (process.env.BENCH_SYNC as 'FULL') ?? 'NORMAL',
  });
  const companionServer = await serveLoopback();
  const proxyServer = await serveLoopback();
  const app = createCheckoutApp({
    gateway: {
      ...sandbox.clientOptions(),
    },
    store,
    publicUrl: companionServer.url,
    returnPage: '/thanks',
    resolveOrder: (orderRef) => ({
      amount: '1.50',
      currency: 'XTS',
      description: `Order ${orderRef}`,
    }),
    logger: pino({level: 'info'}, pino.destination({dest: '/dev/null', sync: false})),
    rateLimit: {
      maxAttemptsPerIp: 1_000_000,
      maxAttemptsPerOrder: 1_000_000,
      maxAttemptsPerCard: 1_000_000,
      windowMs: 60_000,
    },
  });
  companionServer.setHandler((req, env) => app.fetch(req, env as never));

  const auth = {
    'X-API-Auth': `CPAY ${sandbox.credentials.apiKey}:${sandbox.credentials.apiSecret}`,
    'X-API-Key': sandbox.credentials.endpointsKey,
  };
  proxyServer.setHandler(async function bareProxy(req) {
    const url = new URL(req.url);
    if (url.pathname === '/webhook') return new Response(null, {status: 200});
    const res = await fetch(`${sandbox.url}/api/v1/payment`, {
      method: 'POST',
      headers: {'Content-Type': 'application/json', Accept: 'application/json', ...auth},
      body: await req.text(),
    });
    return new Response(await res.text(), {
      status: res.status,
      headers: {'Content-Type': 'application/json'},
    });
  });

  const sendProxy = async (i: number) => {
    const res = await fetch(`${proxyServer.url}/pay`, {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({
        pos_id: sandbox.credentials.posId,
        mode: 'direct',
        method: 'purchase',
        amount: 1.5,
        currency: 'XTS',
        description: `Order p${i}`,
        order_id: `proxy-${i}-${Date.now()}`,
        order_3ds_bypass: 'supported',
        cc_number: card.number,
        exp_month: card.expMonth,
        exp_year: card.expYear,
        card_cvv: card.cvv,
        customer_fname: customer.firstName,
        customer_lname: customer.lastName,
        customer_email: customer.email,
        customer_phone: customer.phone,
        customer_ip: '127.0.0.1',
        browser_fingerprint: {
          ...fingerprint,
          browserAcceptHeader: '*/*',
          browserIpAddress: '127.0.0.1',
        },
        server_url: `${proxyServer.url}/webhook`,
        result_url: `${proxyServer.url}/return`,
      }),
    });
    const body = (await res.json()) as {status?: string};
    return res.ok && body.status === 'success';
  };
  const sendCompanion = async (i: number) => {
    const res = await fetch(`${companionServer.url}/pay`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-PG-Checkout': '1',
        Accept: 'application/json',
      },
      body: JSON.stringify({
        orderRef: `bench-${i}`,
        attemptId: `att-${i}`,
        card,
        customer,
        fingerprint,
      }),
    });
    const body = (await res.json()) as {outcome?: string};
    return res.ok && body.outcome === 'success';
  };

  const proxy: LoadResult[] = [];
  const companion: LoadResult[] = [];
  const drainMs = {proxy: [] as number[], companion: [] as number[]};
  /** The side whose round ran last (`undefined` after the warm-up). */
  let last: 'proxy' | 'companion' | undefined;
  /** Delivers the last round's pending webhooks, before the next round starts. */
  const drain = async () => {
    const started = performance.now();
    await sandbox.webhooksIdle();
    if (last) drainMs[last].push(performance.now() - started);
  };
  const run = async (side: 'proxy' | 'companion', r: number) => {
    await drain();
    last = side;
    const result = await runLoad(side === 'proxy' ? sendProxy : sendCompanion, {
      total: PER_ROUND,
      concurrency: CONCURRENCY,
      offset: r * PER_ROUND,
    });
    (side === 'proxy' ? proxy : companion).push(result);
  };
  try {
    // Warm-up: connections, JIT, SQLite pages.
    await runLoad(sendProxy, {total: WARM_UP, concurrency: CONCURRENCY, offset: 900_000});
    await runLoad(sendCompanion, {total: WARM_UP, concurrency: CONCURRENCY, offset: 900_000});
    for (let r = 0; r < ROUNDS; r++) {
      const order =
        r % 2 === 0 ? (['proxy', 'companion'] as const) : (['companion', 'proxy'] as const);
      for (const side of order) await run(side, r);
    }
    await drain();
  } finally {
    await app.close();
    await companionServer.close();
    await proxyServer.close();
    await store.close();
    await sandbox.close();
    rmSync(tmp, {recursive: true, force: true});
  }
  const proxyRps = median(proxy.map((x) => x.rps));
  const companionRps = median(companion.map((x) => x.rps));
  const proxyP99 = pooledPercentile(proxy, 0.99);
  const companionP99 = pooledPercentile(companion, 0.99);
  const throughputRatio = round(companionRps / proxyRps);
  const p99Ratio = round(companionP99 / proxyP99);
  return {
    concurrency: CONCURRENCY,
    requestsPerRound: PER_ROUND,
    rounds: ROUNDS,
    proxyRps,
    companionRps,
    proxyP50Ms: pooledPercentile(proxy, 0.5),
    companionP50Ms: pooledPercentile(companion, 0.5),
    proxyP99Ms: proxyP99,
    companionP99Ms: companionP99,
    throughputRatio,
    p99Ratio,
    errors: [...proxy, ...companion].reduce((n, x) => n + x.errors, 0),
    /** Time the sandbox took after each side's rounds to deliver their remaining webhooks. */
    proxyWebhookDrainMs: round(median(drainMs.proxy)),
    companionWebhookDrainMs: round(median(drainMs.companion)),
    goals: {throughputRatioAtLeast: 0.75, p99RatioAtMost: 1.3},
    meetsGoals: throughputRatio >= 0.75 && p99Ratio <= 1.3,
  };
}
