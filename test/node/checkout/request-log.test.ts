/**
 * The companion's request log: one line per request, at the level its answer deserves —
 * info when served, warn with the error's code, field and rule when refused (4xx), error
 * on a 5xx — and never a card number, a security code or any other value the browser sent.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {SqlitePaymentStore} from '../../../src/server/index.js';
import {CARDS, StubGateway, inProcessApp, pay, payBody} from './helpers.js';

type LogLine = Record<string, unknown> & {level: number; msg: string};
const INFO = 30;
const WARN = 40;
const ERROR = 50;

/** The request lines (one per request) among everything the companion logged. */
function requestLines(lines: readonly string[]): LogLine[] {
  return lines
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => typeof l.status === 'number' && typeof l.method === 'string');
}

/** A Luhn-valid card number that no other test uses, so a hit can only come from here. */
const UNUSED_CARD = '4111111111111111';

describe('request log', () => {
  test('a customer field the gateway requires and nobody gave is logged at warn with the field and the rule', async () => {
    const {app, lines} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    const body = payBody('log-1', 'att-log-1');
    delete body.customer;
    const res = await pay(app, body);
    assert.equal(res.status, 400);

    const [line, ...more] = requestLines(lines);
    assert.equal(more.length, 0);
    assert.equal(line?.level, WARN);
    assert.equal(line?.msg, 'request refused');
    assert.equal(line?.status, 400);
    assert.equal(line?.path, '/pay');
    assert.equal(line?.code, 'invalid_request');
    assert.equal(line?.field, 'customer.firstName');
    assert.match(String(line?.message), /^customer\.firstName: \S/); // the rule, e.g. "is required"
  });

  test('an invalid card is logged at warn by field and rule, and no card value appears anywhere', async () => {
    const {app, lines} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway());
    const badNumber = UNUSED_CARD.slice(0, -1) + '2'; // fails the Luhn check
    const res = await pay(app, payBody('log-2', 'att-log-2', badNumber, '917'));
    assert.equal(res.status, 400);
    const expired = payBody('log-3', 'att-log-3', UNUSED_CARD, '918');
    expired.card!.expYear = new Date().getFullYear() - 1;
    assert.equal((await pay(app, expired)).status, 400);
    // A key of the body's own choosing that looks like a card number.
    const extraKey = {...payBody('log-4', 'att-log-4', UNUSED_CARD, '919'), [UNUSED_CARD]: 1};
    assert.equal((await pay(app, extraKey)).status, 400);

    const logged = requestLines(lines);
    assert.deepEqual(
      logged.map((l) => [l.level, l.status, l.field]),
      [
        [WARN, 400, 'card.number'],
        [WARN, 400, 'card.expYear'],
        [WARN, 400, '(unknown key)'],
      ],
    );
    for (const l of logged) assert.ok(String(l.message).startsWith(`${String(l.field)}: `));
    const all = lines.join('\n');
    // As a value of its own: a 3-digit code also occurs inside epoch timestamps.
    for (const secret of [UNUSED_CARD, badNumber, '917', '918', '919']) {
      assert.doesNotMatch(all, new RegExp(`(?<!\\d)${secret}(?!\\d)`), `the log holds ${secret}`);
    }
  });

  test('other refusals are warn with their code: forbidden, not found, rate limited', async () => {
    const {app, lines} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      rateLimit: {
        maxAttemptsPerIp: 1,
        maxAttemptsPerOrder: 5,
        maxAttemptsPerCard: 5,
        windowMs: 60_000,
      },
    });
    assert.equal(
      (await pay(app, payBody('log-5', 'att-log-5'), {Origin: 'https://evil.example'})).status,
      403,
    );
    assert.equal((await app.request('/no-such-route')).status, 404);
    assert.equal((await pay(app, payBody('log-6', 'att-log-6'))).status, 200);
    assert.equal((await pay(app, payBody('log-7', 'att-log-7'))).status, 429);

    assert.deepEqual(
      requestLines(lines).map((l) => [l.level, l.status, l.code ?? null]),
      [
        [WARN, 403, 'forbidden'],
        [WARN, 404, 'not_found'],
        [INFO, 200, null],
        [WARN, 429, 'rate_limited'],
      ],
    );
  });

  test('a payment is logged at info without an error code; a 5xx at error', async () => {
    const {app, lines} = inProcessApp(new SqlitePaymentStore(':memory:'), new StubGateway(), {
      resolveOrder: (orderRef) => {
        if (orderRef === 'log-broken') throw new Error('the database is down');
        return {amount: '1.50', currency: 'XTS', description: `Order ${orderRef}`};
      },
    });
    const ok = await pay(app, payBody('log-8', 'att-log-8', CARDS.success));
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as {outcome: string}).outcome, 'success');
    assert.equal((await pay(app, payBody('log-broken', 'att-log-9'))).status, 500);

    const [served, failed] = requestLines(lines);
    assert.equal(served?.level, INFO);
    assert.equal(served?.msg, 'request');
    assert.equal(served?.code, undefined);
    assert.equal(failed?.level, ERROR);
    assert.equal(failed?.status, 500);
    assert.ok(!lines.join('\n').includes(CARDS.success));
  });
});
