/**
 * The saved-card part of the PaymentStore contract, on every backend of `backends.ts` (a
 * backend added there — another database — runs these too): cards read back as saved,
 * listed per customer oldest first, saving the same token twice for a customer keeps one
 * card (also when the saves race), removal touches only the customer's own card and
 * forgets its token, the brand is kept, and nothing but the listed fields is kept.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import type {PaymentStore, SavedCardRecord} from '../../../src/server/index.js';
import {newSavedCardId} from '../../../src/server/store/saved-card-records.js';
import {BACKENDS} from './backends.js';

const card = (customerId: string, token: string, createdAt = 1000): SavedCardRecord => ({
  id: newSavedCardId(),
  customerId,
  token,
  mask: '424242******4242',
  tokenExpiresAt: '2031-12-31T23:59:59',
  createdAt,
});

for (const make of BACKENDS) {
  const backend = make();
  describe(`saved cards on ${backend.name} (store contract)`, {skip: backend.skip ?? false}, () => {
    let store: PaymentStore;
    before(async () => {
      await backend.setup();
      store = (await backend.companion()).app.store;
    });
    after(() => backend.teardown());

    test('a saved card reads back by id with every field, and is listed for its customer', async () => {
      const c = card('c-read', 'tok-read');
      assert.deepEqual(await store.saveCard(c), c);
      assert.deepEqual(await store.getSavedCard(c.id), c);
      assert.deepEqual(await store.listSavedCards('c-read'), [c]);
      assert.equal(await store.getSavedCard('sc_000000000000000000000000'), undefined);
    });

    test('the brand reads back, and a card without one has none', async () => {
      const amex = {
        ...card('c-brand', 'tok-amex'),
        mask: '378282*****0005',
        brand: 'american-express',
      };
      assert.deepEqual(await store.saveCard(amex), amex);
      assert.equal((await store.getSavedCard(amex.id))?.brand, 'american-express');
      assert.equal((await store.listSavedCards('c-brand'))[0]?.brand, 'american-express');
      const plain = await store.saveCard(card('c-brand', 'tok-plain'));
      assert.equal('brand' in (await store.getSavedCard(plain.id))!, false);
    });

    test("a customer's cards are listed oldest first, and only theirs", async () => {
      const b = await store.saveCard(card('c-list', 'tok-b', 2000));
      const a = await store.saveCard(card('c-list', 'tok-a', 1000));
      await store.saveCard(card('c-other', 'tok-x', 500));
      assert.deepEqual(
        (await store.listSavedCards('c-list')).map((c) => c.id),
        [a.id, b.id],
      );
      const all = await store.listSavedCards();
      assert.ok(all.some((c) => c.customerId === 'c-other'));
      assert.ok(all.some((c) => c.id === a.id));
    });

    test('saving the same token twice for a customer keeps the first card', async () => {
      const first = await store.saveCard(card('c-twice', 'tok-same'));
      const second = await store.saveCard(card('c-twice', 'tok-same'));
      assert.equal(second.id, first.id);
      assert.equal((await store.listSavedCards('c-twice')).length, 1);
      // The same token for another customer is that customer's own card.
      const other = await store.saveCard(card('c-twice-2', 'tok-same'));
      assert.notEqual(other.id, first.id);
    });

    test('racing saves of one token make one card', async () => {
      const results = await Promise.all(
        Array.from({length: 12}, () => store.saveCard(card('c-race', 'tok-race'))),
      );
      assert.equal(new Set(results.map((r) => r.id)).size, 1);
      assert.equal((await store.listSavedCards('c-race')).length, 1);
    });

    test('removal forgets the token, hides the card, and touches only the own customer', async () => {
      const c = await store.saveCard(card('c-del', 'tok-del'));
      assert.equal(await store.deleteSavedCard('c-someone-else', c.id, 5000), false);
      assert.equal((await store.getSavedCard(c.id))?.token, 'tok-del');
      assert.equal(await store.deleteSavedCard('c-del', c.id, 5000), true);
      assert.equal(await store.deleteSavedCard('c-del', c.id, 6000), false);
      const gone = await store.getSavedCard(c.id);
      assert.equal(gone?.deletedAt, 5000);
      assert.equal(gone?.token, '');
      assert.deepEqual(await store.listSavedCards('c-del'), []);
      // Saving the card again after its removal is a new card.
      const again = await store.saveCard(card('c-del', 'tok-del'));
      assert.notEqual(again.id, c.id);
    });

    test('a stored card is a copy: changing what was given or read changes nothing', async () => {
      const c = card('c-copy', 'tok-copy');
      await store.saveCard(c);
      c.token = 'changed';
      const read = (await store.getSavedCard(c.id))!;
      read.mask = 'changed';
      assert.equal((await store.getSavedCard(c.id))?.token, 'tok-copy');
      assert.equal((await store.getSavedCard(c.id))?.mask, '424242******4242');
    });
  });
}
