// The unit tier's guard, loaded into each test file's process by `npm run test:unit`
// (scripts/run-node-tests.mjs): a test there that starts a child process fails at once,
// naming where it belongs, instead of passing while it stretches the tier. The lint's
// check (scripts/check-test-tiers.mjs) reads the imports; this catches what reading misses.
// Only in a test file's process (Node's runner marks those with NODE_TEST_CONTEXT): the
// runner itself starts them.
import childProcess from 'node:child_process';
import {syncBuiltinESMExports} from 'node:module';

if (process.env.NODE_TEST_CONTEXT) {
  for (const name of [
    'spawn',
    'spawnSync',
    'exec',
    'execSync',
    'execFile',
    'execFileSync',
    'fork',
  ]) {
    const original = childProcess[name];
    childProcess[name] = function refused(command, ...rest) {
      // esbuild's service (tsx compiles the tests with it) is the runner's, not the test's.
      if (typeof command === 'string' && /esbuild/.test(command))
        return original.call(this, command, ...rest);
      throw new Error(
        `unit tier: a test started a child process (child_process.${name}: ${String(command)}): name its file in SLOW_TIERS as 'integration' (scripts/run-node-tests.mjs)`,
      );
    };
  }
  syncBuiltinESMExports();
}
