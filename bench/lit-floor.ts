/**
 * Builds bench/fixtures/lit-floor.ts into one minified ES module as the CDN file is built
 * (Rolldown through Vite, Lit's production build, templates minified, the same first-line
 * compile hint when the CDN file has one), for the interactive bench's `litFloor` page.
 */
import {fileURLToPath} from 'node:url';
import {build, type Rollup} from 'vite';
import {minifyTemplatesPlugin} from '../scripts/vite/minify-templates.js';

/** The comment lines the CDN file starts with that V8 reads (the compile hint), if any. */
function compileHintOf(cdnFile: Buffer): string {
  return cdnFile
    .toString('utf8', 0, 512)
    .split('\n')
    .filter((line) => line.startsWith('//# '))
    .map((line) => `${line}\n`)
    .join('');
}

export async function buildLitFloor(cdnFile: Buffer): Promise<string> {
  const result = (await build({
    configFile: false,
    logLevel: 'silent',
    plugins: [minifyTemplatesPlugin(/[\\/]bench[\\/]fixtures[\\/]lit-floor\.ts$/)],
    resolve: {conditions: ['module', 'browser', 'production']},
    build: {
      write: false,
      minify: true,
      target: 'es2022',
      modulePreload: false,
      rolldownOptions: {input: fileURLToPath(new URL('fixtures/lit-floor.ts', import.meta.url))},
    },
  })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const output = (Array.isArray(result) ? result[0]! : result).output;
  const chunk = output.find((o): o is Rollup.OutputChunk => o.type === 'chunk' && o.isEntry);
  if (!chunk) throw new Error('building bench/fixtures/lit-floor.ts produced no entry chunk');
  return compileHintOf(cdnFile) + chunk.code;
}
