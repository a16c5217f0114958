/**
 * The profile machinery itself (`sandbox/profiles.ts`): how a profile is chosen, how a
 * tolerated body is put in the spec's form without touching the caller's object, and the
 * leniency log (one warn line per request, bounded, values never written).
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {startSandbox} from '../../../../sandbox/index.js';
import {LeniencyLog, readCallback, tolerateBody} from '../../../../sandbox/profiles.js';
import type {Leniency} from '../../../../sandbox/profiles.js';

describe('choosing a profile', () => {
  test('live is the default and is shown by GET /sandbox with its rules', async () => {
    const sandbox = await startSandbox();
    try {
      assert.equal(sandbox.profile, 'live');
      const index = (await (await fetch(`${sandbox.url}/sandbox`)).json()) as {
        profile: string;
        leniencyRules: Record<string, string>;
      };
      assert.equal(index.profile, 'live');
      assert.ok('unknown-field' in index.leniencyRules);
    } finally {
      await sandbox.close();
    }
  });
  test('an unknown profile is an error naming the option', async () => {
    await assert.rejects(
      startSandbox({profile: 'lax' as never}),
      /option "profile": must be live or strict/,
    );
  });
});

describe('tolerateBody', () => {
  test('drops nulls and unknown keys at every depth of a strict object, not in a loose one', () => {
    const body = {
      mode: 'direct',
      colour: 'red',
      payload: null,
      init_recurring: {interval_unit: 'day', interval_count: 1, expiry_date: null, x: 1},
      products: [{name: 'Mug', vendor_code: 'M1', unit: null}],
    };
    const {body: out, leniencies} = tolerateBody('createPayment', body);
    assert.deepEqual(out, {
      mode: 'direct',
      init_recurring: {interval_unit: 'day', interval_count: 1},
      products: [{name: 'Mug', vendor_code: 'M1'}],
    });
    assert.deepEqual(
      leniencies.map((l) => `${l.rule} ${l.field}`),
      [
        'unknown-field colour',
        'null-as-absent payload',
        'null-as-absent init_recurring.expiry_date',
        'unknown-field init_recurring.x',
        'null-as-absent products.0.unit',
      ],
    );
  });
  test("leaves the caller's object untouched", () => {
    const body = {mode: 'hosted', customer_referrer: 'https://a.example/', payload: null};
    const copy = structuredClone(body);
    tolerateBody('createPayment', body);
    assert.deepEqual(body, copy);
  });
  test('leaves alone a body it cannot read, for the wire schemas to refuse', () => {
    assert.deepEqual(tolerateBody('createPayment', {mode: 'wallet', x: null}).body, {
      mode: 'wallet',
      x: null,
    });
    assert.deepEqual(tolerateBody('capture', [1, 2]).body, [1, 2]);
  });
  test('reads a text secondary amount only when it is a valid amount', () => {
    assert.equal(
      (tolerateBody('refund', {refund_amount: '2.50'}).body as {refund_amount: unknown})
        .refund_amount,
      2.5,
    );
    assert.equal(
      (tolerateBody('refund', {refund_amount: '2.505'}).body as {refund_amount: unknown})
        .refund_amount,
      '2.505',
    );
    assert.equal(
      (tolerateBody('void', {refund_amount: '2.50'}).leniencies[0] as Leniency).rule,
      'unknown-field',
    );
  });
});

describe('readCallback', () => {
  test('true and false in both profiles; 1 only under live; anything else invalid', () => {
    const noted: Leniency[] = [];
    assert.equal(readCallback('true', 'strict', noted), true);
    assert.equal(readCallback('false', 'strict', noted), false);
    assert.equal(readCallback(undefined, 'strict', noted), undefined);
    assert.equal(readCallback('1', 'strict', noted), 'invalid');
    assert.equal(readCallback('yes', 'live', noted), 'invalid');
    assert.deepEqual(noted, []);
    assert.equal(readCallback('1', 'live', noted), true);
    assert.deepEqual(noted, [{rule: 'callback-1', field: 'callback'}]);
  });
});

describe('LeniencyLog', () => {
  const record = (path: string) => ({
    at: '2027-01-01T00:00:00.000Z',
    method: 'POST',
    path,
    endpoint: 'void' as const,
    leniencies: [{rule: 'unknown-field' as const, field: 'refund_date'}],
  });
  test('writes one warn line per noted request and nothing for a request without tolerances', () => {
    const lines: string[] = [];
    const log = new LeniencyLog({warn: (l) => lines.push(l)});
    log.note(record('/api/v1/void'));
    log.note({...record('/api/v1/void'), leniencies: []});
    assert.deepEqual(lines, [
      'sandbox[live]: POST /api/v1/void relied on unknown-field (refund_date); the strict profile refuses this request',
    ]);
    assert.equal(log.list().length, 1);
    log.clear();
    assert.equal(log.list().length, 0);
  });
  test('keeps at most max records, dropping the oldest', () => {
    const log = new LeniencyLog({max: 2, warn: () => undefined});
    for (const p of ['/a', '/b', '/c']) log.note(record(p));
    assert.deepEqual(
      log.list().map((r) => r.path),
      ['/b', '/c'],
    );
  });
});
