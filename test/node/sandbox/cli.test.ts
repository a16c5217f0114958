/**
 * `npm run sandbox` as a developer runs it: the CLI starts on the port from
 * `SANDBOX_PORT` with credentials from the environment, prints the base URL, the
 * credentials and the test cards, serves the gateway, and stops cleanly on SIGINT.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {fileURLToPath} from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('the CLI prints URL, credentials and cards, serves requests and stops on SIGINT', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts'], {
    cwd: root,
    env: {...process.env, SANDBOX_PORT: '0', SANDBOX_API_SECRET: 'cli-test-secret'},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 20_000;
    while (!/listening on (http:\/\/127\.0\.0\.1:\d+)/.test(out)) {
      assert.ok(Date.now() < deadline, `the CLI did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    assert.match(out, /API secret\s+cli-test-secret/);
    assert.match(out, /POS_ID\s+[0-9a-f-]{36}/);
    assert.match(out, /4000000000003220\s+pending\s+2122/);
    assert.match(out, /POST \/sandbox\/faults/);
    const health = await fetch(`${url}/health`);
    assert.equal(await health.text(), 'OK');
    const auth = await fetch(`${url}/api/v1/pos/00000000-0000-4000-8000-000000000000/orders/x`, {
      headers: {'X-API-Auth': 'CPAY sandbox-api-key:sandbox-api-secret'},
    });
    assert.equal(auth.status, 401, 'the secret from the environment replaced the default');
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.match(out, /SIGINT, stopping/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
