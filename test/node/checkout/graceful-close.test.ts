/**
 * An instance shut down with SIGTERM in the middle of a rush (issue 28), from outside:
 * two companion processes (fixtures/companion-process.ts) on one PostgreSQL schema, behind
 * a loopback round-robin of this test (pay requests and the sandbox's webhooks go through
 * it), against the gateway sandbox, whose creates take 300 ms. 120 orders, each paid with
 * a double click (one attempt sent twice) and a second tab (another attempt) at once; the
 * customer sends the same attempt again after a 503 (its `Retry-After`) or a lost
 * connection, as the card form offers. Once some creates are under way, one instance gets
 * SIGTERM: it answers `503 busy` with `Retry-After` to what arrives meanwhile (webhooks
 * too), lets what it admitted finish, delivers its outbox, closes its store and exits 0.
 * Then: not one answer of 500 (to a pay or a webhook), every 503 `busy` with `Retry-After`,
 * every order charged exactly once and told paid, every webhook the sandbox delivered
 * stored once, every payment update delivered exactly once. Skipped without PostgreSQL.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, type ChildProcess} from 'node:child_process';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {CARDS, PAY_HEADERS, payBody, sandboxCharges} from './helpers.js';
import {PG_SKIP, PG_TEST_URL, dropSchemas, pgQuery, schemaName} from './postgres.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = path.join(ROOT, 'test/node/checkout/fixtures/companion-process.ts');
const ORDERS = 120;

let sandbox: Sandbox;
const servers: Server[] = [];
const children = new Set<ChildProcess>();
const schema = PG_SKIP ? '' : schemaName('graceful');
/** Every answer through the round-robin: pay and webhook, by status (and error code). */
const answers: {path: string; status: number; code?: string; retryAfter?: string}[] = [];
const deliveries: {updateId: string; instance: string}[] = [];

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Round-robin over the live instances; a refused connection tries the next one. */
async function roundRobin(targets: string[]): Promise<string> {
  let next = 0;
  return listen((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k))
          headers[k] = v;
      }
      for (let tries = 0; tries < targets.length * 2; tries++) {
        const target = targets[next++ % targets.length]!;
        try {
          const r = await fetch(target + req.url, {
            method: req.method!,
            headers,
            ...(body.length > 0 ? {body: new Uint8Array(body)} : {}),
          });
          const text = await r.text();
          let code: string | undefined;
          try {
            code = (JSON.parse(text) as {error?: {code?: string}}).error?.code;
          } catch {
            // not JSON
          }
          answers.push({
            path: new URL(req.url!, 'http://x').pathname,
            status: r.status,
            ...(code ? {code} : {}),
            ...(r.headers.get('retry-after') ? {retryAfter: r.headers.get('retry-after')!} : {}),
          });
          const out: Record<string, string> = {'Content-Type': r.headers.get('content-type') ?? ''};
          const after = r.headers.get('retry-after');
          if (after) out['Retry-After'] = after;
          res.writeHead(r.status, out).end(text);
          return;
        } catch (error) {
          const cause = (error as {cause?: {code?: string}}).cause?.code;
          if (cause === 'ECONNREFUSED') continue;
          res.destroy(); // the instance's connection was cut: the caller sees the same
          return;
        }
      }
      res.destroy();
    })();
  });
}

interface Instance {
  child: ChildProcess;
  url: string;
  stdout: string[];
  stderr: string[];
}

async function startInstance(publicUrl: string, updatesUrl: string): Promise<Instance> {
  const sb = sandbox.clientOptions();
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: {
      ...process.env,
      COMPANION_PG_SCHEMA: schema,
      PG_TEST_URL,
      PUBLIC_URL: publicUrl,
      UPDATES_URL: updatesUrl,
      GATEWAY_URL: sb.baseUrl,
      GATEWAY_POS_ID: sb.posId,
      GATEWAY_API_KEY: sb.credentials.apiKey,
      GATEWAY_API_SECRET: sb.credentials.apiSecret,
      GATEWAY_ENDPOINTS_KEY: sb.credentials.endpointsKey!,
      GATEWAY_TIMEOUT_MS: '10000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (c: string) => stderr.push(c));
  const lines = createInterface({input: child.stdout!});
  // Its line with the URL, or its exit first: no deadline (a hang is ended by the tier's test
  // timeout).
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`exited (${code}), no url:\n${stderr.join('')}`)),
    );
    lines.on('line', (line) => {
      stdout.push(line);
      const parsed = JSON.parse(line) as {url?: string};
      if (parsed.url) resolve(parsed.url);
    });
  });
  return {child, url, stdout, stderr};
}

before(async () => {
  if (PG_SKIP) return;
  sandbox = await startSandbox({});
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await sandbox?.close();
  await dropSchemas();
});

/** Sends one attempt until answered 200 (again after a 503's Retry-After, or a cut). */
async function payUntilAnswered(front: string, orderRef: string, attemptId: string) {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${front}/pay`, {
      method: 'POST',
      headers: {...PAY_HEADERS, Origin: front},
      body: JSON.stringify(payBody(orderRef, attemptId, CARDS.success)),
    }).catch(() => undefined);
    if (!res) {
      await sleep(100);
      continue;
    }
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status === 503) {
      await sleep(Number(res.headers.get('retry-after') ?? 1) * 100);
      continue;
    }
    return {status: res.status, json};
  }
  throw new Error(`${attemptId}: never answered`);
}

describe('SIGTERM to one of two instances mid-rush', {skip: PG_SKIP}, () => {
  test('no 500, every 503 busy with Retry-After, one charge per order, every update once', async (t) => {
    const targets: string[] = [];
    const front = await roundRobin(targets);
    const updates = await listen((req, res) => {
      void (async () => {
        const update = JSON.parse((await readBody(req)).toString()) as {updateId: string};
        deliveries.push({updateId: update.updateId, instance: String(req.headers['x-instance'])});
        res.writeHead(204).end();
      })();
    });
    // Creates take 300 ms: the victim has pays in flight when it is told to stop.
    await fetch(`${sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({match: {card_last4: CARDS.success.slice(-4)}, fault: 'delay=300'}),
    }).then((r) => assert.ok(r.ok, `sandbox faults: ${r.status}`));
    const instances = await Promise.all([
      startInstance(front, updates),
      startInstance(front, updates),
    ]);
    targets.push(...instances.map((i) => i.url));

    const orders = Array.from({length: ORDERS}, (_, i) => `gc-${i}`);
    const rush = Promise.all(
      orders.map(async (ref, i) => {
        await sleep(i * 5);
        const first = await Promise.all([
          payUntilAnswered(front, ref, `${ref}-a`),
          payUntilAnswered(front, ref, `${ref}-a`),
          payUntilAnswered(front, ref, `${ref}-b`),
        ]);
        if (first.some((r) => r.json['outcome'] === 'success')) return;
        for (let k = 0; k < 20; k++) {
          const r = await payUntilAnswered(front, ref, `${ref}-retry-${k}`);
          if (r.json['outcome'] === 'success') return;
          await sleep(300);
        }
        assert.fail(`${ref} never paid: ${JSON.stringify(first.map((r) => r.json))}`);
      }),
    );
    while (sandbox.payments().length < ORDERS / 4) await sleep(10);
    const victim = instances[0]!;
    victim.child.kill('SIGTERM');
    const code = await new Promise((resolve) => victim.child.once('exit', resolve));
    await rush;

    // The sandbox's webhooks settle; the survivor delivers what is left.
    const quiet = `SELECT
      (SELECT COUNT(*)::int FROM ${schema}.outbox WHERE delivered_at IS NULL) AS undelivered,
      (SELECT COUNT(*)::int FROM ${schema}.webhook_events WHERE status = 'success') AS successes`;
    for (let i = 0; i < 150; i++) {
      const [row] = await pgQuery<{undelivered: number; successes: number}>(quiet);
      if (row!.undelivered === 0 && row!.successes >= ORDERS) break;
      await sleep(200);
    }
    const closed = victim.stdout
      .map((l) => JSON.parse(l) as {closed?: unknown})
      .find((l) => l.closed);
    const count = (f: (a: (typeof answers)[number]) => boolean) => answers.filter(f).length;
    t.diagnostic(
      `victim exit ${String(code)}, ${JSON.stringify(closed)}; answers: ${answers.length}, ` +
        `503 busy ${count((a) => a.status === 503 && a.code === 'busy')} ` +
        `(webhooks ${count((a) => a.status === 503 && a.path.endsWith('/webhook'))}), ` +
        `deliveries ${deliveries.length}`,
    );
    assert.equal(code, 0, `the victim exited 0\n${victim.stderr.join('')}`);
    assert.deepEqual(closed, {closed: {drained: true, flushed: true}});
    assert.deepEqual(
      answers.filter((a) => a.status >= 500 && a.status !== 503),
      [],
      'no answer of 500',
    );
    assert.deepEqual(
      answers.filter((a) => a.status === 503 && (a.code !== 'busy' || a.retryAfter === undefined)),
      [],
      'every 503 is busy with Retry-After',
    );
    assert.deepEqual(
      orders.filter((ref) => sandboxCharges(sandbox, ref) !== 1),
      [],
      'one charge per order',
    );
    const events = await pgQuery<{k: string; n: number}>(
      `SELECT gateway_order_id || ':' || status AS k, COUNT(*)::int AS n FROM ${schema}.webhook_events GROUP BY 1`,
    );
    assert.deepEqual(
      events.filter((e) => e.n !== 1),
      [],
      'a webhook stored twice',
    );
    const entries = await pgQuery<{id: string}>(`SELECT id::text FROM ${schema}.outbox`);
    const byId = new Map<string, number>();
    for (const d of deliveries) byId.set(d.updateId, (byId.get(d.updateId) ?? 0) + 1);
    assert.deepEqual(
      entries.filter((e) => byId.get(e.id) !== 1).map((e) => `${e.id}: ${byId.get(e.id) ?? 0}`),
      [],
      'every update delivered exactly once',
    );
    assert.ok(entries.length >= ORDERS, 'an update per paid order at least');
  });
});
