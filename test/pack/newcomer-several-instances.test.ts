/**
 * docs/guides/several-instances.md, done as a newcomer does it (test/pack/newcomer.ts): from
 * an empty folder, the first payment's steps 1 to 4 (where the guide says it starts), the
 * guide's `npm install pg` and files, type-checked with `tsc --init`'s settings (and
 * `skipLibCheck: false`), then the sandbox and both instances started with its commands on
 * one PostgreSQL database of the test's own (the guide's `shop` database and ports
 * replaced). ORDER-1001 is paid in Chromium on instance A; instance B answers it paid; the
 * work the instances claimed carries the names the guide gave them. Skipped without
 * PostgreSQL, unless PG_TEST_REQUIRED=1 (CI).
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {randomBytes} from 'node:crypto';
import pg from 'pg';
import type {Browser} from 'playwright';
import {sharedChromium} from '../../scripts/chromium.mjs';
import {freePort} from '../node/checkout/helpers.js';
import {PG_SKIP, PG_TEST_URL, pgQuery} from '../node/checkout/postgres.js';
import {
  doSteps,
  firstPaymentProject,
  guideSteps,
  isSandboxCommand,
  isServerCommand,
  Newcomer,
  pageProblems,
  resultOf,
  stepsBefore,
  typeCard,
  typeCheck,
  type Running,
} from './newcomer.js';
import {packed} from './packed.js';

const GUIDE = 'several-instances.md';
const steps = guideSteps(GUIDE);
const commands = steps.filter((s) => s.kind === 'command').map((s) => s.text);
/** The database the guide names, made fresh here: the instances' first start fills it. */
const database = `newcomer_${process.pid}_${randomBytes(4).toString('hex')}`;
const databaseUrl = Object.assign(new URL(PG_TEST_URL), {pathname: `/${database}`}).href;

/** Runs `sql` in the guide's database (schema `checkout`, as store.ts names it). */
async function inDatabase<T>(sql: string): Promise<T[]> {
  const client = new pg.Client({connectionString: databaseUrl});
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

let shop: Newcomer;
const running: Running[] = [];
let browser: Browser | undefined;

before(async () => {
  shop = new Newcomer(packed.tarball);
  if (!PG_SKIP) await pgQuery(`CREATE DATABASE ${database}`);
});

after(async () => {
  await browser?.close();
  for (const r of running.reverse()) await r.stop();
  await shop?.remove();
  if (!PG_SKIP) await pgQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

describe(`${GUIDE}, from an empty folder`, {skip: PG_SKIP}, () => {
  it("starts from the first payment's project; installs pg; its files type-check with tsc --init's settings", () => {
    firstPaymentProject(shop, packed.firstPayment);
    doSteps(shop, stepsBefore(steps, 'npx tsc --noEmit'));
    const files = steps.filter((s) => s.kind === 'file').map((s) => s.name);
    assert.deepEqual(files, ['store.ts', 'checkout.ts']);
    const pkg = JSON.parse(shop.read('package.json')) as {dependencies: Record<string, string>};
    assert.ok(pkg.dependencies.pg, 'npm install pg');
    typeCheck(shop);
  });

  it('step 4: two instances on one database; paid on one, the other answers it paid', async () => {
    const sandboxCommand = commands.find(isSandboxCommand)!;
    const servers = commands.filter(isServerCommand);
    assert.equal(servers.length, 2, 'two instances');
    const sandbox = shop.start(sandboxCommand, {SANDBOX_PORT: '0'});
    running.push(sandbox);
    const [, sandboxUrl] = await sandbox.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    // The guide's addresses, on free ports: the public address is instance A's here (the
    // load balancer's, in the guide), where the browser pays and the webhooks arrive.
    const ports = [await freePort(), await freePort()];
    const origins = ports.map((port) => `http://localhost:${port}`);
    const names: string[] = [];
    for (const [i, command] of servers.entries()) {
      const name = /INSTANCE_ID=(\S+)/.exec(command)?.[1];
      assert.ok(name, `instance ${i + 1} is named`);
      names.push(name);
      for (const needle of ['http://127.0.0.1:4010', 'http://localhost:3000', 'PORT=300']) {
        assert.ok(command.includes(needle), `${needle} in ${command}`);
      }
      assert.match(command, /DATABASE_URL=postgres:\/\/postgres@127\.0\.0\.1:5432\/shop /);
      const server = shop.start(
        command
          .replace('http://127.0.0.1:4010', sandboxUrl!)
          .replace('http://localhost:3000', origins[0]!)
          .replace(/DATABASE_URL=\S+/, `DATABASE_URL=${databaseUrl}`)
          .replace(/PORT=\d+/, `PORT=${ports[i]}`),
        {},
        command,
      );
      running.push(server);
      await server.waitFor(/listening on http:\/\/localhost:\d+/);
    }
    assert.equal(new Set(names).size, 2, 'two names');

    browser = await sharedChromium();
    const context = await browser.newContext();
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems = pageProblems(page);
    await page.goto(`${origins[0]}/`);
    const form = page.locator('pg-card-form');
    await typeCard(form);
    await form.locator('[part~="button"]').click();
    await page.waitForURL(`${origins[0]}/order/result?order=ORDER-1001`);
    assert.equal(await resultOf(page), 'Payment successful.');

    // The other instance reads it from the database.
    const res = await fetch(`${origins[1]}/checkout/status?order=ORDER-1001`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as {state: string}).state, 'success');

    // The update was delivered once, by one of them, under the name it was given.
    const [a, b] = running.slice(1);
    const paid = () =>
      [a!, b!].reduce((n, s) => n + (s.output().match(/order ORDER-1001 paid/g) ?? []).length, 0);
    for (let i = 0; i < 100 && paid() === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(paid(), 1, 'markPaid ran once, on one instance');
    const claimed = await inDatabase<{claimed_by: string}>(
      'SELECT DISTINCT claimed_by FROM checkout.outbox WHERE claimed_by IS NOT NULL',
    );
    assert.ok(claimed.length > 0, 'the outbox was claimed');
    for (const {claimed_by} of claimed) assert.ok(names.includes(claimed_by), claimed_by);
    assert.deepEqual(problems, []);
    for (const server of [a!, b!]) {
      assert.doesNotMatch(server.output(), /"level":(50|60)/, 'nothing logged at error level');
    }
    await context.close();
  });
});
