/**
 * Size of the CDN bundle (all three elements with Lit and card-validator), gzip and
 * brotli, beside the anchors from issue 4: Braintree Hosted Fields 36 kB gzip and Adyen's
 * Card component 98 kB gzip. Budget: 26 kB gzip (vite.config.ts).
 */
import {brotliCompressSync, constants, gzipSync} from 'node:zlib';
import {ensureCdnBundle} from './elements-pages.js';
import {round} from './stats.js';

export default async function elementsSize() {
  const code = ensureCdnBundle();
  const gzip = gzipSync(code, {level: 9}).length;
  const brotli = brotliCompressSync(code, {params: {[constants.BROTLI_PARAM_QUALITY]: 11}}).length;
  const kB = (n: number) => round(n / 1024, 1);
  return {
    file: 'dist/cdn/pg-checkout.js',
    minifiedKB: kB(code.length),
    gzipKB: kB(gzip),
    brotliKB: kB(brotli),
    budgetGzipKB: 26,
    withinBudget: gzip <= 26 * 1024,
    anchorBraintreeHostedFieldsGzipKB: 36,
    anchorAdyenCardGzipKB: 98,
    ratioToBraintree: round(gzip / 1024 / 36),
    ratioToAdyen: round(gzip / 1024 / 98),
  };
}
