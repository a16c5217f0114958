/**
 * The server benchmarks leave no process behind: a child that does not become ready is
 * stopped, and children still running when the parent exits are killed.
 */
import assert from 'node:assert/strict';
import {execFile} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, describe, test} from 'node:test';
import {promisify} from 'node:util';
import {ROOT, startChild} from '../../../bench/server/children.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pg-bench-children-'));
after(() => rmSync(dir, {recursive: true, force: true}));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Resolves when `pid` is gone, looking every 50 ms (not a child of this process: no event
 * tells). No deadline of its own: one that stays is ended by the tier's test timeout.
 */
async function gone(pid: number) {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}

describe('bench child processes', () => {
  test('a child that never prints its ready line is stopped, and the error names it', async () => {
    const error = await startChild({
      name: 'bare-endpoint',
      script: 'bench/server/proxy-process.ts',
      logFile: path.join(dir, 'never-ready.log'),
      readyPattern: /a line it never prints/,
      timeoutMs: 3000,
    }).then(
      () => assert.fail('startChild resolved'),
      (e: Error) => e,
    );
    assert.match(error.message, /bare-endpoint \(pid \d+\) did not start in time/);
    // The log's tail as it was then: whatever the child had written in 3 s (on a loaded
    // machine, not always its listening line yet: asserting that line failed the hunt).
    const tail = /its log ends:\n([\s\S]*)$/.exec(error.message)?.[1];
    assert.ok(tail !== undefined, error.message);
    assert.ok(
      readFileSync(path.join(dir, 'never-ready.log'), 'utf8').includes(tail),
      error.message,
    );
    await gone(Number(/pid (\d+)/.exec(error.message)![1]));
  });

  test('a child that exits before it is ready fails the start with its log', async () => {
    await assert.rejects(
      startChild({
        name: 'sandbox',
        script: 'sandbox/cli.ts',
        args: ['--port=not-a-port'],
        logFile: path.join(dir, 'exits.log'),
        readyPattern: /listening on/,
      }),
      /sandbox \(pid \d+\) exited \(2\).*\n.*--port must be a port number/s,
    );
  });

  for (const code of [0, 1]) {
    test(`children still running when the parent exits (code ${code}) are killed`, async () => {
      const run = promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'test/node/bench/fixtures/start-and-exit.ts', String(code)],
        {cwd: ROOT},
      );
      const {stdout} = await run.catch((e: {stdout: string}) => e);
      const pid = Number(stdout.trim());
      assert.ok(pid > 0, `the fixture printed no pid: ${stdout}`);
      await gone(pid);
    });
  }
});
