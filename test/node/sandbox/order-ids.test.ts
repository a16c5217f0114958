/**
 * A create takes its `order_id` as it arrives, as the live gateway does, so a merchant can
 * use the `order_id` as its idempotency key: while a create is held (a `delay` fault), a
 * second create with the same `order_id` answers P-409 exactly as for an existing order,
 * and lookups answer 404 (the order does not exist yet). When the held create ends
 * without a payment (`drop`, a 5xx before the work, a refused request) the `order_id` is
 * free again; when it made one, the order exists as usual.
 *
 * The create is held by a one-time `delay` rule on its `order_id`, for as long as the test
 * says, not for a time: the sandbox's `faultDelay` tells the test that the request arrived
 * and holds it until the test reads its answer (no guess at how long the request takes to
 * get there, nor at how long the requests sent during the hold take on a loaded machine).
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {createApp, realDelay} from '../../../sandbox/app.js';
import {SandboxClock} from '../../../sandbox/clock.js';
import {SandboxEngine} from '../../../sandbox/engine/index.js';
import {FaultRules} from '../../../sandbox/faults.js';
import {DEFAULT_CREDENTIALS} from '../../../sandbox/index.js';
import type {SandboxPayment} from '../../../sandbox/index.js';
import {WebhookDispatcher} from '../../../sandbox/webhooks.js';
import {hostedRequest, raw, startTestSandbox, wireBody} from './helpers.js';
import type {TestSandbox} from './helpers.js';

/** The `delay` of held creates: each its own (1500 + n), so its hold can be found. */
const HOLD_MS = 1500;
let holdsMade = 0;
/** Held creates by their delay: `arrived` once the sandbox holds it, `release` ends it. */
const holds = new Map<number, {arrived: () => void; gate: Promise<void>}>();

let t: TestSandbox;
before(async () => {
  t = await startTestSandbox({
    // A held create waits for the test; the other delay rules (spreading arrivals out) wait
    // in real time, as they would without this.
    faultDelay: (ms) => {
      const hold = holds.get(ms);
      if (!hold) return realDelay(ms);
      hold.arrived();
      return hold.gate;
    },
  });
});
after(() => t.close());

type Body = Record<string, unknown> & {order_id: string};
interface Answer {
  status: number;
  json: () => unknown;
}

/** POSTs a create; a destroyed connection (the `drop` faults) resolves to `'dropped'`. */
function send(body: Body, fault?: string): Promise<Answer | 'dropped'> {
  return raw(t.sandbox, 'POST', '/api/v1/payment', {
    body,
    headers: fault ? {'X-Sandbox-Fault': fault} : {},
  }).catch((err: unknown) => {
    if (err instanceof TypeError) return 'dropped' as const;
    throw err;
  });
}

function answered(a: Answer | 'dropped'): Answer {
  assert.notEqual(a, 'dropped', 'the connection was dropped');
  return a as Answer;
}

const codeOf = (a: Answer | 'dropped') =>
  (answered(a).json() as {args?: {code?: string}}).args?.code;

/**
 * Sends a create held by a one-time rule on its `order_id` (then given the `ending` fault,
 * if any), and returns once the sandbox holds it. Reading `answer` ends the hold: the test
 * reads it once it is done with what it sends during the hold.
 */
async function sendHeld(
  body: Body,
  ending?: string,
): Promise<{readonly answer: Promise<Answer | 'dropped'>}> {
  const match = {order_id: body.order_id};
  const ms = HOLD_MS + holdsMade++;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const arrived = new Promise<void>((resolve) => holds.set(ms, {arrived: resolve, gate}));
  t.sandbox.addFault({match, fault: `delay=${ms}`, times: 1});
  if (ending) t.sandbox.addFault({match, fault: ending, times: 1});
  const answer = send(body);
  await arrived;
  return {
    get answer() {
      release();
      return answer;
    },
  };
}

/** The order's primary payments, as `GET /sandbox/payments` lists them. */
async function paymentsOf(orderId: string): Promise<SandboxPayment[]> {
  const all = (await (await fetch(`${t.sandbox.url}/sandbox/payments`)).json()) as SandboxPayment[];
  return all.filter((p) => p.orderId === orderId);
}

const lookup = (orderId: string, operation?: string) =>
  raw(
    t.sandbox,
    'GET',
    `/api/v1/pos/${t.sandbox.credentials.posId}/orders/${encodeURIComponent(orderId)}${operation ? `/${operation}` : ''}`,
  );

describe('a create holds its order_id from its arrival', () => {
  test('a second create during the hold is P-409, as for an existing order, and charges nothing', async () => {
    const body = wireBody(t.sandbox) as Body;
    const charges = t.sandbox.chargeCount();
    const held = await sendHeld(body);

    const during = answered(await send(body));
    assert.equal(during.status, 400);
    assert.equal(codeOf(during), 'P-409');

    const first = answered(await held.answer);
    assert.equal(first.status, 200);
    const record = first.json() as {payment_id: string; status: string};
    assert.equal(record.status, 'success');
    const later = answered(await send(body));
    assert.deepEqual(during.json(), later.json(), 'same answer as for an existing order');

    const payments = await paymentsOf(body.order_id);
    assert.deepEqual(
      payments.map((p) => p.paymentId),
      [record.payment_id],
    );
    assert.equal(t.sandbox.chargeCount() - charges, 1);
  });

  test('lookups of a held order answer 404 until it is created, then find its payment', async () => {
    const body = wireBody(t.sandbox) as Body;
    const held = await sendHeld(body);
    for (const res of [await lookup(body.order_id), await lookup(body.order_id, 'purchase')]) {
      assert.equal(res.status, 404);
      assert.equal((res.json() as {args: {code: string}}).args.code, 'N-404');
    }
    const {payment_id} = answered(await held.answer).json() as {payment_id: string};
    const order = await lookup(body.order_id);
    assert.equal(order.status, 200);
    assert.deepEqual(
      (order.json() as {payment_id: string}[]).map((r) => r.payment_id),
      [payment_id],
    );
    const purchase = await lookup(body.order_id, 'purchase');
    assert.equal((purchase.json() as {payment_id: string}).payment_id, payment_id);
  });
});

describe(
  'how a held create ends decides whether its order_id stays taken',
  {concurrency: true},
  () => {
    const cases: {
      ending: string;
      /** The held create's body, given a fresh valid one. */
      body?: (b: Body) => Body;
      /** What the held create answers: a status and error code, or a dropped connection. */
      answer: 'dropped' | [number, string?];
      /** Whether the attempt created the order (then the id stays used). */
      created: boolean;
    }[] = [
      {ending: 'drop', answer: 'dropped', created: false},
      {ending: '500', answer: [500, 'S-500'], created: false},
      {ending: '503', answer: [503, 'S-503'], created: false},
      {
        ending: 'a refused request (V-400)',
        body: (b) => ({...b, customer_email: 'not-an-email'}),
        answer: [400, 'V-400'],
        created: false,
      },
      {
        ending: 'a refused request (P-470, unknown card token)',
        body: (b) => ({
          ...b,
          cc_number: undefined,
          exp_month: undefined,
          exp_year: undefined,
          card_cvv: undefined,
          cc_token: 'no-such-token',
        }),
        answer: [400, 'P-470'],
        created: false,
      },
      {ending: 'drop-after-charge', answer: 'dropped', created: true},
      {ending: '500-after-charge', answer: [500, 'S-500'], created: true},
      {ending: '503-after-charge', answer: [503, 'S-503'], created: true},
      {ending: 'malformed-json', answer: [200], created: true},
      {ending: 'decline', answer: [200], created: true},
    ];
    for (const c of cases) {
      const outcome = c.created
        ? 'stays taken (P-409 for later creates)'
        : 'is free again for a later create';
      test(`${c.ending}: P-409 during the hold; afterwards the order_id ${outcome}`, async () => {
        const body = wireBody(t.sandbox) as Body;
        const rule = c.body ? undefined : c.ending;
        const held = await sendHeld(c.body ? c.body(body) : body, rule);

        assert.equal(codeOf(await send(body)), 'P-409');

        const end = await held.answer;
        if (c.answer === 'dropped') {
          assert.equal(end, 'dropped');
        } else {
          const [status, code] = c.answer;
          assert.equal(answered(end).status, status);
          if (code) assert.equal(codeOf(end), code);
        }
        assert.equal((await paymentsOf(body.order_id)).length, c.created ? 1 : 0);

        const after = answered(await send(body));
        if (c.created) {
          assert.equal(codeOf(after), 'P-409');
        } else {
          assert.equal(after.status, 200);
          assert.equal((after.json() as {status: string}).status, 'success');
        }
        assert.equal((await paymentsOf(body.order_id)).length, 1);
      });
    }
  },
);

describe('concurrent creates with one order_id', () => {
  const N = 20;

  /** Tallies the answers: the successful ones (200/303) and the P-409 ones. */
  function tally(answers: (Answer | 'dropped')[]) {
    const ok = answers.filter((a) => a !== 'dropped' && (a.status === 200 || a.status === 303));
    const conflicts = answers.filter((a) => a !== 'dropped' && codeOf(a) === 'P-409');
    return {ok: ok.length, conflicts: conflicts.length};
  }

  for (const mode of ['direct', 'hosted'] as const) {
    test(`${N} at once (${mode}): one is answered ${mode === 'direct' ? 200 : 303}, the rest P-409, one payment`, async () => {
      const body = (
        mode === 'direct'
          ? wireBody(t.sandbox)
          : {...hostedRequest(), pos_id: t.sandbox.credentials.posId}
      ) as Body;
      const answers = await Promise.all(Array.from({length: N}, () => send(body)));
      assert.deepEqual(tally(answers), {ok: 1, conflicts: N - 1});
      assert.equal((await paymentsOf(body.order_id)).length, 1);
    });
  }

  test(`${N} at once, each held by a different delay: one succeeds, the rest P-409, one payment`, async () => {
    const body = wireBody(t.sandbox) as Body;
    const answers = await Promise.all(
      Array.from({length: N}, (_, i) => send(body, `delay=${(i * 53) % 400}`)),
    );
    assert.deepEqual(tally(answers), {ok: 1, conflicts: N - 1});
    assert.equal((await paymentsOf(body.order_id)).length, 1);
  });

  test(`a held create keeps its order_id against ${N - 1} creates sent at once during its hold`, async () => {
    const body = wireBody(t.sandbox) as Body;
    const held = await sendHeld(body);
    const during = await Promise.all(
      Array.from({length: N - 1}, (_, i) => send(body, i % 2 ? `delay=${i * 10}` : undefined)),
    );
    assert.deepEqual(tally(during), {ok: 0, conflicts: N - 1});
    const first = answered(await held.answer);
    assert.equal(first.status, 200);
    const payments = await paymentsOf(body.order_id);
    assert.deepEqual(
      payments.map((p) => p.paymentId),
      [(first.json() as {payment_id: string}).payment_id],
    );
  });
});

test('a create whose handling throws gives its order_id back (the claim cannot leak)', async (ctx) => {
  const clock = new SandboxClock({manual: true});
  const webhooks = new WebhookDispatcher(
    {timeoutMs: 1000, retryDelaysMs: [], duplicateRate: 0, reverseOrderRate: 0, seed: 1},
    DEFAULT_CREDENTIALS.apiSecret,
    clock,
  );
  const faults = new FaultRules();
  const engine = new SandboxEngine({
    posId: DEFAULT_CREDENTIALS.posId,
    companyId: DEFAULT_CREDENTIALS.posId,
    clock,
    webhooks,
    faults,
    reportDelayMs: 0,
    publicUrl: () => 'http://sandbox.test',
  });
  const app = createApp({
    engine,
    credentials: DEFAULT_CREDENTIALS,
    clock,
    webhooks,
    faults,
    returnMethod: 'POST',
    webhookSchedule: [],
    advance: async () => undefined,
  });
  ctx.after(() => {
    clock.close();
    webhooks.close();
  });
  ctx.mock.method(console, 'error', () => undefined);
  const create = engine.createPayment.bind(engine);
  let failures = 1;
  ctx.mock.method(engine, 'createPayment', (...args: Parameters<typeof create>) => {
    if (failures-- > 0) throw new Error('a bug in the engine');
    return create(...args);
  });
  const body = {...wireBody(t.sandbox), pos_id: DEFAULT_CREDENTIALS.posId};
  const post = () =>
    app.request('/api/v1/payment', {
      method: 'POST',
      headers: {
        'X-API-Auth': `CPAY ${DEFAULT_CREDENTIALS.apiKey}:${DEFAULT_CREDENTIALS.apiSecret}`,
        'X-API-Key': DEFAULT_CREDENTIALS.endpointsKey,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(body),
    });
  const broken = await post();
  assert.equal(broken.status, 500);
  assert.equal(((await broken.json()) as {args: {code: string}}).args.code, 'S-500');
  const retried = await post();
  assert.equal(retried.status, 200);
  assert.equal(engine.payments().length, 1);
});
