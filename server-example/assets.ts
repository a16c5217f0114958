/**
 * The demo's static files: the stylesheet and icon from `demo/`, the page scripts built
 * into `dist/demo/` (with `serveStatic` from `@hono/node-server`), and the CDN files of
 * `dist/cdn/` — the bundles, the after-paint loader and the locales — as the script
 * inventory the build writes beside them lists them (`pg-checkout.inventory.json`), each
 * read once, with the SRI hash the pages' `integrity` attributes carry.
 */
import {createHash} from 'node:crypto';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {serveStatic} from '@hono/node-server/serve-static';
import {Hono, type MiddlewareHandler} from 'hono';

/** A file of the CDN folder, read once (so a rebuild cannot change it under a running page). */
export interface Bundle {
  code: Buffer;
  /** `sha384-...` of `code`: the `integrity` attribute of its script tag. */
  integrity: string;
  /** `script` or `data` (JSON), as the inventory says. */
  kind: 'script' | 'data';
}

/** The CDN folder's files by their path in it (`pg-checkout.js`, `locales/pl-….json`). */
export type CdnFiles = ReadonlyMap<string, Bundle>;

/** A path of the inventory: a file of the folder or of a folder in it, never outside. */
const INVENTORY_PATH = /^(?:[\w-]+\/)?[\w-][\w.-]*\.(?:js|json)$/;

/**
 * The files of `dir` its script inventory lists, read now; undefined when it is not built
 * (no inventory). Served as they are on disk: checking them against the inventory is the
 * page check's job (`pg-checkout-verify-page`), and the inventory is the merchant's
 * evidence, kept apart.
 */
export function loadCdn(dir: string): CdnFiles | undefined {
  const inventory = path.join(dir, 'pg-checkout.inventory.json');
  if (!existsSync(inventory)) return undefined;
  const {files} = JSON.parse(readFileSync(inventory, 'utf8')) as {
    files: Array<{file: string; kind: 'script' | 'data'}>;
  };
  const cdn = new Map<string, Bundle>();
  for (const {file, kind} of files) {
    if (!INVENTORY_PATH.test(file))
      throw new Error(`${inventory}: not a file of the folder: ${file}`);
    const code = readFileSync(path.join(dir, file));
    cdn.set(file, {
      code,
      kind,
      integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
    });
  }
  return cdn;
}

const JS = 'text/javascript; charset=utf-8';

/** Files may change with each build: the browser asks again each time. */
const revalidate: MiddlewareHandler = async function revalidate(c, next) {
  await next();
  if (c.res.ok) c.res.headers.set('Cache-Control', 'no-cache');
};

/** The asset routes; `getCdn` answers the CDN files read once, if they are built. */
export function assetRoutes(opts: {
  demoDir: string;
  buildDir: string;
  getCdn: () => CdnFiles | undefined;
}): Hono {
  const assets = new Hono();

  // Served by hand from memory: a page's `integrity` is the hash of the bytes read once,
  // and `serveStatic` would read the file anew each time, so a rebuild of dist/ while the
  // server runs would fail every page's SRI check (test/e2e/cdn.test.ts). The inventory's
  // files only: nothing else of dist/cdn.
  assets.get('/assets/*', function cdnAsset(c) {
    const name = c.req.path.slice('/assets/'.length);
    const cdn = opts.getCdn();
    const file = cdn?.get(name);
    if (!file) {
      return c.text(cdn ? 'not found\n' : '// run `npm run build` to build dist/cdn/\n', 404, {
        'Content-Type': JS,
      });
    }
    return c.body(new Uint8Array(file.code), 200, {
      'Content-Type': file.kind === 'script' ? JS : 'application/json',
      'Cache-Control': 'no-cache',
    });
  });

  for (const file of ['styles.css', 'favicon.svg']) {
    assets.get(`/demo/${file}`, revalidate, serveStatic({path: path.join(opts.demoDir, file)}));
  }
  assets.get(
    '/demo/js/*',
    revalidate,
    serveStatic({root: opts.buildDir, rewriteRequestPath: (p) => p.slice('/demo/js'.length)}),
  );
  assets.get('/demo/*', (c) => c.text('not found: run `npm run build`', 404));
  return assets;
}
