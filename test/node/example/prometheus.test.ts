/**
 * The example's metrics as an operator's Prometheus sees them: a real Prometheus (Debian's
 * package, /usr/bin/prometheus; `.ci/run` installs it) scrapes the example's
 * `METRICS_PORT` every second on loopback while real payments are made against the
 * sandbox (both as processes); its HTTP API (`/api/v1/query`) is then asked for the
 * payment counter by outcome and the gateway latency histogram until they show those
 * payments (polled a bounded number of times; no fixed wait decides the result). The
 * metrics port is named in the start-up lines and is not the shop's: the shop has no
 * `/metrics`.
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {CHECKOUT_HEADER, CHECKOUT_PROTOCOL_VERSION} from '../../../src/protocol/checkout.js';
import {CARDS, freePort, payBody} from '../checkout/helpers.js';
import {ROOT, startExample, startSandboxProcess, stop, type Running} from './processes.js';

const PROMETHEUS = '/usr/bin/prometheus';
const dir = mkdtempSync(path.join(tmpdir(), 'pg-prometheus-'));
let sandbox: Running;
let example: Running;
let metricsPort: number;
let prometheus: {child: ChildProcess; url: string; output: () => string} | undefined;

/** Prometheus on a free loopback port, scraping `target` every second. */
async function startPrometheus(target: string) {
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: pg-checkout-example',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const child = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    {stdio: ['ignore', 'ignore', 'pipe']},
  );
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (output = (output + c).slice(-5000)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`prometheus exited:\n${output}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (i >= 300) throw new Error(`prometheus did not get ready:\n${output}`);
    await sleep(100);
  }
  return {child, url, output: () => output};
}

/** One instant query: each series' labels and value. */
async function query(expr: string): Promise<{metric: Record<string, string>; value: number}[]> {
  const res = await fetch(`${prometheus!.url}/api/v1/query?${new URLSearchParams({query: expr})}`);
  const body = (await res.json()) as {
    status: string;
    data: {result: {metric: Record<string, string>; value: [number, string]}[]};
  };
  assert.equal(body.status, 'success', JSON.stringify(body));
  return body.data.result.map((r) => ({metric: r.metric, value: Number(r.value[1])}));
}

/** Asks `expr` until `done` holds of its answer (at most `attempts` times, 250 ms apart). */
async function until<T>(
  expr: string,
  done: (r: Awaited<ReturnType<typeof query>>) => T | undefined,
  attempts = 120,
): Promise<T> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    const r = await query(expr);
    const value = done(r);
    if (value !== undefined) return value;
    last = r;
    await sleep(250);
  }
  const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
  throw new Error(`${expr}: last answer ${JSON.stringify(last)}\nscraped:\n${scraped}`);
}

/** Creates an order in the shop and pays it with `card`; answers the pay outcome. */
async function buyAndPay(card: string, n: number): Promise<string> {
  const order = await fetch(`${example.url}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'mug'}),
  });
  assert.equal(order.status, 201, await order.clone().text());
  const {orderRef} = (await order.json()) as {orderRef: string};
  const res = await fetch(`${example.url}/api/checkout/pay`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      Origin: example.url,
      [CHECKOUT_HEADER]: CHECKOUT_PROTOCOL_VERSION,
    },
    body: JSON.stringify(payBody(orderRef, `att-prom-${n}`, card)),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as {outcome: string}).outcome;
}

before(async () => {
  assert.ok(existsSync(PROMETHEUS), `${PROMETHEUS}: apt-get install prometheus`);
  sandbox = await startSandboxProcess();
  metricsPort = await freePort();
  example = await startExample(sandbox.url, {
    DATA_DIR: path.join(dir, 'data'),
    METRICS_PORT: String(metricsPort),
  });
  prometheus = await startPrometheus(`127.0.0.1:${metricsPort}`);
});

after(async () => {
  if (prometheus && prometheus.child.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.child.once('exit', resolve));
    prometheus.child.kill('SIGTERM');
    await exited;
  }
  await Promise.all([example, sandbox].filter(Boolean).map((r) => stop(r)));
  rmSync(dir, {recursive: true, force: true});
});

test('the start-up lines name the metrics address; the shop does not serve /metrics', async () => {
  assert.match(
    example.output(),
    new RegExp(`Metrics for Prometheus: http://127\\.0\\.0\\.1:${metricsPort}/metrics`),
  );
  assert.equal((await fetch(`${example.url}/metrics`)).status, 404);
});

test('Prometheus scrapes the payment counter and the gateway latency histogram of real payments', async () => {
  const outcomes = [];
  for (let i = 0; i < 3; i++) outcomes.push(await buyAndPay(CARDS.success, i));
  outcomes.push(await buyAndPay(CARDS.decline, 3));
  assert.deepEqual(outcomes, ['success', 'success', 'success', 'failure']);

  // The scrape target is up, then the counter by outcome holds the four payments.
  await until('up{job="pg-checkout-example"}', (r) => (r[0]?.value === 1 ? true : undefined));
  const byOutcome = await until(
    'sum by (pg_checkout_payment_outcome, pg_checkout_payment_mode) (pg_checkout_payment_count_total)',
    (r) => {
      const m = Object.fromEntries(r.map((s) => [s.metric['pg_checkout_payment_outcome'], s]));
      return m['success']?.value === 3 && m['failure']?.value === 1 ? m : undefined;
    },
  );
  assert.equal(byOutcome['success']!.metric['pg_checkout_payment_mode'], 'direct');

  // The gateway latency histogram: one observation per create, in seconds buckets.
  const creates = await until(
    'sum by (http_response_status_code) (http_client_request_duration_count{pg_checkout_gateway_operation="createPayment"})',
    (r) => (r.length > 0 && r.reduce((n, s) => n + s.value, 0) === 4 ? r : undefined),
  );
  assert.deepEqual(
    creates.map((s) => s.metric['http_response_status_code']),
    ['200'],
  );
  const buckets = await query(
    'sum by (le) (http_client_request_duration_bucket{pg_checkout_gateway_operation="createPayment"})',
  );
  const inf = buckets.find((b) => b.metric['le'] === '+Inf');
  assert.equal(inf?.value, 4);
  assert.ok(
    buckets.some((b) => b.metric['le'] === '0.005'),
    'the advised bucket bounds',
  );
  const sum = await query(
    'sum(http_client_request_duration_sum{pg_checkout_gateway_operation="createPayment"})',
  );
  assert.ok(sum[0]!.value > 0 && sum[0]!.value < 40, `seconds, not ms: ${sum[0]!.value}`);
});

test("the Grafana dashboard's queries are valid PromQL and every metric they read is scraped", async () => {
  const dashboard = JSON.parse(
    readFileSync(path.join(ROOT, 'docs/public/monitoring/grafana-dashboard.json'), 'utf8'),
  ) as {panels: {title: string; targets: {expr: string}[]}[]};
  const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
  assert.ok(exprs.length >= 8);
  const names = new Set<string>();
  for (const expr of exprs) {
    await query(expr); // status success, else it throws with Prometheus's error
    for (const m of expr.matchAll(
      /\b((?:pg_checkout|http|db)_[a-z_]+?_(?:total|bucket|count|state|age))\b/g,
    ))
      names.add(m[1]!);
  }
  // Metric names only (labels end otherwise).
  assert.ok(names.has('pg_checkout_outbox_oldest_age'), [...names].join(', '));
  for (const name of names) {
    await until(`count(${name})`, (r) => (r[0] && r[0].value > 0 ? true : undefined));
  }
});
