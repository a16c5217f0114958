/**
 * The migration that keeps card tokens out of older rows (version 5; PostgreSQL's version
 * 4 in pg-checkout 0.1.0's numbering), from every earlier version, with rows an older
 * pg-checkout wrote: the
 * attempt's `card_token` is cleared, `cc_token` leaves the attempt's and the operation's
 * `raw` (also nested) and the stored webhook `data` (re-encoded, still Base64Url JSON),
 * `cardToken` leaves the outbox's updates, and a saved card keeps its token and gets the
 * brand its mask tells. Afterwards only `saved_cards` holds a token: every table's text,
 * and for SQLite the file's bytes.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  PostgresPaymentStore,
  SqlitePaymentStore,
  encodeWebhookData,
} from '../../../src/server/index.js';
import {MIGRATIONS} from '../../../src/server/store/migrations.js';
import {TOKEN_FREE_MIGRATION} from './fixtures/released-0.1.0/sqlite-schema.js';
import {RELEASED_POSTGRES, RELEASED_SQLITE, postgresAt, sqliteAt} from './schema-versions.js';
import {
  IN_PROCESS_SKIP,
  PG_SKIP,
  PG_TEST_URL,
  dropSchemas,
  pgQuery,
  schemaName,
} from './postgres.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-token-migration-'));
after(async () => {
  rmSync(tmp, {recursive: true, force: true});
  await dropSchemas();
});

/** The tokens an older version kept in rows (none with consent) and the saved card's. */
const OLD = 'OLDTOKENaaaa1111';
const NESTED = 'rcr:OLDTOKENbbbb2222';
const SAVED = 'SAVEDTOKENcccc3333';

const record = {
  order_id: 'o-old-1',
  status: 'success',
  cc_mask: '555555******4444',
  cc_token: OLD,
  cc_token_expiration: '2031-12-31T23:59:59',
};
const webhookData = encodeWebhookData({...record, payment_id: 'p-1', pos_id: 'x'});
const renewal = {...record, recurring_payment: {cc_token: NESTED}};
const update = {kind: 'payment', orderRef: 'o-old', state: 'success', cardToken: OLD};

/** The rows, as SQL for one schema version (tables that version has). */
function oldRows(version: number, savedCardsFrom: number): string {
  const q = (v: unknown) =>
    `'${(typeof v === 'string' ? v : JSON.stringify(v)).replace(/'/g, "''")}'`;
  return `
    INSERT INTO attempts (attempt_id, order_ref, gateway_order_id, seq, method, amount, currency, state, card_mask, card_token, raw, created_at, updated_at)
      VALUES ('old', 'o-old', 'o-old-1', 1, 'purchase', '1.20', 'XTS', 'success', '555555******4444', ${q(OLD)}, ${q(record)}, 1, 1);
    INSERT INTO webhook_events (event_key, received_at, kind, gateway_order_id, status, data)
      VALUES ('k-old', 1, 'primary', 'o-old-1', 'success', ${q(webhookData)});
    INSERT INTO webhook_events (event_key, received_at, kind, data) VALUES ('k-odd', 2, 'undecodable', 'not%base64');
    INSERT INTO operations (gateway_order_id, order_ref, kind, operation_id, status, raw, created_at)
      VALUES ('o-old-1', 'o-old', 'subscription_charge', 'op-1', 'success', ${q(renewal)}, 1);
    INSERT INTO outbox (created_at, payload) VALUES (1, ${q(update)});
    ${
      version >= savedCardsFrom
        ? `INSERT INTO saved_cards (id, customer_id, token, mask, token_expires_at, created_at)
             VALUES ('sc_000000000000000000000001', 'cust-1', ${q(SAVED)}, '378282*****0005', '2031-12-31T23:59:59', 1);`
        : ''
    }`;
}

/** What every migrated store must show, given every table's text. */
function checkTables(tables: Record<string, string>, hadSavedCards: boolean) {
  for (const [name, text] of Object.entries(tables)) {
    assert.ok(!text.includes(OLD), `${name} still holds a token`);
    assert.ok(!text.includes(NESTED), `${name} still holds the nested token`);
    if (name !== 'saved_cards') assert.ok(!text.includes(SAVED), name);
  }
  assert.ok(tables['attempts']!.includes('cc_token_expiration'), 'the record is kept');
  assert.equal(tables['saved_cards']!.includes(SAVED), hadSavedCards);
}

async function checkStore(s: SqlitePaymentStore | PostgresPaymentStore, hadSavedCards: boolean) {
  const attempt = await s.getAttempt('old');
  assert.equal(attempt?.state, 'success');
  assert.equal(JSON.parse(attempt!.raw!).cc_token, undefined);
  assert.equal(JSON.parse(attempt!.raw!).cc_mask, '555555******4444');
  const [event, odd] = await s.listEvents();
  const payload = JSON.parse(Buffer.from(event!.data, 'base64url').toString('utf8'));
  assert.equal(payload.cc_token, undefined);
  assert.equal(payload.order_id, 'o-old-1');
  assert.equal(odd?.data, 'not%base64');
  const [operation] = await s.listOperations('o-old');
  assert.deepEqual(JSON.parse(operation!.raw).recurring_payment, {});
  const [entry] = await s.pendingOutbox();
  assert.equal('cardToken' in entry!.update, false);
  assert.equal(entry!.update.state, 'success');
  if (hadSavedCards) {
    const card = await s.getSavedCard('sc_000000000000000000000001');
    assert.equal(card?.token, SAVED);
    assert.equal(card?.brand, 'american-express');
  }
}

/** The SQLite half: the unit tier's (the integration tier runs the PostgreSQL half). */
const SQLITE = {skip: IN_PROCESS_SKIP};

describe('SQLite: the token-free migration from every earlier version', SQLITE, () => {
  // Versions after it (the outbox index) start from files it has already cleaned.
  const tokenFree = RELEASED_SQLITE.find((m) => m.name === TOKEN_FREE_MIGRATION.name)!.version;
  for (const from of RELEASED_SQLITE.map((m) => m.version).filter((v) => v < tokenFree)) {
    test(`from version ${from}, with rows holding tokens`, async () => {
      const file = path.join(tmp, `v${from}.db`);
      sqliteAt(file, from, true, oldRows(from, 4));
      assert.ok(readFileSync(file).toString('latin1').includes(OLD), 'the old file held it');

      const s = new SqlitePaymentStore(file);
      assert.deepEqual(
        s.appliedMigrations(),
        MIGRATIONS.map((m) => m.version),
      );
      await checkStore(s, from >= 4);
      await s.close();
      const db = new Database(file, {readonly: true});
      const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
        name: string;
      }[];
      const tables = Object.fromEntries(
        names.map(({name}) => [name, JSON.stringify(db.prepare(`SELECT * FROM ${name}`).all())]),
      );
      db.close();
      checkTables(tables, from >= 4);
      let bytes = readFileSync(file).toString('latin1');
      try {
        bytes += readFileSync(`${file}-wal`).toString('latin1');
      } catch {
        // no WAL left
      }
      assert.ok(!bytes.includes(OLD), 'the file still holds the old token');
      assert.ok(!bytes.includes(NESTED), 'the file still holds the nested token');
    });
  }
});

describe('PostgreSQL: the token-free migration from every earlier version', {skip: PG_SKIP}, () => {
  // pg-checkout 0.1.0's numbering: its version 4 was the token-free migration.
  const latest = RELEASED_POSTGRES.at(-1)!.version;
  for (const from of RELEASED_POSTGRES.map((m) => m.version).filter((v) => v < latest)) {
    test(`from 0.1.0's version ${from}, with rows holding tokens`, async () => {
      const schema = schemaName(`tok${from}`);
      await postgresAt(schema, from, true, oldRows(from, 3));
      const s = new PostgresPaymentStore({connectionString: PG_TEST_URL, schema});
      assert.deepEqual(
        await s.appliedMigrations(),
        MIGRATIONS.map((m) => m.version),
      );
      await checkStore(s, from >= 3);
      await s.close();
      const names = await pgQuery<{name: string}>(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1',
        [schema],
      );
      const tables: Record<string, string> = {};
      for (const {name} of names) {
        const rows = await pgQuery<{t: string}>(`SELECT t::text AS t FROM ${schema}.${name} t`);
        tables[name] = rows.map((r) => r.t).join('\n');
      }
      checkTables(tables, from >= 3);
    });
  }
});
