/**
 * The PaymentStore contract, run against every implementation (memory, SQLite and
 * PostgreSQL, the last in a schema of its own per store, skipped without a server): the
 * constraints the never-double guarantee relies on, atomic event + change + outbox
 * writes, the state machine's ordering rules, and SQLite's migrations and durability
 * across reopening the file.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import fs, {mkdtempSync, rmSync} from 'node:fs';
import {syncBuiltinESMExports} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  SqlitePaymentStore,
  PostgresPaymentStore,
  type PaymentStore,
} from '../../../src/server/index.js';
import {MIGRATIONS} from '../../../src/server/store/migrations.js';
import type {NewPaymentUpdate} from '../../../src/server/store/payment-store.js';
import {
  applyGatewayStatus,
  markNotCreated,
  markUnknown,
  type GatewayStatusInfo,
} from '../../../src/server/payments/attempt-transitions.js';
import {storedAttempt as attempt} from './attempt-rows.js';
import {IN_PROCESS_SKIP, PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from './postgres.js';

const info = (status: GatewayStatusInfo['status'], extra: Partial<GatewayStatusInfo> = {}) =>
  ({
    status,
    statusCode: status === 'success' ? '1000' : '2122',
    raw: `{"status":"${status}","extra_field":1}`,
    ...extra,
  }) as GatewayStatusInfo;

const event = (key: string) => ({
  eventKey: key,
  receivedAt: 5,
  kind: 'primary',
  data: `data-${key}`,
});

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-store-'));
process.on('exit', () => rmSync(tmp, {recursive: true, force: true}));
let n = 0;

const implementations: [string, () => PaymentStore, skip?: string | false][] = [
  ["SqlitePaymentStore (':memory:')", () => new SqlitePaymentStore(':memory:'), IN_PROCESS_SKIP],
  [
    'SqlitePaymentStore',
    () => new SqlitePaymentStore(path.join(tmp, `s${n++}.db`)),
    IN_PROCESS_SKIP,
  ],
  [
    'PostgresPaymentStore',
    () => new PostgresPaymentStore({connectionString: PG_TEST_URL, schema: schemaName('store')}),
    PG_SKIP,
  ],
];
after(dropSchemas);

for (const [name, make, skip] of implementations) {
  describe(`${name} (store contract)`, {skip: skip || false}, () => {
    test('inserts an attempt and reads it back by id, gateway order id and order', async () => {
      const s = make();
      const r = await s.insertAttempt(attempt('a1', 'o1'));
      assert.equal(r.inserted, true);
      assert.equal((await s.getAttempt('a1'))?.gatewayOrderId, 'o1-a1');
      assert.equal((await s.getAttemptByGatewayOrderId('o1-a1'))?.attemptId, 'a1');
      assert.deepEqual(
        (await s.listAttempts('o1')).map((a) => a.attemptId),
        ['a1'],
      );
      assert.equal(await s.getAttempt('nope'), undefined);
      await s.close();
    });

    test('refuses a second attempt with the same id and returns the stored one', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      const r = await s.insertAttempt(attempt('a1', 'o1', {gatewayOrderId: 'other'}));
      assert.equal(r.inserted, false);
      assert.equal(!r.inserted && r.reason, 'same_attempt');
      assert.equal(!r.inserted && r.reason !== 'limited' && r.existing.gatewayOrderId, 'o1-a1');
      await s.close();
    });

    test('refuses a new attempt while the order has a live one; allows it after a failure', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      const blocked = await s.insertAttempt(attempt('a2', 'o1', {seq: 2}));
      assert.equal(!blocked.inserted && blocked.reason, 'order_has_live_attempt');
      await s.updateAttempt({attemptId: 'a1'}, (c) =>
        applyGatewayStatus(c, info('failure'), 2000, 'create'),
      );
      const allowed = await s.insertAttempt(attempt('a2', 'o1', {seq: 2}));
      assert.equal(allowed.inserted, true);
      assert.deepEqual(
        (await s.listAttempts('o1')).map((a) => a.seq),
        [1, 2],
      );
      await s.close();
    });

    test('a success blocks every later attempt of the order', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      await s.updateAttempt({attemptId: 'a1'}, (c) =>
        applyGatewayStatus(c, info('success'), 2000, 'create'),
      );
      const r = await s.insertAttempt(attempt('a2', 'o1', {seq: 2}));
      assert.equal(r.inserted, false);
      assert.equal(!r.inserted && r.reason !== 'limited' && r.existing.state, 'success');
      await s.close();
    });

    test('the gateway order id is unique', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1', {gatewayOrderId: 'same'}));
      await assert.rejects(
        () => s.insertAttempt(attempt('a2', 'o2', {gatewayOrderId: 'same'})),
        /unique/i,
      );
      await s.close();
    });

    test('a change and its update are written together; the outbox holds it until delivered', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      const r = await s.updateAttempt({gatewayOrderId: 'o1-a1'}, (c) =>
        applyGatewayStatus(c, info('pending', {userActionUrl: 'https://gw/3ds'}), 2000, 'create'),
      );
      assert.equal(r.changed, true);
      assert.equal(r.attempt?.state, 'pending');
      assert.equal(r.attempt?.userActionUrl, 'https://gw/3ds');
      const out = await s.pendingOutbox();
      assert.equal(out.length, 1);
      assert.equal(out[0]!.update.state, 'pending');
      assert.equal(out[0]!.update.previousState, 'creating');
      assert.equal(out[0]!.update.updateId, String(out[0]!.id));
      await s.markOutboxFailed(out[0]!.id);
      assert.equal((await s.pendingOutbox())[0]!.failures, 1);
      await s.markOutboxDelivered(out[0]!.id, 3000);
      assert.deepEqual(await s.pendingOutbox(), []);
      await s.close();
    });

    test('an event is stored once: a duplicate key changes nothing', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      const first = await s.updateAttempt(
        {gatewayOrderId: 'o1-a1'},
        (c) => applyGatewayStatus(c, info('success'), 2000, 'webhook'),
        event('k1'),
      );
      assert.equal(first.duplicateEvent, false);
      let called = false;
      const second = await s.updateAttempt(
        {gatewayOrderId: 'o1-a1'},
        () => {
          called = true;
          return undefined;
        },
        event('k1'),
      );
      assert.equal(second.duplicateEvent, true);
      assert.equal(called, false);
      assert.equal((await s.listEvents()).length, 1);
      assert.equal((await s.pendingOutbox()).length, 1);
      await s.close();
    });

    test('an event for an unknown order is still stored', async () => {
      const s = make();
      const r = await s.updateAttempt({gatewayOrderId: 'ghost'}, () => undefined, event('k2'));
      assert.equal(r.attempt, undefined);
      assert.equal((await s.listEvents())[0]?.eventKey, 'k2');
      assert.equal(await s.recordEvent(event('k3')), true);
      assert.equal(await s.recordEvent(event('k3')), false);
      await s.close();
    });

    test('an older status never overwrites a newer one, and a final one never changes', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      const apply = (st: GatewayStatusInfo['status']) =>
        s.updateAttempt({attemptId: 'a1'}, (c) => applyGatewayStatus(c, info(st), 2000, 'webhook'));
      await apply('success');
      await apply('pending');
      await apply('failure');
      await apply('init');
      const a = await s.getAttempt('a1');
      assert.equal(a?.state, 'success');
      assert.equal((await s.pendingOutbox()).length, 1, 'one update: creating → success');
      await s.close();
    });

    test('keeps the raw payload with unknown fields', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      await s.updateAttempt({attemptId: 'a1'}, (c) =>
        applyGatewayStatus(c, info('success'), 2000, 'webhook'),
      );
      assert.match((await s.getAttempt('a1'))!.raw!, /extra_field/);
      await s.close();
    });

    test('a failure we inferred (not created) gives way to what the gateway reports', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      await s.updateAttempt({attemptId: 'a1'}, (c) => markUnknown(c, 1500));
      await s.updateAttempt({attemptId: 'a1'}, (c) => markNotCreated(c, 1600, 'not_created', 'x'));
      assert.equal((await s.getAttempt('a1'))?.failureReason, 'not_created');
      await s.updateAttempt({attemptId: 'a1'}, (c) =>
        applyGatewayStatus(c, info('success'), 2000, 'webhook'),
      );
      assert.equal((await s.getAttempt('a1'))?.state, 'success');
      assert.equal((await s.getAttempt('a1'))?.failureReason, undefined);
      await s.close();
    });

    test('lists attempts by state', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      await s.insertAttempt(attempt('a2', 'o2', {createdAt: 2000}));
      await s.updateAttempt({attemptId: 'a2'}, (c) => markUnknown(c, 2100));
      assert.deepEqual(
        (await s.listAttemptsInStates(['creating'])).map((a) => a.attemptId),
        ['a1'],
      );
      assert.deepEqual(
        (await s.listAttemptsInStates(['creating', 'unknown'])).map((a) => a.attemptId),
        ['a1', 'a2'],
      );
      await s.close();
    });

    test('records an operation once per (operation, status), with its update', async () => {
      const s = make();
      const op = {
        gatewayOrderId: 'o1-a1',
        orderRef: 'o1',
        kind: 'refund' as const,
        operationId: 'op1',
        status: 'success',
        amount: '1.00',
        currency: 'XTS',
        raw: '{}',
        createdAt: 10,
      };
      const upd: NewPaymentUpdate = {
        kind: 'refund',
        orderRef: 'o1',
        attemptId: 'a1',
        gatewayOrderId: 'o1-a1',
        state: 'success',
        source: 'webhook',
        at: new Date(10).toISOString(),
      };
      assert.equal((await s.recordOperation(op, upd, event('e1'))).inserted, true);
      assert.equal((await s.recordOperation(op, upd, event('e2'))).inserted, false);
      assert.equal((await s.recordOperation(op, upd, event('e1'))).duplicateEvent, true);
      assert.equal((await s.listOperations('o1')).length, 1);
      assert.equal((await s.pendingOutbox()).length, 1);
      await s.close();
    });

    test('outbox claims: one owner at a time until the claim expires; delivered is never claimed', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      for (const st of ['pending', 'success'] as const) {
        await s.updateAttempt({attemptId: 'a1'}, (c) =>
          applyGatewayStatus(c, info(st), 2000, 'webhook'),
        );
      }
      const mine = await s.claimOutbox('i1', 10_000, 5000, 1);
      assert.equal(mine.length, 1, 'the limit is kept');
      const rest = await s.claimOutbox('i2', 10_000, 5000);
      assert.equal(rest.length, 1, 'another owner gets only what is free');
      assert.notEqual(rest[0]!.id, mine[0]!.id);
      assert.deepEqual(await s.claimOutbox('i3', 14_999, 5000), [], 'nothing free before expiry');
      assert.deepEqual(
        (await s.claimOutbox('i1', 11_000, 5000)).map((e) => e.id),
        [mine[0]!.id],
        'an owner re-claims its own entry (a retry after a failure)',
      );
      await s.markOutboxFailed(mine[0]!.id);
      // i1's claim (renewed at 11 000) expires at 16 000: then i2 takes its entry over.
      assert.deepEqual(
        (await s.claimOutbox('i2', 15_999, 5000)).map((e) => e.id),
        [rest[0]!.id],
        'i1 still holds its entry',
      );
      const taken = await s.claimOutbox('i2', 16_000, 5000);
      assert.deepEqual(
        taken.map((e) => [e.id, e.failures]),
        [
          [mine[0]!.id, 1],
          [rest[0]!.id, 0],
        ],
        'expired claims are taken over, oldest first, with their failure count',
      );
      await s.markOutboxDelivered(mine[0]!.id, 17_000);
      assert.deepEqual(
        (await s.claimOutbox('i3', 99_000, 5000)).map((e) => e.id),
        [rest[0]!.id],
        'a delivered entry is never claimed again',
      );
      await s.close();
    });

    test('claimOutboxAfterDelivery marks what was delivered before it claims, never returning it', async () => {
      const s = make();
      await s.insertAttempt(attempt('a1', 'o1'));
      for (const st of ['pending', 'success'] as const) {
        await s.updateAttempt({attemptId: 'a1'}, (c) =>
          applyGatewayStatus(c, info(st), 2000, 'webhook'),
        );
      }
      assert.ok(s.claimOutboxAfterDelivery, 'the built-in stores have it');
      const [first, second] = await s.claimOutbox('i1', 10_000, 5000);
      assert.ok(first && second);
      // The owner's own entries are claimed again unless marked: the marks come first.
      assert.deepEqual(
        (await s.claimOutboxAfterDelivery([{id: first.id, at: 10_500}], 'i1', 11_000, 5000)).map(
          (e) => e.id,
        ),
        [second.id],
      );
      assert.deepEqual(
        (await s.pendingOutbox()).map((e) => e.id),
        [second.id],
      );
      // A mark again changes nothing; the last one leaves nothing to claim.
      assert.deepEqual(
        await s.claimOutboxAfterDelivery(
          [
            {id: first.id, at: 99_000},
            {id: second.id, at: 11_500},
          ],
          'i1',
          12_000,
          5000,
        ),
        [],
      );
      assert.deepEqual(await s.pendingOutbox(), []);
      assert.deepEqual(await s.claimOutbox('i2', 99_000, 5000), [], 'never claimed again');
      await s.close();
    });

    test('leases: held by one owner until released or expired', async () => {
      const s = make();
      assert.equal(await s.acquireLease('lookup:x', 'i1', 1000, 500), true);
      assert.equal(await s.acquireLease('lookup:x', 'i2', 1499, 500), false, 'held by i1');
      assert.equal(await s.acquireLease('lookup:y', 'i2', 1000, 500), true, 'another key is free');
      assert.equal(await s.acquireLease('lookup:x', 'i1', 1400, 500), true, 'i1 renews (to 1900)');
      assert.equal(await s.acquireLease('lookup:x', 'i2', 1899, 500), false, 'renewed');
      assert.equal(await s.acquireLease('lookup:x', 'i2', 1900, 500), true, 'expired: taken over');
      await s.releaseLease('lookup:x', 'i1');
      assert.equal(await s.acquireLease('lookup:x', 'i3', 2000, 500), false, 'i1 released nothing');
      await s.releaseLease('lookup:x', 'i2');
      assert.equal(await s.acquireLease('lookup:x', 'i3', 2000, 500), true, 'released: free');
      await s.close();
    });

    test('card-testing reservations: concurrent requests never pass the same last place', async () => {
      const s = make();
      const keys = [{scope: 'ip', key: '198.51.100.0/64', max: 3}];
      const results = await Promise.all(
        Array.from({length: 12}, () => s.reserveAttempt(keys, 10_000, 60_000)),
      );
      assert.equal(results.filter((r) => r.ok).length, 3);
      const refused = results.find((r) => !r.ok);
      assert.deepEqual(refused, {ok: false, scope: 'ip', retryAfterMs: 60_000});
      assert.deepEqual(await s.reserveAttempt(keys, 70_000, 60_000), {ok: true}, 'window moved');
      await s.close();
    });

    test('an attempt and its card-testing counts are stored together or not at all', async () => {
      const s = make();
      const window = {now: 10_000, windowMs: 60_000};
      const reserve = (key: string, max: number) => ({keys: [{scope: 'ip', key, max}], ...window});
      const counted = async (key: string) =>
        (await s.reserveAttempt([{scope: 'ip', key, max: 2}], 10_000, 60_000)).ok;

      // Inserted: counted in the same write.
      const first = await s.insertAttempt(attempt('a1', 'o1'), reserve('ip-1', 1));
      assert.equal(first.inserted, true);
      assert.deepEqual(
        await s.reserveAttempt([{scope: 'ip', key: 'ip-1', max: 1}], 10_000, 60_000),
        {
          ok: false,
          scope: 'ip',
          retryAfterMs: 60_000,
        },
      );

      // Over the limit: refused, and the attempt is not stored.
      const limited = await s.insertAttempt(attempt('a2', 'o2'), reserve('ip-1', 1));
      assert.deepEqual(limited, {
        inserted: false,
        reason: 'limited',
        scope: 'ip',
        retryAfterMs: 60_000,
      });
      assert.equal(await s.getAttempt('a2'), undefined);
      assert.deepEqual(await s.listAttempts('o2'), []);

      // The insert fails (its gateway order id is taken): nothing is counted.
      await assert.rejects(() =>
        s.insertAttempt(attempt('a3', 'o3', {gatewayOrderId: 'o1-a1'}), reserve('ip-3', 1)),
      );
      assert.equal(await s.getAttempt('a3'), undefined);
      assert.equal(await counted('ip-3'), true, 'the failed insert counted nothing');
      assert.equal(await counted('ip-3'), true, 'so two places were still free');

      // Not inserted because the order has a live attempt (no create follows): not counted.
      const blocked = await s.insertAttempt(attempt('a4', 'o1', {seq: 2}), reserve('ip-4', 1));
      assert.equal(!blocked.inserted && blocked.reason, 'order_has_live_attempt');
      assert.equal(await counted('ip-4'), true);
      assert.equal(await counted('ip-4'), true);
      await s.close();
    });

    test('concurrent attempts with counts: exactly the limit is stored and counted', async () => {
      const s = make();
      const keys = [{scope: 'card', key: 'card-x', max: 5}];
      const results = await Promise.all(
        Array.from({length: 60}, (_, i) =>
          s.insertAttempt(attempt(`p${i}`, `order-${i}`), {keys, now: 10_000, windowMs: 60_000}),
        ),
      );
      assert.equal(results.filter((r) => r.inserted).length, 5);
      assert.equal(results.filter((r) => !r.inserted && r.reason === 'limited').length, 55);
      let stored = 0;
      for (let i = 0; i < 60; i++) if (await s.getAttempt(`p${i}`)) stored++;
      assert.equal(stored, 5);
      assert.equal((await s.reserveAttempt(keys, 10_000, 60_000)).ok, false, 'all 5 counted');
      await s.close();
    });

    test('concurrent inserts for one order: exactly one live attempt', async () => {
      const s = make();
      const results = await Promise.all(
        Array.from({length: 10}, (_, i) => s.insertAttempt(attempt(`c${i}`, 'race'))),
      );
      assert.equal(results.filter((r) => r.inserted).length, 1);
      assert.equal(
        results.filter((r) => !r.inserted && r.reason === 'order_has_live_attempt').length,
        9,
      );
      assert.equal((await s.listAttempts('race')).length, 1);
      await s.close();
    });

    test('records rejected webhooks', async () => {
      const s = make();
      await s.recordRejectedWebhook({
        receivedAt: 1,
        ip: '198.51.100.1',
        reason: 'bad_signature',
        bodySha256: 'ab',
        size: 10,
      });
      assert.equal((await s.listRejectedWebhooks())[0]?.reason, 'bad_signature');
      assert.equal(await s.ping(), true);
      await s.close();
    });
  });
}

/** Every migration's version, in order: what a new or upgraded file reports. */
const ALL_VERSIONS = MIGRATIONS.map((m) => m.version);

describe('SqlitePaymentStore specifics', {skip: IN_PROCESS_SKIP}, () => {
  test('runs versioned migrations once and keeps WAL mode', async () => {
    const file = path.join(tmp, 'migrations.db');
    const s = new SqlitePaymentStore(file);
    assert.deepEqual(s.appliedMigrations(), ALL_VERSIONS);
    await s.close();
    const again = new SqlitePaymentStore(file);
    assert.deepEqual(again.appliedMigrations(), ALL_VERSIONS);
    await again.close();
    const db = new Database(file);
    assert.equal(db.pragma('journal_mode', {simple: true}), 'wal');
    assert.equal(
      (db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as {n: number}).n,
      MIGRATIONS.length,
    );
    db.close();
  });

  test("on the app's own connection: one page cache for both, the app's to close", async () => {
    const file = path.join(tmp, 'shared.db');
    const db = new Database(file);
    db.exec('CREATE TABLE app_orders (ref TEXT PRIMARY KEY)');
    const s = new SqlitePaymentStore({filename: file, connection: db});
    assert.equal(db.pragma('journal_mode', {simple: true}), 'wal');
    assert.equal((await s.insertAttempt(attempt('a1', 'o1'))).inserted, true);
    db.prepare('INSERT INTO app_orders VALUES (?)').run('o1');
    assert.equal((await s.getAttempt('a1'))?.orderRef, 'o1');
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM attempts').get() as {n: number}).n, 1);
    await s.close();
    assert.equal(db.open, true, 'the store leaves the connection to its owner');
    db.close();
    const again = new SqlitePaymentStore(file);
    assert.equal((await again.getAttempt('a1'))?.state, 'creating', 'durable as on its own');
    await again.close();
    const other = new Database(path.join(tmp, 'other.db'));
    assert.throws(
      () => new SqlitePaymentStore({filename: file, connection: other}),
      /the connection is to .*other\.db/,
    );
    other.close();
  });

  test('finds the undelivered outbox entries by an index of those alone', async () => {
    const file = path.join(tmp, 'outbox-index.db');
    const s = new SqlitePaymentStore(file);
    await s.close();
    const db = new Database(file);
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as {detail: string}[]).map((r) => r.detail);
    assert.deepEqual(
      plan('SELECT * FROM outbox WHERE delivered_at IS NULL ORDER BY id LIMIT 100'),
      ['SCAN outbox USING INDEX outbox_undelivered'],
    );
    const index = db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'")
      .all() as {sql: string}[];
    assert.deepEqual(
      index.map((i) => i.sql.replace(/\s+/g, ' ')),
      ['CREATE INDEX outbox_undelivered ON outbox(id) WHERE delivered_at IS NULL'],
    );
    db.close();
  });

  // Upgrades from every earlier version, and a newer schema refused: migrations.test.ts.

  test('what was stored survives closing and reopening the file', async () => {
    const file = path.join(tmp, 'reopen.db');
    const s = new SqlitePaymentStore(file);
    await s.insertAttempt(attempt('a1', 'o1'));
    await s.updateAttempt({attemptId: 'a1'}, (c) =>
      applyGatewayStatus(c, info('pending'), 2000, 'create'),
    );
    await s.close();
    const t = new SqlitePaymentStore(file);
    assert.equal((await t.getAttempt('a1'))?.state, 'pending');
    assert.equal((await t.pendingOutbox()).length, 1);
    await t.close();
  });

  test('durable writes are acknowledged only once the WAL holding them is synced', async () => {
    const file = path.join(tmp, 'durable.db');
    const steps: string[] = [];
    const original = fs.fdatasync;
    // A slow disk: the sync is seen to start, and to finish, before any promise resolves.
    fs.fdatasync = ((fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
      steps.push('sync');
      setTimeout(() => original(fd, (error) => (steps.push('synced'), done(error))), 30);
    }) as typeof fs.fdatasync;
    syncBuiltinESMExports();
    try {
      const s = new SqlitePaymentStore(file);
      const done = (what: string) => () => steps.push(what);
      // Asked for in one turn: one transaction, one sync, then both answers.
      await Promise.all([
        s.insertAttempt(attempt('d1', 'o1')).then(done('insert')),
        s
          .updateAttempt(
            {attemptId: 'd1'},
            (c) => applyGatewayStatus(c, info('success'), 2000, 'webhook'),
            event('e1'),
          )
          .then(done('webhook')),
      ]);
      assert.deepEqual(steps, ['sync', 'synced', 'insert', 'webhook']);
      steps.length = 0;
      await s.recordEvent(event('e2')).then(done('event'));
      assert.deepEqual(steps, ['sync', 'synced', 'event']);
      steps.length = 0;
      // A change from a create answer can be rebuilt from the gateway: not synced.
      await s.insertAttempt(attempt('d2', 'o2'));
      steps.length = 0;
      await s.updateAttempt({attemptId: 'd2'}, (c) =>
        applyGatewayStatus(c, info('pending'), 2000, 'create'),
      );
      assert.deepEqual(steps, []);
      await s.close();
      const t = new SqlitePaymentStore(file);
      assert.equal((await t.getAttempt('d1'))?.state, 'success');
      assert.equal((await t.listEvents()).length, 2);
      await t.close();
    } finally {
      fs.fdatasync = original;
      syncBuiltinESMExports();
    }
  });

  test('in a group commit, a write that fails is undone alone', async () => {
    const s = new SqlitePaymentStore(path.join(tmp, 'group.db'));
    const [a, b, c] = await Promise.allSettled([
      s.insertAttempt(attempt('g1', 'o1', {gatewayOrderId: 'same'})),
      s.insertAttempt(attempt('g2', 'o2', {gatewayOrderId: 'same'})),
      s.recordEvent(event('g3')),
    ]);
    assert.equal(a.status, 'fulfilled');
    assert.equal(b.status, 'rejected', 'the gateway order id is unique');
    assert.equal(c.status, 'fulfilled');
    assert.equal(await s.getAttempt('g2'), undefined);
    assert.equal((await s.getAttempt('g1'))?.gatewayOrderId, 'same');
    assert.equal((await s.listEvents()).length, 1);
    await s.close();
  });

  // Several writers on one file (real processes, one live attempt per order): multiprocess.test.ts.
});
