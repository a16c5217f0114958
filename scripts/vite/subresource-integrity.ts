/**
 * Vite plugin of the CDN build: once the bundle is written, computes its SRI hash (sha384)
 * and writes it next to the file, as `<file>.sri` (the hash alone, for scripts and the
 * README's snippet test) and `<name>.integrity.json` (hash, bytes, gzip and brotli sizes);
 * prints the sizes and the `integrity="..."` attribute to paste; and fails the build when
 * the gzip size is over the budget.
 */
import {createHash} from 'node:crypto';
import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {brotliCompressSync, constants, gzipSync} from 'node:zlib';
import type {Plugin} from 'vite';

export function subresourceIntegrity(opts: {fileName: string; budgetGzip: number}): Plugin {
  return {
    name: 'pg-subresource-integrity',
    apply: 'build',
    writeBundle(output) {
      const dir = output.dir ?? path.dirname(output.file ?? '.');
      const file = path.join(dir, opts.fileName);
      const code = readFileSync(file);
      const integrity = `sha384-${createHash('sha384').update(code).digest('base64')}`;
      const gzip = gzipSync(code, {level: 9}).length;
      const brotli = brotliCompressSync(code, {
        params: {[constants.BROTLI_PARAM_QUALITY]: 11},
      }).length;
      writeFileSync(`${file}.sri`, `${integrity}\n`);
      writeFileSync(
        path.join(dir, `${path.basename(opts.fileName, '.js')}.integrity.json`),
        `${JSON.stringify({file: opts.fileName, integrity, bytes: code.length, gzip, brotli}, null, 2)}\n`,
      );
      console.log(
        `built ${path.relative(process.cwd(), file)}: ${code.length} B, ${gzip} B gzip, ${brotli} B brotli`,
      );
      console.log(`integrity="${integrity}"`);
      if (gzip > opts.budgetGzip) {
        this.error(`${opts.fileName} is ${gzip} B gzip, over the ${opts.budgetGzip} B budget`);
      }
    },
  };
}
