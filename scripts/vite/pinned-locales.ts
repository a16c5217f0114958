/**
 * Vite plugin of the CDN builds: the shipped locales other than English as JSON files beside
 * the bundle, pinned by the bundle. Before the build, each table (src/i18n/locales/<code>.ts,
 * a module of data that imports nothing at run time) is evaluated and written as JSON with
 * its SRI hash (sha384); an index of those hashes (`locales/index-<hash>.json`) is written
 * beside them, and its hash and the codes go into the bundle as `__PG_LOCALE_PINS__`
 * (src/i18n/catalogue.ts). The bundle fetches the index, then a locale, each with its
 * `integrity` (src/i18n/pinned-locales.ts, which also names the files). So the hash a
 * merchant puts on the bundle's `<script>` covers every text the form can show. Both CDN
 * bundles get the same files and hashes.
 */
import {createHash} from 'node:crypto';
import {readFileSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {transformWithOxc, type Plugin} from 'vite';
import {pinnedLocaleFile, type LocalePins} from '../../src/i18n/pinned-locales.js';

/** A JSON file of the locales: where it goes beside the bundle, its bytes and its SRI hash. */
export interface PinnedLocale {
  /** A locale's code, or `index`. */
  code: string;
  fileName: string;
  source: string;
  integrity: string;
}

/**
 * The tables of `dir` but `builtIn` (each `<code>.ts` exporting `<code>`), as JSON files.
 * Sorted by code, so the build is the same wherever it runs.
 */
export async function pinnedLocales(
  dir: string,
  builtIn: readonly string[],
): Promise<PinnedLocale[]> {
  const codes = readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3))
    .filter((code) => !builtIn.includes(code))
    .sort();
  return Promise.all(
    codes.map(async (code) => {
      const file = path.join(dir, `${code}.ts`);
      const {code: js} = await transformWithOxc(readFileSync(file, 'utf8'), file, {lang: 'ts'});
      if (/^\s*import\s/m.test(js)) throw new Error(`${file} imports something: a table is data`);
      const module = (await import(
        `data:text/javascript;base64,${Buffer.from(js).toString('base64')}`
      )) as Record<string, unknown>;
      const table = module[code];
      if (!table || typeof table !== 'object') throw new Error(`${file} exports no ${code}`);
      return pinned(code, JSON.stringify(table));
    }),
  );
}

const pinned = (code: string, source: string): PinnedLocale => {
  const integrity = `sha384-${createHash('sha384').update(source).digest('base64')}`;
  return {code, fileName: pinnedLocaleFile(code, integrity), source, integrity};
};

/** The index of `locales`' hashes, by code. */
export const localeIndex = (locales: readonly PinnedLocale[]): PinnedLocale =>
  pinned('index', JSON.stringify(Object.fromEntries(locales.map((l) => [l.code, l.integrity]))));

export function pinnedLocalesPlugin(opts: {dir: string; builtIn: readonly string[]}): Plugin {
  let locales: PinnedLocale[] = [];
  return {
    name: 'pg-pinned-locales',
    apply: 'build',
    async config() {
      const tables = await pinnedLocales(opts.dir, opts.builtIn);
      const index = localeIndex(tables);
      locales = [...tables, index];
      const pins: LocalePins = {index: index.integrity, codes: tables.map((l) => l.code)};
      return {define: {'globalThis.__PG_LOCALE_PINS__': JSON.stringify(pins)}};
    },
    generateBundle() {
      for (const {fileName, source} of locales) {
        this.emitFile({type: 'asset', fileName, source});
      }
    },
  };
}
