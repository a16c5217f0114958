/**
 * `npm run sandbox` as a developer runs it: the CLI starts on the port from
 * `SANDBOX_PORT` with credentials from the environment, prints the base URL, the
 * credentials, the test cards and its profile, serves the gateway, and stops cleanly on
 * SIGINT; `--profile` picks the profile.
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {fileURLToPath} from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Starts the CLI with `args` and `env`; resolves once it prints its URL. */
async function startCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', ...args], {
    cwd: root,
    env: {...process.env, SANDBOX_PORT: '0', ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const state = {out: ''};
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Resolves with the URL as soon as the CLI prints it; fails if the CLI exits first (a CLI
  // that does neither is ended by the integration tier's test timeout).
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      state.out += c.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(state.out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) =>
      reject(new Error(`the CLI exited (${code}) before starting: ${state.out}`)),
    );
  });
  try {
    return {child, state, exited, url: await listening};
  } catch (err) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw err;
  }
}

test('the CLI prints URL, credentials and cards, serves requests and stops on SIGINT', async () => {
  const {child, state, exited, url} = await startCli([], {SANDBOX_API_SECRET: 'cli-test-secret'});
  try {
    const out = state.out;
    assert.match(out, /API secret\s+cli-test-secret/);
    assert.match(out, /POS_ID\s+[0-9a-f-]{36}/);
    assert.match(out, /4000000000003220\s+pending\s+2122/);
    assert.match(out, /POST \/sandbox\/faults/);
    assert.match(out, /Profile live: tolerates what the live gateway tolerates/);
    const health = await fetch(`${url}/health`);
    assert.equal(await health.text(), 'OK');
    const auth = await fetch(`${url}/api/v1/pos/00000000-0000-4000-8000-000000000000/orders/x`, {
      headers: {'X-API-Auth': 'CPAY sandbox-api-key:sandbox-api-secret'},
    });
    assert.equal(auth.status, 401, 'the secret from the environment replaced the default');
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.match(state.out, /SIGINT, stopping/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('--profile strict starts the strict profile, and an unknown profile is refused', async () => {
  const {child, state, exited, url} = await startCli(['--profile', 'strict'], {});
  try {
    assert.match(state.out, /Profile strict: every request is checked against the spec/);
    const index = (await (await fetch(`${url}/sandbox`)).json()) as {profile: string};
    assert.equal(index.profile, 'strict');
    child.kill('SIGINT');
    assert.equal(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  const bad = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--profile', 'lax'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  bad.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => bad.on('exit', (c) => resolve(c)));
  assert.equal(code, 2);
  assert.match(err, /--profile must be live or strict, got lax/);
});
