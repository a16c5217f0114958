/**
 * The back office's health page, as an operator sees it in Chromium: two
 * `server-example/main.ts` processes on one PostgreSQL schema and one gateway sandbox
 * (processes too) take real payments — some approved, some declined for different reasons,
 * on both instances — then the page, served by either instance, shows the shop's figures:
 * payments by outcome and failures by reason and status code equal to the payments made
 * (the expected codes read from the sandbox's own card table), the same counts in the
 * payments plot's data table, a gateway p50 and p99, no `busy` answer, the breaker closed,
 * both instances named. It is read in the light and the dark scheme (the page's colours
 * follow `prefers-color-scheme`) and is axe clean in both, with no console error (its CSP
 * holds: it has no script). Each instance adds its counts when its health page is asked
 * for, so the test asks B's page, then reads A's: no wait decides the result.
 * Skipped without PostgreSQL.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {Browser, Page} from 'playwright';
import {sharedChromium} from '../../../scripts/chromium.mjs';
import {TEST_CARDS} from '../../../sandbox/cards.js';
import {CARDS, PAY_HEADERS, payBody} from '../checkout/helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, schemaName} from '../checkout/postgres.js';
import {startExample, startSandboxProcess, stop, type Running} from './processes.js';

const ADMIN = 'health-page-admin-token-0123456789';
const tmp = mkdtempSync(path.join(tmpdir(), 'pg-health-'));
const schema = PG_SKIP ? '' : schemaName('example_health');
const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);
let sandbox: Running;
let a: Running;
let b: Running;
let browser: Browser | undefined;

before(
  async () => {
    if (PG_SKIP) return;
    const launching = sharedChromium();
    sandbox = await startSandboxProcess();
    const common = {
      DATABASE_URL: PG_TEST_URL,
      DATABASE_SCHEMA: schema,
      ADMIN_TOKEN: ADMIN,
      // Only the page's own flush and the close's add counts while the test runs.
      HEALTH_FLUSH_MS: '60000',
      PAY_ATTEMPTS_PER_IP: '1000',
    };
    [a, b] = await Promise.all([
      startExample(sandbox.url, {...common, DATA_DIR: path.join(tmp, 'a'), INSTANCE_ID: 'shop-a'}),
      startExample(sandbox.url, {...common, DATA_DIR: path.join(tmp, 'b'), INSTANCE_ID: 'shop-b'}),
    ]);
    browser = await launching;
  },
  {timeout: 60_000},
);

after(async () => {
  await browser?.close();
  await Promise.all([a, b, sandbox].filter(Boolean).map((r) => stop(r)));
  if (!PG_SKIP) await dropSchemas();
  rmSync(tmp, {recursive: true, force: true});
});

const logs = () => `--- A:\n${a.output().slice(-3000)}\n--- B:\n${b.output().slice(-3000)}`;

/** Creates an order on `base` and pays it there with `card`; answers the pay answer. */
async function buyAndPay(base: string, card: string, n: number) {
  const order = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'mug'}),
  });
  assert.equal(order.status, 201, await order.clone().text());
  const {orderRef} = (await order.json()) as {orderRef: string};
  const res = await fetch(`${base}/api/checkout/pay`, {
    method: 'POST',
    headers: {...PAY_HEADERS, Origin: base},
    body: JSON.stringify(payBody(orderRef, `att-health-${n}`, card)),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as {outcome: string; reason?: string; code?: string};
}

/** The rows of the table `selector`: header cell → value cell. */
async function rowsOf(page: Page, selector: string): Promise<Record<string, string>> {
  return page.$$eval(`${selector} tbody tr`, (trs) =>
    Object.fromEntries(
      trs.map((tr) => [
        tr.querySelector('th')?.textContent?.trim() ?? '',
        tr.querySelector('td')?.textContent?.trim() ?? '',
      ]),
    ),
  );
}

async function axe(page: Page): Promise<string[]> {
  return (await page.evaluate(`(async () => {
    if (!window.axe) { ${axeSource}\n }
    const result = await window.axe.run(document, {resultTypes: ['violations']});
    return result.violations.map((v) => v.id + ': ' + v.help + ' — ' +
      v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
  })()`)) as string[];
}

const codeOf = (number: string) => TEST_CARDS.find((c) => c.number === number)!.statusCode;

describe('the health page over two instances on one PostgreSQL', {skip: PG_SKIP}, () => {
  test(
    'shows the payments both instances took, in light and dark, axe clean',
    {timeout: 120_000},
    async () => {
      const made = [
        [a.url, CARDS.success],
        [a.url, CARDS.success],
        [a.url, CARDS.decline],
        [b.url, CARDS.success],
        [b.url, CARDS.insufficient],
        [b.url, CARDS.decline],
        [b.url, CARDS.wrongCvv],
      ] as const;
      const answers = [];
      for (const [i, [base, card]] of made.entries()) answers.push(await buyAndPay(base, card, i));
      assert.deepEqual(
        answers.map((x) => x.outcome),
        ['success', 'success', 'failure', 'success', 'failure', 'failure', 'failure'],
      );
      // The reasons the customers were told, as the page should count them.
      const expectedReasons: Record<string, string> = {};
      for (const [i, x] of answers.entries()) {
        if (x.outcome !== 'failure') continue;
        assert.equal(x.code, codeOf(made[i]![1]), 'the sandbox answered its documented code');
        const label = `${x.reason} ${x.code}`;
        expectedReasons[label] = String(Number(expectedReasons[label] ?? 0) + 1);
      }

      // B adds its counts (its page flushes them); A's page then holds both instances'.
      const onB = await fetch(`${b.url}/admin/health`, {
        headers: {Authorization: `Bearer ${ADMIN}`},
      });
      assert.equal(onB.status, 200, logs());

      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await browser!.newContext({
          colorScheme,
          viewport: {width: 1200, height: 900},
        });
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        await page.goto(`${a.url}/admin/login`);
        await page.fill('#token', ADMIN);
        await Promise.all([page.waitForURL(`${a.url}/admin`), page.click('#login-form button')]);
        await page.click('a[href="/admin/health"]');
        await page.waitForURL(`${a.url}/admin/health`);

        const totals = await rowsOf(page, '#health-totals');
        assert.equal(totals['Payments: success'], '3', JSON.stringify(totals));
        assert.equal(totals['Payments: failure'], '4', JSON.stringify(totals));
        assert.equal(totals['Success rate'], `${((100 * 3) / 7).toFixed(1)}%`);
        assert.match(totals['Gateway p50']!, /^\d+(\.\d)? ms$/);
        assert.match(totals['Gateway p99']!, /^\d+(\.\d)? ms$/);
        assert.equal(totals['Busy answers: admission'], '0');
        assert.equal(totals['Busy answers: store'], '0');
        assert.equal(totals['Card-testing breaker'], 'closed');
        assert.deepEqual(await rowsOf(page, '#health-declines'), expectedReasons);
        assert.match(
          (await page.textContent('main'))!.replace(/\s+/g, ' '),
          /2 instances \(shop-a, shop-b\)/,
          'both instances wrote',
        );

        // The payments plot's data table: the same payments, minute by minute.
        const perMinute = await page.$$eval('table[data-plot="payments"] tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))),
        );
        const header = await page.$$eval('table[data-plot="payments"] thead th', (ths) =>
          ths.slice(1).map((th) => th.textContent?.trim()),
        );
        const sums = Object.fromEntries(
          header.map((h, i) => [h, perMinute.reduce((s, r) => s + r[i]!, 0)]),
        );
        assert.deepEqual(sums, {success: 3, failure: 4});
        // Each plot is an image with a name, and a line (or a point) per series shown.
        const plots = await page.$$eval('svg.plot__svg', (svgs) =>
          svgs.map((s) => ({
            name: s.querySelector('title')?.textContent ?? '',
            marks: s.querySelectorAll('polyline, circle').length,
          })),
        );
        assert.equal(plots.length, 6);
        assert.ok(plots.every((p) => p.name.length > 0));
        assert.ok(plots[0]!.marks >= 2, 'a mark per outcome on the payments plot');

        // The page follows the scheme: dark background in dark, light in light.
        const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        const [r, g, bl] = bg.match(/\d+/g)!.map(Number);
        const luminance = (0.2126 * r! + 0.7152 * g! + 0.0722 * bl!) / 255;
        if (colorScheme === 'dark') assert.ok(luminance < 0.2, `dark background: ${bg}`);
        else assert.ok(luminance > 0.8, `light background: ${bg}`);
        const stroke = await page.$eval(
          'polyline.plot__series--0, circle.plot__series--0',
          (el) => getComputedStyle(el).stroke,
        );
        assert.notEqual(stroke, 'none');

        assert.deepEqual(await axe(page), [], `axe, ${colorScheme}`);
        assert.deepEqual(problems, [], `console errors, ${colorScheme}`);
        await context.close();
      }
    },
  );
});
