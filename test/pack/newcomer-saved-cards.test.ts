/**
 * docs/guides/saved-cards.md, done as a newcomer does it (test/pack/newcomer.ts): from an
 * empty folder, the first payment's steps 1 to 4 (where the guide says it starts), then the
 * guide's files as written, type-checked with `tsc --init`'s settings (and `skipLibCheck:
 * false`), the sandbox and the server started with its commands, and in Chromium: sign in,
 * tick the box and pay ORDER-1001; the account route lists the card without its token;
 * ORDER-1002 is paid with one click on the saved card; the card is removed, and someone not
 * signed in is offered none.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import type {Browser} from 'playwright';
import {sharedChromium} from '../../scripts/chromium.mjs';
import {freePort} from '../node/checkout/helpers.js';
import {
  doSteps,
  firstPaymentProject,
  guideSteps,
  Newcomer,
  pageProblems,
  resultOf,
  startShop,
  stepsBefore,
  typeCard,
  typeCheck,
  type Shop,
} from './newcomer.js';
import {packed} from './packed.js';

const GUIDE = 'saved-cards.md';
const steps = guideSteps(GUIDE);

let shop: Newcomer;
let running: Shop | undefined;
let browser: Browser | undefined;

before(() => {
  shop = new Newcomer(packed.tarball);
});

after(async () => {
  await browser?.close();
  await running?.server.stop();
  await running?.sandbox.stop();
  await shop?.remove();
});

describe(`${GUIDE}, from an empty folder`, () => {
  it("starts from the first payment's project, and says so", () => {
    firstPaymentProject(shop, packed.firstPayment);
    const files = steps.filter((s) => s.kind === 'file').map((s) => s.name);
    assert.deepEqual(files, [
      'public/index.html',
      'session.ts',
      'checkout.ts',
      'saved-cards.ts',
      'server.ts',
    ]);
  });

  it("its files as written type-check with tsc --init's settings, and with skipLibCheck false", () => {
    doSteps(shop, stepsBefore(steps, 'npx tsc --noEmit'));
    assert.match(shop.read('public/index.html'), /offer-save-card/);
    typeCheck(shop);
  });

  it('step 6: save a card paying ORDER-1001, pay ORDER-1002 with it in one click, remove it', async () => {
    running = await startShop(shop, steps, await freePort());
    const {origin, server} = running;
    browser = await sharedChromium();
    const context = await browser.newContext();
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems = pageProblems(page);

    // Signed in, the form offers to save the card: never ticked by default.
    await page.goto(`${origin}/sign-in`);
    await page.waitForURL(`${origin}/?order=ORDER-1001`);
    const form = page.locator('pg-card-form');
    const save = form.locator('input[name="pg-save-card"]');
    await save.waitFor();
    assert.equal(await save.isChecked(), false);
    await save.check();
    await typeCard(form);
    await form.locator('[part~="button"]').click();
    await page.waitForURL(`${origin}/order/result?order=ORDER-1001`);
    assert.equal(await resultOf(page), 'Payment successful.');
    await server.waitFor(/order ORDER-1001 paid/);

    // The account route lists it for the signed-in customer: mask and expiry, no token.
    const listed = await page.request.get(`${origin}/account/cards`);
    assert.equal(listed.status(), 200);
    const cards = (await listed.json()) as {id: string; mask: string}[];
    assert.equal(cards.length, 1);
    assert.equal(cards[0]!.mask, '424242******4242');
    assert.doesNotMatch(JSON.stringify(cards), /token/i);

    // The next order: the saved card is chosen, no card field shows, Pay is the only click.
    await page.goto(`${origin}/?order=ORDER-1002`);
    const radio = form.locator('input[name="pg-saved-card"]').first();
    await radio.waitFor();
    assert.equal(await radio.isChecked(), true);
    assert.equal(await form.locator('input[name="cc-number"]').isVisible(), false);
    await form.locator('[part~="button"]').click();
    await page.waitForURL(`${origin}/order/result?order=ORDER-1002`);
    assert.equal(await resultOf(page), 'Payment successful.');
    await server.waitFor(/order ORDER-1002 paid/);

    // Someone not signed in is offered no card, and cannot list or remove one.
    const stranger = await browser.newContext();
    const other = await stranger.newPage();
    const strangerProblems = pageProblems(other);
    await other.goto(`${origin}/?order=ORDER-1002`);
    await other.locator('pg-card-form [part~="button"]').waitFor();
    assert.equal(await other.locator('pg-card-form input[name="pg-saved-card"]').count(), 0);
    assert.equal((await other.request.get(`${origin}/account/cards`)).status(), 401);
    const forged = await other.request.delete(`${origin}/account/cards/${cards[0]!.id}`);
    assert.equal(forged.status(), 401);
    await stranger.close();
    assert.deepEqual(
      strangerProblems.filter((p) => !p.startsWith('401 ')),
      [],
      'nothing failed but the refusals',
    );

    // Removal: gone from the list, and a second removal finds nothing.
    const removed = await page.request.delete(`${origin}/account/cards/${cards[0]!.id}`);
    assert.equal(removed.status(), 204);
    assert.deepEqual(await (await page.request.get(`${origin}/account/cards`)).json(), []);
    assert.equal(
      (await page.request.delete(`${origin}/account/cards/${cards[0]!.id}`)).status(),
      404,
    );
    assert.deepEqual(problems, []);
    assert.doesNotMatch(server.output(), /"level":(40|50|60)/, 'nothing logged at warn or above');
    assert.doesNotMatch(server.output(), /4242424242424242/, 'the card number in the log');
    await context.close();
  });
});
