/**
 * Serves the documentation with its live examples working: the site and, on the same
 * origin, the companion under `/checkout` in front of an in-process gateway sandbox
 * (scripts/docs/backend.ts), so the examples' `endpoint="/checkout/pay"` pays as written.
 *
 *   npm run docs                 VitePress's dev server (the reference written first)
 *   npm run docs -- --built      the built site (npm run build:docs), as the tests serve it
 *   PORT=5199 npm run docs       another port (default 5173)
 */
import {serve, type ServerType} from '@hono/node-server';
import {serveStatic} from '@hono/node-server/serve-static';
import {Hono} from 'hono';
import {existsSync} from 'node:fs';
import type {AddressInfo} from 'node:net';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {startDocsBackend, type DocsBackend} from './backend.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SITE_DIR = path.join(root, 'docs/.vitepress/dist');

function listen(fetch: (request: Request) => Response | Promise<Response>, port: number) {
  return new Promise<ServerType>((resolve) => {
    const server = serve({fetch, port, hostname: '127.0.0.1'}, () => resolve(server));
  });
}

export interface ServedSite {
  url: string;
  backend: DocsBackend;
  close(): Promise<void>;
}

/** The built site (`dir`) and the companion on one origin. `port` 0 picks a free one. */
export async function serveBuiltSite(port = 0, dir = SITE_DIR): Promise<ServedSite> {
  if (!existsSync(path.join(dir, 'index.html'))) {
    throw new Error(`${path.relative(root, dir)} has no site: run npm run build:docs first`);
  }
  // The companion's publicUrl is this server's address, known once it listens.
  const started: {backend?: DocsBackend} = {};
  const app = new Hono();
  app.all('/checkout/*', (c) => started.backend!.app.fetch(c.req.raw, c.env));
  const rel = path.relative(process.cwd(), dir) || '.';
  app.use('*', serveStatic({root: rel}));
  // Clean URLs, as a static host serves VitePress's pages: /guides/x → /guides/x.html.
  app.use('*', serveStatic({root: rel, rewriteRequestPath: (p) => `${p}.html`}));
  app.notFound((c) => c.text('not found', 404));
  const server = await listen(app.fetch, port);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const backend = await startDocsBackend(url);
  started.backend = backend;
  return {
    url,
    backend,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await backend.close();
    },
  };
}

async function serveDev(port: number): Promise<void> {
  const {writeServerReference} = await import('./reference.mjs');
  await writeServerReference();
  const origin = `http://localhost:${port}`;
  const backend = await startDocsBackend(origin, false);
  const api = await listen(backend.app.fetch, 0);
  process.env['PG_DOCS_BACKEND'] = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const {createServer} = await import('vitepress');
  const server = await createServer(path.join(root, 'docs'), {port, strictPort: true});
  await server.listen();
  server.printUrls();
  console.log(`docs: live examples pay against the sandbox at ${backend.sandbox.url}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env['PORT'] ?? 5173);
  if (process.argv.includes('--built')) {
    const site = await serveBuiltSite(port);
    console.log(`docs: the built site on ${site.url}`);
  } else {
    await serveDev(port);
  }
}
