/**
 * The conformance suite's harness. Each area of `gateway-spec.md` (endpoints, fields,
 * rules) and the public plugins' requests (`gateway-facts.md`) is a table of rows; every
 * row becomes one named test per profile, run over real HTTP against a sandbox of that
 * profile, so a change that breaks a rule fails by its name. A row says what each
 * profile answers: most rules hold in both; the live gateway's tolerances are accepted by
 * `live` (and noted in its leniency list) and refused by `strict`.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {ErrorBody} from '../../../../src/server/gateway/index.js';
import {PROFILES, startSandbox} from '../../../../sandbox/index.js';
import type {LeniencyRule, Profile, Sandbox} from '../../../../sandbox/index.js';
import {directRequest, hostedRequest, raw} from '../helpers.js';

export {PROFILES};
export type {Profile};

/** The sandbox clock's start in every conformance sandbox (a fixed, known day). */
export const CLOCK_START = '2027-03-10T09:15:00.000Z';
export const DAY = 86_400_000;

export interface Ctx {
  sandbox: Sandbox;
  profile: Profile;
  pos: string;
}

/** One row: a named check, run against a sandbox of each profile it lists (both by default). */
export interface Row {
  name: string;
  run: (ctx: Ctx) => Promise<void>;
  profiles?: readonly Profile[];
}

export type Answer = Awaited<ReturnType<typeof raw>>;

/** A row that runs checks of its own. */
export const row = (name: string, run: (ctx: Ctx) => Promise<void>): Row => ({name, run});

/**
 * Registers one table: a suite per profile, each with its own sandbox (manual clock at
 * {@link CLOCK_START}) and one test per row.
 */
export function table(area: string, rows: readonly Row[]): void {
  const names = new Set<string>();
  for (const row of rows) {
    assert.ok(!names.has(row.name), `duplicate row name in ${area}: ${row.name}`);
    names.add(row.name);
  }
  for (const profile of PROFILES) {
    describe(`conformance: ${area} [${profile}]`, () => {
      const ctx = {profile} as Ctx;
      before(async () => {
        ctx.sandbox = await startSandbox({
          profile,
          reportDelayMs: 150,
          clock: {start: new Date(CLOCK_START), manual: true},
        });
        ctx.pos = ctx.sandbox.credentials.posId;
      });
      after(() => ctx.sandbox.close());
      for (const row of rows) {
        if (row.profiles && !row.profiles.includes(profile)) continue;
        test(row.name, async () => {
          ctx.sandbox.clearLeniencies();
          await row.run(ctx);
        });
      }
    });
  }
}

/** What a profile answers to a request row. */
export type Outcome =
  | {accept: number; leniencies?: readonly (readonly [LeniencyRule, string])[]}
  | {refuse: number; field: string; code?: string};

/**
 * A request row: `send` makes the request; `live`/`strict` say what each answers; `then`
 * checks an accepted answer further (that it is understood the way its reader reads it).
 */
export function requestRow(
  name: string,
  send: (ctx: Ctx) => Promise<Answer>,
  outcomes: {live: Outcome; strict: Outcome},
  then?: (ctx: Ctx, answer: Answer) => void | Promise<void>,
): Row {
  return {
    name,
    async run(ctx) {
      const answer = await send(ctx);
      const expected = outcomes[ctx.profile];
      if ('accept' in expected) {
        assert.equal(answer.status, expected.accept, `answered ${answer.status}: ${answer.text}`);
        const noted = ctx.sandbox.leniencies().flatMap((r) => r.leniencies);
        assert.deepEqual(
          noted.map((l) => [l.rule, l.field]).sort(),
          [...(expected.leniencies ?? [])].map((l) => [...l]).sort(),
          'the tolerances noted for this request',
        );
      } else {
        assert.equal(answer.status, expected.refuse, answer.text);
        const body = ErrorBody.parse(answer.json());
        assert.equal(body.args?.code, expected.code ?? 'V-400');
        assert.ok(
          body.message.includes(expected.field),
          `the error names ${expected.field}: ${body.message}`,
        );
        assert.equal(ctx.sandbox.leniencies().length, 0, 'a refused request notes nothing');
      }
      if ('accept' in expected) await then?.(ctx, answer);
    },
  };
}

/** Both profiles accept, relying on no tolerance. */
export const accepted = (status = 200): {live: Outcome; strict: Outcome} => ({
  live: {accept: status},
  strict: {accept: status},
});

/** Both profiles refuse, naming `field`. */
export const refused = (field: string, status = 400, code = 'V-400') => ({
  live: {refuse: status, field, code},
  strict: {refuse: status, field, code},
});

/** `live` accepts by the tolerances given; `strict` refuses naming `field`. */
export const tolerated = (
  field: string,
  leniencies: readonly (readonly [LeniencyRule, string])[],
  status = 200,
) => ({
  live: {accept: status, leniencies},
  strict: {refuse: 400, field, code: 'V-400'},
});

let seq = 0;
/** A fresh order id, unique in this process. */
export const freshOrderId = (prefix: string) => `cf-${prefix}-${process.pid}-${++seq}`;

/** A direct payment body as the wire carries it; `undefined` values are left out. */
export function directBody(ctx: Ctx, change: Record<string, unknown> = {}) {
  return withoutUndefined({
    ...directRequest({order_id: freshOrderId('d')}),
    pos_id: ctx.pos,
    ...change,
  });
}

/** A hosted payment body as the wire carries it; `undefined` values are left out. */
export function hostedBody(ctx: Ctx, change: Record<string, unknown> = {}) {
  return withoutUndefined({
    ...hostedRequest({order_id: freshOrderId('h')}),
    pos_id: ctx.pos,
    ...change,
  });
}

function withoutUndefined(body: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
  return body;
}

/** POSTs a create request. */
export const create = (ctx: Ctx, body: unknown) =>
  raw(ctx.sandbox, 'POST', '/api/v1/payment', {body});

/** A paid order: a direct purchase (or auth) that succeeded; its order id and record. */
export async function paidOrder(
  ctx: Ctx,
  change: Record<string, unknown> = {},
): Promise<{orderId: string; record: Record<string, unknown>}> {
  const body = directBody(ctx, change);
  const answer = await create(ctx, body);
  assert.equal(answer.status, 200, answer.text);
  ctx.sandbox.clearLeniencies();
  return {orderId: body['order_id'] as string, record: answer.json() as Record<string, unknown>};
}

/** Cancels an order (`POST /api/v1/pos/{pos}/order/{order_id}/cancel`). */
export const cancelOrder = (ctx: Ctx, orderId: string) =>
  raw(ctx.sandbox, 'POST', `/api/v1/pos/${ctx.pos}/order/${orderId}/cancel`);

/** Creates an unpaid hosted order (with `change`) and cancels it: the cancel answer. */
export async function cancelledHosted(ctx: Ctx, change: Record<string, unknown> = {}) {
  const body = hostedBody(ctx, change);
  await create(ctx, body);
  return cancelOrder(ctx, body['order_id'] as string);
}

/** GET of an order path under `/api/v1/pos/{pos}/orders/`. */
export const orders = (ctx: Ctx, rest: string) =>
  raw(ctx.sandbox, 'GET', `/api/v1/pos/${ctx.pos}/orders/${rest}`);

/** The spec's record timestamp: `yyyy-MM-ddTHH:mm:ss.SSS`, no zone. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;
