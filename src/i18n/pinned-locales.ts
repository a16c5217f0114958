/**
 * The shipped locales as the CDN bundles load them: each table a JSON file beside the
 * bundle, fetched with `fetch(url, {integrity})`, so the browser refuses any file whose bytes
 * are not those the package was built with. The bundle carries one hash, of
 * `locales/index-<hash>.json`, which holds the hash of each locale's file
 * (`locales/<code>-<hash>.json`); so the one `integrity` hash a merchant puts on
 * `pg-checkout.js` pins every text the form can show (scripts/vite/pinned-locales.ts
 * writes them). A text is data, read with `JSON.parse` and rendered as text, never run.
 * `fetch` is no Trusted Types sink, so `trusted-types lit-html` still holds; the files come
 * from the bundle's own folder, which `connect-src` must allow (docs/guides/csp-and-sri.md).
 *
 * One hash in the bundle rather than one per locale: eleven SHA-384 hashes cost 0.8 kB
 * gzip of the bundle every page downloads; the index costs a page in another language one
 * request more (0.8 kB gzip), once.
 *
 * Not `import()` of a module, as the npm build does (there the merchant's bundler owns its
 * chunks): no engine checks an `import()` against a hash, and WebKit does not check the
 * `integrity` of a `<link rel="modulepreload">` either (WebKitGTK 2.50 ran a changed module
 * preloaded with a wrong hash).
 */
import type {CheckoutMessages} from './messages.js';

/** What the CDN build writes into the bundle: the index's hash and the locales it lists. */
export interface LocalePins {
  index: string;
  codes: readonly string[];
}

/** The file beside the bundle of `name` (a locale's code, or `index`) with this hash. */
export const pinnedLocaleFile = (name: string, integrity: string): string =>
  `locales/${name}-${integrity.slice(7, 17).replace(/[+/]/g, '_')}.json`;

/** `name`'s file, parsed, once the browser checked it against `integrity`. */
async function fetchPinned(name: string, integrity: string): Promise<unknown> {
  const url = new URL(pinnedLocaleFile(name, integrity), import.meta.url);
  const response = await fetch(url, {integrity}).catch(() => undefined);
  if (!response?.ok) {
    throw new Error(
      `pg-checkout: ${url.href} could not be loaded (refused by its integrity hash, missing, or offline)`,
    );
  }
  return response.json();
}

let index: Promise<unknown> | undefined;

/** Loads `code`'s table through the index; rejects when either cannot be had. */
export async function loadPinnedLocale(code: string, pins: LocalePins): Promise<CheckoutMessages> {
  index ??= fetchPinned('index', pins.index).catch((error: unknown) => {
    index = undefined;
    throw error;
  });
  const hashes = (await index) as Record<string, string>;
  return (await fetchPinned(code, hashes[code]!)) as CheckoutMessages;
}
