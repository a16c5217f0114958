/**
 * "One charge per order" with several companion processes on one SQLite file, proven
 * from outside: real child processes (fixtures/companion-process.ts), each with its own
 * store connection, paid over real HTTP against the sandbox at the same instant. Counted
 * at the sandbox (charges, creates) and in the database file (live attempts per order):
 * concurrent pay requests for one order on every process; creates that time out and are
 * retried by every process; and card-testing limits shared by the processes.
 */
import {after, before, describe, test, type TestContext} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, type ChildProcess} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {setTimeout as sleep} from 'node:timers/promises';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {fileURLToPath} from 'node:url';
import Database from 'better-sqlite3';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {LIVE_STATES} from '../../../src/server/store/payment-store.js';
import {CARDS, finalStatus, payBody, payHttp, sandboxCharges, sandboxPayments} from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = path.join(ROOT, 'test/node/checkout/fixtures/companion-process.ts');
/** A success card of its own, so the slow-gateway fault rule touches only its scenario. */
const SLOW_CARD = '5454545454545454';
const PROCESSES = 3;
const ORDERS = 20;

interface Companion {
  url: string;
  child: ChildProcess;
  /** The process's log (warnings and up), for the failure message. */
  stderr: string[];
}

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-multiprocess-'));
const children = new Set<ChildProcess>();
let sandbox: Sandbox;
/** Generous limits: scenarios 1 and 2. */
let shared: Companion[];
/** maxAttemptsPerIp = 10: scenario 3. */
let limited: Companion[];
const SHARED_DB = path.join(tmp, 'shared.db');
const LIMITED_DB = path.join(tmp, 'limited.db');

/** Starts one companion process on `db`; resolves with its URL once it listens. */
function spawnCompanion(db: string, env: Record<string, string>): Promise<Companion> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: {
      ...process.env,
      COMPANION_DB: db,
      GATEWAY_URL: sandbox.url,
      GATEWAY_POS_ID: sandbox.credentials.posId,
      GATEWAY_API_KEY: sandbox.credentials.apiKey,
      GATEWAY_API_SECRET: sandbox.credentials.apiSecret,
      GATEWAY_ENDPOINTS_KEY: sandbox.credentials.endpointsKey,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const failed = (why: string) =>
      reject(new Error(`companion process ${why}:\n${stderr.join('').slice(-4000)}`));
    // Its first line says where it listens, or it exits first: no deadline ("did not listen
    // within 20 s" was a loaded machine; a hang is ended by the tier's test timeout).
    child.once('exit', (code, signal) => failed(`exited (${signal ?? code}) before listening`));
    createInterface({input: child.stdout!}).once('line', (line) => {
      const {url} = JSON.parse(line) as {url: string};
      resolve({url, child, stderr});
    });
  });
}

/** SIGTERM, then the exit code (SIGKILL after 5 s: `null`). */
function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/** Should this process die first, its children go with it. */
function killChildren() {
  for (const child of children) child.kill('SIGKILL');
}

before(async () => {
  process.once('exit', killChildren);
  sandbox = await startSandbox({webhook: {retryDelaysMs: [100, 300, 600, 1000, 2000]}});
  // Scenario 2 makes every create outlive the client's timeout; 300 ms is plenty else.
  const slowClient = {GATEWAY_TIMEOUT_MS: '300'};
  const perIp = {
    RATE_LIMIT: JSON.stringify({
      maxAttemptsPerIp: 10,
      maxAttemptsPerOrder: 10_000,
      maxAttemptsPerCard: 100_000,
      windowMs: 60_000,
    }),
  };
  // All at once, as a deployment starts them: each opens (and may create) the file.
  const three = (db: string, env: Record<string, string>) =>
    Promise.all(Array.from({length: PROCESSES}, () => spawnCompanion(db, env)));
  [shared, limited] = await Promise.all([three(SHARED_DB, slowClient), three(LIMITED_DB, perIp)]);
});

after(async () => {
  await Promise.all([...children].map(stop));
  process.off('exit', killChildren);
  await sandbox?.close();
  rmSync(tmp, {recursive: true, force: true});
});

const refs = (prefix: string) =>
  Array.from({length: ORDERS}, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);

/** An order reference's primary payments at the sandbox. */
const paymentsOf = (orderRef: string) => sandboxPayments(sandbox, orderRef);

/** Per order, from the database file: live attempts (the store's rule), rows, creates sent. */
function attemptsInFile(file: string, orderRefs: readonly string[]) {
  const db = new Database(file, {readonly: true, fileMustExist: true});
  try {
    const rows = db
      .prepare(
        `SELECT order_ref AS orderRef,
           SUM(state IN (${LIVE_STATES.map(() => '?').join(', ')})
             AND (state = 'success' OR written_off IS NULL)) AS live,
           SUM(state = 'success') AS success,
           COUNT(*) AS rows,
           SUM(create_count) AS creates
         FROM attempts GROUP BY order_ref`,
      )
      .all(...LIVE_STATES) as {
      orderRef: string;
      live: number;
      success: number;
      rows: number;
      creates: number;
    }[];
    const byOrder = new Map(rows.map((r) => [r.orderRef, r]));
    return orderRefs.map(
      (ref) => byOrder.get(ref) ?? {orderRef: ref, live: 0, success: 0, rows: 0, creates: 0},
    );
  } finally {
    db.close();
  }
}

/**
 * Every order's pay requests on every process at the same instant: two on each, each with
 * its own attempt id. Resolves with each answer and the process that gave it.
 */
function payEverywhere(orderRefs: readonly string[], tag: string, card: string) {
  return Promise.all(
    orderRefs.flatMap((orderRef) =>
      shared.flatMap((c, p) =>
        [0, 1].map(async (k) => {
          const r = await payHttp(c.url, payBody(orderRef, `${orderRef}-${tag}-p${p}-${k}`, card));
          return {orderRef, companion: c, ...r};
        }),
      ),
    ),
  );
}

/**
 * Polls the status route of the process that answered until the order is final, as the
 * customer would: told a create is not confirmed (`not_confirmed`: "you may pay again"),
 * they press "Try again" a moment later (a new attempt, the same order id at the gateway:
 * safe), for up to about 10 s; a create still on its way is not confirmed meanwhile.
 */
async function finalState(c: Companion, orderRef: string, card: string): Promise<unknown> {
  for (let again = 0; ; again++) {
    const s = await finalStatus(c.url, orderRef);
    if (s.json['reason'] !== 'not_confirmed' || again === 20) return s.json['state'];
    await sleep(500);
    const paid = await payHttp(c.url, payBody(orderRef, `${orderRef}-again-${again}`, card));
    if (paid.json['outcome'] === 'success') return 'success';
  }
}

/** The process logs, for a failure message. */
const logsOf = (list: Companion[]) =>
  list.map((c, i) => `--- process ${i}:\n${c.stderr.join('').slice(-2000)}`).join('\n');

type Answer = Awaited<ReturnType<typeof payEverywhere>>[number];

/** Open: `processing`, or the retryable `not_confirmed` of an unknown outcome. */
const open = (a: Answer) =>
  a.json['outcome'] === 'processing' ||
  (a.json['outcome'] === 'failure' && a.json['code'] === 'not_confirmed');

/** Every answer is success, or open and then success on the status route. */
async function assertSuccessOrProcessing(answers: readonly Answer[], card: string) {
  const odd = answers.filter(
    (a) => a.status !== 200 || !(a.json['outcome'] === 'success' || open(a)),
  );
  assert.deepEqual(
    odd.map((a) => ({order: a.orderRef, status: a.status, body: a.json})),
    [],
    `every answer is success or processing\n${logsOf(shared)}`,
  );
  const processing = answers.filter(open);
  for (const a of processing) {
    assert.equal(await finalState(a.companion, a.orderRef, card), 'success', a.orderRef);
  }
  return processing.length;
}

/**
 * One successful charge per order at the sandbox, none refunded, and one live attempt (a
 * success) per order in the database file. The figures are reported before the checks.
 */
function assertOneChargePerOrder(t: TestContext, orderRefs: readonly string[]) {
  const seen = orderRefs.map((ref) => ({ref, charges: sandboxCharges(sandbox, ref)}));
  const inFile = attemptsInFile(SHARED_DB, orderRefs);
  t.diagnostic(
    `charges expected ${orderRefs.length}, seen ${seen.reduce((n, s) => n + s.charges, 0)}; ` +
      `orders charged twice or more: ${seen.filter((s) => s.charges > 1).length}; ` +
      `live attempts in the file ${inFile.reduce((n, a) => n + a.live, 0)} ` +
      `(${inFile.reduce((n, a) => n + a.rows, 0)} rows, ` +
      `${inFile.reduce((n, a) => n + a.creates, 0)} creates sent)`,
  );
  assert.deepEqual(
    seen.filter((s) => s.charges !== 1),
    [],
    `orders without exactly one charge\n${logsOf(shared)}`,
  );
  assert.deepEqual(
    orderRefs.flatMap(paymentsOf).filter((p) => p.refundedAmount > 0),
    [],
    'no charge was refunded (the double-charge compensation never had to act)',
  );
  assert.deepEqual(
    inFile.filter((a) => a.live !== 1 || a.success !== 1),
    [],
    'orders without exactly one live attempt (a success) in the SQLite file',
  );
  return inFile;
}

describe('several companion processes on one SQLite file', () => {
  test('six pay requests per order on three processes at once: one charge per order', async (t) => {
    const orderRefs = refs('mp-same');
    const answers = await payEverywhere(orderRefs, 'a', CARDS.success);
    assert.equal(answers.length, ORDERS * PROCESSES * 2);
    const processing = await assertSuccessOrProcessing(answers, CARDS.success);
    t.diagnostic(`${answers.length} answers: ${processing} processing → success, the rest success`);
    assertOneChargePerOrder(t, orderRefs);
  });

  test('creates that outlive the client timeout, retried by every process: one charge per order', async (t) => {
    const orderRefs = refs('mp-slow');
    // Every create of this card waits 2.5 s, longer than the three rounds take (each
    // lookup takes a lease in the file first): the companions (300 ms timeout) never see an
    // answer, so each outcome is unknown and each retry re-sends the create.
    sandbox.addFault({match: {card_last4: SLOW_CARD.slice(-4)}, fault: 'delay=2500'});
    const answers: Answer[] = [];
    try {
      for (let round = 0; round < 3; round++) {
        answers.push(...(await payEverywhere(orderRefs, `r${round}`, SLOW_CARD)));
      }
    } finally {
      sandbox.clearFaults();
    }
    const processing = await assertSuccessOrProcessing(answers, SLOW_CARD);
    t.diagnostic(`${answers.length} answers: ${processing} processing → success, the rest success`);
    for (const orderRef of orderRefs) {
      for (const c of shared) {
        assert.equal(await finalState(c, orderRef, SLOW_CARD), 'success', orderRef);
      }
    }
    const inFile = assertOneChargePerOrder(t, orderRefs);
    assert.deepEqual(
      inFile.filter((a) => a.creates < 2),
      [],
      'every order had its create re-sent with the same order id',
    );
  });

  test('card-testing limits are shared: 60 orders from one address reach the gateway 10 times', async (t) => {
    const orderRefs = Array.from({length: 60}, (_, i) => `mp-limit-${String(i).padStart(2, '0')}`);
    const answers = await Promise.all(
      orderRefs.map((orderRef, i) =>
        payHttp(limited[i % PROCESSES]!.url, payBody(orderRef, `${orderRef}-a`)),
      ),
    );
    const limitedCount = answers.filter((a) => a.status === 429).length;
    const paid = answers.filter((a) => a.status === 200 && a.json['outcome'] === 'success').length;
    const creates = sandbox.payments().filter((p) => p.orderId.startsWith('mp-limit-')).length;
    t.diagnostic(`gateway creates ${creates} (at most 10), 429: ${limitedCount}, success: ${paid}`);
    assert.equal(paid + limitedCount, 60, `every answer is success or 429\n${logsOf(limited)}`);
    assert.ok(creates <= 10, `${creates} creates reached the gateway`);
    assert.equal(creates, paid, 'each success is one create, and nothing else reached it');
    assert.equal(paid, 10, 'the limit lets exactly 10 through');
  });

  test('every companion process exits 0 on SIGTERM', async () => {
    const codes = await Promise.all([...shared, ...limited].map((c) => stop(c.child)));
    assert.deepEqual(codes, Array(PROCESSES * 2).fill(0));
  });
});
