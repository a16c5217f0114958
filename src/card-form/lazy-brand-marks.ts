/**
 * The brand marks (`brand-marks.ts`) on demand: imported the first time the form is focused
 * (in the task after the focus) or a brand shows (typed, pasted or autofilled), so a page that only displays the form
 * downloads none of them. From the CDN the module is a file beside `pg-checkout.js`, from
 * the script's own origin, which a CSP that allows the bundle allows; from npm, a chunk of
 * the merchant's bundle. The input keeps the mark's room either way (`.field--number`'s
 * padding in `card-form.styles.ts`): a mark arriving later moves nothing. A failed load
 * (offline, the file not deployed) leaves the number without a mark, and the next call
 * tries again.
 */
import {html, nothing, svg} from 'lit';
import type {CardBrand} from '../validation/card.js';

type Marks = typeof import('./brand-marks.js');

let marks: Marks | undefined;
let loading: Promise<boolean> | undefined;

/** Starts loading the marks once; resolves true when they are at hand. */
export function loadBrandMarks(): Promise<boolean> {
  loading ??= import('./brand-marks.js').then(
    (module) => {
      marks = module;
      return true;
    },
    () => {
      loading = undefined;
      return false;
    },
  );
  return loading;
}

/**
 * On focus: starts loading the marks in a task of its own, so the focus itself (its
 * style and layout, the focus ring) does not wait on the module request, which costs the
 * main thread about as much as the focus does (bench/elements-interactive.bench.ts). A
 * brand shows after a digit or two: the marks are still on their way well before.
 */
export function prefetchBrandMarks(): void {
  if (!marks && !loading) setTimeout(loadBrandMarks);
}

/** The mark of `brand` once the marks are loaded; nothing before, or while no brand shows. */
export function brandMark(brand: CardBrand | null) {
  return brand && marks ? marks.brandMark(brand, {html, svg, nothing}) : nothing;
}
