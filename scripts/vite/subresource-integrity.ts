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

/** The `integrity` value of a file's bytes (sha384). */
export const sriHash = (code: Buffer): string =>
  `sha384-${createHash('sha384').update(code).digest('base64')}`;

/**
 * Writes the SRI files of `dir/fileName` and prints its sizes; answers why the build must
 * fail (over the gzip budget), else undefined.
 */
export function writeIntegrity(dir: string, fileName: string, budgetGzip: number) {
  const file = path.join(dir, fileName);
  const code = readFileSync(file);
  const integrity = sriHash(code);
  const gzip = gzipSync(code, {level: 9}).length;
  const brotli = brotliCompressSync(code, {
    params: {[constants.BROTLI_PARAM_QUALITY]: 11},
  }).length;
  writeFileSync(`${file}.sri`, `${integrity}\n`);
  writeFileSync(
    path.join(dir, `${path.basename(fileName, '.js')}.integrity.json`),
    `${JSON.stringify({file: fileName, integrity, bytes: code.length, gzip, brotli}, null, 2)}\n`,
  );
  console.log(
    `built ${path.relative(process.cwd(), file)}: ${code.length} B, ${gzip} B gzip, ${brotli} B brotli`,
  );
  console.log(`integrity="${integrity}"`);
  return gzip > budgetGzip
    ? `${fileName} is ${gzip} B gzip, over the ${budgetGzip} B budget`
    : undefined;
}

export function subresourceIntegrity(opts: {fileName: string; budgetGzip: number}): Plugin {
  return {
    name: 'pg-subresource-integrity',
    apply: 'build',
    writeBundle(output) {
      const dir = output.dir ?? path.dirname(output.file ?? '.');
      const problem = writeIntegrity(dir, opts.fileName, opts.budgetGzip);
      if (problem) this.error(problem);
    },
  };
}
