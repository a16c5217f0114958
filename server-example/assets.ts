/**
 * The demo's static files: the stylesheet and icon from `demo/`, the page scripts built
 * into `dist/demo/` (with `serveStatic` from `@hono/node-server`), and the checkout bundle
 * `dist/cdn/pg-checkout.js`, whose SRI hash the CDN page carries.
 */
import {createHash} from 'node:crypto';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {serveStatic} from '@hono/node-server/serve-static';
import {Hono, type MiddlewareHandler} from 'hono';

/** The checkout bundle, read once (so a rebuild cannot change it under a running page). */
export interface Bundle {
  code: Buffer;
  /** `sha384-...` of `code`: the `integrity` attribute of its script tag. */
  integrity: string;
}

export function loadBundle(file: string): Bundle | undefined {
  if (!existsSync(file)) return undefined;
  const code = readFileSync(file);
  return {code, integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`};
}

/**
 * The modules a checkout page loads on demand as soon as its card form starts — the order
 * request, the saved-card view (the form offers to save the card) and the brand marks (the
 * customer focuses a field first thing) — as the bundle `file` names them
 * (`./order-request-<hash>.js`, ...: the hash changes with each build, and the plain and
 * the hydrating bundle each have their own). The page names them in
 * `<link rel="modulepreload">` so they arrive with the bundle rather than one after another
 * once it has run. Read once; none when the bundle is not built.
 */
export const STARTUP_CHUNKS = ['order-request', 'saved-cards-view', 'brand-marks'] as const;

export function startupChunks(file: string): string[] {
  if (!existsSync(file)) return [];
  const code = readFileSync(file, 'utf8');
  return STARTUP_CHUNKS.flatMap((name) => {
    const found = new RegExp(`import\\(\\s*[\`'"]\\./(${name}-[\\w-]+\\.js)[\`'"]`).exec(code);
    return found ? [found[1]!] : [];
  });
}

const JS = 'text/javascript; charset=utf-8';

/** Files may change with each build: the browser asks again each time. */
const revalidate: MiddlewareHandler = async function revalidate(c, next) {
  await next();
  if (c.res.ok) c.res.headers.set('Cache-Control', 'no-cache');
};

/** The asset routes; `getBundle` answers the bundle read once, if it is built. */
export function assetRoutes(opts: {
  demoDir: string;
  buildDir: string;
  /** The bundle's folder: its `locales/` and brand marks are served beside it, as a CDN would. */
  cdnDir: string;
  getBundle: () => Bundle | undefined;
}): Hono {
  const assets = new Hono();

  // Served by hand from memory: the CDN page's `integrity` is the hash of the bytes read
  // once, and `serveStatic` would read the file anew each time, so a rebuild of dist/
  // while the server runs would fail every page's SRI check (test/e2e/cdn.test.ts).
  assets.get('/assets/pg-checkout.js', function bundleAsset(c) {
    const b = opts.getBundle();
    if (!b) {
      return c.text('// run `npm run build` to build dist/cdn/pg-checkout.js\n', 404, {
        'Content-Type': JS,
      });
    }
    return c.body(new Uint8Array(b.code), 200, {'Content-Type': JS, 'Cache-Control': 'no-cache'});
  });

  // The bundle of pages rendered on the server (pg-checkout/ssr): the same elements,
  // hydrating; and the loader the checkout page names, which fetches that bundle (checked
  // against the hash it was built with) once the page has painted.
  for (const file of ['pg-checkout-hydrate.js', 'pg-checkout-hydrate-after-paint.js']) {
    assets.get(`/assets/${file}`, revalidate, serveStatic({path: path.join(opts.cdnDir, file)}));
  }

  // The modules the bundle loads on demand, next to it: the languages
  // (`./locales/<code>-<hash>.js`), the brand marks (`./brand-marks-<hash>.js`), the order
  // request and the saved-card view (`./order-request-<hash>.js`,
  // `./saved-cards-view-<hash>.js`) and the 3-D Secure dialog's styles
  // (`./challenge-dialog.styles-<hash>.js`). Those names only: nothing else of dist/cdn.
  const besideBundle = serveStatic({
    root: opts.cdnDir,
    rewriteRequestPath: (p) => p.slice('/assets'.length),
  });
  assets.get('/assets/locales/*', besideBundle);
  assets.get(
    '/assets/:chunk{(?:brand-marks|order-request|saved-cards-view|challenge-dialog\\.styles)-[\\w-]+\\.js}',
    besideBundle,
  );

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
