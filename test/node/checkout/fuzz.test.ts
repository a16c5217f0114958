/**
 * Property-based tests of the routes' input handling: malformed, mutated and oversized
 * bodies to the pay route, random webhook bodies and random status queries. The
 * properties: never a 5xx, always a protocol-shaped answer, and never the card number or
 * CVV that was sent echoed back.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {SqlitePaymentStore} from '../../../src/server/index.js';
import {StubGateway, inProcessApp, pay, payBody} from './helpers.js';

const PAN = '4111111111111111';
const CVV = '0937';

function makeApp() {
  return inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
    rateLimit: {
      maxAttemptsPerIp: 1_000_000,
      maxAttemptsPerOrder: 1_000_000,
      maxAttemptsPerCard: 1_000_000,
      windowMs: 1000,
    },
    bodyLimitBytes: 4096,
  }).app;
}

function assertSafe(status: number, text: string) {
  assert.ok(status < 500, `HTTP ${status}: ${text.slice(0, 200)}`);
  assert.ok(!text.includes(PAN), 'the card number was echoed');
  assert.ok(!new RegExp(`(?<!\\d)${CVV}(?!\\d)`).test(text), 'the CVV was echoed');
  const parsed = JSON.parse(text) as Record<string, unknown>;
  if (status >= 400) {
    const error = parsed['error'] as Record<string, unknown>;
    assert.equal(typeof error['code'], 'string');
    assert.equal(typeof error['message'], 'string');
  } else {
    assert.equal(typeof parsed['outcome'], 'string');
  }
}

/** Card-data-bearing leaves to plant anywhere in a body. */
const cardish = fc.constantFrom(PAN, CVV, `${PAN} `, Number(PAN), {number: PAN, cvv: CVV});

/**
 * A valid body with one path replaced by an arbitrary or card-bearing value. The two
 * references (`orderRef`, `attemptId`) are identifiers the answer echoes by design, so
 * they get arbitrary values but no planted card number.
 */
const PATHS: string[][] = [
  ['card'],
  ['card', 'number'],
  ['card', 'cvv'],
  ['card', 'expMonth'],
  ['card', 'expYear'],
  ['card', 'holder'],
  ['customer'],
  ['customer', 'email'],
  ['fingerprint'],
  ['fingerprint', 'browserLanguage'],
  ['extra'],
  [PAN],
  ['card', PAN],
];
const mutated = fc
  .oneof(
    fc.tuple(fc.constantFrom(...PATHS), fc.oneof(fc.jsonValue(), cardish)),
    fc.tuple(fc.constantFrom(['orderRef'], ['attemptId']), fc.jsonValue()),
  )
  .map(([pathParts, value]) => {
    const body = payBody('fz-order', 'fz-attempt', PAN, CVV) as unknown as Record<string, unknown>;
    let target = body;
    for (const key of pathParts.slice(0, -1)) target = target[key] as Record<string, unknown>;
    target[pathParts.at(-1)!] = value;
    return JSON.stringify(body);
  });

test('the pay route never fails with a 5xx and never echoes card data (mutated bodies)', async () => {
  const app = makeApp();
  let n = 0;
  await fc.assert(
    fc.asyncProperty(mutated, async (text) => {
      const res = await pay(app, text.replace('fz-attempt', `fz-attempt-${n++}`));
      assertSafe(res.status, await res.text());
    }),
    {numRuns: 300},
  );
});

test('the pay route never fails with a 5xx on arbitrary text, JSON and oversized bodies', async () => {
  const app = makeApp();
  const bodies = fc.oneof(
    fc.string({maxLength: 300}),
    fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
    fc
      .string({minLength: 4097, maxLength: 6000})
      .map((s) => `{"card":{"number":"${PAN}","cvv":"${CVV}"},"x":${JSON.stringify(s)}}`),
    fc.uint8Array({maxLength: 200}).map((b) => Buffer.from(b).toString('latin1')),
    fc.constant(`{"card": {"number": "${PAN}", "cvv": "${CVV}"`),
  );
  await fc.assert(
    fc.asyncProperty(bodies, async (text) => {
      const res = await pay(app, text);
      assertSafe(res.status, await res.text());
    }),
    {numRuns: 300},
  );
});

test('the webhook route answers 200 or 4xx to any body, never 5xx', async () => {
  const app = makeApp();
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string({maxLength: 400}),
        fc
          .tuple(fc.string(), fc.string())
          .map(([d, s]) => new URLSearchParams({data: d, signature: s}).toString()),
        fc.base64String({maxLength: 200}).map((d) => `data=${d}&signature=${'A'.repeat(27)}=`),
      ),
      async (text) => {
        const res = await app.request('/webhook', {
          method: 'POST',
          headers: {'Content-Type': 'application/x-www-form-urlencoded'},
          body: text,
        });
        assert.ok(
          res.status === 403 || res.status === 400 || res.status === 413,
          `HTTP ${res.status}`,
        );
      },
    ),
    {numRuns: 200},
  );
  assert.ok((await app.store.listRejectedWebhooks()).length > 0);
});

test('the status and return routes never fail with a 5xx on any order parameter', async () => {
  const app = makeApp();
  await fc.assert(
    fc.asyncProperty(fc.string({maxLength: 300}), async (order) => {
      const q = new URLSearchParams({order}).toString();
      const status = await app.request(`/status?${q}`);
      assert.ok(status.status < 500, `status HTTP ${status.status}`);
      const back = await app.request(`/return?${q}`, {method: 'POST'});
      assert.ok(back.status === 303 || back.status === 400, `return HTTP ${back.status}`);
    }),
    {numRuns: 200},
  );
});
