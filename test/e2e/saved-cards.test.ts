/**
 * Saved cards in the demo, in real Chromium: the signed-in customer ticks "Save this card
 * for next time" and pays; the next order is one click with the saved card, and the
 * sandbox receives `cc_token`, no card data. Each browser is a customer of its own (the
 * demo's cookie session): another browser context never sees the card. Without consent
 * nothing is stored. A removed card, another customer's card and an expired token are
 * refused with their reasons. The token is in no answer, attribute, event or storage the
 * browser saw, and the database holds no card number. Leaves no saved card behind (later
 * files pay with typed cards).
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {BrowserContext, Page} from 'playwright';
import {VISITOR_COOKIE, visitorCustomerId} from '../../server-example/visitor.js';
import {FINGERPRINT} from '../node/checkout/helpers.js';
import {
  ADMIN_TOKEN,
  BASE,
  CARDS,
  checkA11y,
  createOrder,
  DATA_DIR,
  eventually,
  fillCard,
  finish,
  gatewayPayments,
  openPage,
  payButton,
  sharedBrowser,
  type Watched,
} from './harness.js';

const browser = sharedBrowser();

type Cookies = Awaited<ReturnType<BrowserContext['cookies']>>;
/** Olena's browser: the demo's cookie session of one visitor, kept across her checkouts. */
let olena: Cookies = [];
/** The customer id the demo derives from that session (server-example/visitor.ts). */
let CUSTOMER = '';

/** A new visitor's session: their cookies after the store's first page. */
async function newVisitor(): Promise<{cookies: Cookies; customerId: string}> {
  const w = await openPage(browser());
  await w.page.goto(`${BASE}/`);
  const cookies = await w.context.cookies();
  await finish(w);
  const session = cookies.find((c) => c.name === VISITOR_COOKIE);
  assert.ok(session, 'the first page opened a session');
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Lax');
  return {cookies, customerId: visitorCustomerId(session.value)};
}

after(async () => {
  // Later files pay with a typed card: take every saved card away again.
  for (const card of await adminCards()) {
    await admin('/saved-cards/remove', {customerId: card.customerId, savedCardId: card.id});
  }
});

async function admin(route: string, body?: unknown) {
  const res = await fetch(`${BASE}/admin/api${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json'},
    ...(body === undefined ? {} : {body: JSON.stringify(body)}),
  });
  return {status: res.status, json: (await res.json()) as Record<string, unknown>};
}

async function adminCards(): Promise<{id: string; customerId: string; mask: string}[]> {
  const r = await admin('/saved-cards');
  return (
    r.json['customers'] as {cards: {id: string; customerId: string; mask: string}[]}[]
  ).flatMap((c) => c.cards);
}

/** The saved-card rows as the database holds them (read-only). */
/** The tables of the payment store whose rows hold `text`. */
function tablesHolding(text: string): string[] {
  const db = new Database(path.join(DATA_DIR, 'payments.db'), {readonly: true});
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    return tables
      .map(({name}) => name)
      .filter((name) => JSON.stringify(db.prepare(`SELECT * FROM ${name}`).all()).includes(text));
  } finally {
    db.close();
  }
}

function dbCards(): {
  id: string;
  customer_id: string;
  token: string;
  mask: string;
  brand: string;
}[] {
  const db = new Database(path.join(DATA_DIR, 'payments.db'), {readonly: true});
  try {
    return db.prepare('SELECT * FROM saved_cards').all() as never;
  } finally {
    db.close();
  }
}

/** Writes a saved card straight into the demo's database (another customer, an old card). */
function plantCard(id: string, customerId: string, tokenExpiresAt: string, token: string) {
  const db = new Database(path.join(DATA_DIR, 'payments.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(
      `INSERT INTO saved_cards (id, customer_id, token, mask, token_expires_at, created_at)
       VALUES (?, ?, ?, '424242******4242', ?, ?)`,
    ).run(id, customerId, token, tokenExpiresAt, Date.now());
  } finally {
    db.close();
  }
}

/** Everything the browser saw: JSON answers, attributes (shadow roots too), events, storage. */
async function browserSaw(w: Watched, answers: string[]): Promise<string> {
  const page = w.page;
  // A string, not a function: tsx would wrap a named inner function in a helper the page
  // does not have.
  const dom = (await page.evaluate(`(() => {
    const parts = [];
    const walk = (node) => {
      if (node instanceof Element) for (const a of node.attributes) parts.push(a.value);
      for (const child of node.children) walk(child);
      if (node instanceof Element && node.shadowRoot) walk(node.shadowRoot);
    };
    walk(document.documentElement);
    return [
      parts.join('\\n'),
      JSON.stringify({...localStorage}),
      JSON.stringify({...sessionStorage}),
      document.cookie,
      (window.pgEvents || []).join('\\n'),
    ].join('\\n');
  })()`)) as string;
  return [dom, ...answers].join('\n');
}

/**
 * Opens the checkout of a new order in a new browser context with `cookies` (Olena's
 * session by default), recording every answer and every pg-* event.
 */
async function checkout(
  cookies: Cookies = olena,
): Promise<{w: Watched; page: Page; orderRef: string; answers: string[]}> {
  const orderRef = await createOrder('tea-sampler');
  const w = await openPage(browser());
  await w.context.addCookies(cookies);
  const answers: string[] = [];
  w.page.on('response', (res) => {
    if (res.url().startsWith(BASE))
      void res.text().then(
        (t) => answers.push(t),
        () => undefined,
      );
  });
  await w.context.addInitScript(() => {
    const w = window as unknown as {pgEvents: string[]};
    w.pgEvents = [];
    for (const name of ['pg-submit', 'pg-success', 'pg-failure', 'pg-error', 'pg-3ds-required']) {
      document.addEventListener(name, (e) =>
        w.pgEvents.push(JSON.stringify((e as CustomEvent).detail)),
      );
    }
  });
  await w.page.goto(`${BASE}/checkout?order=${orderRef}`);
  await payButton(w.page).waitFor();
  return {w, page: w.page, orderRef, answers};
}

const savedRadios = (page: Page) => page.locator('pg-card-form input[name="pg-saved-card"]');
const saveBox = (page: Page) => page.locator('pg-card-form input[name="pg-save-card"]');

/** POSTs a pay request from the page, as a tampering customer would. */
function payFromPage(page: Page, orderRef: string, savedCardId: string) {
  return page.evaluate(
    async ([orderRef, savedCardId, fingerprint]) => {
      const res = await fetch('/api/checkout/pay', {
        method: 'POST',
        headers: {'Content-Type': 'application/json', 'X-PG-Checkout': '1'},
        body: JSON.stringify({
          orderRef,
          attemptId: `tamper-${Math.random().toString(16).slice(2)}`,
          savedCardId,
          fingerprint,
        }),
      });
      return (await res.json()) as {outcome: string; reason?: string};
    },
    [orderRef, savedCardId, FINGERPRINT] as const,
  );
}

describe('saved cards in the demo', () => {
  before(async () => {
    ({cookies: olena, customerId: CUSTOMER} = await newVisitor());
  });

  test('without consent nothing is stored', async () => {
    const {w, page, orderRef} = await checkout();
    await saveBox(page).waitFor();
    assert.equal(await saveBox(page).isChecked(), false, 'never ticked by default');
    await fillCard(page, CARDS.mastercard);
    await payButton(page).click();
    await page.waitForURL(`${BASE}/thanks?order=${orderRef}`);
    assert.deepEqual(dbCards(), []);
    await finish(w);
  });

  test('save with consent, then the next order is one click with cc_token', async () => {
    const first = await checkout();
    await saveBox(first.page).check();
    await fillCard(first.page, CARDS.success);
    await checkA11y(first.page, 'the checkout with the save offer');
    await first.page.locator('pg-card-form [part~="button"]').click();
    await first.page.waitForURL(`${BASE}/thanks?order=${first.orderRef}`);
    const [saved] = await eventually(async () => {
      const rows = dbCards();
      return rows.length > 0 && rows;
    }, 'the saved card');
    assert.equal(saved!.customer_id, CUSTOMER);
    assert.equal(saved!.mask, '424242******4242');
    assert.equal(saved!.brand, 'visa');
    assert.equal(Object.keys(saved!).includes('number'), false);
    assert.deepEqual(tablesHolding(saved!.token), ['saved_cards'], 'the token is kept only there');
    const office = await admin('/saved-cards');
    assert.ok(JSON.stringify(office.json).includes('"brand":"visa"'), 'the back office shows it');
    const firstSaw = await browserSaw(first.w, first.answers);
    await finish(first.w);

    const second = await checkout();
    await savedRadios(second.page).first().waitFor();
    assert.equal(await savedRadios(second.page).first().isChecked(), true);
    assert.equal(
      await second.page.locator('pg-card-form input[name="cc-number"]').isVisible(),
      false,
    );
    await checkA11y(second.page, 'the checkout with a saved card');
    await payButton(second.page).click(); // one click
    await second.page.waitForURL(`${BASE}/thanks?order=${second.orderRef}`);
    const [payment] = await gatewayPayments(second.orderRef);
    assert.equal(payment?.status, 'success');
    assert.equal(payment?.paidWith, 'token');
    assert.equal(payment?.ccMask, '424242******4242');
    const secondSaw = await browserSaw(second.w, second.answers);
    for (const text of [firstSaw, secondSaw]) {
      assert.ok(!text.includes(saved!.token), 'the token reached the browser');
    }
    assert.ok(secondSaw.includes(saved!.id), 'the browser knew the opaque id');
    await finish(second.w);
  });

  test("another browser is another customer: it never sees Olena's card", async () => {
    const [card] = dbCards().filter((c) => c.customer_id === CUSTOMER && c.token !== '');
    assert.ok(card, "Olena's saved card");
    const other = await newVisitor();
    assert.notEqual(other.customerId, CUSTOMER);
    const {w, page, orderRef, answers} = await checkout(other.cookies);
    // Signed in (the save offer shows), with no saved card.
    await saveBox(page).waitFor();
    assert.equal(await savedRadios(page).count(), 0);
    assert.equal(await page.locator('pg-card-form input[name="cc-number"]').isVisible(), true);
    assert.ok(!answers.join('\n').includes(card.id), 'the other browser was never told the id');
    assert.equal((await payFromPage(page, orderRef, card.id)).reason, 'saved_card_unknown');
    assert.deepEqual(await gatewayPayments(orderRef), [], 'the gateway was not asked');
    await finish(w);
  });

  test("another customer's card and an expired token are refused", async () => {
    plantCard('sc_0123456789abcdef01234567', 'customer-0002', '2099-12-31T23:59:59', 'tok-other');
    plantCard('sc_fedcba9876543210fedcba98', CUSTOMER, '2020-01-31T23:59:59', 'tok-old');
    const {w, page, orderRef} = await checkout();
    await savedRadios(page).first().waitFor();
    const expired = page.locator('pg-card-form input[value="sc_fedcba9876543210fedcba98"]');
    assert.equal(await expired.isDisabled(), true);
    assert.equal(
      await page.locator('pg-card-form input[value="sc_0123456789abcdef01234567"]').count(),
      0,
    );
    assert.equal(
      (await payFromPage(page, orderRef, 'sc_0123456789abcdef01234567')).reason,
      'saved_card_unknown',
    );
    assert.equal(
      (await payFromPage(page, orderRef, 'sc_fedcba9876543210fedcba98')).reason,
      'saved_card_expired',
    );
    assert.deepEqual(await gatewayPayments(orderRef), [], 'the gateway was not asked');
    await finish(w);
    await admin('/saved-cards/remove', {
      customerId: 'customer-0002',
      savedCardId: 'sc_0123456789abcdef01234567',
    });
    await admin('/saved-cards/remove', {
      customerId: CUSTOMER,
      savedCardId: 'sc_fedcba9876543210fedcba98',
    });
  });

  test('the customer removes the card with confirmation; it is refused afterwards', async () => {
    const [card] = (await adminCards()).filter((c) => c.customerId === CUSTOMER);
    assert.ok(card);
    const {w, page, orderRef} = await checkout();
    await savedRadios(page).first().waitFor();
    await page.locator('pg-card-form [part~="saved-card-remove"]').first().click();
    await page.locator('pg-card-form #confirm-remove').click();
    await page
      .locator('pg-card-form .saved__notice')
      .filter({hasText: 'Card removed.'})
      .waitFor({state: 'attached'});
    assert.equal(dbCards().find((c) => c.id === card.id)?.token, '');
    assert.equal((await payFromPage(page, orderRef, card.id)).reason, 'saved_card_removed');
    await finish(w);
  });

  test('the back office lists saved cards per customer and removes them', async () => {
    plantCard('sc_aaaaaaaaaaaabbbbbbbbbbbb', CUSTOMER, '2099-12-31T23:59:59', 'tok-office');
    const list = await admin('/saved-cards');
    const mine = (list.json['customers'] as {customerId: string; cards: {id: string}[]}[]).find(
      (c) => c.customerId === CUSTOMER,
    );
    assert.ok(mine?.cards.some((c) => c.id === 'sc_aaaaaaaaaaaabbbbbbbbbbbb'));
    assert.ok(!JSON.stringify(list.json).includes('tok-office'));
    const wrong = await admin('/saved-cards/remove', {
      customerId: 'customer-0002',
      savedCardId: 'sc_aaaaaaaaaaaabbbbbbbbbbbb',
    });
    assert.equal(wrong.status, 404);
    const ok = await admin('/saved-cards/remove', {
      customerId: CUSTOMER,
      savedCardId: 'sc_aaaaaaaaaaaabbbbbbbbbbbb',
    });
    assert.equal(ok.status, 200);
    assert.equal(dbCards().find((c) => c.id === 'sc_aaaaaaaaaaaabbbbbbbbbbbb')?.token, '');
  });
});
