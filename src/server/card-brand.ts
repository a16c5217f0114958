/**
 * The brand of a saved card, told from its mask (`424242******4242`: the gateway shows the
 * first six digits and the last four) by the form's own rule (`src/validation/brand.ts`,
 * credit-card-type's table), so that the server and the form never disagree. The build
 * puts that module and the table into dist/server/vendor/ (vite.config.ts), as the browser
 * build does: the published server imports no devDependency.
 */
import {brandOf} from '../validation/brand.js';

/** Digits the gateway shows at the start of a mask (the card's BIN). */
const SHOWN_DIGITS = 6;

/** The brand (`visa`, `mastercard`, `american-express`, ...) of a mask, if its digits tell one. */
export function brandOfMask(mask: string): string | undefined {
  return brandOf(mask.slice(0, SHOWN_DIGITS))?.type;
}
