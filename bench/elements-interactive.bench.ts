/**
 * Time until a page shows an interactive card form: the page with `<pg-card-form>` (CDN
 * bundle) against the same page with a plain HTML form, in Chromium, alternating the two
 * over several fresh loads in one run and comparing medians. "Interactive" is the moment
 * the card-number input exists, is laid out and takes focus. Goal: ratio ≤ 1.25.
 */
import {ensureCdnBundle, launch, median, round, servePages} from './elements-pages.js';

const RUNS = 15;

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
  if (root.activeElement !== input || input.getBoundingClientRect().width === 0) throw new Error('not interactive');
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

const ELEMENT = `${head(
  '<script type="module" src="/pg-checkout.js"></script><script type="module" src="/ready.js"></script>',
)}<body><main><h1>Pay</h1>
<pg-card-form endpoint="/pay" order-ref="o-1"></pg-card-form></main></body></html>`;

export default async function elementsInteractive() {
  const bundle = ensureCdnBundle();
  const site = await servePages({
    '/plain.html': ['text/html; charset=utf-8', PLAIN],
    '/element.html': ['text/html; charset=utf-8', ELEMENT],
    '/ready.js': ['text/javascript', READY_JS],
    '/pg-checkout.js': ['text/javascript', bundle],
  });
  const browser = await launch();
  const times: Record<'plain' | 'element', number[]> = {plain: [], element: []};
  try {
    const measure = async (which: 'plain' | 'element') => {
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
    await measure('plain'); // warm-up, not counted
    await measure('element');
    times.plain.length = 0;
    times.element.length = 0;
    for (let i = 0; i < RUNS; i++) {
      if (i % 2) {
        await measure('element');
        await measure('plain');
      } else {
        await measure('plain');
        await measure('element');
      }
    }
  } finally {
    await browser.close();
    await site.close();
  }
  const plain = median(times.plain);
  const element = median(times.element);
  return {
    runs: RUNS,
    plainFormInteractiveMs: round(plain, 1),
    cardFormInteractiveMs: round(element, 1),
    ratio: round(element / plain),
    goalRatio: 1.25,
    withinGoal: element / plain <= 1.25,
  };
}
