/**
 * Identity is never a bypass of the card-testing breaker (issue 35), against the sandbox over
 * real HTTP, each request on a connection of its own from a loopback address of its own
 * (127.0.x.y), so every per-address limit passes. With the breaker open: 40 hosted creates
 * from 40 addresses reach the gateway only as far as the guests' places go (they all did
 * before: `/hosted` was outside the breaker); a customer the shop names keeps paying within a
 * budget of their own — by a saved card, a card typed in and the hosted page, one budget —
 * and is refused past it, while another customer still pays; and all named customers
 * together meet a shop-wide ceiling (a botnet that signs up many customers); both budgets
 * are options, checked at start-up. The companion
 * runs on a clock held still, so "this minute's places" is exact.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  CARD_TESTING_DEFAULTS,
  SqlitePaymentStore,
  type ResolvedOrder,
} from '../../../src/server/index.js';
import {call, type Answer} from '../example/helpers.js';
import {
  CARDS,
  PAY_HEADERS,
  StubGateway,
  catalogue,
  inProcessApp,
  pay,
  payBody,
  record,
  sandboxPayments,
  serveCompanion,
  tempStores,
  type ServedCompanion,
} from './helpers.js';

const LEVEL = {minDecided: 10, maxDeclineRate: 0.5, admitPerMinute: 5, perCustomer: 3};
/** The companion's clock, held still at the start of this minute (a saved card's token is valid). */
const NOW = Math.floor(Date.now() / 60_000) * 60_000;

/** Orders `olena-…` are customer `cust-olena`'s, `taras-…` `cust-taras`'s; others a guest's. */
function resolveOrder(orderRef: string): ResolvedOrder {
  const id = /^(olena|taras)-/.exec(orderRef)?.[1];
  return {
    amount: '1.50',
    currency: 'XTS',
    description: `Order ${orderRef}`,
    // The hosted page needs the customer's contact details.
    customer: {
      email: 'ada@example.com',
      phone: '+380501234567',
      firstName: 'Ada',
      ...(id ? {id: `cust-${id}`} : {}),
    },
  };
}

const stores = tempStores('pg-card-testing-identity');
let sandbox: Sandbox;
let c: ServedCompanion;
let n = 0;

before(async () => {
  sandbox = await startSandbox();
  c = await serveCompanion(sandbox, stores.open('identity'), {
    clock: () => NOW,
    resolveOrder,
    cardTesting: LEVEL,
  });
});
after(async () => {
  await c?.close();
  await stores.cleanup();
  await sandbox?.close();
});

/** A pay request from `from`, on a connection of its own. */
function payFrom(from: string, body: unknown): Promise<Answer> {
  return call(c.url, '/pay', {
    method: 'POST',
    from,
    headers: {...PAY_HEADERS, Origin: c.url},
    body: JSON.stringify(body),
  });
}

/** The hosted-payment form posted from `from`, as the shop's page posts it. */
function hostedFrom(from: string, orderRef: string): Promise<Answer> {
  return call(c.url, '/hosted', {
    method: 'POST',
    from,
    headers: {'Content-Type': 'application/x-www-form-urlencoded', Origin: c.url},
    body: new URLSearchParams({order: orderRef}).toString(),
  });
}

const outcome = (a: Answer) =>
  a.status === 200 ? String((JSON.parse(a.text) as {outcome?: string}).outcome) : a.status;
const reachedGateway = (orderRef: string) => sandboxPayments(sandbox, orderRef).length > 0;

describe('the breaker sees every path, and a named customer has a budget, not an exemption', () => {
  let olenasCard = '';

  test('before: Olena saves a card (the breaker is closed)', async () => {
    const r = await payFrom('127.0.5.100', {
      ...payBody('olena-save', `att-${n++}`, CARDS.success),
      saveCard: true,
    });
    assert.equal(outcome(r), 'success');
    const [card] = await c.app.listSavedCards('cust-olena');
    assert.ok(card, 'saved');
    olenasCard = card.id;
  });

  test('declines from many addresses open it', async () => {
    for (let i = 0; i < 100 && (await c.app.cardTesting()).state !== 'open'; i++) {
      const r = await payFrom(
        `127.0.9.${i + 1}`,
        payBody(`open-${i}`, `att-${n++}`, CARDS.decline),
      );
      assert.equal(outcome(r), 'failure');
    }
    assert.equal((await c.app.cardTesting()).state, 'open');
  });

  test('40 hosted creates from 40 addresses: the gateway sees at most the guests’ share', async (t) => {
    const answers = await Promise.all(
      Array.from({length: 40}, (_, i) => hostedFrom(`127.0.7.${i + 1}`, `hosted-bot-${i}`)),
    );
    const reached = Array.from({length: 40}, (_, i) => `hosted-bot-${i}`).filter(
      reachedGateway,
    ).length;
    const redirected = answers.filter((a) => a.status === 303).length;
    const refused = answers.filter((a) => a.status === 429);
    t.diagnostic(`hosted while open: ${reached} of 40 reached the gateway`);
    assert.ok(reached <= LEVEL.admitPerMinute, `${reached} reached the gateway, at most 5`);
    assert.equal(redirected, reached, 'each one admitted went to the gateway’s page');
    assert.equal(refused.length, 40 - reached, 'the rest refused, 429');
    for (const a of refused) {
      assert.equal((JSON.parse(a.text) as {error: {code: string}}).error.code, 'rate_limited');
      assert.ok(Number(a.headers['retry-after']) >= 1, 'with Retry-After');
    }
    // The guests' places of this minute are gone: a guest's card payment is refused too.
    const guest = await payFrom('127.0.8.1', payBody('guest-late', `att-${n++}`));
    assert.equal(guest.status, 429);
    assert.equal(reachedGateway('guest-late'), false);
  });

  test('Olena pays within her budget — saved card, card typed in, hosted page — and is refused past it', async () => {
    const {card: _card, ...rest} = payBody('olena-1', `att-${n++}`);
    assert.equal(
      outcome(await payFrom('127.0.5.1', {...rest, savedCardId: olenasCard})),
      'success',
    );
    assert.equal(outcome(await payFrom('127.0.5.2', payBody('olena-2', `att-${n++}`))), 'success');
    assert.equal((await hostedFrom('127.0.5.3', 'olena-3')).status, 303);
    for (const ref of ['olena-1', 'olena-2', 'olena-3']) assert.ok(reachedGateway(ref), ref);

    const past = await payFrom('127.0.5.4', payBody('olena-4', `att-${n++}`));
    assert.equal(past.status, 429, 'the fourth while it is open');
    assert.equal((JSON.parse(past.text) as {error: {code: string}}).error.code, 'rate_limited');
    assert.ok(Number(past.headers['retry-after']) >= 1);
    assert.equal(reachedGateway('olena-4'), false, 'the gateway never saw it');
    assert.equal((await hostedFrom('127.0.5.5', 'olena-5')).status, 429, 'nor hosted');
    assert.equal(reachedGateway('olena-5'), false);

    // Another customer has a budget of their own.
    assert.equal(outcome(await payFrom('127.0.6.1', payBody('taras-1', `att-${n++}`))), 'success');
  });
});

test('all named customers together meet the shop-wide ceiling while it is open', async () => {
  let now = Date.parse('2031-03-01T09:00:00Z');
  const gw = new StubGateway();
  let creates = 0;
  gw.onCreate = async (req) => {
    creates++;
    return record(req, req.cc_number === CARDS.success ? 'success' : 'failure');
  };
  const customers = Object.fromEntries(
    Array.from({length: 6}, (_, k) => [`named-${k}-`, `cust-${k}`]),
  );
  const {app} = inProcessApp(new SqlitePaymentStore(':memory:'), gw, {
    clock: () => now,
    resolveOrder: catalogue({}, customers).resolveOrder,
    cardTesting: {minDecided: 10, admitPerMinute: 1, perCustomer: 3, allCustomers: 4},
  });
  for (let i = 0; i < 10; i++) {
    assert.equal((await pay(app, payBody(`g-${i}`, `att-g-${i}`, CARDS.decline))).status, 200);
  }
  // Each answer comes after its decline was counted (a step of the payment, not a task
  // after it): nothing to wait for.
  now += 1_000;
  assert.equal((await pay(app, payBody('g-open', 'att-g-open', CARDS.decline))).status, 200);
  assert.equal((await app.cardTesting()).state, 'open');
  const before = creates;
  const statuses: number[] = [];
  for (let k = 0; k < 6; k++) {
    statuses.push((await pay(app, payBody(`named-${k}-1`, `att-named-${k}`))).status);
  }
  assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429], 'four of all named customers');
  assert.equal(creates - before, 4, 'the gateway saw four');
});

test('the budgets are options with defaults, checked at start-up naming the field and the rule', () => {
  const open = (cardTesting: Record<string, unknown>) => () =>
    inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {cardTesting});
  assert.throws(
    open({perCustomer: 0}),
    /cardTesting\.perCustomer: must be a positive whole number/,
  );
  assert.throws(
    open({allCustomers: 1.5}),
    /cardTesting\.allCustomers: must be a positive whole number/,
  );
  assert.deepEqual(
    {
      perCustomer: CARD_TESTING_DEFAULTS.perCustomer,
      allCustomers: CARD_TESTING_DEFAULTS.allCustomers,
    },
    {perCustomer: 3, allCustomers: 60},
  );
});
