/**
 * Vite plugin of the CDN builds: writes `dist/cdn/pg-checkout.inventory.json`, the script
 * inventory PCI DSS 6.4.3 asks a payment page's owner to keep — every file of dist/cdn/ a
 * payment page may load, with its SRI hash, size, what it is for, what loads it and what
 * pins it (whose hash the browser checks it against). A merchant keeps it with their PCI
 * evidence, and `pg-checkout-verify-page` compares a live page with it (11.6.1;
 * docs/guides/security.md). It is made from the files on disk after each CDN build, so it
 * lists what is there, and a file it cannot describe fails the build: a new kind of file
 * beside the bundle needs its purpose written here first.
 */
import {readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {gzipSync} from 'node:zlib';
import type {Plugin} from 'vite';
import {sriHash} from './subresource-integrity.js';

export const INVENTORY_FILE = 'pg-checkout.inventory.json';

/** One file of the inventory. */
export interface InventoryEntry {
  /** Its path relative to dist/cdn/ (the folder pg-checkout.js is served from). */
  file: string;
  /** `script`: run by the browser; `data`: read as JSON, never run. */
  kind: 'script' | 'data';
  integrity: string;
  bytes: number;
  gzip: number;
  purpose: string;
  /** What requests it: `page` (a tag the merchant writes), or the files that do. */
  loadedBy: string[];
  /** Whose hash the browser checks it against: `page` (the tag's `integrity`), or files. */
  pinnedBy: string[];
}

export interface Inventory {
  package: string;
  version: string;
  /** The hash algorithm of every `integrity`. */
  algorithm: 'sha384';
  files: InventoryEntry[];
}

const ENTRIES = ['pg-checkout.js', 'pg-checkout-hydrate.js'];
const language = new Intl.DisplayNames(['en'], {type: 'language'});

/** What a file of dist/cdn/ is, or undefined for one the page never loads. */
function describe(
  file: string,
  present: readonly string[],
): Omit<InventoryEntry, 'file' | 'integrity' | 'bytes' | 'gzip'> | undefined {
  const entries = ENTRIES.filter((entry) => present.includes(entry));
  const index = present.find((f) => /^locales\/index-[\w-]+\.json$/.test(f));
  if (file === 'pg-checkout.js') {
    return {
      kind: 'script',
      purpose:
        "The checkout elements (<pg-card-form>, <pg-3ds-redirect>, <pg-fingerprint>) with Lit, the card brand table, the brand marks and the English texts: a page's one script from pg-checkout.",
      loadedBy: ['page'],
      pinnedBy: ['page'],
    };
  }
  if (file === 'pg-checkout-hydrate.js') {
    return {
      kind: 'script',
      purpose:
        'The same elements with Lit hydration support, for pages whose form was rendered on the server (pg-checkout/ssr).',
      loadedBy: ['page', 'pg-checkout-hydrate-after-paint.js'],
      pinnedBy: ['page', 'pg-checkout-hydrate-after-paint.js'],
    };
  }
  if (file === 'pg-checkout-hydrate-after-paint.js') {
    return {
      kind: 'script',
      purpose:
        'Loads pg-checkout-hydrate.js once a server-rendered page has painted, checked against the hash it carries.',
      loadedBy: ['page'],
      pinnedBy: ['page'],
    };
  }
  if (/^saved-cards-[\w-]+\.js$/.test(file)) {
    return {
      kind: 'script',
      purpose:
        'The saved-card choice of <pg-card-form> (offer-save-card), run when the customer has saved cards or may save one; pg-checkout-hydrate.js has it built in.',
      loadedBy: ['pg-checkout.js'],
      pinnedBy: ['pg-checkout.js'],
    };
  }
  if (file === index) {
    return {
      kind: 'data',
      purpose:
        "The SRI hashes of the locales' texts, read when a page is in a language other than English.",
      loadedBy: entries,
      pinnedBy: entries,
    };
  }
  const code = /^locales\/([a-z]{2,3})-[\w-]+\.json$/.exec(file)?.[1];
  if (code && index) {
    return {
      kind: 'data',
      purpose: `The texts in ${language.of(code)} (${code}), read when a page is in that language.`,
      loadedBy: entries,
      pinnedBy: [index],
    };
  }
  return undefined;
}

/** Files the page never loads: the SRI files written for the merchant, and this inventory. */
const NOT_LOADED = /(\.sri|\.integrity\.json|^pg-checkout\.inventory\.json)$/;

/** The inventory of `dir` as it is on disk; throws on a file it cannot describe. */
export function inventoryOf(dir: string, version: string): Inventory {
  const present = readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .map((f) => f.replaceAll('\\', '/'))
    .filter((f) => statSync(path.join(dir, f)).isFile() && !NOT_LOADED.test(f))
    .sort();
  const files = present.map((file): InventoryEntry => {
    const about = describe(file, present);
    if (!about) throw new Error(`dist/cdn/${file}: the script inventory cannot say what it is`);
    const code = readFileSync(path.join(dir, file));
    return {
      file,
      kind: about.kind,
      integrity: sriHash(code),
      bytes: code.length,
      gzip: gzipSync(code, {level: 9}).length,
      purpose: about.purpose,
      loadedBy: about.loadedBy,
      pinnedBy: about.pinnedBy,
    };
  });
  return {package: 'pg-checkout', version, algorithm: 'sha384', files};
}

export function scriptInventory(opts: {version: string}): Plugin {
  return {
    name: 'pg-script-inventory',
    apply: 'build',
    writeBundle: {
      order: 'post',
      sequential: true,
      handler(output) {
        const dir = output.dir ?? path.dirname(output.file ?? '.');
        const inventory = inventoryOf(dir, opts.version);
        writeFileSync(path.join(dir, INVENTORY_FILE), `${JSON.stringify(inventory, null, 2)}\n`);
      },
    },
  };
}
