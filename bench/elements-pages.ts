/**
 * Helpers of the element benchmarks (not a benchmark itself): builds the CDN bundle when
 * it is missing, serves small test pages over HTTP and launches Chromium.
 */
import {execFileSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, readFileSync, readdirSync, statSync} from 'node:fs';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {gzipSync} from 'node:zlib';
import type {Browser} from 'playwright';
import {launchChromium} from '../scripts/chromium.mjs';

export const CDN_FILE = 'dist/cdn/pg-checkout.js';
/** The CDN file of server-rendered pages (pg-checkout/ssr): the elements with hydration. */
export const CDN_HYDRATE_FILE = 'dist/cdn/pg-checkout-hydrate.js';

/** Modification time of the newest file under `dir` (recursively). */
function newestMtime(dir: string): number {
  return readdirSync(dir, {recursive: true})
    .map((f) => statSync(path.join(dir, String(f))))
    .reduce((m, s) => (s.isFile() ? Math.max(m, s.mtimeMs) : m), 0);
}

/**
 * Builds dist/cdn/pg-checkout.js (or, with `hydrate`, pg-checkout-hydrate.js) when it is
 * missing or older than the sources or its build configuration, so a benchmark never
 * measures a stale bundle.
 */
export function ensureCdnBundle(hydrate = false): Buffer {
  const file = hydrate ? CDN_HYDRATE_FILE : CDN_FILE;
  const stale =
    !existsSync(file) ||
    statSync(file).mtimeMs <
      Math.max(
        newestMtime('src'),
        ...[
          'vite.config.ts',
          'scripts/vite/minify-templates.ts',
          'scripts/vite/after-paint-loader.ts',
        ].map((f) => statSync(f).mtimeMs),
      );
  if (stale) {
    execFileSync(process.execPath, ['scripts/build.mjs', hydrate ? 'cdn-hydrate' : 'cdn'], {
      stdio: 'inherit',
    });
  }
  return readFileSync(file);
}

/**
 * Every other file of dist/cdn, by its path on the page's origin (`/brand-marks-….js`,
 * `/locales/uk-….js`): the chunks the bundles import on demand, relative to themselves.
 * A page that loads a bundle from `/` is served them, as from a CDN, so a benchmark never
 * measures a chunk's 404 in place of its load.
 */
export function cdnChunks(): Record<string, [string, Buffer]> {
  const dir = path.dirname(CDN_FILE);
  const files: Record<string, [string, Buffer]> = {};
  for (const file of readdirSync(dir, {recursive: true, encoding: 'utf8'})) {
    const name = file.replaceAll('\\', '/');
    if (!name.endsWith('.js') || [CDN_FILE, CDN_HYDRATE_FILE].includes(`${dir}/${name}`)) continue;
    files[`/${name}`] = ['text/javascript', readFileSync(path.join(dir, name))];
  }
  return files;
}

/**
 * Serves `pages` (path → [content type, body]) on 127.0.0.1 the way a CDN serves static
 * files, the same for every page: gzip when the browser accepts it (Chromium offers br and
 * zstd only over HTTPS), a validator and a long `Cache-Control`. The benchmarks load each
 * page in a fresh browser context, so nothing is ever served from a cache: the headers only
 * keep the responses realistic.
 */
export async function servePages(
  pages: Record<string, [string, string | Buffer]>,
): Promise<{origin: string; close(): Promise<void>}> {
  const encoded = new Map<string, {raw: Buffer; gzip: Buffer; etag: string}>();
  for (const [pathname, [, body]] of Object.entries(pages)) {
    const raw = Buffer.from(body);
    encoded.set(pathname, {
      raw,
      gzip: gzipSync(raw, {level: 9}),
      etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 16)}"`,
    });
  }
  const server: Server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const page = pages[pathname];
    const body = encoded.get(pathname);
    if (!page || !body) {
      res.writeHead(404, {'Content-Type': 'text/plain'});
      res.end();
      return;
    }
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const data = gzip ? body.gzip : body.raw;
    res.writeHead(200, {
      'Content-Type': page[0],
      'Content-Length': data.length,
      'Cache-Control': page[0].startsWith('text/html')
        ? 'public, max-age=0, must-revalidate'
        : 'public, max-age=31536000, immutable',
      ETag: body.etag,
      Vary: 'Accept-Encoding',
      ...(gzip ? {'Content-Encoding': 'gzip'} : {}),
    });
    res.end(data);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function launch(): Promise<Browser> {
  return launchChromium();
}
