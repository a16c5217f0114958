/**
 * The card-testing limits around saved cards, over real HTTP against the real sandbox:
 * the order route (`POST /order`, and saved-card removal, which answers the same order
 * data) is counted per client address, apart from payments, and past its limit answers
 * 429 `rate_limited` with Retry-After; paying with a saved card meets the per-card limit
 * like a card typed in, keyed by a hash of the card's token, so many concurrent payments
 * over one saved card across many orders let exactly the limit through — on every store.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {createHash} from 'node:crypto';
import {
  SqlitePaymentStore,
  PostgresPaymentStore,
  type PaymentStore,
} from '../../../src/server/index.js';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  CARDS,
  GENEROUS_LIMITS,
  PAY_HEADERS,
  nextCvv,
  payBody,
  payHttp,
  serveCompanion,
  tempStores,
  type ServedCompanion,
  catalogue,
} from './helpers.js';
import {IN_PROCESS_SKIP, PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

/** Orders `ada-…` belong to customer `cust-ada`; others to nobody. */
const {resolveOrder} = catalogue({amount: '12.50', currency: 'UAH'}, {'ada-': 'cust-ada'});

let sandbox: Sandbox;
let files: ReturnType<typeof tempStores>;
/** Every body the gateway received on its payment route. */
const sent: Record<string, unknown>[] = [];
const gatewayFetch = async (input: string, init: RequestInit) => {
  if (new URL(input).pathname === '/api/v1/payment') sent.push(JSON.parse(String(init.body)));
  return fetch(input, init);
};
let n = 0;

before(async () => {
  files = tempStores('pg-saved-card-limits');
  sandbox = await startSandbox();
});
after(async () => {
  await files.cleanup();
  await dropSchemas();
  await sandbox.close();
});

async function post(c: ServedCompanion, path: string, body: unknown, ip = '203.0.113.7') {
  const res = await fetch(`${c.url}${path}`, {
    method: 'POST',
    headers: {...PAY_HEADERS, Origin: c.url, 'X-Forwarded-For': ip},
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    json: (await res.json()) as {error?: {code?: string; retryAfter?: number}},
  };
}

describe('the order route is rate limited per client address', {skip: IN_PROCESS_SKIP}, () => {
  let c: ServedCompanion;
  before(async () => {
    c = await serveCompanion(sandbox, files.open('lookups'), {
      gatewayFetch,
      resolveOrder,
      trustProxy: 1,
      rateLimit: {...GENEROUS_LIMITS, maxOrderLookupsPerIp: 3},
    });
  });
  after(() => c.close());

  test('past the limit: 429 rate_limited with Retry-After, unknown orders counted too', async () => {
    const ip = '203.0.113.10';
    assert.equal((await post(c, '/order', {orderRef: 'ada-1', savedCards: true}, ip)).status, 200);
    assert.equal((await post(c, '/order', {orderRef: 'missing-1'}, ip)).status, 404);
    assert.equal((await post(c, '/order', {orderRef: 'anon-1'}, ip)).status, 200);
    const refused = await post(c, '/order', {orderRef: 'ada-2', savedCards: true}, ip);
    assert.equal(refused.status, 429);
    assert.equal(refused.json.error?.code, 'rate_limited');
    assert.ok(Number(refused.retryAfter) > 0, 'Retry-After in seconds');
    assert.equal(refused.json.error?.retryAfter, Number(refused.retryAfter));
    // Saved-card removal answers the same order data: it counts, and is refused too.
    const remove = await post(
      c,
      '/saved-cards/remove',
      {orderRef: 'ada-2', savedCardId: 'sc_0123456789abcdef01234567'},
      ip,
    );
    assert.equal(remove.status, 429);
  });

  test('another address is not limited; an IPv6 /64 counts as one address', async () => {
    assert.equal((await post(c, '/order', {orderRef: 'ada-1'}, '203.0.113.11')).status, 200);
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3']) {
      assert.equal((await post(c, '/order', {orderRef: 'ada-1'}, ip)).status, 200);
    }
    assert.equal((await post(c, '/order', {orderRef: 'ada-1'}, '2001:db8:1:2::4')).status, 429);
  });

  test('order look-ups do not use up payment attempts, nor payments look-ups', async () => {
    const ip = '203.0.113.12';
    for (let i = 0; i < 3; i++) await post(c, '/order', {orderRef: 'ada-1'}, ip);
    assert.equal((await post(c, '/order', {orderRef: 'ada-1'}, ip)).status, 429);
    const paid = await payHttp(
      c.url,
      payBody(`anon-pay-${n++}`, `a-${n++}`, CARDS.success, nextCvv()),
      {'X-Forwarded-For': ip},
    );
    assert.equal(paid.json['outcome'], 'success');
  });
});

/** The stores the concurrency test runs on. */
const STORES: {name: string; skip: string | false; open: () => PaymentStore}[] = [
  {name: 'memory', skip: IN_PROCESS_SKIP, open: () => new SqlitePaymentStore(':memory:')},
  {name: 'SQLite', skip: IN_PROCESS_SKIP, open: () => files.open(`card-${n++}`)},
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    open: () =>
      new PostgresPaymentStore({connectionString: PG_TEST_URL, schema: schemaName('sclimit')}),
  },
];

const PER_CARD = 7;
const PAYS = 60;

for (const backend of STORES) {
  describe(
    `a saved card meets the per-card limit (${backend.name} store)`,
    {skip: backend.skip},
    () => {
      let c: ServedCompanion;
      let store: PaymentStore;
      before(async () => {
        store = backend.open();
        c = await serveCompanion(sandbox, store, {
          gatewayFetch,
          resolveOrder,
          trustProxy: 1,
          rateLimit: {...GENEROUS_LIMITS, maxAttemptsPerCard: PER_CARD},
        });
      });
      after(async () => {
        await c.close();
        if (backend.name !== 'SQLite') await store.close();
      });

      test(`${PAYS} concurrent payments over one saved card, ${PAYS} orders: exactly ${PER_CARD} pass`, async () => {
        const saved = await payHttp(c.url, {
          ...payBody(`ada-save-${n++}`, `a-${n++}`, CARDS.success, nextCvv()),
          saveCard: true,
        });
        assert.equal(saved.json['outcome'], 'success');
        const [card] = await c.app.listSavedCards('cust-ada');
        assert.ok(card, 'the card was saved');
        const before = sent.length;
        const run = `${n++}`;
        const answers = await Promise.all(
          Array.from({length: PAYS}, (_, i) => {
            const {card: _typed, ...rest} = payBody(`ada-many-${run}-${i}`, `m-${run}-${i}`);
            // Every payment from an address of its own: only the card's limit can refuse.
            return payHttp(
              c.url,
              {...rest, savedCardId: card.id},
              {
                'X-Forwarded-For': `198.51.100.${i + 1}`,
              },
            );
          }),
        );
        const ok = answers.filter((a) => a.json['outcome'] === 'success');
        const limited = answers.filter(
          (a) => a.status === 429 && (a.json['error'] as {code?: string})?.code === 'rate_limited',
        );
        assert.equal(ok.length, PER_CARD, 'exactly the limit paid');
        assert.equal(
          limited.length,
          PAYS - PER_CARD,
          'every other one was refused as rate limited',
        );
        const tokenPays = sent.slice(before).filter((b) => typeof b['cc_token'] === 'string');
        assert.equal(tokenPays.length, PER_CARD, 'the gateway saw exactly the limit');
      });

      test('the limit is keyed by a hash of the token, never the token itself', async () => {
        const [card] = await c.app.listSavedCards('cust-ada');
        const token = (await store.getSavedCard(card!.id))!.token;
        const key = c.app.service.velocity.savedCardKey(token);
        assert.notEqual(key, token);
        assert.ok(!key.includes(token));
        assert.notEqual(key, createHash('sha256').update(token).digest('base64url').slice(0, 32));
        // Another key than the same text typed in as a card number would get.
        assert.notEqual(key, c.app.service.velocity.cardKey(token));
      });
    },
  );
}
