/**
 * Vite plugin of the `cdn-hydrate` target: once pg-checkout-hydrate.js is written, builds
 * pg-checkout-hydrate-after-paint.js beside it from src/hydrate-after-paint.ts, with the
 * hydrating file's SRI hash written in (the loader refuses any other file), minified, and
 * with its own SRI files (`writeIntegrity`). The loader is one small module that imports
 * nothing, so it needs no build of its own: its types are stripped and it is minified by
 * the tools Vite ships.
 */
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {minify, transformWithOxc, type Plugin} from 'vite';
import {sriHash, writeIntegrity} from './subresource-integrity.js';

/** The placeholder of src/hydrate-after-paint.ts that the hash replaces. */
const PLACEHOLDER = '__PG_HYDRATE_INTEGRITY__';

export function afterPaintLoader(opts: {
  source: string;
  hydrateFile: string;
  fileName: string;
  budgetGzip: number;
}): Plugin {
  return {
    name: 'pg-after-paint-loader',
    apply: 'build',
    async writeBundle(output) {
      const dir = output.dir ?? path.dirname(output.file ?? '.');
      const integrity = sriHash(readFileSync(path.join(dir, opts.hydrateFile)));
      const {code: js} = await transformWithOxc(readFileSync(opts.source, 'utf8'), opts.source, {
        lang: 'ts',
      });
      if (!js.includes(PLACEHOLDER)) this.error(`${opts.source} has no ${PLACEHOLDER}`);
      const filled = js.replaceAll(PLACEHOLDER, JSON.stringify(integrity));
      const {code, errors} = await minify(opts.fileName, filled, {module: true});
      if (errors.length) this.error(`minifying ${opts.fileName}: ${errors[0]!.message}`);
      writeFileSync(path.join(dir, opts.fileName), `/*! pg-checkout | MIT */\n${code}`);
      const problem = writeIntegrity(dir, opts.fileName, opts.budgetGzip);
      if (problem) this.error(problem);
    },
  };
}
