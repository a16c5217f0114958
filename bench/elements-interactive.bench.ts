/**
 * Time until a page shows an interactive card form: the page with `<pg-card-form>` (CDN
 * bundle) against the same page with a plain HTML form, in Chromium, in one run. Both pages
 * come from the same server, uncached, each load in a fresh browser context; the variants
 * alternate (the order rotates every round) and medians are compared. Goal: ratio ≤ 1.25.
 *
 * "Interactive" is the same test on both pages, run by the same script: the card-number
 * input exists, is laid out, is neither disabled nor read-only and takes focus. It is
 * timed from navigation start (`performance.now()`'s origin).
 *
 * `PG_BENCH_BASELINE=path/to/old/pg-checkout.js npm run bench -- interactive` also loads
 * that bundle in the same page and the same rotation, for before/after figures measured
 * side by side.
 */
import {readFileSync} from 'node:fs';
import {ensureCdnBundle, launch, median, round, servePages} from './elements-pages.js';

const ROUNDS = 21;

const READY_JS = `
function numberInput() {
  return document.querySelector('input[name="cc-number"]') ||
    document.querySelector('pg-card-form')?.shadowRoot?.querySelector('input[name="cc-number"]');
}
async function ready() {
  let input = numberInput();
  if (!input && customElements.get('pg-card-form') === undefined) {
    await customElements.whenDefined('pg-card-form');
  }
  if (!input) {
    await document.querySelector('pg-card-form').updateComplete;
    input = numberInput();
  }
  input.focus();
  const root = input.getRootNode();
  if (
    root.activeElement !== input ||
    input.disabled ||
    input.readOnly ||
    input.getBoundingClientRect().width === 0
  ) {
    throw new Error('not interactive');
  }
  window.interactiveAt = performance.now();
}
ready();
`;

const head = (extra: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay</title>${extra}</head>`;

const PLAIN = `${head('<script type="module" src="/ready.js"></script>')}<body><main><h1>Pay</h1>
<form action="/pay" method="post">
<label for="n">Card number</label><input id="n" name="cc-number" autocomplete="cc-number" inputmode="numeric">
<label for="e">Expiry date</label><input id="e" name="cc-exp" autocomplete="cc-exp" inputmode="numeric">
<label for="c">Security code</label><input id="c" name="cc-csc" autocomplete="cc-csc" inputmode="numeric">
<button>Pay</button></form></main></body></html>`;

const elementPage = (bundle: string) => `${head(
  `<script type="module" src="/${bundle}"></script><script type="module" src="/ready.js"></script>`,
)}<body><main><h1>Pay</h1>
<pg-card-form endpoint="/pay" order-ref="o-1"></pg-card-form></main></body></html>`;

type Variant = 'plain' | 'element' | 'baseline';

export default async function elementsInteractive() {
  const bundle = ensureCdnBundle();
  const baselineFile = process.env.PG_BENCH_BASELINE;
  const variants: Variant[] = baselineFile
    ? ['plain', 'element', 'baseline']
    : ['plain', 'element'];
  const site = await servePages({
    '/plain.html': ['text/html; charset=utf-8', PLAIN],
    '/element.html': ['text/html; charset=utf-8', elementPage('pg-checkout.js')],
    '/ready.js': ['text/javascript', READY_JS],
    '/pg-checkout.js': ['text/javascript', bundle],
    ...(baselineFile
      ? {
          '/baseline.html': ['text/html; charset=utf-8', elementPage('baseline.js')],
          '/baseline.js': ['text/javascript', readFileSync(baselineFile)],
        }
      : {}),
  });
  const browser = await launch();
  const times: Record<Variant, number[]> = {plain: [], element: [], baseline: []};
  try {
    const measure = async (which: Variant) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${site.origin}/${which}.html`);
      await page.waitForFunction(
        () => (window as unknown as {interactiveAt?: number}).interactiveAt,
      );
      times[which].push(
        await page.evaluate(() => (window as unknown as {interactiveAt: number}).interactiveAt),
      );
      await context.close();
    };
    for (const v of variants) await measure(v); // warm-up, not counted
    for (const v of variants) times[v].length = 0;
    for (let i = 0; i < ROUNDS; i++) {
      // Rotate the order so each variant takes each position equally often.
      for (let k = 0; k < variants.length; k++) await measure(variants[(i + k) % variants.length]!);
    }
  } finally {
    await browser.close();
    await site.close();
  }
  const plain = median(times.plain);
  const element = median(times.element);
  const baseline = baselineFile ? median(times.baseline) : undefined;
  return {
    runs: ROUNDS,
    plainFormInteractiveMs: round(plain, 1),
    cardFormInteractiveMs: round(element, 1),
    ratio: round(element / plain),
    ...(baseline !== undefined
      ? {baselineInteractiveMs: round(baseline, 1), baselineRatio: round(baseline / plain)}
      : {}),
    goalRatio: 1.25,
    withinGoal: element / plain <= 1.25,
  };
}
