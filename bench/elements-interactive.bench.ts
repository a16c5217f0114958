/**
 * Time until a page shows an interactive card form, in Chromium, in one run: a plain HTML
 * form; `<pg-card-form>` rendered by the CDN bundle in the browser (client-rendered); and
 * `<pg-card-form>` rendered on the server (`pg-checkout/ssr`) and hydrated by
 * pg-checkout-hydrate.js, loaded as the server-rendering guide says, by
 * pg-checkout-hydrate-after-paint.js once the page has painted (`ssr`), and by a `<script>`
 * of the page, arriving while the page parses and paints (`ssrEager`). The pages come from
 * the same server, uncached, each load in a fresh browser context; the variants alternate
 * (the order rotates every round) and medians are compared. Goals: client-rendered ≤ 1.25×
 * the plain form, server-rendered ≤ 1.1×.
 *
 * "Interactive" is the same test on every page, run by the same script: the card-number
 * input exists, is laid out, is neither disabled nor read-only and takes focus. It is
 * timed from navigation start (`performance.now()`'s origin). The script is a module, like
 * the bundle; on the server-rendered page it comes before the bundle (the fields need no
 * script to be typed into), and the page also records when the bundle has hydrated the
 * form (`ssrHydratedMs`: formatting and validation from then on).
 *
 * The plain form is three bare inputs with no style. Beside it the bench loads the least a
 * Lit element can be (`litFloor`: bench/fixtures/lit-floor.ts, the plain form's fields in a
 * shadow root, no logic, built as the CDN file is), the floor under any card form rendered
 * by Lit in the browser, and the same card form as ours as plain HTML (`sameForm`: the
 * server-rendered markup and its styles in the light DOM, with no shadow root, no template
 * markers and no bundle), so the ratios can be read two ways: against the goal's plain
 * form, and against a page with as many fields, labels, error rows and style rules as ours,
 * where what is left is the elements' own cost.
 *
 * `PG_BENCH_BASELINE=path/to/old/pg-checkout.js npm run bench -- interactive` also loads
 * that bundle in the same page and the same rotation, for before/after figures measured
 * side by side; `PG_BENCH_BASELINE_HYDRATE=path/to/old/pg-checkout-hydrate.js` does the
 * same for the server-rendered page.
 *
 * `PG_BENCH_PHASES=n` adds n traced loads of the plain and client-rendered pages (and the
 * baseline) after the timed rounds, not counted in them, and reports where each load's time
 * went (bench/trace-phases.ts): when the bundle finished compiling, the thread time of its
 * compile, of its evaluation and first render, and of the ready script's focus and layout.
 */
import {readFileSync} from 'node:fs';
import {loadavg} from 'node:os';
import {renderCardForm} from '../src/ssr.js';
import {cdnChunks, ensureCdnBundle, launch, servePages} from './elements-pages.js';
import {buildLitFloor} from './lit-floor.js';
import {median, round} from './stats.js';
import {INTERACTIVE_MARK, TRACE_CATEGORIES, phasesOf, type LoadPhases} from './trace-phases.js';

/** Rounds of every variant; `PG_BENCH_ROUNDS` asks for more on a noisy machine. */
const ROUNDS = Number(process.env.PG_BENCH_ROUNDS) || 21;

/** Traced loads of each page for the breakdown (`PG_BENCH_PHASES`); none by default. */
const PHASE_ROUNDS = Number(process.env.PG_BENCH_PHASES) || 0;

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
  performance.mark('${INTERACTIVE_MARK}');
  if (document.querySelector('pg-card-form')) {
    await customElements.whenDefined('pg-card-form');
    const form = document.querySelector('pg-card-form');
    await form.updateComplete;
    window.hydratedAt = performance.now();
  }
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

/**
 * The same page with the form rendered on the server: the module comes after the check;
 * by default the loader that fetches pg-checkout-hydrate.js after the first paint.
 */
const ssrPage = (form: string, bundle = 'pg-checkout-hydrate-after-paint.js') => `${head(
  `<script type="module" src="/ready.js"></script><script type="module" src="/${bundle}"></script>`,
)}<body><main><h1>Pay</h1>
${form}</main></body></html>`;

/**
 * The server-rendered form as plain HTML: its shadow root's content in the light DOM, the
 * `:host` rules aimed at the element itself, Lit's markers dropped.
 */
const asPlainHtml = (form: string) =>
  form
    .replace(/<!--[^]*?-->/g, '')
    .replace(/<template shadowroot[^>]*>/, '')
    .replace(/<\/template>/, '')
    .replace(/:host\(([^)]*)\)/g, 'pg-card-form$1')
    .replace(/:host/g, 'pg-card-form');

const sameFormPage = (
  form: string,
) => `${head('<script type="module" src="/ready.js"></script>')}<body><main><h1>Pay</h1>
${asPlainHtml(form)}</main></body></html>`;

type Variant =
  'plain' | 'sameForm' | 'litFloor' | 'element' | 'ssr' | 'ssrEager' | 'baseline' | 'ssrBaseline';

export default async function elementsInteractive() {
  const bundle = ensureCdnBundle();
  const hydrating = ensureCdnBundle(true);
  const form = await renderCardForm({endpoint: '/pay', orderRef: 'o-1'});
  const baselineFile = process.env.PG_BENCH_BASELINE;
  const hydrateBaselineFile = process.env.PG_BENCH_BASELINE_HYDRATE;
  const litFloor = await buildLitFloor(bundle);
  const variants: Variant[] = ['plain', 'sameForm', 'litFloor', 'element', 'ssr', 'ssrEager'];
  if (baselineFile) variants.push('baseline');
  if (hydrateBaselineFile) variants.push('ssrBaseline');
  const site = await servePages({
    // What the bundles load on demand (the brand marks, once the number field has focus).
    ...cdnChunks(),
    '/plain.html': ['text/html; charset=utf-8', PLAIN],
    '/sameForm.html': ['text/html; charset=utf-8', sameFormPage(form)],
    '/element.html': ['text/html; charset=utf-8', elementPage('pg-checkout.js')],
    '/litFloor.html': ['text/html; charset=utf-8', elementPage('lit-floor.js')],
    '/lit-floor.js': ['text/javascript', litFloor],
    '/ready.js': ['text/javascript', READY_JS],
    '/pg-checkout.js': ['text/javascript', bundle],
    '/ssr.html': ['text/html; charset=utf-8', ssrPage(form)],
    '/ssrEager.html': ['text/html; charset=utf-8', ssrPage(form, 'pg-checkout-hydrate.js')],
    '/pg-checkout-hydrate.js': ['text/javascript', hydrating],
    ...(baselineFile
      ? {
          '/baseline.html': ['text/html; charset=utf-8', elementPage('baseline.js')],
          '/baseline.js': ['text/javascript', readFileSync(baselineFile)],
        }
      : {}),
    ...(hydrateBaselineFile
      ? {
          '/ssrBaseline.html': ['text/html; charset=utf-8', ssrPage(form, 'baseline-hydrate.js')],
          '/baseline-hydrate.js': ['text/javascript', readFileSync(hydrateBaselineFile)],
        }
      : {}),
  });
  const browser = await launch();
  // The ratios swing with what else the two cores run: each run says its load.
  const loadBefore = loadavg()[0]!;
  const times: Record<Variant, number[]> = {
    plain: [],
    sameForm: [],
    litFloor: [],
    element: [],
    ssr: [],
    ssrEager: [],
    baseline: [],
    ssrBaseline: [],
  };
  const hydrated: Partial<Record<Variant, number[]>> = {ssr: [], ssrEager: [], ssrBaseline: []};
  const traced: Partial<Record<Variant, LoadPhases[]>> = {};
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
      if (which === 'ssr' || which === 'ssrEager' || which === 'ssrBaseline') {
        await page.waitForFunction(() => (window as unknown as {hydratedAt?: number}).hydratedAt);
        hydrated[which]!.push(
          await page.evaluate(() => (window as unknown as {hydratedAt: number}).hydratedAt),
        );
      }
      await context.close();
    };
    for (const v of variants) await measure(v); // warm-up, not counted
    for (const v of variants) times[v].length = 0;
    hydrated.ssr!.length = 0;
    hydrated.ssrEager!.length = 0;
    hydrated.ssrBaseline!.length = 0;
    for (let i = 0; i < ROUNDS; i++) {
      // Rotate the order so each variant takes each position equally often.
      for (let k = 0; k < variants.length; k++) await measure(variants[(i + k) % variants.length]!);
    }
    const tracedVariants = variants.filter(
      (v) => v === 'plain' || v === 'litFloor' || v === 'element' || v === 'baseline',
    );
    for (let i = 0; i < PHASE_ROUNDS; i++) {
      for (let k = 0; k < tracedVariants.length; k++) {
        const which = tracedVariants[(i + k) % tracedVariants.length]!;
        const context = await browser.newContext();
        const page = await context.newPage();
        await browser.startTracing(page, {categories: TRACE_CATEGORIES});
        await page.goto(`${site.origin}/${which}.html`);
        await page.waitForFunction(
          () => (window as unknown as {interactiveAt?: number}).interactiveAt,
        );
        const trace = await browser.stopTracing();
        await context.close();
        (traced[which] ??= []).push(phasesOf(trace, which !== 'plain'));
      }
    }
  } finally {
    await browser.close();
    await site.close();
  }
  const plain = median(times.plain);
  const sameForm = median(times.sameForm);
  const element = median(times.element);
  const floor = median(times.litFloor);
  const ssr = median(times.ssr);
  const ssrEager = median(times.ssrEager);
  const baseline = baselineFile ? median(times.baseline) : undefined;
  const ssrBaseline = hydrateBaselineFile ? median(times.ssrBaseline) : undefined;
  /** Each phase's median over the traced loads of a page. */
  const phases = Object.fromEntries(
    Object.entries(traced).map(([which, loads]) => [
      which,
      Object.fromEntries(
        Object.keys(loads[0]!).map((key) => [
          key,
          round(median(loads.map((l) => l[key]!).filter((x) => x !== undefined)), 1),
        ]),
      ),
    ]),
  );
  return {
    runs: ROUNDS,
    loadAverage: [round(loadBefore), round(loadavg()[0]!)],
    plainFormInteractiveMs: round(plain, 1),
    cardFormInteractiveMs: round(element, 1),
    ratio: round(element / plain),
    goalRatio: 1.25,
    withinGoal: element / plain <= 1.25,
    ssrInteractiveMs: round(ssr, 1),
    ssrRatio: round(ssr / plain),
    ssrGoalRatio: 1.1,
    ssrWithinGoal: ssr / plain <= 1.1,
    ssrHydratedMs: round(median(hydrated.ssr!), 1),
    ssrEagerInteractiveMs: round(ssrEager, 1),
    ssrEagerRatio: round(ssrEager / plain),
    ssrEagerHydratedMs: round(median(hydrated.ssrEager!), 1),
    litFloorInteractiveMs: round(floor, 1),
    litFloorRatio: round(floor / plain),
    ratioToLitFloor: round(element / floor),
    sameFormPlainMs: round(sameForm, 1),
    ratioToSameForm: round(element / sameForm),
    ssrRatioToSameForm: round(ssr / sameForm),
    ssrHydratedRatio: round(median(hydrated.ssr!) / plain),
    ...(baseline !== undefined
      ? {baselineInteractiveMs: round(baseline, 1), baselineRatio: round(baseline / plain)}
      : {}),
    ...(ssrBaseline !== undefined
      ? {
          ssrBaselineInteractiveMs: round(ssrBaseline, 1),
          ssrBaselineRatio: round(ssrBaseline / plain),
          ssrBaselineHydratedMs: round(median(hydrated.ssrBaseline!), 1),
        }
      : {}),
    ...(PHASE_ROUNDS ? {phaseRuns: PHASE_ROUNDS, phases} : {}),
  };
}
