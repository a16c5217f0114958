/**
 * How many statements one direct payment costs on PostgreSQL, counted from outside: every
 * `query` of every connection of the pg pool handed to the store (the guard store beside it
 * uses the same pool), one count per call — one round trip (`BEGIN` with its settings goes
 * as one text). A direct payment through the companion over HTTP against the sandbox, its
 * statements from the pay request to its final answer, then with the work after it (the
 * sandbox's webhook, the outbox delivery to `onPaymentUpdate`, the card-testing counts).
 * The goals (issue 36): at most 10 before the answer, at most 15 with the work after it.
 * A failure lists the statements, so the one too many is named.
 */
import assert from 'node:assert/strict';
import {after, before, describe, test} from 'node:test';
import pg from 'pg';
import {PostgresPaymentStore} from '../../../src/server/index.js';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {
  CARDS,
  eventually,
  nextCvv,
  payBody,
  payHttp,
  serveCompanion,
  type ServedCompanion,
} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, pgQuery, schemaName} from './postgres.js';

const GOAL_TO_ANSWER = 10;
const GOAL_WITH_AFTER = 15;
const INT8_OID = 20;

describe('statements of one direct payment on PostgreSQL', {skip: PG_SKIP}, () => {
  let sandbox: Sandbox;
  let pool: pg.Pool;
  let store: PostgresPaymentStore;
  let companion: ServedCompanion;
  let schema: string;
  const sent: string[] = [];
  /** Resolved once the counted payment is answered (the warm-up's webhook is not held). */
  let answered: Promise<void> = Promise.resolve();

  before(async () => {
    sandbox = await startSandbox();
    schema = schemaName('stmts');
    pool = new pg.Pool({
      connectionString: PG_TEST_URL,
      max: 4,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8_OID
            ? (v: string) => Number(v)
            : pg.types.getTypeParser(oid, format as 'text')) as never,
      },
    });
    // Every connection's query counted, once per call (pool.query goes through it too).
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as {query: unknown}).query = (...args: unknown[]) => {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as {text: string}).text;
        sent.push(text.replace(/\s+/g, ' ').trim());
        return query(...args);
      };
    });
    store = new PostgresPaymentStore({pool, schema, statementTimeoutMs: 10_000});
    await store.ready();
    // The sandbox's webhook of the counted payment waits until its pay request is answered,
    // so the count before the answer is the pay request's alone (the webhook is counted
    // with the work after it).
    companion = await serveCompanion(sandbox, store, {
      gate: (req) =>
        new URL(req.url).pathname.endsWith('/webhook') ? answered : Promise.resolve(),
    });
    // One payment first: the guard store's start and the pool's connections are not a
    // payment's cost.
    const warm = await payHttp(
      companion.url,
      payBody('ORDER-1001', 'warm-up-attempt-0001', CARDS.success, nextCvv()),
    );
    assert.equal(warm.json['outcome'], 'success');
    await settled('ORDER-1001', 1);
  });

  after(async () => {
    await companion?.close();
    await store?.close();
    await pool?.end();
    await sandbox?.close();
    await dropSchemas();
  });

  /**
   * Waits (on a connection of its own, not counted) until the payment's webhook is stored,
   * its updates delivered and nothing is left in the outbox, and `n` updates reached the hook.
   */
  async function settled(orderRef: string, n: number): Promise<void> {
    await sandbox.webhooksIdle();
    await eventually(async () => {
      const [row] = await pgQuery<{events: string; pending: string}>(
        `SELECT (SELECT count(*) FROM ${schema}.webhook_events
                 WHERE gateway_order_id LIKE $1) AS events,
                (SELECT count(*) FROM ${schema}.outbox WHERE delivered_at IS NULL) AS pending`,
        [`${orderRef}-%`],
      );
      return (
        Number(row!.events) >= 1 && Number(row!.pending) === 0 && companion.updates.length >= n
      );
    }, 10_000);
  }

  test(`≤ ${GOAL_TO_ANSWER} before the answer, ≤ ${GOAL_WITH_AFTER} with the work after it`, async (t) => {
    const updatesBefore = companion.updates.length;
    let answer!: () => void;
    answered = new Promise<void>((resolve) => (answer = resolve));
    sent.length = 0;
    const reply = await payHttp(
      companion.url,
      payBody('ORDER-1002', 'counted-attempt-0001', CARDS.success, nextCvv()),
    );
    const toAnswer = [...sent];
    answer();
    assert.equal(reply.status, 200);
    assert.equal(reply.json['outcome'], 'success');
    await settled('ORDER-1002', updatesBefore + 1);
    const withAfter = [...sent];
    const list = (s: string[]) => s.map((t, i) => `${i + 1}. ${t.slice(0, 160)}`).join('\n');
    t.diagnostic(
      `${toAnswer.length} statements to the answer, ${withAfter.length} with the work after it:`,
    );
    for (const line of list(withAfter).split('\n')) t.diagnostic(line);
    assert.ok(
      toAnswer.length <= GOAL_TO_ANSWER,
      `${toAnswer.length} statements before the answer (goal ${GOAL_TO_ANSWER}):\n${list(toAnswer)}`,
    );
    assert.ok(
      withAfter.length <= GOAL_WITH_AFTER,
      `${withAfter.length} statements with the work after it (goal ${GOAL_WITH_AFTER}):\n${list(withAfter)}`,
    );
  });
});
