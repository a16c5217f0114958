/**
 * How long `server-example/main.ts` waits for a request, seen from outside on raw sockets:
 * a head that has not arrived within `HEADERS_TIMEOUT_MS`, or a whole request within
 * `REQUEST_TIMEOUT_MS`, is answered 408 and its connection closed — a client sending a
 * byte now and then no longer holds a socket for Node's default five minutes. The
 * deadlines count from a request's first byte, not while a keep-alive connection idles, so
 * a connection idle past both still serves its next request. The 408 carries the headers
 * every answer of the app carries (Node's own is bare). A setting that is not a
 * number of milliseconds, or a request deadline below the head's, stops the example at
 * start, naming the variable. Small deadlines are set here so that nothing waits long;
 * every check awaits the socket's close, none the clock.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdtempSync, rmSync} from 'node:fs';
import net from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {PAY_HEADERS, freePort} from '../checkout/helpers.js';
import {run, startExample} from './processes.js';

/** Short deadlines: a second for the head, two for the whole request. */
const DEADLINES = {HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000'};

/** The example, ready, with a data folder of its own (its gateway is never called here). */
async function startMain(env: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-example-timeouts-'));
  const app = await startExample(`http://127.0.0.1:${await freePort()}`, {DATA_DIR: dir, ...env});
  return {
    port: Number(new URL(app.url).port),
    output: app.output,
    stop: async () => {
      app.child.kill('SIGKILL');
      await app.exited;
      rmSync(dir, {recursive: true, force: true});
    },
  };
}

/**
 * A 408 with the headers every answer of the app carries (never sniffed, framed or
 * cached), `Connection: close`, and a JSON error naming both deadlines.
 */
function assertTimeoutAnswer(received: string): void {
  const [headLines = '', body = ''] = received.split('\r\n\r\n');
  const head = `${headLines}\r\n`;
  assert.match(head, /^HTTP\/1\.1 408 /, received);
  assert.match(head, /\r\nX-Content-Type-Options: nosniff\r\n/i, head);
  assert.match(head, /\r\nX-Frame-Options: DENY\r\n/i, head);
  assert.match(head, /\r\nContent-Security-Policy: [^\r]*frame-ancestors 'none'/i, head);
  assert.match(head, /\r\nCache-Control: no-store\r\n/i, head);
  assert.match(head, /\r\nConnection: close\r\n/i, head);
  const error = (JSON.parse(body) as {error: {code: string; message: string}}).error;
  assert.match(error.message, /head within 1000 ms, all of it within 2000 ms/, body);
}

/** A raw connection: what it received, and a promise of its close. */
async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) =>
    socket.once('connect', resolve).once('error', reject),
  );
  let received = '';
  socket.setEncoding('utf8').on('data', (c: string) => (received += c));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    closed,
    get received() {
      return received;
    },
    /** Writes one byte of `text` every 100 ms until the server closes the connection. */
    trickle(text: string) {
      let i = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || socket.writableEnded) clearInterval(timer);
        else socket.write(text[i++ % text.length]!);
      }, 100);
      void closed.then(() => clearInterval(timer));
    },
    /** Sends `GET /healthz` and resolves with the answer's head. */
    async get(): Promise<string> {
      const before = received.length;
      socket.write('GET /healthz HTTP/1.1\r\nHost: shop.test\r\n\r\n');
      for (let i = 0; i < 200 && !/\r\n\r\n/.test(received.slice(before)); i++) await sleep(25);
      return received.slice(before).split('\r\n\r\n')[0] ?? '';
    },
  };
}

test('a head still arriving after HEADERS_TIMEOUT_MS is answered 408 and cut', async () => {
  const app = await startMain(DEADLINES);
  try {
    const conn = await connect(app.port);
    conn.socket.write('POST /api/checkout/pay HTTP/1.1\r\nHost: shop.test\r\nX-Slow: ');
    conn.trickle('abcdefgh'); // a byte now and then: never idle, never done
    await conn.closed;
    assertTimeoutAnswer(conn.received);
  } finally {
    await app.stop();
  }
});

test('a body still arriving after REQUEST_TIMEOUT_MS is answered 408 and cut', async () => {
  const app = await startMain(DEADLINES);
  try {
    const conn = await connect(app.port);
    // A payment's head as the card form sends it, so that the route waits for the body.
    const headers = {
      ...PAY_HEADERS,
      Origin: `http://127.0.0.1:${app.port}`,
      'Content-Length': '10000',
    };
    conn.socket.write(
      `POST /api/checkout/pay HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n` +
        Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('') +
        '\r\n{"orderRef":"',
    );
    conn.trickle('x');
    await conn.closed;
    assertTimeoutAnswer(conn.received);
  } finally {
    await app.stop();
  }
});

test('a keep-alive connection idle past both deadlines still serves, and its next slow head is cut', async () => {
  const app = await startMain({...DEADLINES, KEEP_ALIVE_TIMEOUT_MS: '10000'});
  try {
    const conn = await connect(app.port);
    assert.match(await conn.get(), /^HTTP\/1\.1 200/);
    // Idle past REQUEST_TIMEOUT_MS and the server's once-a-second check of it.
    await sleep(3500);
    assert.match(await conn.get(), /^HTTP\/1\.1 200/, 'answered after idling');
    const before = conn.received.length;
    conn.socket.write('GET /healthz HTTP/1.1\r\nHost: shop.test\r\n');
    await conn.closed;
    assertTimeoutAnswer(conn.received.slice(before));
  } finally {
    await app.stop();
  }
});

/** Starts the example with `env`: its exit code, or `started` once it serves. */
async function startOrRefuse(env: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-example-timeouts-'));
  const app = run('server-example/main.ts', [], {DATA_DIR: dir, PORT: '0', ...env});
  const started = new Promise<'started'>((resolve) =>
    app.child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      app.append(c);
      if (app.output().includes('Demo shop:')) resolve('started');
    }),
  );
  try {
    return {outcome: await Promise.race([app.exited, started]), output: app.output()};
  } finally {
    app.child.kill('SIGKILL');
    await app.exited;
    rmSync(dir, {recursive: true, force: true});
  }
}

test('a deadline that is not a number of milliseconds, or is under a second, is refused at start, naming it', async () => {
  for (const [env, name] of [
    [{HEADERS_TIMEOUT_MS: 'soon'}, 'HEADERS_TIMEOUT_MS'],
    [{REQUEST_TIMEOUT_MS: '500'}, 'REQUEST_TIMEOUT_MS'],
  ] as const) {
    const {outcome, output} = await startOrRefuse(env);
    assert.equal(outcome, 1, `${JSON.stringify(env)} stops the example\n${output}`);
    assert.match(output, new RegExp(`server-example: ${name}: `), output);
  }
});

test('a request deadline under the head deadline is refused at start, naming both', async () => {
  const {outcome, output} = await startOrRefuse({
    HEADERS_TIMEOUT_MS: '10000',
    REQUEST_TIMEOUT_MS: '5000',
  });
  assert.equal(outcome, 1, output);
  assert.match(output, /server-example: REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS/);
});
