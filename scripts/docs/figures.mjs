// The figures the documentation states about the build, taken from the build: the CDN
// file's gzip and brotli sizes from dist/cdn/pg-checkout.integrity.json (which `npm run
// build` writes beside the file, with its hash). Each figure is a sentence pattern on a
// page and the text the build gives it; a page that says another number is named.
//
//   node scripts/docs/figures.mjs            check every figure; name each difference, exit 1
//   node scripts/docs/figures.mjs --write    rewrite every figure from the build
//
// test/node/build/doc-figures.test.ts runs the check. (The browser-only install's package
// count and size come from an install, not the build: test/pack/install-figures.test.ts.)
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const INTEGRITY = path.join(root, 'dist/cdn/pg-checkout.integrity.json');

/** Bytes as the pages write them: kB of 1024 bytes, one decimal. */
const kB = (bytes) => (bytes / 1024).toFixed(1);

/** Each figure: the page, the pattern of its sentence, and that sentence from the build. */
export const FIGURES = [
  {
    page: 'docs/guides/csp-and-sri.md',
    pattern: /Size: [\d.]+ kB gzip \([\d,]+ bytes\) and [\d.]+ kB brotli/,
    text: (cdn) =>
      `Size: ${kB(cdn.gzip)} kB gzip (${cdn.gzip.toLocaleString('en-US')} bytes) and ` +
      `${kB(cdn.brotli)} kB brotli`,
  },
];

/** The CDN file's sizes, as the build recorded them. */
export function cdnSizes() {
  if (!existsSync(INTEGRITY)) throw new Error(`${INTEGRITY} is missing: run npm run build first`);
  return JSON.parse(readFileSync(INTEGRITY, 'utf8'));
}

/** Every page whose figure differs from the build: `page: says "…", the build "…"`. */
export function checkFigures(write = false) {
  const cdn = cdnSizes();
  const problems = [];
  for (const figure of FIGURES) {
    const file = path.join(root, figure.page);
    const text = readFileSync(file, 'utf8');
    const found = figure.pattern.exec(text);
    const want = figure.text(cdn);
    if (!found) problems.push(`${figure.page}: no sentence like ${figure.pattern}`);
    else if (found[0] !== want) {
      if (write) writeFileSync(file, text.replace(figure.pattern, want));
      else problems.push(`${figure.page}: says "${found[0]}", the build "${want}"`);
    }
  }
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes('--write');
  const problems = checkFigures(write);
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log(`figures: ${FIGURES.length} ${write ? 'written from' : 'match'} the build`);
}
