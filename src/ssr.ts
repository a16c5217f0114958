/**
 * `pg-checkout/ssr`, for a merchant's server (Node): renders `<pg-card-form>` into HTML
 * with its shadow root declared in the markup (`<template shadowrootmode="open">`, Lit's
 * server rendering, `@lit-labs/ssr`), so the browser shows the fields, lets the customer
 * focus them and type before any script has run, and then the elements' module hydrates
 * them — formatting, validation and paying take over what was typed, caret included
 * (`pg-checkout/hydrate`, or `pg-checkout-hydrate.js` beside the CDN file, must be the
 * module the page loads: it carries Lit's hydration support, which the plain CDN file
 * leaves out so that it stays small). The same element modules render on the server and
 * in the browser, so both produce the same template.
 *
 * The rendered shadow root carries the form's styles in a `<style>` element: a page with a
 * Content-Security-Policy adds `styleHashes(html)` to its `style-src`.
 */
import {render} from '@lit-labs/ssr';
import {collectResult} from '@lit-labs/ssr/lib/render-result.js';
import {html, nothing} from 'lit';
import {loadMessages} from './i18n/catalogue.js';
import {unavailableText} from './i18n/unavailable.js';
import './card-form/card-form.js';
import {THREE_DS_MODES, CHALLENGE_WINDOW_SIZES} from './three-ds-redirect/three-ds-redirect.js';
import type {ChallengeWindowSize, ThreeDSMode} from './three-ds-redirect/three-ds-redirect.js';

/** What `<pg-card-form>` is rendered with: its attributes, by their property names. */
export interface CardFormHtmlOptions {
  /** The merchant's pay route (`endpoint`). */
  endpoint: string;
  /** The order being paid (`order-ref`). */
  orderRef: string;
  /** The language of its texts (`lang`, e.g. `uk`); default: the page's, read in the browser (`en` on the server). */
  lang?: string;
  /** The total as an exact decimal string (`1250.00`), shown on the pay button with `currency`. */
  amount?: string;
  currency?: string;
  theme?: 'auto' | 'light' | 'dark';
  statusEndpoint?: string;
  threeDSMode?: ThreeDSMode;
  challengeWindowSize?: ChallengeWindowSize;
  holderName?: boolean;
  customerName?: boolean;
  customerEmail?: boolean;
  customerPhone?: boolean;
  acceptedBrands?: string;
  /**
   * The `Accept` header of the request for the page being rendered (`accept-header`), for
   * 3-D Secure: pass the request's own, e.g. `c.req.header('accept')`.
   */
  acceptHeader?: string | undefined;
  /** Ask the companion for the order's total (`order-details`). */
  orderDetails?: boolean;
  /** Offer to save the card, and show the customer's saved cards (`offer-save-card`). */
  offerSaveCard?: boolean;
  /** The element's `id`, for the page's own script. */
  id?: string;
}

/** The attribute rule an option broke. */
export class CardFormHtmlError extends TypeError {
  readonly field: string;
  constructor(field: string, rule: string) {
    super(`renderCardForm: ${field} ${rule}`);
    this.name = 'CardFormHtmlError';
    this.field = field;
  }
}

const AMOUNT = /^\d{1,12}(\.\d{1,2})?$/;
const CURRENCY = /^[A-Z]{3}$/;
const LANG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
const ACCEPT_HEADER = /^[\x20-\x7e]{0,2048}$/;

function check(options: CardFormHtmlOptions): void {
  const need = (field: keyof CardFormHtmlOptions, ok: boolean, rule: string) => {
    if (!ok) throw new CardFormHtmlError(field, rule);
  };
  need('endpoint', typeof options.endpoint === 'string' && options.endpoint !== '', 'is required');
  need('orderRef', typeof options.orderRef === 'string' && options.orderRef !== '', 'is required');
  const {amount, currency, lang, theme, threeDSMode, challengeWindowSize} = options;
  need(
    'amount',
    amount === undefined || AMOUNT.test(amount),
    'must be a decimal string like 12.50',
  );
  need(
    'currency',
    currency === undefined || CURRENCY.test(currency),
    'must be an ISO 4217 code like UAH',
  );
  need('amount', (amount === undefined) === (currency === undefined), 'and currency go together');
  need('lang', lang === undefined || LANG.test(lang), 'must be a language tag like uk or pt-BR');
  need(
    'acceptHeader',
    options.acceptHeader === undefined || ACCEPT_HEADER.test(options.acceptHeader),
    'must be an HTTP header value of at most 2048 characters',
  );
  need(
    'theme',
    theme === undefined || ['auto', 'light', 'dark'].includes(theme),
    'must be auto, light or dark',
  );
  need(
    'threeDSMode',
    threeDSMode === undefined || THREE_DS_MODES.includes(threeDSMode),
    `must be one of ${THREE_DS_MODES.join(', ')}`,
  );
  need(
    'challengeWindowSize',
    challengeWindowSize === undefined || Object.hasOwn(CHALLENGE_WINDOW_SIZES, challengeWindowSize),
    `must be one of ${Object.keys(CHALLENGE_WINDOW_SIZES).join(', ')}`,
  );
}

const attr = (value: string | undefined) => value ?? nothing;

/**
 * `<pg-card-form>` as HTML, its fields in a declarative shadow root. Every value is
 * escaped; a bad option throws a {@link CardFormHtmlError} naming it. The element also
 * carries, as `data-pg-unavailable`, the `unavailable` text of its language: what
 * pg-checkout-hydrate-after-paint.js shows in the form when the module cannot be had.
 */
export async function renderCardForm(options: CardFormHtmlOptions): Promise<string> {
  check(options);
  // The texts of the language, as the browser will have them after hydration.
  if (options.lang) await loadMessages(options.lang);
  const o = options;
  // What the after-paint loader shows in the form when the module cannot be had
  // (src/hydrate-after-paint.ts): in the language of the rest of the form.
  const unavailable = unavailableText(o.lang ?? 'en');
  const template = html`<pg-card-form
    id=${attr(o.id)}
    endpoint=${o.endpoint}
    order-ref=${o.orderRef}
    lang=${attr(o.lang)}
    amount=${attr(o.amount)}
    currency=${attr(o.currency)}
    theme=${attr(o.theme)}
    status-endpoint=${attr(o.statusEndpoint)}
    three-ds-mode=${attr(o.threeDSMode)}
    challenge-window-size=${attr(o.challengeWindowSize)}
    accepted-brands=${attr(o.acceptedBrands)}
    accept-header=${attr(o.acceptHeader || undefined)}
    ?holder-name=${o.holderName}
    ?customer-name=${o.customerName}
    ?customer-email=${o.customerEmail}
    ?customer-phone=${o.customerPhone}
    ?order-details=${o.orderDetails}
    ?offer-save-card=${o.offerSaveCard}
    data-pg-unavailable=${unavailable}
  ></pg-card-form>`;
  return collectResult(render(template));
}

/**
 * The CSP source of each `<style>` element in `html` (`'sha256-…'`), for `style-src`: the
 * rendered form's styles are inline. The same for every form of one pg-checkout version and
 * theme, so a server may compute them once.
 */
export async function styleHashes(html: string): Promise<string[]> {
  const hashes = new Set<string>();
  for (const [, css] of html.matchAll(/<style>([\s\S]*?)<\/style>/g)) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(css));
    hashes.add(`'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
  }
  return [...hashes];
}
