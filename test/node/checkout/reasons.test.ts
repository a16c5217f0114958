/**
 * Outcomes are codes: the one table from the gateway's status codes to the protocol's
 * failure reasons (`src/server/payments/failure-reasons.ts`), the reason every failure answer of
 * the service carries (`service/answers.ts`), and the companion's answers over real HTTP
 * against the sandbox — each test card's decline, a 3-D Secure decline and an abandoned
 * challenge answer their reason on the pay and status routes.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {SANDBOX_CODES, TEST_CARDS} from '../../../sandbox/cards.js';
import {
  CHECKOUT_HEADER,
  CHECKOUT_PROTOCOL_VERSION,
  PAY_FAILURE_REASONS,
} from '../../../src/protocol/checkout.js';
import {PayResponseSchema, StatusResponseSchema} from '../../../src/protocol/schemas.js';
import {GATEWAY_REASONS, reasonOf} from '../../../src/server/payments/failure-reasons.js';
import {answerFor, refusedAnswer} from '../../../src/server/payments/answers.js';
import type {AttemptRecord} from '../../../src/server/index.js';
import {attempt} from './attempt-rows.js';
import {
  CARDS,
  complete3ds,
  finalStatus,
  payBody,
  payHttp,
  serveCompanion,
  tempStores,
  type ServedCompanion,
} from './helpers.js';

describe('the reason-code table', () => {
  test('maps every declining code of the gateway and the sandbox to its reason', () => {
    assert.equal(reasonOf('2007'), 'wrong_cvv');
    assert.equal(reasonOf('5105'), 'insufficient_funds');
    assert.equal(reasonOf('5152'), 'issuer_declined');
    assert.equal(reasonOf('2123'), 'three_ds_failed');
    assert.equal(reasonOf('6007'), 'cancelled');
    assert.equal(reasonOf('6009'), 'expired');
    assert.equal(reasonOf(' 2007 '), 'wrong_cvv', 'compared trimmed');
  });

  test('a failure without its reason is not a protocol answer', () => {
    const failure = {outcome: 'failure', orderRef: 'o', code: '5105', message: 'x'};
    assert.equal(PayResponseSchema.safeParse(failure).success, false);
    assert.equal(PayResponseSchema.safeParse({...failure, reason: 'because'}).success, false);
    assert.ok(PayResponseSchema.safeParse({...failure, reason: 'insufficient_funds'}).success);
  });

  test('an unknown or absent code is a plain decline', () => {
    assert.equal(reasonOf('9999'), 'declined');
    assert.equal(reasonOf(undefined), 'declined');
    assert.equal(reasonOf('constructor'), 'declined', 'no inherited keys');
  });

  test('every failure code the sandbox answers has a reason of its own, and only protocol reasons', () => {
    for (const card of TEST_CARDS.filter((c) => c.status === 'failure')) {
      assert.notEqual(reasonOf(card.statusCode), 'declined', `${card.number} ${card.statusCode}`);
    }
    for (const code of [
      SANDBOX_CODES.threeDSFailed,
      SANDBOX_CODES.cancelled,
      SANDBOX_CODES.expired,
    ])
      assert.notEqual(reasonOf(code.code), 'declined', code.code);
    for (const reason of Object.values(GATEWAY_REASONS))
      assert.ok((PAY_FAILURE_REASONS as readonly string[]).includes(reason), reason);
  });
});

describe('the service answers failures with a reason', () => {
  const reason = (a: AttemptRecord) => {
    const answer = answerFor(a);
    assert.equal(answer.outcome, 'failure');
    return answer.outcome === 'failure' ? answer.reason : undefined;
  };
  test('declines carry the table reason of their status code', () => {
    assert.equal(
      reason(attempt('failure', {failureReason: 'declined', statusCode: '5105'})),
      'insufficient_funds',
    );
    assert.equal(reason(attempt('failure', {failureReason: 'declined'})), 'declined');
  });
  test('not created, not confirmed, abandoned and expired attempts say so', () => {
    assert.equal(
      reason(attempt('failure', {failureReason: 'not_created', statusCode: 'gateway_validation'})),
      'not_created',
    );
    assert.equal(reason(attempt('unknown')), 'not_confirmed');
    assert.equal(reason(attempt('pending', {writtenOff: 'abandoned'})), 'abandoned');
    assert.equal(reason(attempt('pending', {writtenOff: 'expired'})), 'expired');
    assert.equal(refusedAnswer('rs-1', 'gateway_validation').reason, 'not_created');
  });
});

describe('the companion answers reason codes', () => {
  const stores = tempStores('pg-reasons');
  let sandbox: Sandbox;
  let companion: ServedCompanion;
  before(async () => {
    sandbox = await startSandbox();
    companion = await serveCompanion(sandbox, stores.open('main'));
  });
  after(async () => {
    await companion?.close();
    await sandbox?.close();
    await stores.cleanup();
  });

  for (const [number, expected] of [
    [CARDS.decline, 'issuer_declined'],
    [CARDS.insufficient, 'insufficient_funds'],
    [CARDS.wrongCvv, 'wrong_cvv'],
  ] as const) {
    test(`card ${number.slice(-4)}: failure with reason ${expected}, on pay and status`, async () => {
      const ref = `rc-${number.slice(-4)}`;
      const r = await payHttp(companion.url, payBody(ref, `${ref}-1`, number));
      assert.ok(PayResponseSchema.safeParse(r.json).success, JSON.stringify(r.json));
      assert.equal(r.json['outcome'], 'failure');
      assert.equal(r.json['reason'], expected);
      const status = await finalStatus(companion.url, ref);
      assert.ok(StatusResponseSchema.safeParse(status.json).success, JSON.stringify(status.json));
      assert.equal(status.json['reason'], expected);
    });
  }

  test('a declined 3-D Secure challenge: three_ds_failed', async () => {
    const r = await payHttp(companion.url, payBody('rc-3ds', 'rc-3ds-1', CARDS.threeDS));
    await complete3ds(String(r.json['userActionUrl']), 'decline');
    await sandbox.webhooksIdle();
    const status = await finalStatus(companion.url, 'rc-3ds');
    assert.equal(status.json['state'], 'failure');
    assert.equal(status.json['reason'], 'three_ds_failed');
  });

  test('an abandoned challenge: abandoned, and the next pay opens a new one', async () => {
    const r = await payHttp(companion.url, payBody('rc-ab', 'rc-ab-1', CARDS.threeDS));
    const res = await fetch(`${companion.url}/abandon`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
        Origin: companion.url,
      },
      body: JSON.stringify({orderRef: 'rc-ab', attemptId: 'rc-ab-1'}),
    });
    const abandoned = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 200);
    assert.ok(StatusResponseSchema.safeParse(abandoned).success, JSON.stringify(abandoned));
    assert.equal(abandoned['reason'], 'abandoned');
    const again = await payHttp(companion.url, payBody('rc-ab', 'rc-ab-2', CARDS.threeDS));
    assert.equal(again.json['outcome'], '3ds_required');
    assert.notEqual(again.json['userActionUrl'], r.json['userActionUrl']);
  });
});
