/**
 * The example's `trustProxy` (`TRUST_PROXY`), over HTTP against the sandbox: with it, the
 * companion counts card-testing attempts under the address the proxy put in
 * `X-Forwarded-For`, so two customers behind one proxy have a limit each; without it the
 * header is not believed, and everyone behind the proxy shares the socket's address.
 */
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {AddressInfo} from 'node:net';
import {createAdaptorServer} from '@hono/node-server';
import {startSandbox, type Sandbox} from '../../../sandbox/index.js';
import {CHECKOUT_BASE, createExampleApp, type ExampleApp} from '../../../server-example/app.js';
import {PAY_HEADERS, captureLogger, payBody} from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pg-example-proxy-'));
let sandbox: Sandbox;
const running: {example: ExampleApp; server: ReturnType<typeof createAdaptorServer>}[] = [];

/** An example app on a port of its own; one pay attempt per client address. */
async function startExample(name: string, trustProxy?: number): Promise<string> {
  const serving: {app?: ExampleApp['app']} = {};
  const server = createAdaptorServer({fetch: (req, env) => serving.app!.fetch(req, env)});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const example = createExampleApp({
    publicUrl: base,
    dataDir: path.join(tmp, name),
    logger: captureLogger().logger,
    bundlePath: path.join(tmp, 'no-bundle.js'),
    gateway: sandbox.clientOptions(),
    payAttempts: {maxAttemptsPerIp: 1},
    ...(trustProxy === undefined ? {} : {trustProxy}),
  });
  await example.start();
  serving.app = example.app;
  running.push({example, server});
  return base;
}

/** Creates an order and pays it as the customer at `forwardedFor`; the status of the answer. */
async function payFrom(base: string, forwardedFor: string, attemptId: string): Promise<number> {
  const created = await fetch(`${base}/api/orders`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({productId: 'mug'}),
  });
  const {orderRef} = (await created.json()) as {orderRef: string};
  const res = await fetch(`${base}${CHECKOUT_BASE}/pay`, {
    method: 'POST',
    headers: {...PAY_HEADERS, Origin: base, 'X-Forwarded-For': forwardedFor},
    body: JSON.stringify(payBody(orderRef, attemptId)),
  });
  await res.body?.cancel();
  return res.status;
}

before(async () => {
  sandbox = await startSandbox({});
});

after(async () => {
  for (const {example, server} of running) {
    await example.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      (server as unknown as {closeAllConnections(): void}).closeAllConnections();
    });
  }
  await sandbox?.close();
  rmSync(tmp, {recursive: true, force: true});
});

test('with trustProxy, each forwarded address has a card-testing limit of its own', async () => {
  const base = await startExample('trusted', 1);
  assert.equal(await payFrom(base, '198.51.100.7', 'tp-a1'), 200);
  assert.equal(await payFrom(base, '198.51.100.7', 'tp-a2'), 429, 'the same customer again');
  assert.equal(await payFrom(base, '198.51.100.8', 'tp-b1'), 200, 'another customer');
  // Only the proxy's own entry (the last) is believed, never what the client put before it.
  assert.equal(await payFrom(base, '203.0.113.1, 198.51.100.7', 'tp-a3'), 429);
});

test('without trustProxy, the header is not believed: everyone shares the socket address', async () => {
  const base = await startExample('untrusted');
  assert.equal(await payFrom(base, '198.51.100.7', 'un-a1'), 200);
  assert.equal(await payFrom(base, '198.51.100.8', 'un-b1'), 429);
});
