/**
 * Saved cards end to end on the server side: the companion over real HTTP on a SQLite
 * file, against the real gateway sandbox. The order route answers the total from
 * `resolveOrder` and the identified customer's saved cards (never a token); a card is
 * saved only with consent and only for a customer the server identifies; paying with a
 * saved card sends `cc_token` and no card data; another customer's card, a removed card
 * and an expired token are refused with their reason codes, before the gateway is asked;
 * 3-D Secure still applies; the database file holds no card number or code.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {
  CHECKOUT_HEADER,
  type OrderResponse,
  type SavedCardView,
} from '../../../src/protocol/checkout.js';

/** An order answer, or an error body (`error.field`). */
type OrderJson = Partial<OrderResponse> & {error?: {field?: string; code?: string}};
import {OrderResponseSchema} from '../../../src/protocol/schemas.js';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  CARDS,
  PAY_HEADERS,
  complete3ds,
  eventually,
  finalStatus,
  nextCvv,
  payBody,
  payHttp,
  serveCompanion,
  tempStores,
  type ServedCompanion,
  catalogue,
} from './helpers.js';

/** Orders `ada-…` belong to customer `cust-ada`, `bob-…` to `cust-bob`; others to nobody. */
const {resolveOrder} = catalogue(
  {amount: '1250.50', currency: 'UAH'},
  {'ada-': 'cust-ada', 'bob-': 'cust-bob'},
);

let sandbox: Sandbox;
let stores: ReturnType<typeof tempStores>;
let c: ServedCompanion;
/** Every body the gateway received on its payment route. */
const sent: Record<string, unknown>[] = [];
/** Every answer text the companion gave the browser. */
const answers: string[] = [];
let n = 0;

const gatewayFetch = async (input: string, init: RequestInit) => {
  if (new URL(input).pathname === '/api/v1/payment') sent.push(JSON.parse(String(init.body)));
  return fetch(input, init);
};

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${c.url}${path}`, {
    method: 'POST',
    headers: {...PAY_HEADERS, Origin: c.url, ...headers},
    body: JSON.stringify(body),
  });
  const text = await res.text();
  answers.push(text);
  return {status: res.status, json: JSON.parse(text) as OrderJson};
}

const order = (orderRef: string, savedCards = true) => post('/order', {orderRef, savedCards});

async function payCard(
  orderRef: string,
  extra: Record<string, unknown> = {},
  card: string = CARDS.success,
) {
  const r = await payHttp(c.url, {...payBody(orderRef, `a-${n++}`, card, nextCvv()), ...extra});
  answers.push(JSON.stringify(r.json));
  return r;
}

async function paySaved(orderRef: string, savedCardId: string) {
  const {card: _card, ...rest} = payBody(orderRef, `a-${n++}`);
  const r = await payHttp(c.url, {...rest, savedCardId});
  answers.push(JSON.stringify(r.json));
  return r;
}

/** Saves a card for `customer` through a consented payment; answers its id. */
async function savedCardOf(who: 'ada' | 'bob', card: string = CARDS.success): Promise<string> {
  const before = new Set((await c.app.listSavedCards(`cust-${who}`)).map((s) => s.id));
  const r = await payCard(`${who}-save-${n++}`, {saveCard: true}, card);
  assert.equal(r.json['outcome'], 'success');
  const now = await c.app.listSavedCards(`cust-${who}`);
  const added = now.find((s) => !before.has(s.id));
  assert.ok(added, 'the consented payment saved a card');
  return added.id;
}

before(async () => {
  stores = tempStores('pg-saved-cards');
  sandbox = await startSandbox();
  c = await serveCompanion(sandbox, stores.open('saved'), {gatewayFetch, resolveOrder});
});
after(async () => {
  await c.close();
  await stores.cleanup();
  await sandbox.close();
});

describe('the order route', () => {
  test('answers the total and currency from resolveOrder, as exact text', async () => {
    const r = await order('anon-1', false);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, {orderRef: 'anon-1', amount: '1250.50', currency: 'UAH'});
    OrderResponseSchema.parse(r.json);
  });

  test('lists saved cards only when asked and only for a customer the server identifies', async () => {
    assert.deepEqual((await order('anon-2')).json['savedCards'], undefined);
    assert.deepEqual((await order('ada-list-0', false)).json['savedCards'], undefined);
    const fresh = await order('bob-empty');
    assert.ok(Array.isArray(fresh.json['savedCards']));
  });

  test('refuses an unknown order (404), a bad body naming the field, and other origins', async () => {
    assert.equal((await order('missing-1')).status, 404);
    const bad = await post('/order', {orderRef: 'ada-1', savedCards: 'yes'});
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error?.field, 'savedCards');
    const extra = await post('/order', {orderRef: 'ada-1', customerId: 'cust-bob'});
    assert.equal(extra.status, 400);
    const cross = await post('/order', {orderRef: 'ada-1'}, {Origin: 'https://evil.example'});
    assert.equal(cross.status, 403);
    const noHeader = await post('/order', {orderRef: 'ada-1'}, {[CHECKOUT_HEADER]: ''});
    assert.ok(noHeader.status >= 400);
  });
});

describe('saving a card', () => {
  test('with consent and an identified customer: mask and expiry, never the token', async () => {
    const id = await savedCardOf('ada');
    const r = await order('ada-view');
    const view = (r.json['savedCards'] as SavedCardView[]).find((s) => s.id === id)!;
    assert.deepEqual(Object.keys(view).sort(), [
      'brand',
      'expMonth',
      'expYear',
      'expired',
      'id',
      'mask',
    ]);
    assert.equal(view.brand, 'visa');
    assert.equal(view.mask, '424242******4242');
    assert.equal(view.expMonth, 12);
    assert.equal(view.expYear, new Date().getFullYear() + 2);
    assert.equal(view.expired, false);
    const stored = await c.app.store.getSavedCard(id);
    assert.match(stored!.token, /\w{8,}/);
    assert.ok(!JSON.stringify(r.json).includes(stored!.token));
  });

  test('without consent nothing is stored', async () => {
    const before = (await c.app.store.listSavedCards()).length;
    const r = await payCard('ada-noconsent');
    assert.equal(r.json['outcome'], 'success');
    const r2 = await payCard('ada-noconsent2', {saveCard: false});
    assert.equal(r2.json['outcome'], 'success');
    assert.equal((await c.app.store.listSavedCards()).length, before);
  });

  test('with consent but no customer identified by the server, nothing is stored', async () => {
    const before = (await c.app.store.listSavedCards()).length;
    const r = await payCard('anon-consent', {saveCard: true});
    assert.equal(r.json['outcome'], 'success');
    assert.equal((await c.app.store.listSavedCards()).length, before);
  });

  test('a declined payment saves nothing', async () => {
    const before = (await c.app.store.listSavedCards()).length;
    const r = await payCard('ada-declined', {saveCard: true}, CARDS.decline);
    assert.equal(r.json['outcome'], 'failure');
    assert.equal((await c.app.store.listSavedCards()).length, before);
  });
});

describe('paying with a saved card', () => {
  test('sends cc_token and no card data; the amount is the order total', async () => {
    const id = await savedCardOf('ada');
    const token = (await c.app.store.getSavedCard(id))!.token;
    const from = sent.length;
    const r = await paySaved('ada-oneclick', id);
    assert.equal(r.json['outcome'], 'success');
    const body = sent.slice(from).at(-1)!;
    assert.equal(body['cc_token'], token);
    for (const key of ['cc_number', 'exp_month', 'exp_year', 'card_cvv']) {
      assert.equal(body[key], undefined, key);
    }
    assert.equal(body['amount'], 1250.5);
  });

  test("another customer's card is refused as unknown, without asking the gateway", async () => {
    const adas = await savedCardOf('ada');
    const from = sent.length;
    const r = await paySaved('bob-steal', adas);
    assert.equal(r.status, 200);
    assert.equal(r.json['outcome'], 'failure');
    assert.equal(r.json['reason'], 'saved_card_unknown');
    assert.equal(sent.length, from);
    const anon = await paySaved('anon-steal', adas);
    assert.equal(anon.json['reason'], 'saved_card_unknown');
    const none = await paySaved('ada-none', 'sc_000000000000000000000000');
    assert.equal(none.json['reason'], 'saved_card_unknown');
  });

  test('a removed card is refused, and removal by another customer fails', async () => {
    const id = await savedCardOf('ada');
    const bobs = await post('/saved-cards/remove', {orderRef: 'bob-rm', savedCardId: id});
    assert.equal(bobs.status, 404);
    const r = await post('/saved-cards/remove', {orderRef: 'ada-rm', savedCardId: id});
    assert.equal(r.status, 200);
    assert.ok(!(r.json['savedCards'] as SavedCardView[]).some((s) => s.id === id));
    assert.equal((await c.app.store.getSavedCard(id))?.token, '');
    const from = sent.length;
    const paid = await paySaved('ada-removed', id);
    assert.equal(paid.json['reason'], 'saved_card_removed');
    assert.equal(sent.length, from);
  });

  test('an expired token is refused (and shown as expired)', async () => {
    const id = await savedCardOf('ada');
    const later = await serveCompanion(sandbox, c.app.store, {
      gatewayFetch,
      resolveOrder,
      clock: () => Date.now() + 4 * 366 * 24 * 3600 * 1000,
    });
    try {
      const res = await fetch(`${later.url}/order`, {
        method: 'POST',
        headers: {...PAY_HEADERS, Origin: later.url},
        body: JSON.stringify({orderRef: 'ada-exp', savedCards: true}),
      });
      const view = ((await res.json()) as OrderResponse).savedCards!.find((s) => s.id === id)!;
      assert.equal(view.expired, true);
      const {card: _card, ...rest} = payBody('ada-exp', `a-${n++}`);
      const paid = await payHttp(later.url, {...rest, savedCardId: id});
      assert.equal(paid.json['reason'], 'saved_card_expired');
    } finally {
      await later.close();
    }
  });

  test('3-D Secure still applies to a saved card', async () => {
    // The 3DS card is saved after an approved challenge would be the customer's way; here
    // its payment is approved through the sandbox's page.
    const r = await payCard('ada-3ds-first', {saveCard: true}, CARDS.threeDS);
    assert.equal(r.json['outcome'], '3ds_required');
    await complete3ds(String(r.json['userActionUrl']), 'approve');
    await finalStatus(c.url, 'ada-3ds-first');
    // Saved as the success is stored (from the webhook or the lookup, whichever came first).
    const threeDS = await eventually(async () =>
      (await c.app.listSavedCards('cust-ada')).find((s) => s.mask.startsWith('400000')),
    );
    const again = await paySaved('ada-3ds-again', threeDS.id);
    assert.equal(again.json['outcome'], '3ds_required');
  });

  test('a body with card and savedCardId, or saveCard without a card, is refused naming the field', async () => {
    const both = await payHttp(c.url, {
      ...payBody('ada-both', `a-${n++}`),
      savedCardId: 'sc_000000000000000000000000',
    });
    assert.equal(both.status, 400);
    assert.equal((both.json['error'] as {field?: string}).field, 'savedCardId');
    const {card: _card, ...rest} = payBody('ada-nocard', `a-${n++}`);
    const lone = await payHttp(c.url, {...rest, saveCard: true});
    assert.equal(lone.status, 400);
    const neither = await payHttp(c.url, {...rest});
    assert.equal((neither.json['error'] as {field?: string}).field, 'card');
    const badId = await payHttp(c.url, {...rest, savedCardId: 'tok_123'});
    assert.equal((badId.json['error'] as {field?: string}).field, 'savedCardId');
  });
});

describe('what is kept and what is told', () => {
  test('the merchant lists and removes saved cards through the app', async () => {
    const id = await savedCardOf('bob');
    const list = await c.app.listSavedCards('cust-bob');
    assert.ok(list.some((s) => s.id === id && s.customerId === 'cust-bob'));
    assert.ok(!JSON.stringify(list).includes((await c.app.store.getSavedCard(id))!.token));
    assert.equal(await c.app.removeSavedCard('cust-ada', id), false);
    assert.equal(await c.app.removeSavedCard('cust-bob', id), true);
    assert.ok(!(await c.app.listSavedCards('cust-bob')).some((s) => s.id === id));
  });

  test('no answer to the browser ever held a token; the database holds no card number or code', async () => {
    const saved = (await c.app.store.listSavedCards()).map((s) => s.token);
    for (const token of saved) {
      for (const text of answers) assert.ok(!text.includes(token), 'a token reached the browser');
    }
    assert.ok(saved.length > 0);
    await c.app.store.close().catch(() => undefined);
    for (const file of stores.files()) {
      for (const suffix of ['', '-wal']) {
        let bytes: string;
        try {
          bytes = readFileSync(file + suffix).toString('latin1');
        } catch {
          continue;
        }
        for (const number of Object.values(CARDS)) {
          assert.ok(!bytes.includes(number), `${number} in ${file}${suffix}`);
        }
      }
    }
  });
});
