/**
 * Which message table a language gets, and where the tables come from.
 *
 * English is built in (it is also every table's fallback). The other shipped locales,
 * Ukrainian (the gateway's home market) included, are loaded the first time a page asks
 * for that language, so a page in English downloads no Polish; that needs nothing from
 * the merchant (`lang="pl"` just works). How they load depends on the build:
 *
 * - the CDN bundles (`pg-checkout.js`, `pg-checkout-hydrate.js`): each table is a JSON file
 *   beside the bundle, fetched against the SRI hash the build wrote into the bundle
 *   (`pinned-locales.ts`): pinning the bundle pins its texts, and they are never run;
 * - the npm build: each table is a module of its own, loaded with a dynamic `import()`,
 *   which the merchant's bundler splits into a chunk of its own bundle (and pins with it).
 *
 * `registerMessages` adds a language that is not shipped, or overrides texts of one that is.
 */
import type {CheckoutMessages} from './messages.js';
import {en} from './locales/en.js';
import {loadPinnedLocale, type LocalePins} from './pinned-locales.js';

type Loader = () => Promise<CheckoutMessages>;

declare global {
  /**
   * Replaced by the CDN builds (scripts/vite/pinned-locales.ts) with the hash of the
   * locales' index and their codes; by the npm build with `undefined`. Never set on a page.
   */
  var __PG_LOCALE_PINS__: LocalePins | undefined;
}

/** The locales' loaders as the CDN bundles have them. */
const pinnedLoaders = (pins: LocalePins): Record<string, Loader> =>
  Object.fromEntries(pins.codes.map((code) => [code, () => loadPinnedLocale(code, pins)]));

/** The shipped locales loaded on demand, by primary language subtag. */
const LAZY: Readonly<Record<string, Loader>> = globalThis.__PG_LOCALE_PINS__
  ? pinnedLoaders(globalThis.__PG_LOCALE_PINS__)
  : {
      uk: () => import('./locales/uk.js').then((m) => m.uk),
      pl: () => import('./locales/pl.js').then((m) => m.pl),
      de: () => import('./locales/de.js').then((m) => m.de),
      fr: () => import('./locales/fr.js').then((m) => m.fr),
      es: () => import('./locales/es.js').then((m) => m.es),
      it: () => import('./locales/it.js').then((m) => m.it),
      pt: () => import('./locales/pt.js').then((m) => m.pt),
      ro: () => import('./locales/ro.js').then((m) => m.ro),
      cs: () => import('./locales/cs.js').then((m) => m.cs),
      tr: () => import('./locales/tr.js').then((m) => m.tr),
      ar: () => import('./locales/ar.js').then((m) => m.ar),
    };

/** Every locale shipped with the package: the built-in ones, then those loaded on demand. */
export const SHIPPED_LOCALES: readonly string[] = ['en', ...Object.keys(LAZY)];

/** Tables at hand, by lower-case tag (`pl`, `pt-br`): the built-in, loaded and registered. */
const tables = new Map<string, Partial<CheckoutMessages>>([['en', en]]);
/** Texts registered by the page, by lower-case tag, applied over the shipped table. */
const registered = new Map<string, Partial<CheckoutMessages>>();
const loading = new Map<string, Promise<void>>();
/** Why a shipped table could not be had, by tag: its last load's failure. */
const failures = new Map<string, string>();
const listeners = new Set<() => void>();

/** The tags to look a language up under, most specific first: `pt-BR` → `pt-br`, `pt`. */
export function tagsOf(lang: string): string[] {
  const tag = lang.trim().toLowerCase().replaceAll('_', '-');
  const primary = tag.split('-')[0] ?? '';
  return tag === primary ? [tag] : [tag, primary];
}

/**
 * The table for a BCP 47 tag as far as it is at hand now: the page's registered texts for
 * the tag or its primary language, over the shipped table, over English (so a key a table
 * lacks reads in English). A shipped locale not yet loaded reads as English until
 * `loadMessages` resolves.
 */
export function messagesFor(lang: string): CheckoutMessages {
  const tags = tagsOf(lang);
  const layers = tags
    .slice()
    .reverse()
    .flatMap((tag) => [tables.get(tag), registered.get(tag)]);
  return Object.assign({}, en, ...layers) as CheckoutMessages;
}

/** Whether `lang`'s table is at hand (or there is nothing to load for it). */
export function messagesReady(lang: string): boolean {
  return tagsOf(lang).every((tag) => !(tag in LAZY) || tables.has(tag));
}

/**
 * Loads the shipped table for `lang` if it is one loaded on demand; resolves once it is at
 * hand (at once for a built-in or unknown language). A table that fails to load (offline,
 * the file missing, or refused by its hash) leaves the language in English
 * (`messagesFailure` says why); the next call tries again.
 */
export function loadMessages(lang: string): Promise<void> {
  const tag = tagsOf(lang).find((t) => t in LAZY && !tables.has(t));
  if (!tag) return Promise.resolve();
  let pending = loading.get(tag);
  if (!pending) {
    pending = LAZY[tag]!()
      .then((table) => {
        tables.set(tag, table);
        failures.delete(tag);
        listeners.forEach((listener) => listener());
      })
      .catch((error: unknown) => {
        failures.set(tag, error instanceof Error ? error.message : String(error));
      })
      .finally(() => loading.delete(tag));
    loading.set(tag, pending);
  }
  return pending;
}

/** Why `lang`'s shipped table could not be loaded, after a load failed; else undefined. */
export function messagesFailure(lang: string): string | undefined {
  return tagsOf(lang)
    .map((tag) => (tables.has(tag) ? undefined : failures.get(tag)))
    .find(Boolean);
}

/**
 * Adds or overrides texts for a language, for every element on the page:
 * `registerMessages('lt', lithuanian)` adds Lithuanian (give every key: a missing one reads
 * in English); `registerMessages('pl', {pay: 'Zapłać teraz'})` changes one Polish text.
 * A region tag (`pt-PT`) applies to that region only, over the primary language's table.
 */
export function registerMessages(lang: string, messages: Partial<CheckoutMessages>): void {
  const [tag] = tagsOf(lang);
  if (!tag) return;
  registered.set(tag, {...registered.get(tag), ...messages});
  listeners.forEach((listener) => listener());
}

/** Calls `listener` whenever a table is loaded or registered; returns the unsubscribe. */
export function onMessagesChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
