/**
 * Each visitor of the demo is a customer of their own, from a cookie session, over HTTP
 * against the sandbox: the first page opens a session (random id, signed; HttpOnly, SameSite=Lax,
 * Secure on https); the customer the companion sees is the session's, so a card one
 * visitor saves is offered to them and never to another cookie jar, which cannot pay with
 * it either; a request without a session is a guest (no saved cards, none saved).
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type {AddressInfo} from 'node:net';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {createCheckoutLogger} from '../../../src/server/index.js';
import type {OrderResponse} from '../../../src/protocol/checkout.js';
import {CHECKOUT_BASE, createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {VISITOR_COOKIE, visitorCustomerId} from '../../../server-example/visitor.js';
import {CARDS, PAY_HEADERS, payBody} from '../checkout/helpers.js';
import {dataDirs, sandboxGateway} from './helpers.js';

const ADMIN = 'admin-token-0123456789abcdef';
const dirs = dataDirs('pg-example-visitors-');
let sandbox: Sandbox;
let example: ExampleApp;
let base: string;
let server: ReturnType<typeof createAdaptorServer>;

before(async () => {
  sandbox = await startSandbox({});
  let handler: ((req: Request, env: unknown) => Response | Promise<Response>) | undefined =
    undefined;
  server = createAdaptorServer({fetch: (req, env) => handler!(req, env)});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dataDir = dirs.make();
  example = createExampleApp({
    publicUrl: base,
    dataDir,
    adminToken: ADMIN,
    logger: createCheckoutLogger({level: 'silent'}),
    bundlePath: path.join(dataDir, 'no-bundle.js'),
    gateway: sandboxGateway(sandbox),
  });
  handler = example.app.fetch;
});

after(async () => {
  await example?.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as unknown as {closeAllConnections(): void}).closeAllConnections();
  });
  await sandbox?.close();
  dirs.removeAll();
});

/** A browser's cookie jar, as far as this app's one cookie goes. */
class Jar {
  cookie = '';
  setCookies: string[] = [];

  async fetch(pathname: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('Cookie', this.cookie);
    const res = await fetch(`${base}${pathname}`, {...init, headers});
    for (const line of res.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair] = line.split(';');
      if (pair!.startsWith(`${VISITOR_COOKIE}=`)) this.cookie = pair!;
    }
    return res;
  }

  /** The session id the cookie holds (before its signature). */
  get session(): string {
    return decodeURIComponent(this.cookie.slice(VISITOR_COOKIE.length + 1)).split('.')[0]!;
  }

  async newOrder(): Promise<string> {
    const res = await this.fetch('/api/orders', {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({productId: 'mug'}),
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as {orderRef: string}).orderRef;
  }

  async savedCards(orderRef: string): Promise<OrderResponse['savedCards']> {
    const res = await this.fetch(`${CHECKOUT_BASE}/order`, {
      method: 'POST',
      headers: {...PAY_HEADERS, Origin: base},
      body: JSON.stringify({orderRef, savedCards: true}),
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as OrderResponse).savedCards;
  }

  async pay(body: unknown): Promise<Record<string, unknown>> {
    const res = await this.fetch(`${CHECKOUT_BASE}/pay`, {
      method: 'POST',
      headers: {...PAY_HEADERS, Origin: base},
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  }
}

let n = 0;

describe('a cookie session per visitor', () => {
  test('the first page opens a session: random id, HttpOnly, SameSite=Lax, not Secure on http', async () => {
    const a = new Jar();
    const b = new Jar();
    await a.fetch('/');
    await b.fetch('/');
    assert.match(a.session, /^[0-9a-f]{32}$/);
    assert.match(b.session, /^[0-9a-f]{32}$/);
    assert.notEqual(a.session, b.session);
    const line = a.setCookies[0]!;
    assert.match(line, /;\s*HttpOnly/i);
    assert.match(line, /;\s*SameSite=Lax/i);
    assert.match(line, /;\s*Path=\//i);
    assert.doesNotMatch(line, /;\s*Secure/i);
    // The session stays: no new cookie on the next page.
    await a.fetch('/');
    assert.equal(a.setCookies.length, 1);
    // A malformed session is replaced.
    const c = new Jar();
    c.cookie = `${VISITOR_COOKIE}=not-a-session`;
    await c.fetch('/');
    assert.match(c.session, /^[0-9a-f]{32}$/);
  });

  test('Secure when the shop is served over https; the companion and back office set none', async () => {
    const dataDir = dirs.make();
    const https = createExampleApp({
      publicUrl: 'https://shop.test',
      dataDir,
      logger: createCheckoutLogger({level: 'silent'}),
      bundlePath: path.join(dataDir, 'no-bundle.js'),
      gateway: sandboxGateway(sandbox),
    });
    try {
      const res = await https.app.request('https://shop.test/');
      const [line] = res.headers.getSetCookie();
      assert.match(line!, new RegExp(`^${VISITOR_COOKIE}=[0-9a-f]{32}\\.[^;]+;`));
      assert.match(line!, /;\s*Secure/i);
      const api = await https.app.request(`https://shop.test${CHECKOUT_BASE}/status?order=x`);
      assert.deepEqual(api.headers.getSetCookie(), []);
      // The back office keeps its own sessions.
      const office = await https.app.request('https://shop.test/admin');
      assert.ok(!office.headers.getSetCookie().some((l) => l.startsWith(VISITOR_COOKIE)));
    } finally {
      await https.close();
    }
  });
});

describe("two visitors never see each other's saved cards", () => {
  test('a card saved by one cookie jar is offered to it only, and no other jar can pay with it', async () => {
    const a = new Jar();
    const b = new Jar();
    await a.fetch('/');
    await b.fetch('/');

    const first = await a.newOrder();
    const paid = await a.pay({
      ...payBody(first, `visitor-a-${n++}`, CARDS.success),
      saveCard: true,
    });
    assert.equal(paid['outcome'], 'success');
    const kept = await example.checkout.listSavedCards(visitorCustomerId(a.session));
    assert.equal(kept.length, 1, "saved for A's customer");
    assert.deepEqual(await example.checkout.listSavedCards(visitorCustomerId(b.session)), []);

    const mine = await a.savedCards(await a.newOrder());
    assert.deepEqual(
      mine?.map((s) => s.id),
      [kept[0]!.id],
    );
    assert.deepEqual(await b.savedCards(await b.newOrder()), [], 'B is signed in, with no card');
    // Even on A's own order: the customer is the one signed in on the request.
    assert.deepEqual(await b.savedCards(first), []);

    const {card: _card, ...rest} = payBody(await b.newOrder(), `visitor-b-${n++}`);
    const stolen = await b.pay({...rest, savedCardId: kept[0]!.id});
    assert.equal(stolen['reason'], 'saved_card_unknown');
  });

  test('without a session: a guest, offered no saved card and with none saved', async () => {
    const guest = new Jar();
    const orderRef = await guest.newOrder();
    guest.cookie = ''; // a client that keeps no cookie
    assert.equal(await guest.savedCards(orderRef), undefined);
    const before = (await example.checkout.listSavedCards()).length;
    const paid = await guest.pay({
      ...payBody(orderRef, `guest-${n++}`, CARDS.success),
      saveCard: true,
    });
    assert.equal(paid['outcome'], 'success');
    assert.equal((await example.checkout.listSavedCards()).length, before);
  });

  test('the back office lists customer ids that no session cookie can be made from', async () => {
    const a = new Jar();
    await a.fetch('/');
    const orderRef = await a.newOrder();
    await a.pay({...payBody(orderRef, `office-${n++}`, CARDS.success), saveCard: true});
    const res = await fetch(`${base}/admin/api/saved-cards`, {
      headers: {Authorization: `Bearer ${ADMIN}`},
    });
    const text = await res.text();
    assert.ok(text.includes(visitorCustomerId(a.session)));
    assert.ok(!text.includes(a.session));
  });
});
