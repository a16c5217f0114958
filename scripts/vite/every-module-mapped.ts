/**
 * Vite plugin of the Node library build: gives every built module its source map. Rolldown
 * writes none for a module that only re-exports (src/server/index.ts, the folders'
 * index.ts), which has no code of its own to map; the published layout (every `.js` with
 * its `.js.map`, as tsc emitted it before the build moved to Vite) keeps one for it too, with
 * the source and no mappings.
 */
import path from 'node:path';
import type {Plugin} from 'vite';

export function everyModuleMapped(): Plugin {
  return {
    name: 'pg-every-module-mapped',
    apply: 'build',
    generateBundle(options, bundle) {
      if (!options.sourcemap) return;
      for (const chunk of Object.values(bundle)) {
        const mapFile = `${chunk.fileName}.map`;
        if (chunk.type !== 'chunk' || mapFile in bundle || !chunk.facadeModuleId) continue;
        const outDir = options.dir ?? '.';
        const source = path
          .relative(path.dirname(path.resolve(outDir, chunk.fileName)), chunk.facadeModuleId)
          .replaceAll('\\', '/');
        const file = path.posix.basename(chunk.fileName);
        chunk.code += `//# sourceMappingURL=${file}.map\n`;
        this.emitFile({
          type: 'asset',
          fileName: mapFile,
          source: JSON.stringify({version: 3, file, sources: [source], names: [], mappings: ''}),
        });
      }
    },
  };
}
