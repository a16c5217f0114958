/**
 * Makes first-payment.md's project as far as its step 4 (`npm init -y`, the packed tarball
 * and the packages the guide names, its files, the bundled page), once per run, for the
 * guides that start from it (test/pack/newcomer.ts's firstPaymentProject copies it).
 * scripts/run-pack-tests.mjs runs it before the tests:
 *
 *   node --import tsx test/pack/prepare-first-payment.ts <tarball>
 *
 * and it prints one JSON line: the project's folder, the tarball's SHA-256 (a copy is taken
 * only for the same tarball) and each step's time. On failure it exits 1 with the step's
 * output, and leaves the folder for a look.
 */
import {doSteps, firstPaymentSteps, Newcomer, sha256Of} from './newcomer.js';

const tarball = process.argv[2];
if (!tarball) {
  console.error('usage: node --import tsx test/pack/prepare-first-payment.ts <tarball>');
  process.exit(2);
}
const shop = new Newcomer(tarball);
try {
  doSteps(shop, firstPaymentSteps());
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
process.stdout.write(
  `${JSON.stringify({dir: shop.dir, tarballSha256: sha256Of(tarball), timings: shop.timings})}\n`,
);
