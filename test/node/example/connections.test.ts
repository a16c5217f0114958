/**
 * How `server-example/main.ts` takes connections from a load balancer, seen from outside:
 *
 * - it keeps an idle keep-alive connection longer than a balancer does
 *   (`KEEP_ALIVE_TIMEOUT_MS`, default 65 s, above the common 60 s idle timeout), so that the
 *   balancer closes it first — proven on a raw socket, as a balancer holds one;
 * - its accept queue holds 4,096 connections (or the kernel's `somaxconn`, if lower), not
 *   Node's 511, which a rush on a saturated instance overflowed: the kernel then reset the
 *   balancer's new connections (236 answers of 502 in one run of the rush benchmark) —
 *   read off the listening socket with `ss`, as an operator would.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {once} from 'node:events';
import net from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {freePort} from '../checkout/helpers.js';
import {run, startExample} from './processes.js';

/** The example, ready, with a data folder of its own (its gateway is never called here). */
async function startMain(env: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-example-connections-'));
  const app = await startExample(`http://127.0.0.1:${await freePort()}`, {DATA_DIR: dir, ...env});
  return {
    port: Number(new URL(app.url).port),
    stop: async () => {
      app.child.kill('SIGKILL');
      await app.exited;
      rmSync(dir, {recursive: true, force: true});
    },
  };
}

/** A connection held open as a balancer holds one: requests written by hand, answers read. */
async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) =>
    socket.once('connect', resolve).once('error', reject),
  );
  let received = '';
  let ended = false;
  socket.setEncoding('utf8').on('data', (c: string) => (received += c));
  const closed = new Promise<void>((resolve) => socket.on('close', resolve));
  void closed.then(() => (ended = true));
  socket.on('error', () => undefined);
  return {
    get ended() {
      return ended;
    },
    /** Resolves when the connection closes (the test's timeout is the only bound). */
    closed,
    /** Sends `GET /healthz` and resolves with the answer's head. */
    async get(): Promise<string> {
      const before = received.length;
      socket.write('GET /healthz HTTP/1.1\r\nHost: shop.test\r\n\r\n');
      // Until the answer's head is in, or the connection closed without one.
      while (!/\r\n\r\n/.test(received.slice(before)) && !ended) {
        await Promise.race([once(socket, 'data'), closed]);
      }
      const head = received.slice(before).split('\r\n\r\n')[0] ?? '';
      assert.match(
        head,
        /^HTTP\/1\.1 \d{3}/,
        `an answer on the connection (got ${JSON.stringify(head)})`,
      );
      return head;
    },
    close: () => socket.destroy(),
  };
}

test('an idle keep-alive connection outlives a balancer idle and says how long it may idle', async () => {
  const app = await startMain({});
  try {
    const conn = await connect(app.port);
    const head = await conn.get();
    // Node writes this from the server's keepAliveTimeout: 65 s, not its default 5 s. (That
    // the server closes an idle connection after it is the next test's, on a short one.)
    assert.match(head, /\r\nKeep-Alive: timeout=65\b/i, head);
    await conn.get(); // and answers again on it
    assert.equal(conn.ended, false, 'the server kept the connection');
    conn.close();
  } finally {
    await app.stop();
  }
});

test('KEEP_ALIVE_TIMEOUT_MS sets it, and the server closes an idle connection after it', async () => {
  const app = await startMain({KEEP_ALIVE_TIMEOUT_MS: '1000'});
  try {
    const conn = await connect(app.port);
    assert.match(await conn.get(), /\r\nKeep-Alive: timeout=1\b/i);
    await conn.closed; // closed by the server, idle past its 1 s
  } finally {
    await app.stop();
  }
});

test('a KEEP_ALIVE_TIMEOUT_MS under a second is refused at start, naming the setting', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-example-connections-'));
  const app = run('server-example/main.ts', [], {DATA_DIR: dir, KEEP_ALIVE_TIMEOUT_MS: '500'});
  app.child.stdout!.setEncoding('utf8').on('data', (c: string) => app.append(c));
  try {
    assert.equal(await app.exited, 1);
    assert.match(app.output(), /KEEP_ALIVE_TIMEOUT_MS/);
    assert.doesNotMatch(app.output(), /Demo shop:/);
  } finally {
    app.child.kill('SIGKILL');
    rmSync(dir, {recursive: true, force: true});
  }
});

const ss = (() => {
  try {
    execFileSync('ss', ['-V'], {stdio: 'ignore'});
    return true;
  } catch {
    return false;
  }
})();

test(
  'the accept queue holds 4,096 connections, or as many as the kernel allows',
  {skip: ss ? false : 'no ss (iproute2) on this machine'},
  async () => {
    const app = await startMain({});
    try {
      // A listening socket's Send-Q is its backlog.
      const line = execFileSync('ss', ['-ltnH', `sport = :${app.port}`], {encoding: 'utf8'});
      const backlogs = line
        .trim()
        .split('\n')
        .map((l) => Number(l.trim().split(/\s+/)[2]));
      const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
      assert.ok(backlogs.length > 0, `a listening socket on port ${app.port}`);
      for (const backlog of backlogs) assert.equal(backlog, Math.min(4096, somaxconn), line);
    } finally {
      await app.stop();
    }
  },
);
