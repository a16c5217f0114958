/**
 * The card brands' marks in `<pg-card-form>`'s number field: small inline SVGs (no image
 * request, no `style` attribute, so they render under a CSP without `img-src` or
 * `'unsafe-inline'` styles), each with the brand's name as its accessible name. Simplified
 * shapes in the brands' colours, not their registered logos: two overlapping circles for
 * Mastercard and Maestro, a coloured card with a short name for the others.
 *
 * Not needed before the customer types, so not in the element's first download: the form
 * imports this module on demand (`lazy-brand-marks.ts`), a file of its own beside the CDN
 * bundle. It imports nothing, Lit included (type imports aside): it renders with the `html`
 * and `svg` tags and `nothing` of the element that loads it, so a copy of the bundle loaded
 * under another URL (a query string, another CDN path) never starts a second Lit.
 */
import type {html as litHtml, nothing as litNothing, svg as litSvg} from 'lit';
import type {CardBrand} from '../validation/card.js';

/** The parts of Lit a mark is rendered with: the loading element's own. */
export interface LitParts {
  html: typeof litHtml;
  svg: typeof litSvg;
  nothing: typeof litNothing;
}

/** Per card-validator type: the card's colour and its short name (none: circles). */
const MARKS: Readonly<Record<string, readonly [background: string, label?: string]>> = {
  visa: ['#1a1f71', 'VISA'],
  mastercard: ['#252525'],
  maestro: ['#252525'],
  'american-express': ['#006fcf', 'AMEX'],
  'diners-club': ['#0079be', 'DINERS'],
  discover: ['#e55c20', 'DISC'],
  jcb: ['#0b4ea2', 'JCB'],
  unionpay: ['#d10429', 'UPI'],
  mir: ['#0f754e', 'MIR'],
};

/** The right-hand circle's colour where a brand has two. */
const SECOND_CIRCLE: Readonly<Record<string, string>> = {mastercard: '#f79e1b', maestro: '#00a2e5'};

/**
 * The mark of `brand`: an `<svg role="img">` named after the brand. A brand without its
 * own colours gets a card of `--pg-color-brand` with its name.
 */
export function brandMark(brand: CardBrand, {html, svg, nothing}: LitParts) {
  const known = MARKS[brand.type];
  const [background, label] = known ?? ['', brand.niceType.toUpperCase()];
  const second = SECOND_CIRCLE[brand.type];
  return html`<svg
    part="brand"
    class="brand"
    data-brand=${brand.type}
    role="img"
    aria-label=${brand.niceType}
    viewBox="0 0 40 24"
    width="40"
    height="24"
  >
    <rect
      class=${known ? nothing : 'brand__card'}
      width="40"
      height="24"
      rx="3"
      fill=${background || nothing}
    />
    ${
      second
        ? svg`<circle cx="16" cy="12" r="7" fill="#eb001b" /><circle cx="24" cy="12" r="7" fill=${second} fill-opacity=".85" />`
        : svg`<text x="20" y="16" fill="#fff" font-family="Arial,sans-serif" font-size=${label!.length > 4 ? 7 : 10} font-weight="700" text-anchor="middle" textLength=${label!.length > 6 ? 34 : nothing} lengthAdjust="spacingAndGlyphs">${label}</text>`
    }
  </svg>`;
}
