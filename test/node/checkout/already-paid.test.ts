/**
 * An order paid before is never answered as if just paid: a second pay request (another
 * attempt id: an earlier visit, another tab, the saved-cards guide after first-payment)
 * gets `success` marked `alreadyPaid`, with its own message, and no gateway call; one that
 * asked to save the card is told it was not saved (and none is); the merchant's log says
 * so; the hosted route's 303 sends the customer to the return page with `already_paid=1`.
 * The very same attempt sent again still gets its own plain answer. Over real HTTP on a
 * SQLite file, against the in-process gateway sandbox.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {ALREADY_PAID_QUERY_PARAM} from '../../../src/protocol/checkout.js';
import {PayResponseSchema} from '../../../src/protocol/schemas.js';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  CARDS,
  catalogue,
  nextCvv,
  payBody,
  payHttp,
  postHosted,
  sandboxPayments,
  serveCompanion,
  tempStores,
  type ServedCompanion,
} from './helpers.js';

/** Orders `ada-…` belong to customer `cust-ada`: a card may be saved for them. */
const {resolveOrder} = catalogue({amount: '12.50', currency: 'UAH'}, {'ada-': 'cust-ada'});

let sandbox: Sandbox;
let stores: ReturnType<typeof tempStores>;
let c: ServedCompanion;
/** Bodies the gateway received on its payment route. */
let creates = 0;

before(async () => {
  stores = tempStores('pg-already-paid');
  sandbox = await startSandbox();
  c = await serveCompanion(sandbox, stores.open('paid'), {
    resolveOrder,
    gatewayFetch: (input, init) => {
      if (new URL(input).pathname === '/api/v1/payment') creates++;
      return fetch(input, init);
    },
  });
});
after(async () => {
  await c.close();
  await stores.cleanup();
  await sandbox.close();
});

/** Log lines (parsed) whose message mentions `words`. */
const logged = (words: string) =>
  c.lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => {
      return typeof l['msg'] === 'string' && l['msg'].includes(words);
    });

describe('an order paid before', () => {
  test('a second payment with save-card is answered "already paid, card not saved", with no gateway call', async () => {
    const orderRef = 'ada-1001';
    const first = await payHttp(c.url, payBody(orderRef, 'first', CARDS.success, nextCvv()));
    assert.equal(first.json['outcome'], 'success');
    assert.equal(first.json['alreadyPaid'], undefined, 'the payment that paid is plain success');
    const sentBefore = creates;

    const second = await payHttp(c.url, {
      ...payBody(orderRef, 'second', CARDS.success, nextCvv()),
      saveCard: true,
    });
    assert.equal(second.status, 200);
    PayResponseSchema.parse(second.json);
    assert.equal(second.json['outcome'], 'success');
    assert.equal(second.json['alreadyPaid'], true);
    assert.equal(second.json['cardSaved'], false);
    assert.match(String(second.json['message']), /already paid.*not saved/);
    assert.doesNotMatch(String(second.json['message']), /Payment successful/);
    assert.equal(creates, sentBefore, 'the gateway was not asked');
    assert.equal(sandboxPayments(sandbox, orderRef).length, 1);
    assert.deepEqual(await c.app.listSavedCards('cust-ada'), [], 'no card was saved');

    const [line] = logged('already paid');
    assert.ok(line, 'the merchant log says the order was already paid');
    assert.equal(line['orderRef'], orderRef);
    assert.equal(line['attemptId'], 'second');
    assert.equal(line['paidAttemptId'], 'first');
    assert.equal(line['cardSaved'], false);
    assert.match(String(line['msg']), /card was not saved/);
  });

  test('without save-card the answer is "already paid" and says nothing of a card', async () => {
    const orderRef = 'anon-2002';
    await payHttp(c.url, payBody(orderRef, 'p-1', CARDS.success, nextCvv()));
    const again = await payHttp(c.url, payBody(orderRef, 'p-2', CARDS.success, nextCvv()));
    assert.equal(again.json['alreadyPaid'], true);
    assert.equal(again.json['cardSaved'], undefined);
    assert.equal(again.json['message'], 'The order was already paid: nothing was charged now.');
  });

  test('the very same attempt sent again keeps its own plain answer', async () => {
    const orderRef = 'anon-3003';
    const body = payBody(orderRef, 'same', CARDS.success, nextCvv());
    const first = await payHttp(c.url, body);
    const repeat = await payHttp(c.url, body);
    assert.deepEqual(repeat.json, first.json);
    assert.equal(repeat.json['alreadyPaid'], undefined);
  });

  test("the hosted route's 303 says already_paid, and the log says why", async () => {
    const orderRef = 'anon-4004';
    await payHttp(c.url, payBody(orderRef, 'h-1', CARDS.success, nextCvv()));
    const sentBefore = creates;
    const r = await postHosted((p, init) => fetch(`${c.url}${p}`, init), orderRef, c.url);
    assert.equal(r.status, 303);
    const location = new URL(r.location ?? '', c.url);
    assert.equal(location.pathname, '/thanks');
    assert.equal(location.searchParams.get('order'), orderRef);
    assert.equal(location.searchParams.get(ALREADY_PAID_QUERY_PARAM), '1');
    assert.equal(creates, sentBefore);
    const line = logged('already paid').find((l) => l['orderRef'] === orderRef);
    assert.equal(line?.['mode'], 'hosted');
  });
});
