/**
 * The shop-wide card-testing breaker (issue 29), against the sandbox over real HTTP. A
 * botnet tests 200 cards from 200 addresses, each on an order of its own, most of them
 * declined (a sandbox fault rule declines every card ending in 0002): every per-key limit
 * (address, order, card) passes each of them. Two companions on one store (two
 * connections to one SQLite file; two pools on one PostgreSQL schema) share the attack
 * between them. With the breaker on, the gateway sees the first payments, until the decline
 * rate passes its level, and then `admitPerMinute` a minute; the rest are refused with 429
 * and `Retry-After`. The shop's signed-in customers paying beside it keep paying. The
 * merchant hears it once (`onChange`, shared by both processes) and in the log, and the
 * back office's `cardTesting()` says `open`. Measured: creates reaching the gateway out of
 * 200. Then, on a clock moved past the window, the breaker closes by itself.
 *
 * The companions run on a clock of the test's (`ATTACK_AT`, not moving): the whole attack
 * falls in one minute, so how many the breaker admits does not hang on where the wall
 * clock's minute boundaries fall; the customers join as the attack progresses, not after
 * timed waits.
 */
import {after, before, describe, test, type TestContext} from 'node:test';
import assert from 'node:assert/strict';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  SqlitePaymentStore,
  PostgresPaymentStore,
  type CardTestingState,
  type PaymentStore,
} from '../../../src/server/index.js';
import {
  CARDS,
  StubGateway,
  catalogue,
  inProcessApp,
  pay,
  payBody,
  payHttp,
  record,
  serveCompanion,
  tempStores,
  type ServedCompanion,
} from './helpers.js';
import {IN_PROCESS_SKIP, PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

const BOTS = 200;
const CONCURRENCY = 8;
const LEVEL = {minDecided: 20, maxDeclineRate: 0.5, admitPerMinute: 5};
/** The companions' clock during an attack: 10 s into a minute, all the attack long. */
const ATTACK_AT = Date.parse('2031-03-01T09:00:10Z');

const stores = tempStores('pg-card-testing');
let sandbox: Sandbox;
before(async () => {
  sandbox = await startSandbox();
  const res = await fetch(`${sandbox.url}/sandbox/faults`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({match: {card_last4: '0002'}, fault: 'decline'}),
  });
  assert.equal(res.status, 201);
});
after(async () => {
  await sandbox?.close();
  await stores.cleanup();
  await dropSchemas();
});

/** A Visa number (Luhn-valid, card-validator's check) of its own, ending in `last4`. */
function cardNumber(i: number, last4: string): string {
  const body = `4${String(7_000_000_000 + i * 7919).padStart(10, '0')}`;
  const digits = `${body}0${last4}`.split('').map(Number);
  // The digit before last4 is the one not doubled (4th from the right, 0-based): set it so
  // the Luhn sum is a multiple of ten.
  const sum = digits
    .reverse()
    .map((d, k) => (k % 2 === 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d))
    .reduce((a, b) => a + b, 0);
  return `${body}${(10 - (sum % 10)) % 10}${last4}`;
}

/** Which of the 200 bot cards the sandbox approves (one in ten); the rest are declined. */
const approved = (i: number) => i % 10 === 9;

async function attack(t: TestContext, pair: [ServedCompanion, ServedCompanion], tag: string) {
  const statuses: Record<string, number> = {};
  const vipOutcomes: string[] = [];
  let next = 0;
  let sent = 0;
  /** Customers waiting for the attack to reach a number of answered bot payments. */
  const waiting: {n: number; resolve: () => void}[] = [];
  const progressed = () => {
    sent++;
    for (const w of waiting.filter((w) => sent >= w.n)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  };
  const reachedSent = (n: number) =>
    sent >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({n, resolve}));
  const bots = Array.from({length: CONCURRENCY}, async () => {
    while (next < BOTS) {
      const i = next++;
      const via = pair[i % 2]!;
      const card = cardNumber(i, approved(i) ? '4242' : '0002');
      const r = await payHttp(via.url, payBody(`bot-${tag}-${i}`, `att-bot-${tag}-${i}`, card), {
        'X-Forwarded-For': `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`,
      });
      const key = r.status === 200 ? String(r.json['outcome']) : `${r.status} ${errorCode(r.json)}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (r.status === 429) {
        const retry = (r.json['error'] as {retryAfter?: number}).retryAfter;
        assert.ok(retry !== undefined && retry >= 1 && retry <= 60, 'Retry-After within a minute');
      }
      progressed();
    }
  });
  // The shop's signed-in customers, paying beside the attack: one each 20 bot payments.
  const customers = Array.from({length: 10}, async (_, k) => {
    await reachedSent(k * (BOTS / 10));
    const via = pair[k % 2]!;
    const r = await payHttp(
      via.url,
      payBody(`vip-${tag}-${k}`, `att-vip-${tag}-${k}`, cardNumber(1000 + k, '4242')),
      {
        'X-Forwarded-For': `192.0.2.${k + 1}`,
      },
    );
    vipOutcomes.push(r.status === 200 ? String(r.json['outcome']) : String(r.status));
  });
  await Promise.all([...bots, ...customers]);
  const reached = sandbox.payments().filter((p) => p.orderId.startsWith(`bot-${tag}-`)).length;
  t.diagnostic(
    `${tag}: ${reached} of ${BOTS} bot payments reached the gateway (${JSON.stringify(statuses)}), customers ${JSON.stringify(vipOutcomes)}`,
  );
  return {statuses, vipOutcomes, reached};
}

function errorCode(json: Record<string, unknown>): string {
  return (json['error'] as {code?: string} | undefined)?.code ?? '?';
}

const backends: Array<{
  name: string;
  skip: string | false;
  open: () => [PaymentStore, PaymentStore];
}> = [
  {
    name: 'SQLite',
    skip: IN_PROCESS_SKIP,
    open: () => [stores.open('shop'), stores.open('shop')],
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    open: () => {
      const schema = schemaName('card_testing');
      return [
        new PostgresPaymentStore({connectionString: PG_TEST_URL, schema}),
        new PostgresPaymentStore({connectionString: PG_TEST_URL, schema}),
      ];
    },
  },
];

for (const backend of backends) {
  describe(
    `card-testing breaker (${backend.name}, two companions on one store)`,
    {skip: backend.skip},
    () => {
      test('200 cards from 200 addresses, mostly declined: the gateway sees a bounded share; signed-in customers keep paying', async (t) => {
        const [a, b] = backend.open();
        const heard: CardTestingState[] = [];
        const tag = backend.name.toLowerCase();
        // Ten signed-in customers, each their own (each has a budget of their own while the
        // breaker is open: card-testing-identity.test.ts).
        const vips = Object.fromEntries(
          Array.from({length: 10}, (_, k) => [`vip-${tag}-${k}`, `cust-vip-${k}`]),
        );
        const opts = {
          trustProxy: true,
          clock: () => ATTACK_AT,
          resolveOrder: catalogue({}, vips).resolveOrder,
          // The per-key limits at their defaults: each bot passes them (one try per key).
          rateLimit: {},
          cardTesting: {...LEVEL, onChange: (s: CardTestingState) => void heard.push(s)},
        };
        const pair: [ServedCompanion, ServedCompanion] = [
          await serveCompanion(sandbox, a, opts),
          await serveCompanion(sandbox, b, opts),
        ];
        try {
          const {statuses, vipOutcomes, reached} = await attack(t, pair, tag);
          // Before it opens: the first `minDecided` outcomes, plus those in flight then; then
          // `admitPerMinute` in the one minute the attack lasts on the companions' clock.
          const bound = LEVEL.minDecided + 2 * CONCURRENCY + LEVEL.admitPerMinute;
          assert.ok(reached <= bound, `${reached} reached the gateway, at most ${bound}`);
          assert.ok((statuses['429 rate_limited'] ?? 0) >= BOTS - bound, 'the rest refused, 429');
          assert.deepEqual(vipOutcomes, Array(10).fill('success'), 'signed-in customers paid');
          assert.equal(heard.filter((s) => s.state === 'open').length, 1, 'told once, by one');
          for (const c of pair) assert.equal((await c.app.cardTesting()).state, 'open');
          assert.ok(
            pair.some((c) => c.lines.some((l) => l.includes('card testing suspected'))),
            'the log says it',
          );
        } finally {
          for (const c of pair) await c.close();
          for (const s of [a, b]) await s.close();
        }
      });
    },
  );
}

test(
  'without the breaker, all 200 reach the gateway (the per-key limits alone)',
  {skip: IN_PROCESS_SKIP},
  async (t) => {
    const store = stores.open('off');
    const opts = {trustProxy: true, rateLimit: {}, cardTesting: {enabled: false}};
    const pair: [ServedCompanion, ServedCompanion] = [
      await serveCompanion(sandbox, store, opts),
      await serveCompanion(sandbox, store, opts),
    ];
    try {
      const {reached} = await attack(t, pair, 'off');
      assert.equal(reached, BOTS);
    } finally {
      for (const c of pair) await c.close();
    }
  },
);

test(
  'the breaker closes by itself once the window has no spike, and says so',
  {skip: IN_PROCESS_SKIP},
  async () => {
    let now = Date.parse('2031-03-01T09:00:00Z');
    const gw = new StubGateway();
    gw.onCreate = async (req) =>
      record(req, req.cc_number === CARDS.success ? 'success' : 'failure');
    const heard: CardTestingState[] = [];
    const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
      clock: () => now,
      cardTesting: {
        minDecided: 10,
        windowMs: 10 * 60_000,
        openMs: 60_000,
        admitPerMinute: 2,
        onChange: (s) => void heard.push(s),
      },
    });
    const guest = (i: number, card: string = CARDS.decline) =>
      pay(app, payBody(`g-${i}`, `att-g-${i}`, card));
    for (let i = 0; i < 10; i++) assert.equal((await guest(i)).status, 200);
    // Counted in the background: until the ten are, on turns of the event loop, not a clock.
    while ((await app.cardTesting()).decided < 10) await new Promise((r) => setImmediate(r));
    now += 1_000;
    const refusedAt: number[] = [];
    for (let i = 10; i < 15; i++) refusedAt.push((await guest(i)).status);
    assert.deepEqual(refusedAt, [200, 200, 429, 429, 429], 'two a minute while open');
    assert.equal((await app.cardTesting()).state, 'open');
    // Eleven minutes later the window holds no decline: it closes at the next payment.
    now += 11 * 60_000;
    assert.equal((await guest(20, CARDS.success)).status, 200);
    assert.deepEqual(
      heard.map((s) => s.state),
      ['open', 'closed'],
    );
    assert.equal((await app.cardTesting()).state, 'closed');
  },
);
