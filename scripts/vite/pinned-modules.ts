/**
 * Vite plugin of the CDN build of `pg-checkout.js`: code the bundle loads later, as files
 * beside it that it pins (src/internal/pinned-module.ts). Before the build, each module
 * (a source file that imports nothing at run time: it is handed what it needs, Lit's `html`
 * included, by the code that calls it) is compiled, its Lit templates minified, ended with
 * the `pg-checkout-module` event that hands its exports to the bundle, and minified; its
 * SHA-384 hash names the file (`<name>-<hash>.js`) and, with that name, goes into the bundle
 * as a `define` (`globalThis.<define>`, a {@link ModulePin}). So the `integrity` a merchant
 * puts on the bundle's `<script>` covers these files as well.
 */
import {readFileSync} from 'node:fs';
import {minify, transformWithOxc, type Plugin} from 'vite';
import type {ModulePin} from '../../src/internal/pinned-module.js';
import {pinnedLocaleFile} from '../../src/i18n/pinned-locales.js';
import {minifyTemplates} from './minify-templates.js';
import {sriHash} from './subresource-integrity.js';

/** One module to pin: its source, the name of its file, the global the bundle reads its pin from. */
export interface PinnedModuleSource {
  source: string;
  name: string;
  define: string;
}

/** A pinned module as built: its file name beside the bundle, its bytes and its hash. */
export interface PinnedModule extends ModulePin {
  code: string;
}

/** The file of module `name` with this hash: `saved-cards-<10 characters of the hash>.js`. */
export const pinnedModuleFile = (name: string, integrity: string): string =>
  pinnedLocaleFile(name, integrity)
    .replace(/^locales\//, '')
    .replace(/\.json$/, '.js');

/** Builds one module as the bundle loads it; throws when it imports anything at run time. */
export async function buildPinnedModule(source: string, name: string): Promise<PinnedModule> {
  const {code: js} = await transformWithOxc(
    minifyTemplates(readFileSync(source, 'utf8'), source),
    source,
    {lang: 'ts'},
  );
  if (/^\s*import[\s{*'"]/m.test(js)) throw new Error(`${source} imports something at run time`);
  const names = [...js.matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]!);
  if (names.length === 0) throw new Error(`${source} exports no function`);
  // The exports, to the bundle that loaded this file (src/internal/pinned-module.ts).
  const handOver = `document.dispatchEvent(new CustomEvent('pg-checkout-module',{detail:{url:import.meta.url,module:{${names.join(',')}}}}));`;
  const {code: minified, errors} = await minify(`${name}.js`, `${js}\n${handOver}\n`, {
    module: true,
  });
  if (errors.length) throw new Error(`minifying ${source}: ${errors[0]!.message}`);
  const code = `/*! pg-checkout | MIT */\n${minified}`;
  const integrity = sriHash(Buffer.from(code));
  return {file: pinnedModuleFile(name, integrity), integrity, code};
}

export function pinnedModulesPlugin(modules: readonly PinnedModuleSource[]): Plugin {
  let built: PinnedModule[] = [];
  return {
    name: 'pg-pinned-modules',
    apply: 'build',
    async config() {
      built = await Promise.all(modules.map((m) => buildPinnedModule(m.source, m.name)));
      const define: Record<string, string> = {};
      modules.forEach((m, i) => {
        const {file, integrity} = built[i]!;
        define[`globalThis.${m.define}`] = JSON.stringify({file, integrity} satisfies ModulePin);
      });
      return {define};
    },
    generateBundle() {
      for (const {file, code} of built)
        this.emitFile({type: 'asset', fileName: file, source: code});
    },
  };
}
