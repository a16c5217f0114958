/**
 * What a payment page is allowed to load, for the page check (`pg-checkout-verify-page`):
 * the script inventory pg-checkout's build writes (dist/cdn/pg-checkout.inventory.json,
 * each file by its path beside `pg-checkout.js`), and the merchant's own, in the same
 * format, for the page's other scripts: an entry with a `url` (absolute, or a path on the
 * page's origin) instead of a `file`, or `inline: true` for an inline script, by its hash.
 * And the comparison of what a page really loaded with it: each script must be listed and
 * its bytes must hash as listed; each file of pg-checkout's it loaded must too.
 */

/** One entry of an inventory file. */
export interface InventoryEntry {
  /** A file of pg-checkout's CDN folder, by its path there (`locales/pl-….json`). */
  file?: string;
  /** The merchant's own: an absolute URL, or a path on the page's origin (`/js/app.js`). */
  url?: string;
  /** The merchant's own inline script (or import map), known by its hash alone. */
  inline?: boolean;
  /** `sha384-…` (also `sha256-` or `sha512-`): the hash of the bytes the browser gets. */
  integrity: string;
  kind?: 'script' | 'data';
  purpose?: string;
}

export interface InventoryFile {
  files: InventoryEntry[];
}

/** Something the page loaded, as the browser received it. */
export interface Loaded {
  /** Its URL; `inline` for an inline script. */
  url: string;
  /** `script` (run) or `data` (a response of a pg-checkout file that is not a script). */
  kind: 'script' | 'data';
  /** The hash of its bytes, with the algorithm of the entry it is compared with. */
  hash: (algorithm: string) => string;
}

/** What the check says of one thing the page loaded. */
export interface Verdict {
  url: string;
  kind: 'script' | 'data';
  /** `listed`: as the inventory says; `changed`: listed, other bytes; `unlisted`: not in it. */
  status: 'listed' | 'changed' | 'unlisted';
  /** The inventory's entry it was matched with, by its `file`, `url` or `inline`. */
  entry?: string;
  integrity: string;
  expected?: string;
}

const ALGORITHM = /^(sha256|sha384|sha512)-/;

function checkEntry(entry: InventoryEntry, where: string): void {
  const names = [entry.file, entry.url, entry.inline ? 'inline' : undefined].filter(Boolean);
  if (names.length !== 1) {
    throw new Error(`${where}: each entry has one of file, url or inline: true`);
  }
  if (typeof entry.integrity !== 'string' || !ALGORITHM.test(entry.integrity)) {
    throw new Error(`${where}: ${names[0]}: integrity must be sha256-, sha384- or sha512-…`);
  }
}

/** Reads an inventory's JSON; throws with the file's name and the entry's on a bad one. */
export function parseInventory(text: string, where: string): InventoryEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${where}: not JSON`);
  }
  const files = (parsed as Partial<InventoryFile> | null)?.files;
  if (!Array.isArray(files)) throw new Error(`${where}: no "files" list`);
  files.forEach((entry: InventoryEntry, i) => checkEntry(entry, `${where}: files[${i}]`));
  return files as InventoryEntry[];
}

/** The entry `loaded` is, if any: by URL, by its path ending in `/<file>`, or inline by hash. */
function entryOf(loaded: Loaded, entries: readonly InventoryEntry[], page: URL) {
  if (loaded.url === 'inline') {
    return entries.find(
      (e) => e.inline && loaded.hash(ALGORITHM.exec(e.integrity)![1]!) === e.integrity,
    );
  }
  const url = new URL(loaded.url);
  const exact = entries.find((e) => e.url && new URL(e.url, page).href === url.href);
  if (exact) return exact;
  return entries.find((e) => e.file && url.pathname.endsWith(`/${e.file}`));
}

/**
 * How each thing the page loaded compares with the inventory. Data is only judged when it
 * is a file of the inventory (the page's API answers are not); scripts always are.
 */
export function compare(
  loaded: readonly Loaded[],
  entries: readonly InventoryEntry[],
  page: URL,
): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const item of loaded) {
    const entry = entryOf(item, entries, page);
    if (!entry && item.kind === 'data') continue;
    const name = entry?.file ?? entry?.url ?? (entry?.inline ? 'inline' : undefined);
    const algorithm = ALGORITHM.exec(entry?.integrity ?? 'sha384-')![1]!;
    const integrity = item.hash(algorithm);
    verdicts.push({
      url: item.url,
      kind: item.kind,
      status: !entry ? 'unlisted' : integrity === entry.integrity ? 'listed' : 'changed',
      ...(name ? {entry: name} : {}),
      integrity,
      ...(entry && integrity !== entry.integrity ? {expected: entry.integrity} : {}),
    });
  }
  return verdicts;
}
