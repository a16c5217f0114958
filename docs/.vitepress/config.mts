// The documentation site (VitePress: `npm run docs` serves it, `npm run build:docs` builds
// it to docs/.vitepress/dist). VitePress brings its own Vite 5, apart from the project's
// Vite 8: nothing here imports `vite`. What is generated, never written by hand:
//   - each element's API tables, from custom-elements.json (`<!-- element-api: tag -->`);
//   - the pg-checkout/server reference, from the declarations (scripts/docs/reference.mjs,
//     into reference/server/ before VitePress starts);
//   - the live examples' elements: the built CDN bundle (dist/cdn/), served at /cdn/;
//   - the pnpm and Yarn tabs of each block of npm install commands
//     (scripts/docs/package-managers.mjs), and the file name above a block whose fence has
//     one (```ts [checkout.ts]: scripts/docs/snippets.mjs writes them from the files);
//   - the changelog page's next release, from the pending changesets
//     (scripts/docs/changelog.mjs), and the version in the navigation, from package.json.
import {cpSync, existsSync, readFileSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {defineConfig, type DefaultTheme} from 'vitepress';
import {expandPendingChangesets} from '../../scripts/docs/changelog.mjs';
import {expandElementApi} from '../../scripts/docs/element-api.mjs';
import {packageManagerTabs} from '../../scripts/docs/package-managers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const CDN = path.join(root, 'dist/cdn');
const REFERENCE = path.join(root, 'docs/reference/server');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  repository?: {url: string};
};
/**
 * `https://github.com/owner/name`, the repository whose files the pages' edit links open:
 * `PG_DOCS_REPOSITORY`, else package.json's `repository`. The package names none until its
 * public repository is known, and without one the pages have no edit link (a link to a
 * guessed repository would lead a reader astray).
 */
const REPOSITORY = (process.env.PG_DOCS_REPOSITORY || pkg.repository?.url)
  ?.replace(/^git\+/, '')
  .replace(/\.git$/, '');

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

/** Whether the fence at `idx` is inside a `::: code-group` (whose tabs show the titles). */
function inCodeGroup(tokens: {type: string}[], idx: number): boolean {
  for (let i = idx - 1; i >= 0; i--) {
    if (tokens[i]!.type === 'container_code-group_close') return false;
    if (tokens[i]!.type === 'container_code-group_open') return true;
  }
  return false;
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
  {text: 'Monitoring: metrics and traces', link: '/guides/monitoring'},
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
  {text: 'Changelog', link: '/changelog'},
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
  // Light, dark, or the reader's preference until they choose; the live examples follow the
  // site's scheme (theme/live-theme.ts sets their `theme`).
  appearance: true,
  lastUpdated: true,
  srcExclude: ['snippets/**', 'screenshots/**', 'examples/**', '**/README.md'],
  head: [
    ['link', {rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg'}],
    ['script', {type: 'module', src: '/cdn/pg-checkout.js'}],
  ],
  vue: {
    template: {compilerOptions: {isCustomElement: (tag: string) => tag.startsWith('pg-')}},
  },
  markdown: {
    // The high-contrast pair: every token of a code block reads at 4.5:1 or more (axe).
    theme: {light: 'github-light-high-contrast', dark: 'github-dark-high-contrast'},
    config(md) {
      // Before Markdown is parsed, so what they write is Markdown like the rest of the page.
      md.core.ruler.before('normalize', 'pg-element-api', (state) => {
        state.src = packageManagerTabs(expandPendingChangesets(expandElementApi(state.src)));
      });
      // A fence's title (```ts [checkout.ts]) above its block; VitePress shows one only as
      // the tab of a code group, and drops it elsewhere.
      const fence = md.renderer.rules.fence!;
      md.renderer.rules.fence = (tokens, idx, options, env, self) => {
        const title = /\[(.*)\]/.exec(tokens[idx]!.info)?.[1];
        const html = fence(tokens, idx, options, env, self);
        if (!title || inCodeGroup(tokens, idx)) return html;
        return `<div class="code-file"><div class="code-file-name">${md.utils.escapeHtml(title)}</div>${html}</div>`;
      };
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
    ...(REPOSITORY
      ? {
          editLink: {
            pattern: `${REPOSITORY}/edit/main/docs/:path`,
            text: 'Edit this page on GitHub',
          },
        }
      : {}),
    nav: [
      {text: 'Guides', link: '/guides/first-payment'},
      {text: 'Elements', link: '/elements/card-form'},
      {text: 'Server reference', link: '/reference/server/'},
      {text: 'Contributing', link: '/contributing/'},
      {text: `v${pkg.version}`, link: '/changelog'},
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
