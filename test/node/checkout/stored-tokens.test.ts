/**
 * Card tokens in the payment store (issue 15: "only with consent, and only for a customer
 * the merchant identifies on the server, the companion stores the card's token"), on a
 * SQLite file and PostgreSQL (skipped without a server), through the
 * companion's routes with a scripted gateway: a tokenised payment without consent leaves
 * the token nowhere in the database (every table's text; the SQLite file's bytes); with
 * consent only in `saved_cards`, with the brand its mask tells; the create answer, a
 * webhook and a lookup, in either order, keep the card once; a crash right after the
 * success was stored, or a store write that failed, neither loses the card nor keeps it
 * twice; `onPaymentUpdate` carries the saved card's id, never a token.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import Database from 'better-sqlite3';
import {
  PostgresPaymentStore,
  StoreUnavailableError,
  type CheckoutApp,
  type PaymentStore,
  type PaymentUpdate,
} from '../../../src/server/index.js';
import {
  CARDS,
  StubGateway,
  inProcessApp,
  pay,
  payBody,
  postWebhook,
  primaryWebhook,
  record,
  signedWebhook,
  tempStores,
  catalogue,
} from './helpers.js';
import {
  IN_PROCESS_SKIP,
  PG_SKIP,
  PG_TEST_URL,
  dropSchemas,
  pgQuery,
  schemaName,
} from './postgres.js';

/** Orders `c-…` belong to customer `cust-1` (identified on the server); others to nobody. */
const {resolveOrder} = catalogue({}, {'c-': 'cust-1'});

const EXPIRY = '2031-12-31T23:59:59';
let tokens = 0;
/** A token unique to this run, easy to search for in bytes. */
const newToken = () => `TOKEN${process.pid}X${tokens++}ZZ`;

interface Backend {
  name: string;
  skip: string | false;
  store(): PaymentStore;
  /** Every row of every table as text. */
  dump(store: PaymentStore): Promise<Record<string, string>>;
  /** After the store is closed: raw bytes of its files, if it has any. */
  bytes(): string | undefined;
  cleanup(): Promise<void>;
}

const sqliteFiles = tempStores('pg-stored-tokens');
const BACKENDS: Backend[] = [
  {
    name: 'SQLite',
    skip: IN_PROCESS_SKIP,
    store: () => sqliteFiles.open('tokens'),
    async dump() {
      const [file] = sqliteFiles.files();
      const db = new Database(file!, {readonly: true});
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
          name: string;
        }[];
        return Object.fromEntries(
          tables.map(({name}) => [name, JSON.stringify(db.prepare(`SELECT * FROM ${name}`).all())]),
        );
      } finally {
        db.close();
      }
    },
    bytes() {
      let text = '';
      for (const file of sqliteFiles.files()) {
        for (const suffix of ['', '-wal', '-journal']) {
          try {
            text += readFileSync(file + suffix).toString('latin1');
          } catch {
            // not there
          }
        }
      }
      return text;
    },
    cleanup: () => sqliteFiles.cleanup(),
  },
  (() => {
    const schema = schemaName('tokens');
    return {
      name: 'PostgreSQL',
      skip: PG_SKIP,
      store: () => new PostgresPaymentStore({connectionString: PG_TEST_URL, schema}),
      async dump() {
        const tables = await pgQuery<{name: string}>(
          'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1',
          [schema],
        );
        const out: Record<string, string> = {};
        for (const {name} of tables) {
          const rows = await pgQuery<{t: string}>(`SELECT t::text AS t FROM ${schema}.${name} t`);
          out[name] = rows.map((r) => r.t).join('\n');
        }
        return out;
      },
      bytes: () => undefined,
      cleanup: dropSchemas,
    } satisfies Backend;
  })(),
];

/** Tables whose text holds `token`. */
async function whereIs(backend: Backend, store: PaymentStore, token: string): Promise<string[]> {
  const dump = await backend.dump(store);
  return Object.entries(dump)
    .filter(([, text]) => text.includes(token))
    .map(([name]) => name);
}

/** `/status` of an in-process companion (a lookup when the attempt is open). */
const status = (app: CheckoutApp, orderRef: string) =>
  app.request(`/status?order=${encodeURIComponent(orderRef)}`, {
    headers: {'X-PG-Checkout': '1'},
  });

for (const backend of BACKENDS) {
  describe(`card tokens in the store on ${backend.name}`, {skip: backend.skip}, () => {
    let store: PaymentStore;
    let gw: StubGateway;
    let app: CheckoutApp;
    let updates: PaymentUpdate[];
    /** The token each order's payment was given (the ones without consent are listed). */
    const unconsented: string[] = [];
    let n = 0;

    before(() => {
      store = backend.store();
      gw = new StubGateway();
      ({app, updates} = inProcessApp(store, gw, {
        resolveOrder,
        statusCheck: {afterMs: 0, minIntervalMs: 0},
      }));
    });
    after(async () => {
      await app.close().catch(() => undefined);
      await backend.cleanup();
    });

    /** The create answers success with `token` (and `mask`). */
    function succeedWith(token: string, mask = '424242******4242') {
      gw.onCreate = async (req) =>
        record(req, 'success', {
          cc_mask: mask,
          cc_token: token,
          cc_token_expiration: EXPIRY,
        } as never);
    }

    /** The create answers pending (3-D Secure); the lookup then finds success with `token`. */
    function challengeThenSucceed(token: string) {
      gw.onCreate = async (req) => {
        const later = record(req, 'success', {
          cc_token: token,
          cc_token_expiration: EXPIRY,
        } as never);
        setImmediate(() => gw.known.set(req.order_id, later));
        return record(req, 'pending');
      };
    }

    async function payOrder(orderRef: string, saveCard: boolean) {
      const body = {
        ...payBody(orderRef, `a-${backend.name}-${n++}`),
        ...(saveCard ? {saveCard} : {}),
      };
      const res = await pay(app, body);
      assert.equal(res.status, 200);
      const attempt = (await store.listAttempts(orderRef)).at(-1)!;
      return {answer: (await res.json()) as Record<string, unknown>, attempt};
    }

    const successWebhook = (gatewayOrderId: string, token: string, extra = {}) =>
      signedWebhook(
        primaryWebhook(gatewayOrderId, 'success', {
          cc_mask: '424242******4242',
          cc_token: token,
          cc_token_expiration: EXPIRY,
          ...extra,
        }),
      );

    const cardsOf = async (token: string) =>
      (await store.listSavedCards('cust-1')).filter((c) => c.token === token);

    test('without consent: the token is nowhere in the store (attempt, record, webhook, outbox)', async () => {
      const token = newToken();
      unconsented.push(token);
      succeedWith(token);
      const {answer, attempt} = await payOrder('c-noconsent', false);
      assert.equal(answer['outcome'], 'success');
      // The gateway's webhook of the same payment, kept for the record.
      const res = await postWebhook(app, successWebhook(attempt.gatewayOrderId, token));
      assert.equal(res.status, 200);
      assert.ok(
        (await store.listEvents()).some((e) => e.gatewayOrderId === attempt.gatewayOrderId),
      );
      // An order of nobody's, with consent asked by the browser: nothing kept either.
      const anonymous = newToken();
      unconsented.push(anonymous);
      succeedWith(anonymous);
      await payOrder('anon-consent', true);
      assert.deepEqual(await whereIs(backend, store, token), []);
      assert.deepEqual(await whereIs(backend, store, anonymous), []);
      const stored = await store.getAttempt(attempt.attemptId);
      assert.ok(stored?.raw?.includes('cc_token_expiration'), 'the record is kept, its expiry too');
      assert.ok(!('cardToken' in stored!));
    });

    test('with consent: the token only in the saved card, with its brand; the update has its id', async () => {
      const token = newToken();
      succeedWith(token);
      const {attempt} = await payOrder('c-consent', true);
      await postWebhook(app, successWebhook(attempt.gatewayOrderId, token));
      const [card, ...more] = await cardsOf(token);
      assert.ok(card, 'the card was saved');
      assert.equal(more.length, 0);
      assert.equal(card.brand, 'visa');
      assert.equal(card.mask, '424242******4242');
      assert.equal(card.tokenExpiresAt, EXPIRY);
      const where = await whereIs(backend, store, token);
      assert.deepEqual(where, ['saved_cards']);
      // onPaymentUpdate: the saved card's id, never a token.
      await app.flushOutbox();
      const update = updates.find(
        (u) => u.attemptId === attempt.attemptId && u.state === 'success',
      );
      assert.equal(update?.savedCardId, card.id);
      for (const u of updates) {
        assert.ok(!('cardToken' in u));
        assert.ok(!JSON.stringify(u).includes(token));
      }
    });

    test('brand from the mask: Visa, Mastercard, American Express, none; in /order too', async () => {
      const masks = {
        visa: '411111******1111',
        mastercard: '555555******4444',
        'american-express': '378282*****0005',
        none: '000000******0000',
      };
      for (const [brand, mask] of Object.entries(masks)) {
        const token = newToken();
        succeedWith(token, mask);
        await payOrder(`c-brand-${brand}`, true);
        const [card] = await cardsOf(token);
        assert.equal(card?.brand, brand === 'none' ? undefined : brand, mask);
      }
      const res = await app.request('/order', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-PG-Checkout': '1',
          Origin: 'https://shop.example',
        },
        body: JSON.stringify({orderRef: 'c-list', savedCards: true}),
      });
      const body = (await res.json()) as {savedCards: {mask: string; brand?: string}[]};
      const brands = Object.fromEntries(body.savedCards.map((s) => [s.mask, s.brand]));
      assert.equal(brands['555555******4444'], 'mastercard');
      assert.equal(brands['378282*****0005'], 'american-express');
      assert.equal(brands['000000******0000'], undefined);
      const listed = await app.listSavedCards('cust-1');
      assert.ok(listed.some((s) => s.brand === 'mastercard'));
    });

    test('webhook first, then the lookup: one card', async () => {
      const token = newToken();
      challengeThenSucceed(token);
      const {answer, attempt} = await payOrder('c-webhook-first', true);
      assert.equal(answer['outcome'], '3ds_required');
      await postWebhook(app, successWebhook(attempt.gatewayOrderId, token));
      assert.equal((await store.getAttempt(attempt.attemptId))?.state, 'success');
      assert.equal((await cardsOf(token)).length, 1);
      await postWebhook(
        app,
        successWebhook(attempt.gatewayOrderId, token, {processed_at: '2026-01-01T00:00:09.000'}),
      );
      await status(app, 'c-webhook-first');
      assert.equal((await store.getAttempt(attempt.attemptId))?.state, 'success');
      assert.equal((await cardsOf(token)).length, 1);
    });

    test('lookup first, then the webhook: one card', async () => {
      const token = newToken();
      challengeThenSucceed(token);
      const {attempt} = await payOrder('c-lookup-first', true);
      await new Promise((r) => setImmediate(r));
      await status(app, 'c-lookup-first');
      assert.ok(gw.lookups.includes(attempt.gatewayOrderId), 'a lookup was made');
      assert.equal((await store.getAttempt(attempt.attemptId))?.state, 'success');
      assert.equal((await cardsOf(token)).length, 1);
      await postWebhook(app, successWebhook(attempt.gatewayOrderId, token));
      assert.equal((await cardsOf(token)).length, 1);
      assert.deepEqual(await whereIs(backend, store, token), ['saved_cards']);
    });

    test('a crash right after the success was stored: the card is kept, once', async () => {
      const token = newToken();
      challengeThenSucceed(token);
      const {attempt} = await payOrder('c-crash-after', true);
      // The store commits the success, then the process dies before answering anything.
      let crashed = false;
      const dying = new Proxy(store, {
        get(target, key, receiver) {
          if (key !== 'updateAttempt') return Reflect.get(target, key, receiver) as unknown;
          return async (...args: Parameters<PaymentStore['updateAttempt']>) => {
            const r = await target.updateAttempt(...args);
            if (!crashed && r.attempt?.state === 'success') {
              crashed = true;
              throw new Error('the process died here');
            }
            return r;
          };
        },
      });
      const first = inProcessApp(dying, gw, {resolveOrder});
      const body = successWebhook(attempt.gatewayOrderId, token);
      assert.equal((await postWebhook(first.app, body)).status, 500);
      assert.ok(crashed);
      // The restarted companion gets the same webhook again (it was not acknowledged).
      assert.equal((await postWebhook(app, body)).status, 200);
      await status(app, 'c-crash-after');
      assert.equal((await cardsOf(token)).length, 1);
    });

    test('a store write that failed: nothing half-stored, the webhook sent again keeps the card once', async () => {
      const token = newToken();
      challengeThenSucceed(token);
      const {attempt} = await payOrder('c-write-failed', true);
      let failed = false;
      const flaky = new Proxy(store, {
        get(target, key, receiver) {
          if (key !== 'updateAttempt') return Reflect.get(target, key, receiver) as unknown;
          return async (...args: Parameters<PaymentStore['updateAttempt']>) => {
            if (!failed) {
              failed = true;
              throw new StoreUnavailableError('the database went away');
            }
            return target.updateAttempt(...args);
          };
        },
      });
      const first = inProcessApp(flaky, gw, {resolveOrder});
      const body = successWebhook(attempt.gatewayOrderId, token);
      assert.equal((await postWebhook(first.app, body)).status, 503);
      assert.equal((await cardsOf(token)).length, 0);
      assert.equal((await store.getAttempt(attempt.attemptId))?.state, 'pending');
      assert.equal((await postWebhook(app, body)).status, 200);
      assert.equal((await cardsOf(token)).length, 1);
    });

    test('after closing: no token of a payment without consent in the files', async () => {
      await app.close();
      const bytes = backend.bytes();
      if (bytes === undefined) return;
      assert.ok(bytes.length > 0);
      for (const token of unconsented) assert.ok(!bytes.includes(token), token);
      assert.ok(!bytes.includes(CARDS.success));
    });
  });
}
