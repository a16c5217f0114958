/**
 * `server-example/main.ts`'s log, as a process: lines go to stdout a few kilobytes at a
 * time, not one write each, yet none waits long (at most the flush interval) and none is
 * lost when the app is stopped.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {freePort} from '../checkout/helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

test('log lines reach stdout within moments, and all of them when the app stops', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-example-log-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server-example/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dir,
      GATEWAY_BASE_URL: `http://127.0.0.1:${await freePort()}`,
      POS_ID: '5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c0be11',
      API_KEY: 'k',
      API_SECRET: 's',
      ENDPOINTS_KEY: 'e',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.resume();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const refused = () => stdout.split('\n').filter((l) => l.includes('"webhook refused"')).length;
  /** Resolves once the output so far passes `check` (looked at as each chunk arrives). */
  const output = (check: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => {
        if (!check()) return;
        child.stdout.off('data', look);
        resolve();
      };
      child.stdout.on('data', look);
      void exited.then(() => reject(new Error(`the app exited before ${what}:\n${stdout}`)));
      look();
    });
  try {
    await output(() => stdout.includes('Demo shop:'), 'its start-up lines');
    const webhook = () =>
      fetch(`http://127.0.0.1:${port}/api/checkout/webhook`, {
        method: 'POST',
        headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: `data=${Buffer.from('{}').toString('base64')}&signature=forged`,
      });
    assert.equal((await webhook()).status, 403);
    // Written while the app runs, though far short of a buffer (a line kept until the
    // buffer fills would never come: the tier's test timeout would end the wait).
    await output(() => refused() >= 1, 'the refused webhook was logged');
    assert.equal(refused(), 1);
    for (let i = 0; i < 5; i++) assert.equal((await webhook()).status, 403);
    child.kill('SIGTERM');
    await exited;
    assert.equal(refused(), 6, 'every line written before the app exits');
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, {recursive: true, force: true});
  }
});
