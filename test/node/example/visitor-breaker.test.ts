/**
 * The demo's visitor cookie names a customer only when its signature holds, so a made-up
 * cookie cannot walk past the card-testing breaker (issue 35). Over real HTTP against the
 * sandbox, every request on a connection of its own from a loopback address of its own
 * (127.0.x.y), so no per-address limit is what stops a bot:
 * - a made-up cookie, a tampered signature, a real session id without its signature and a
 *   cookie signed by another instance are a guest's (the order route offers no saved cards,
 *   and a page opens a fresh session); a cookie the instance signed keeps its customer;
 * - with the breaker open, a botnet of 200 cards from 200 addresses, each with a random
 *   made-up cookie, reaches the gateway only as far as guests do (`admitPerMinute` a
 *   minute); before, every one was a named customer and all 200 reached it; and 200 hosted
 *   creates the same way;
 * - a botnet that first asks for a page, as the demo signs in every visitor, is 200 named
 *   customers: each has a budget of their own, and together they meet the ceiling of all
 *   named customers (`allCustomers`).
 * Measured: the share of the 200 that reaches the gateway, by card, by `/hosted`, and with
 * sessions the shop signed.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {randomBytes} from 'node:crypto';
import path from 'node:path';
import type {AddressInfo} from 'node:net';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {CARD_TESTING_DEFAULTS, createCheckoutLogger} from '../../../src/server/index.js';
import {CHECKOUT_BASE, createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {VISITOR_COOKIE} from '../../../server-example/visitor.js';
import {PAY_HEADERS, payBody, sandboxPayments} from '../checkout/helpers.js';
import {call, dataDirs, sandboxGateway, type Answer} from './helpers.js';

const BOTS = 200;
const CONCURRENCY = 8;
const SECRET = randomBytes(32).toString('base64url');

const dirs = dataDirs('pg-example-visitor-breaker-');
let sandbox: Sandbox;
let example: ExampleApp;
let base: string;
let server: ReturnType<typeof createAdaptorServer>;
let n = 0;

before(async () => {
  sandbox = await startSandbox({});
  // The botnet's cards: every one ending in 0002 is declined.
  sandbox.addFault({match: {card_last4: '0002'}, fault: 'decline'});
  let handler: ((req: Request, env: unknown) => Response | Promise<Response>) | undefined =
    undefined;
  server = createAdaptorServer({fetch: (req, env) => handler!(req, env)});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  example = exampleApp(SECRET);
  handler = example.app.fetch;
});

after(async () => {
  await example?.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as unknown as {closeAllConnections(): void}).closeAllConnections();
  });
  await sandbox?.close();
  dirs.removeAll();
});

function exampleApp(visitorSecret: string): ExampleApp {
  const dataDir = dirs.make();
  return createExampleApp({
    publicUrl: base,
    dataDir,
    visitorSecret,
    logger: createCheckoutLogger({level: 'silent'}),
    bundlePath: path.join(dataDir, 'no-bundle.js'),
    gateway: sandboxGateway(sandbox),
  });
}

/** A Visa number (Luhn-valid) of its own, ending in `last4`. */
function cardNumber(i: number, last4: string): string {
  const body = `4${String(8_000_000_000 + i * 7919).padStart(10, '0')}`;
  const digits = `${body}0${last4}`.split('').map(Number);
  const sum = digits
    .reverse()
    .map((d, k) => (k % 2 === 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d))
    .reduce((a, b) => a + b, 0);
  return `${body}${(10 - (sum % 10)) % 10}${last4}`;
}

/** A cookie header naming `value` as the visitor's session. */
const visitor = (value: string) => ({Cookie: `${VISITOR_COOKIE}=${value}`});
/** What a bot sends: 32 random hex characters, the shape of a session id. */
const madeUp = () => visitor(randomBytes(16).toString('hex'));

async function newOrder(from: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await call(base, '/api/orders', {
    method: 'POST',
    from,
    headers: {'Content-Type': 'application/json', ...headers},
    body: JSON.stringify({productId: 'mug'}),
  });
  assert.equal(r.status, 201, r.text);
  return (JSON.parse(r.text) as {orderRef: string}).orderRef;
}

function payFrom(from: string, body: unknown, headers: Record<string, string> = {}) {
  return call(base, `${CHECKOUT_BASE}/pay`, {
    method: 'POST',
    from,
    headers: {...PAY_HEADERS, Origin: base, ...headers},
    body: JSON.stringify(body),
  });
}

function hostedFrom(from: string, orderRef: string, headers: Record<string, string> = {}) {
  return call(base, `${CHECKOUT_BASE}/hosted`, {
    method: 'POST',
    from,
    headers: {'Content-Type': 'application/x-www-form-urlencoded', Origin: base, ...headers},
    body: new URLSearchParams({order: orderRef}).toString(),
  });
}

/** The order route's saved cards for `headers`' cookie: `undefined` for a guest. */
async function savedCardsFor(headers: Record<string, string>): Promise<unknown> {
  const orderRef = await newOrder('127.0.40.1');
  const r = await call(base, `${CHECKOUT_BASE}/order`, {
    method: 'POST',
    from: '127.0.40.1',
    headers: {...PAY_HEADERS, Origin: base, ...headers},
    body: JSON.stringify({orderRef, savedCards: true}),
  });
  assert.equal(r.status, 200, r.text);
  return (JSON.parse(r.text) as {savedCards?: unknown}).savedCards;
}

/** The cookie a page sets (`<name>=<value>`), if it sets one. */
function setCookie(answer: Answer): string | undefined {
  const line = (answer.headers['set-cookie'] ?? []).find((l) => l.startsWith(`${VISITOR_COOKIE}=`));
  return line?.split(';')[0];
}

describe('the visitor cookie is signed', () => {
  test('a cookie the instance signed keeps its customer; a made-up, tampered or foreign one is a guest', async () => {
    const page = await call(base, '/', {from: '127.0.40.2'});
    const signed = setCookie(page);
    assert.ok(signed, 'the first page opens a session');
    const value = signed.slice(VISITOR_COOKIE.length + 1);
    const [id, signature] = decodeURIComponent(value).split('.') as [string, string];
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.equal(Buffer.from(signature, 'base64').length, 32, 'an HMAC-SHA256 signature');

    assert.deepEqual(await savedCardsFor({Cookie: signed}), [], 'signed: the visitor, a customer');
    assert.equal(await savedCardsFor(madeUp()), undefined, 'made up: a guest');
    assert.equal(await savedCardsFor(visitor(id)), undefined, 'the id without its signature');
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    assert.equal(
      await savedCardsFor(visitor(encodeURIComponent(`${id}.${flipped}`))),
      undefined,
      'a tampered signature: a guest',
    );
    const otherId = randomBytes(16).toString('hex');
    assert.equal(
      await savedCardsFor(visitor(encodeURIComponent(`${otherId}.${signature}`))),
      undefined,
      'another id under this signature: a guest',
    );

    // Signed by another instance (another secret): a guest here.
    const other = exampleApp(randomBytes(32).toString('base64url'));
    try {
      const foreign = (await other.app.request(`${base}/`)).headers
        .getSetCookie()
        .find((l) => l.startsWith(`${VISITOR_COOKIE}=`))!
        .split(';')[0]!;
      assert.equal(await savedCardsFor({Cookie: foreign}), undefined, 'foreign: a guest');
    } finally {
      await other.close();
    }
  });

  test('a page opens a fresh session for a made-up cookie, and keeps a signed one', async () => {
    const forged = randomBytes(16).toString('hex');
    const fresh = setCookie(await call(base, '/', {from: '127.0.40.3', headers: visitor(forged)}));
    assert.ok(fresh, 'a new session');
    assert.ok(!fresh.includes(forged), 'not the made-up id');
    const again = await call(base, '/', {from: '127.0.40.3', headers: {Cookie: fresh}});
    assert.equal(setCookie(again), undefined, 'the signed one stays');
  });
});

/** Runs `bot(i)` for i < BOTS, CONCURRENCY at a time; answers the minutes it spanned. */
async function botnet(bot: (i: number) => Promise<void>): Promise<number> {
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({length: CONCURRENCY}, async () => {
      while (next < BOTS) await bot(next++);
    }),
  );
  return Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1;
}

describe('a botnet with made-up cookies, the breaker open', () => {
  test('declined guests from many addresses open it', async () => {
    for (let i = 0; i < 100 && (await example.checkout.cardTesting()).state !== 'open'; i++) {
      const from = `127.0.20.${i + 1}`;
      const r = await payFrom(
        from,
        payBody(await newOrder(from), `open-${n++}`, cardNumber(i, '0002')),
      );
      assert.equal(r.status, 200, r.text);
    }
    assert.equal((await example.checkout.cardTesting()).state, 'open');
  });

  test('200 cards from 200 addresses, each with a made-up cookie: no more reach the gateway than guests', async (t) => {
    const refs: string[] = [];
    const statuses: Record<string, number> = {};
    const minutes = await botnet(async (i) => {
      const from = `127.0.${30 + Math.floor(i / 250)}.${(i % 250) + 1}`;
      const cookie = madeUp();
      const orderRef = await newOrder(from, cookie);
      refs.push(orderRef);
      const r = await payFrom(
        from,
        payBody(orderRef, `bot-${n++}`, cardNumber(1000 + i, '0002')),
        cookie,
      );
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    });
    const reached = refs.filter((ref) => sandboxPayments(sandbox, ref).length > 0).length;
    const share = CARD_TESTING_DEFAULTS.admitPerMinute * minutes;
    t.diagnostic(
      `made-up cookies: ${reached} of ${BOTS} reached the gateway (${JSON.stringify(statuses)}); guests get ${share} in ${minutes} minute(s)`,
    );
    assert.ok(reached <= share, `${reached} reached the gateway, guests get ${share}`);
    assert.equal(statuses[429], BOTS - reached, 'the rest refused, 429');
  });

  test('200 hosted creates from 200 addresses, each with a made-up cookie: no more than guests', async (t) => {
    const refs: string[] = [];
    const statuses: Record<string, number> = {};
    const minutes = await botnet(async (i) => {
      const from = `127.0.${50 + Math.floor(i / 250)}.${(i % 250) + 1}`;
      const cookie = madeUp();
      const orderRef = await newOrder(from, cookie);
      refs.push(orderRef);
      const r = await hostedFrom(from, orderRef, cookie);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    });
    const reached = refs.filter((ref) => sandboxPayments(sandbox, ref).length > 0).length;
    const share = CARD_TESTING_DEFAULTS.admitPerMinute * minutes;
    t.diagnostic(
      `hosted, made-up cookies: ${reached} of ${BOTS} reached the gateway (${JSON.stringify(statuses)}); guests get ${share} in ${minutes} minute(s)`,
    );
    assert.ok(reached <= share, `${reached} reached the gateway, guests get ${share}`);
    assert.equal(statuses[303] ?? 0, reached, 'each one admitted went to the gateway’s page');
    assert.equal(statuses[429], BOTS - reached, 'the rest refused, 429');
  });
});

describe('a botnet that opens a real session first (the demo signs in every visitor)', () => {
  test('200 bots, each with a cookie the shop signed: named customers, but no more than the ceiling of all named customers', async (t) => {
    const refs: string[] = [];
    const statuses: Record<string, number> = {};
    await botnet(async (i) => {
      const from = `127.0.${70 + Math.floor(i / 250)}.${(i % 250) + 1}`;
      const signed = setCookie(await call(base, '/', {from}));
      assert.ok(signed);
      const cookie = {Cookie: signed};
      const orderRef = await newOrder(from, cookie);
      refs.push(orderRef);
      const r = await payFrom(
        from,
        payBody(orderRef, `signed-bot-${n++}`, cardNumber(2000 + i, '0002')),
        cookie,
      );
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    });
    const reached = refs.filter((ref) => sandboxPayments(sandbox, ref).length > 0).length;
    t.diagnostic(
      `signed sessions: ${reached} of ${BOTS} reached the gateway (${JSON.stringify(statuses)})`,
    );
    assert.ok(reached <= CARD_TESTING_DEFAULTS.allCustomers, `${reached} reached the gateway`);
    assert.equal(statuses[429], BOTS - reached, 'the rest refused, 429');
  });
});
