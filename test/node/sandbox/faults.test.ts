/**
 * Faults on demand: each request fault by header and by rule, and whether money moved
 * (`chargeCount`, the order lookup) — so "outcome unknown" is testable: a 5xx or a
 * dropped connection before the work leaves nothing behind, after the work leaves a
 * payment that only a lookup by `order_id` reveals.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {
  GatewayNotFoundError,
  GatewayOutcomeUnknownError,
  GatewayProtocolError,
  GatewayUnavailableError,
} from '../../../src/server/gateway/index.js';
import {clientFor, directRequest, raw, startTestSandbox, wireBody} from './helpers.js';
import type {TestSandbox} from './helpers.js';

let t: TestSandbox;
before(async () => {
  t = await startTestSandbox();
});
after(() => t.close());

/** A delay the test holds and releases: how long it was asked for, and the release. */
interface HeldDelay {
  ms: number;
  release: () => void;
}

/**
 * A sandbox whose `delay=<ms>` faults wait for the test, not for the clock on the wall: each
 * delay is handed to the test (`next()`), which sees what was asked and releases it.
 */
function heldDelays() {
  const waiting: HeldDelay[] = [];
  const takers: ((d: HeldDelay) => void)[] = [];
  let sandbox: TestSandbox['sandbox'] | undefined;
  const faultDelay = (ms: number) =>
    new Promise<void>((release) => {
      const delay = {ms, release: () => release()};
      const taker = takers.shift();
      if (taker) taker(delay);
      else waiting.push(delay);
    });
  return {
    faultDelay,
    set sandbox(s: TestSandbox['sandbox']) {
      sandbox = s;
    },
    get sandbox(): TestSandbox['sandbox'] {
      if (!sandbox) throw new Error('the held-delay sandbox is not started');
      return sandbox;
    },
    next: () =>
      new Promise<HeldDelay>((resolve) => {
        const delay = waiting.shift();
        if (delay) resolve(delay);
        else takers.push(resolve);
      }),
    /** A client whose every request carries `X-Sandbox-Fault: fault`. */
    client(fault: string) {
      return clientFor(this.sandbox, {
        fetch: (url, init) =>
          fetch(url, {
            ...init,
            headers: {...(init.headers as Record<string, string>), 'X-Sandbox-Fault': fault},
          }),
      });
    },
  };
}

const held = heldDelays();
before(async () => {
  held.sandbox = (await startTestSandbox({faultDelay: held.faultDelay})).sandbox;
});
after(() => held.sandbox.close());

/** Whether `p` has settled once the sandbox has had every chance to answer (a round trip). */
async function settledYet(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  // A lookup is a full HTTP round trip to the same sandbox: an answer already on its way
  // arrives before this one does.
  await fetch(`${held.sandbox.url}/sandbox/payments`).then((r) => r.arrayBuffer());
  return settled;
}

/** A client whose every request carries `X-Sandbox-Fault: fault`. */
const faulty = (fault: string) =>
  clientFor(t.sandbox, {
    fetch: (url, init) =>
      fetch(url, {
        ...init,
        headers: {...(init.headers as Record<string, string>), 'X-Sandbox-Fault': fault},
      }),
  });

async function exists(orderId: string, sandbox = t.sandbox): Promise<boolean> {
  try {
    await clientFor(sandbox).getOrder(orderId);
    return true;
  } catch (e) {
    if (e instanceof GatewayNotFoundError) return false;
    throw e;
  }
}

describe('request faults on payment creation', () => {
  const cases: {
    fault: string;
    status?: number;
    charged: boolean;
    error: new (...a: never[]) => Error;
  }[] = [
    {fault: '500', status: 500, charged: false, error: GatewayOutcomeUnknownError},
    {fault: '503', status: 503, charged: false, error: GatewayOutcomeUnknownError},
    {fault: '500-after-charge', status: 500, charged: true, error: GatewayOutcomeUnknownError},
    {fault: '503-after-charge', status: 503, charged: true, error: GatewayOutcomeUnknownError},
    {fault: 'malformed-json', status: 200, charged: true, error: GatewayProtocolError},
    {fault: 'drop', charged: false, error: GatewayOutcomeUnknownError},
    {fault: 'drop-after-charge', charged: true, error: GatewayOutcomeUnknownError},
  ];
  for (const c of cases) {
    test(`${c.fault}: ${c.charged ? 'the payment is made' : 'nothing is made'}, and the client cannot tell`, async () => {
      const req = directRequest();
      const before = t.sandbox.chargeCount();
      await assert.rejects(faulty(c.fault).createPayment(req), c.error);
      assert.equal(t.sandbox.chargeCount() - before, c.charged ? 1 : 0);
      assert.equal(await exists(req.order_id), c.charged);
      if (c.status !== undefined) {
        const wire = await raw(t.sandbox, 'POST', '/api/v1/payment', {
          body: wireBody(t.sandbox),
          headers: {'X-Sandbox-Fault': c.fault},
        });
        assert.equal(wire.status, c.status);
        if (c.status >= 500) assert.deepEqual(JSON.parse(wire.text).args, {code: `S-${c.status}`});
        else assert.throws(() => JSON.parse(wire.text), SyntaxError);
      } else {
        await assert.rejects(
          fetch(`${t.sandbox.url}/api/v1/payment`, {
            method: 'POST',
            headers: {
              'X-API-Auth': `CPAY ${t.sandbox.credentials.apiKey}:${t.sandbox.credentials.apiSecret}`,
              'X-API-Key': t.sandbox.credentials.endpointsKey,
              'Content-Type': 'application/json',
              'X-Sandbox-Fault': c.fault,
            },
            body: JSON.stringify(wireBody(t.sandbox)),
          }),
          TypeError,
        );
      }
    });
  }

  test('delay=<ms> holds the answer for that long, then answers normally', async () => {
    const res = held.client('delay=300').createPayment(directRequest());
    const asked = await held.next();
    assert.equal(asked.ms, 300, 'the fault waits the time it names');
    assert.equal(await settledYet(res), false, 'nothing is answered during the delay');
    asked.release();
    const record = await res;
    assert.equal(record.kind === 'direct' && record.record.status, 'success');
  });

  test('decline (header) fails the payment with 5152, decline=5105 with that code', async () => {
    const a = await faulty('decline').createPayment(directRequest());
    assert.equal(a.kind === 'direct' && a.record.status_code, '5152');
    const b = await faulty('decline=5105').createPayment(directRequest());
    assert.equal(b.kind === 'direct' && b.record.status_code, '5105');
  });

  test('faults combine: a delay, then a 503 after the charge', async () => {
    const req = directRequest();
    const res = held.client('delay=150, 503-after-charge').createPayment(req);
    const asked = await held.next();
    assert.equal(asked.ms, 150);
    assert.equal(await settledYet(res), false, 'the 503 comes only after the delay');
    assert.equal(await exists(req.order_id, held.sandbox), false, 'the charge waits for it too');
    asked.release();
    await assert.rejects(res, GatewayOutcomeUnknownError);
    assert.ok(await exists(req.order_id, held.sandbox));
  });

  test('a 503 on a lookup is GatewayUnavailableError (reads fail softly)', async () => {
    const req = directRequest();
    await t.client.createPayment(req);
    await assert.rejects(faulty('503').getOrder(req.order_id), GatewayUnavailableError);
  });

  test('the after-charge faults apply to capture and refund too', async () => {
    const req = directRequest({method: 'auth'});
    await t.client.createPayment(req);
    const before = t.sandbox.chargeCount();
    await assert.rejects(
      faulty('500-after-charge').capture({order_id: req.order_id, order_currency: 'UAH'}),
      GatewayOutcomeUnknownError,
    );
    assert.equal(t.sandbox.chargeCount(), before + 1);
    await assert.rejects(
      faulty('drop').refund({order_id: req.order_id, order_currency: 'UAH'}),
      GatewayOutcomeUnknownError,
    );
    const ops = await t.client.getOrder(req.order_id);
    assert.deepEqual(
      ops.map((r) => r.method),
      ['auth', 'capture'],
    );
  });
});

describe('fault rules', () => {
  test('a rule on a card fires for its matching requests only, `times` times', async () => {
    t.sandbox.addFault({match: {card_last4: '4444'}, fault: '503', times: 2});
    const mc = '5555555555554444';
    const before = t.sandbox.chargeCount();
    await assert.rejects(
      t.client.createPayment(directRequest({cc_number: mc})),
      GatewayOutcomeUnknownError,
    );
    const other = await t.client.createPayment(directRequest());
    assert.equal(other.kind === 'direct' && other.record.status, 'success');
    await assert.rejects(
      t.client.createPayment(directRequest({cc_number: mc})),
      GatewayOutcomeUnknownError,
    );
    const third = await t.client.createPayment(directRequest({cc_number: mc}));
    assert.equal(third.kind === 'direct' && third.record.status, 'success');
    assert.equal(t.sandbox.chargeCount() - before, 2);
    assert.equal(t.sandbox.faults().length, 0);
  });

  test('a rule on an order applies to its capture, not to its lookups', async () => {
    const req = directRequest({method: 'auth'});
    await t.client.createPayment(req);
    t.sandbox.addFault({match: {order_id: req.order_id}, fault: 'drop-after-charge'});
    assert.equal((await t.client.getOrder(req.order_id)).length, 1);
    await assert.rejects(
      t.client.capture({order_id: req.order_id, order_currency: 'UAH'}),
      GatewayOutcomeUnknownError,
    );
    assert.equal((await t.client.getOrder(req.order_id)).length, 2);
    t.sandbox.clearFaults();
  });

  test('rules are managed over HTTP: POST adds, GET lists, DELETE clears, bad rules are 400', async () => {
    const post = await fetch(`${t.sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({match: {order_id: 'x'}, fault: 'delay=10', times: 1}),
    });
    assert.equal(post.status, 201);
    const {id} = (await post.json()) as {id: string};
    const list = (await (await fetch(`${t.sandbox.url}/sandbox/faults`)).json()) as {
      id: string;
      remaining: number;
    }[];
    assert.deepEqual(
      list.map((r) => [r.id, r.remaining]),
      [[id, 1]],
    );
    const bad = await fetch(`${t.sandbox.url}/sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({match: {card_last4: '12'}, fault: 'explode'}),
    });
    assert.equal(bad.status, 400);
    const text = await bad.text();
    assert.match(text, /match\.card_last4/);
    assert.match(text, /fault: must be one of/);
    assert.equal((await fetch(`${t.sandbox.url}/sandbox/faults`, {method: 'DELETE'})).status, 204);
    assert.deepEqual(t.sandbox.faults(), []);
    assert.throws(() => t.sandbox.addFault({fault: 'nope'}), /fault: must be one of/);
  });

  test('fetchHandler answers a drop with a network-error Response', async () => {
    const res = await t.sandbox.fetchHandler(
      new Request(`${t.sandbox.url}/api/v1/payment`, {
        method: 'POST',
        headers: {
          'X-API-Auth': `CPAY ${t.sandbox.credentials.apiKey}:${t.sandbox.credentials.apiSecret}`,
          'X-API-Key': t.sandbox.credentials.endpointsKey,
          'Content-Type': 'application/json',
          'X-Sandbox-Fault': 'drop',
        },
        body: JSON.stringify(wireBody(t.sandbox)),
      }),
    );
    assert.equal(res.type, 'error');
  });
});
