/**
 * The texts of the checkout elements: their keys (`CheckoutMessages`), and the rule that
 * picks a language: the element's own `lang`, else the closest ancestor's, else the
 * document's, else the browser's, else English. The tables are one module per locale
 * (`locales/<code>.ts`, each key in the order of `en.ts`); `catalogue.ts` says which are
 * built in and which load on demand; `format.ts` fills placeholders and plurals. Every
 * message can be overridden per element through its `messages` property, or per page
 * through `registerMessages`.
 */
import type {ReactiveController, ReactiveControllerHost} from 'lit';
import {PgErrorEvent} from '../events/events.js';
import {
  loadMessages,
  messagesFailure,
  messagesFor,
  messagesReady,
  onMessagesChange,
} from './catalogue.js';
import {en} from './locales/en.js';

export {
  SHIPPED_LOCALES,
  loadMessages,
  messagesFor,
  messagesReady,
  registerMessages,
} from './catalogue.js';
export {
  fill,
  formatAmount,
  formatCount,
  formatCountsOr,
  localeDirection,
  type MessageValues,
} from './format.js';

/**
 * Every text the checkout elements show, by key; `{name}` placeholders are filled in and
 * plural forms chosen for the language. Give some keys to an element's `messages` property,
 * or a whole table for a language to `registerMessages`.
 *
 * @example
 * ```ts
 * import {registerMessages, en} from 'pg-checkout';
 * registerMessages('en-GB', {...en, pay: 'Pay now'});
 * ```
 */
export interface CheckoutMessages {
  cardNumber: string;
  expiry: string;
  expiryHint: string;
  cvv: string;
  /**
   * The code field's placeholder once the brand is known: `{n}` is its brand's number of
   * digits (3, or 4 for American Express). Short: the field is half the form's width.
   */
  cvvHint: string;
  holder: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  pay: string;
  /** The Pay button when the order's total is known: `{amount}` is `formatAmount`'s text. */
  payAmount: string;
  paying: string;
  retry: string;
  paid: string;
  // Field errors sit under their input, two fields to a row for expiry and CVV and for the
  // first and last name: keep them short enough for one line in a 150 px column (a
  // full-width field's in a 320 px form), or the fields below would move.
  numberRequired: string;
  numberInvalid: string;
  /**
   * A number at a length its brand does not have: `{brand}` is the brand's name (`Visa`),
   * `{lengths}` the lengths it has, as alternatives in the language (`16, 18 or 19`, a run
   * as `14–19`). Every brand's numbers have 12 to 19 digits.
   */
  numberLength: string;
  expiryRequired: string;
  expiryInvalid: string;
  /** The expiry month is over. */
  expiryPast: string;
  /** The expiry month is not 01–12 (`13 / 30`). */
  expiryMonth: string;
  /** The expiry year is further ahead than a card's can be (card-validator: 19 years). */
  expiryFar: string;
  /** `{brand}` (Mastercard, …) is not among the merchant's `accepted-brands`. */
  brandNotAccepted: string;
  /**
   * A card of a brand the form cannot tell, when the merchant accepts only some brands; a
   * card the gateway does not take though card-validator does (a UnionPay number failing
   * Luhn).
   */
  cardNotAccepted: string;
  cvvRequired: string;
  /** `{n}` is replaced by the number of digits (3, or 4 for American Express). */
  cvvInvalid: string;
  required: string;
  /** `{n}` is replaced by the most characters the field takes. */
  tooLong: string;
  /** Not an email address (`ada@example.c`). */
  emailInvalid: string;
  /** An email address with letters outside ASCII (`оля@приклад.укр`): the gateway takes none. */
  emailLatin: string;
  /** A phone number with something other than digits, separators and a leading `+`. */
  phoneInvalid: string;
  phoneTooShort: string;
  phoneTooLong: string;
  /**
   * `{n}` is the number of fields to correct; plural forms as an ICU plural argument,
   * `{n, plural, one {# field} other {# fields}}`, with the locale's categories.
   */
  fixFields: string;
  success: string;
  /**
   * The order had been paid before this payment (another visit, another tab): nothing was
   * charged now, and no card was saved (one the customer asked to save was not).
   */
  alreadyPaid: string;
  /** Prefix before the gateway's own message. */
  failure: string;
  networkError: string;
  serverError: string;
  threeDSRedirecting: string;
  threeDSTitle: string;
  cancel: string;
  /** After the customer cancelled the 3-D Secure challenge. */
  threeDSCancelled: string;
  checking: string;
  timeout: string;
  checkAgain: string;
  missingOrder: string;
  // Outcome codes (`PayFailureReason`, `CheckoutErrorCode`), rendered by `outcome-text.ts`.
  declinedFunds: string;
  declinedCvv: string;
  declinedExpired: string;
  declinedIssuer: string;
  declinedThreeDS: string;
  /** The payment was not completed in time. */
  paymentExpired: string;
  /** The gateway refused the request: nothing was charged. */
  notCreated: string;
  /** The outcome is unknown; trying again cannot charge twice. */
  notConfirmed: string;
  gatewayUnavailable: string;
  /** `{n}` is replaced by the seconds to wait. */
  rateLimited: string;
  /**
   * The companion is saturated (`busy`): nothing was charged; `{n}` is replaced by the
   * seconds the form waits before "Try again" can be pressed.
   */
  busy: string;
  /** The server refused the request as invalid. */
  checkDetails: string;
  /** The status check ran out of time while the bank was still processing. */
  stillProcessing: string;
  // Saved cards (`saved-cards/`): the choice above the card fields and the save offer.
  /** The legend of the saved-card choice. */
  savedCards: string;
  useNewCard: string;
  /** The consent box (never ticked by default). */
  saveCard: string;
  /** `{date}` is the card's `MM/YY`. */
  savedCardExpires: string;
  savedCardExpired: string;
  removeCard: string;
  removeCardConfirm: string;
  savedCardRemoved: string;
  // Saved-card refusals (`PayFailureReason`: saved_card_unknown, _removed, _expired).
  savedCardUnknown: string;
  savedCardGone: string;
  savedCardTokenExpired: string;
}

export {en} from './locales/en.js';

/** The tables built into every bundle, by primary language subtag. */
export const BUILT_IN_MESSAGES: Readonly<Record<string, CheckoutMessages>> = {en};

/**
 * The language in effect for `el`: its own or an ancestor's `lang`, else the document's;
 * English when that language's shipped table could not be had (refused by its hash,
 * missing, offline), so that the words, the numbers and the direction of the form are all
 * English rather than a mix.
 */
export function languageOf(el: Element): string {
  // Rendered on a server (pg-checkout/ssr, Lit's DOM shim), an element has no `closest` and
  // there is no document: its own `lang` says it, else English.
  const owner = (el.closest?.('[lang]') ?? el).getAttribute('lang');
  const lang =
    owner ||
    (globalThis.document ? document.documentElement.lang || navigator.language : 'en') ||
    'en';
  return messagesFailure(lang) ? 'en' : lang;
}

declare global {
  /**
   * `true` in the CDN build of client-rendered pages (`pg-checkout.js`, vite.config.ts),
   * which hydrates nothing and so leaves out what only a hydrated element needs; elsewhere
   * unset. Never set on a page.
   */
  var __PG_NO_HYDRATION__: boolean | undefined;
}

/** Every text of a table, empty. */
const BLANK = new Proxy({} as CheckoutMessages, {get: () => ''});

const hosts = new Set<ReactiveControllerHost>();
let observer: MutationObserver | undefined;
let unsubscribe: (() => void) | undefined;
const updateAll = () => hosts.forEach((h) => h.requestUpdate());

/**
 * Re-renders its host when a `lang` attribute changes anywhere in the document (on the
 * host, an ancestor or `<html>`) and when a table is loaded or registered, and merges the
 * host's overrides into the table of its language (loading it first if it loads on demand:
 * until then the host reads in English). When a shipped table cannot be had (refused by
 * its hash, missing, offline), the host is all English (`languageOf`) and dispatches
 * `pg-error` (`misconfigured`, not retryable) once: it works, but not as the page was built
 * to.
 *
 * All English includes a host rendered on the server in that language (`pg-checkout/ssr`):
 * hydration adopts the server's text as the value the host rendered first (English, its
 * table not yet loaded) without writing it, and Lit writes only a value that changed, so
 * rendering English again would leave the server's labels beside English errors and
 * buttons. The host renders once with every text empty, then in English: each text is
 * written, within the same task (nothing is painted in between). `pg-checkout.js`, which
 * hydrates nothing, leaves that render out (`__PG_NO_HYDRATION__`): 0.08 kB gzip.
 */
export class LocaleController implements ReactiveController {
  private readonly host: ReactiveControllerHost & HTMLElement;
  /** The languages this host asked to load (once each: a failed one is not asked again). */
  private readonly asked = new Set<string>();
  /** Every text empty, for the one render that writes them all (see above). */
  private blank: boolean | undefined;

  constructor(host: ReactiveControllerHost & HTMLElement) {
    this.host = host;
    host.addController(this);
  }

  /** The messages for the current language, with `overrides` applied. */
  messages(overrides?: Partial<CheckoutMessages>): CheckoutMessages {
    if (!globalThis.__PG_NO_HYDRATION__ && this.blank) return BLANK;
    const lang = this.lang();
    if (!messagesReady(lang) && !this.asked.has(lang)) {
      this.asked.add(lang);
      void loadMessages(lang).then(() => this.reportFailure(lang));
    }
    const base = messagesFor(lang);
    return overrides ? {...base, ...overrides} : base;
  }

  private async reportFailure(lang: string): Promise<void> {
    const why = messagesFailure(lang);
    if (!why) return;
    const host = this.host;
    if (!globalThis.__PG_NO_HYDRATION__) {
      this.blank = true;
      host.requestUpdate();
      await host.updateComplete;
      this.blank = false;
      host.requestUpdate();
    }
    const orderRef = host.getAttribute('order-ref');
    host.dispatchEvent(
      new PgErrorEvent({
        ...(orderRef ? {orderRef} : {}),
        code: 'misconfigured',
        message: `${why}: the form shows English`,
        retryable: false,
      }),
    );
  }

  /** The language in effect for the host. */
  lang(): string {
    return languageOf(this.host);
  }

  hostConnected(): void {
    hosts.add(this.host);
    if (!observer) {
      observer = new MutationObserver(updateAll);
      observer.observe(document.documentElement, {
        attributes: true,
        attributeFilter: ['lang'],
        subtree: true,
      });
      unsubscribe = onMessagesChange(updateAll);
    }
  }

  hostDisconnected(): void {
    hosts.delete(this.host);
    if (hosts.size === 0) {
      observer?.disconnect();
      observer = undefined;
      unsubscribe?.();
      unsubscribe = undefined;
    }
  }
}
