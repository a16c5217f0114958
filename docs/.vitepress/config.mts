// The documentation site (VitePress: `npm run docs` serves it, `npm run build:docs` builds
// it to docs/.vitepress/dist). VitePress brings its own Vite 5, apart from the project's
// Vite 8: nothing here imports `vite`. Three things are generated, never written by hand:
//   - each element's API tables, from custom-elements.json (`<!-- element-api: tag -->`);
//   - the pg-checkout/server reference, from the declarations (scripts/docs/reference.mjs,
//     into reference/server/ before VitePress starts);
//   - the live examples' elements: the built CDN bundle (dist/cdn/), served at /cdn/.
import {cpSync, existsSync, readFileSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {defineConfig, type DefaultTheme} from 'vitepress';
import {expandElementApi} from '../../scripts/docs/element-api.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const CDN = path.join(root, 'dist/cdn');
const REFERENCE = path.join(root, 'docs/reference/server');

function requireCdn(): void {
  if (!existsSync(path.join(CDN, 'pg-checkout.js'))) {
    throw new Error('dist/cdn/pg-checkout.js is missing: run npm run build first');
  }
}

/** Serves dist/cdn/ at /cdn/ in the dev server, as the built site has it. */
const cdnPlugin = {
  name: 'pg-docs-cdn',
  configureServer(server: {
    middlewares: {
      use(
        fn: (
          req: {url?: string},
          res: import('node:http').ServerResponse,
          next: () => void,
        ) => void,
      ): void;
    };
  }) {
    server.middlewares.use((req, res, next) => {
      const url = new URL(req.url ?? '/', 'http://docs');
      if (!url.pathname.startsWith('/cdn/')) return next();
      const file = path.join(CDN, path.normalize(url.pathname.slice(5)));
      if (!file.startsWith(CDN) || !existsSync(file)) return next();
      res.setHeader('Content-Type', file.endsWith('.js') ? 'text/javascript' : 'application/json');
      res.end(readFileSync(file));
    });
  },
};

/** The reference's sidebar, from the files TypeDoc wrote (grouped by their folder). */
function referenceSidebar(): DefaultTheme.SidebarItem[] {
  const groups: [string, string][] = [
    ['functions', 'Functions'],
    ['classes', 'Classes'],
    ['interfaces', 'Interfaces'],
    ['type-aliases', 'Types'],
    ['variables', 'Constants'],
  ];
  const items: DefaultTheme.SidebarItem[] = [...reference];
  for (const [dir, text] of groups) {
    const full = path.join(REFERENCE, dir);
    if (!existsSync(full)) continue;
    // Plain groups: VitePress's collapsible ones nest a link in a button (axe: nested-interactive).
    items.push({
      text,
      items: readdirSync(full)
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => ({text: f.slice(0, -3), link: `/reference/server/${dir}/${f.slice(0, -3)}`})),
    });
  }
  return items;
}

const guides: DefaultTheme.SidebarItem[] = [
  {text: 'First payment in five minutes', link: '/guides/first-payment'},
  {text: '3-D Secure', link: '/guides/3d-secure'},
  {text: 'Hosted mode', link: '/guides/hosted-mode'},
  {text: 'Subscriptions', link: '/guides/subscriptions'},
  {text: 'Webhooks', link: '/guides/webhooks'},
  {text: 'Saved cards', link: '/guides/saved-cards'},
  {text: 'CSP and SRI', link: '/guides/csp-and-sri'},
  {text: 'Theming and languages', link: '/guides/theming-and-languages'},
  {text: 'React and other frameworks', link: '/guides/frameworks'},
  {text: 'Server rendering', link: '/guides/server-rendering'},
  {text: 'Never lose, never double', link: '/guides/reliability'},
  {text: 'Several instances on PostgreSQL', link: '/guides/several-instances'},
  {text: 'The sandbox', link: '/guides/sandbox'},
  {text: 'Going live', link: '/guides/going-live'},
  {text: 'Security and PCI DSS', link: '/guides/security'},
  {text: 'The demo shop', link: '/guides/demo'},
];

const reference: DefaultTheme.SidebarItem[] = [
  {text: 'Routes, errors, client', link: '/reference/http'},
  {text: 'The sandbox', link: '/reference/sandbox'},
  {text: 'pg-checkout/server', link: '/reference/server/'},
];

const contributing: DefaultTheme.SidebarItem[] = [
  {text: 'Development and the tree', link: '/contributing/'},
  {text: 'Benchmarks', link: '/contributing/benchmarks'},
];

const elements: DefaultTheme.SidebarItem[] = [
  {text: '&lt;pg-card-form&gt;', link: '/elements/card-form'},
  {text: '&lt;pg-3ds-redirect&gt;', link: '/elements/3ds-redirect'},
  {text: '&lt;pg-fingerprint&gt;', link: '/elements/fingerprint'},
];

export default defineConfig({
  title: 'pg-checkout',
  description:
    "Card checkout elements, a merchant companion server and a local sandbox for the payment gateway's direct mode.",
  lang: 'en-US',
  // Light only: the appearance switch has no accessible name until hydrated (axe), and the
  // elements follow the reader's prefers-color-scheme by themselves.
  appearance: false,
  srcExclude: ['snippets/**', 'screenshots/**', 'examples/**', '**/README.md'],
  head: [['script', {type: 'module', src: '/cdn/pg-checkout.js'}]],
  vue: {
    template: {compilerOptions: {isCustomElement: (tag: string) => tag.startsWith('pg-')}},
  },
  markdown: {
    // The high-contrast pair: every token of a code block reads at 4.5:1 or more (axe).
    theme: {light: 'github-light-high-contrast', dark: 'github-dark-high-contrast'},
    config(md) {
      // Before Markdown is parsed, so the tables are Markdown like the rest of the page.
      md.core.ruler.before('normalize', 'pg-element-api', (state) => {
        state.src = expandElementApi(state.src);
      });
    },
  },
  vite: {
    plugins: [cdnPlugin],
    build: {chunkSizeWarningLimit: 2048}, // the local search index is one chunk
    server: process.env.PG_DOCS_BACKEND ? {proxy: {'/checkout': process.env.PG_DOCS_BACKEND}} : {},
  },
  buildEnd(site) {
    requireCdn();
    cpSync(CDN, path.join(site.outDir, 'cdn'), {recursive: true});
  },
  themeConfig: {
    search: {provider: 'local'},
    outline: [2, 3],
    nav: [
      {text: 'Guides', link: '/guides/first-payment'},
      {text: 'Elements', link: '/elements/card-form'},
      {text: 'Server reference', link: '/reference/server/'},
      {text: 'Contributing', link: '/contributing/'},
    ],
    sidebar: {
      '/reference/': referenceSidebar(),
      '/': [
        {text: 'Guides', items: guides},
        {text: 'Elements', items: elements},
        {text: 'Reference', items: reference},
        {text: 'Contributing', items: contributing},
      ],
    },
  },
});
