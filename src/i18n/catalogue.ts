/**
 * Which message table a language gets, and where the tables come from.
 *
 * English is built in (it is also every table's fallback). The other shipped locales,
 * Ukrainian (the gateway's home market) included, are each a module of their own, loaded with a dynamic `import()` the first time
 * a page asks for that language: Vite emits each as a chunk beside the CDN file (and a
 * merchant's bundler does the same with dist/browser), so a page in English downloads no
 * Polish. That was chosen over an explicit registration step because it needs nothing from
 * the merchant (`lang="pl"` just works), keeps each table a plain data module a bundler
 * can split, and the chunks load from the script's own origin, which a strict CSP
 * (`script-src` naming that origin) already allows; `import()` is no Trusted Types sink.
 * `registerMessages` adds a language that is not shipped, or overrides texts of one that is.
 */
import type {CheckoutMessages} from './messages.js';
import {en} from './locales/en.js';

type Loader = () => Promise<CheckoutMessages>;

/** The shipped locales loaded on demand, by primary language subtag. */
const LAZY: Readonly<Record<string, Loader>> = {
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
const listeners = new Set<() => void>();

/** The tags to look a language up under, most specific first: `pt-BR` → `pt-br`, `pt`. */
function tagsOf(lang: string): string[] {
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
 * the chunk blocked) leaves the language in English; the next call tries again.
 */
export function loadMessages(lang: string): Promise<void> {
  const tag = tagsOf(lang).find((t) => t in LAZY && !tables.has(t));
  if (!tag) return Promise.resolve();
  let pending = loading.get(tag);
  if (!pending) {
    pending = LAZY[tag]!()
      .then((table) => {
        tables.set(tag, table);
        listeners.forEach((listener) => listener());
      })
      .catch(() => undefined)
      .finally(() => loading.delete(tag));
    loading.set(tag, pending);
  }
  return pending;
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
