/**
 * The documentation site as the tests see it: built once per run into a temporary folder
 * (`npm run build:docs`'s two steps, with VitePress's `--outDir`), and read as a static host
 * would serve it. `internalLinkProblems` walks every built page's links and anchors.
 */
import {execFile} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {PACKAGE_BUILD_FILES} from '../../../scripts/package-build.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

/**
 * The repository the test build's edit links open (`PG_DOCS_REPOSITORY`): package.json names
 * none until the package's public repository is known, and the site then shows no edit link.
 */
export const TEST_REPOSITORY = 'https://github.com/pg-checkout-docs-test/pg-checkout';

/** What the site is built from: the package build must be there (CI builds before it tests). */
export function requireBuiltPackage(): void {
  for (const file of PACKAGE_BUILD_FILES) {
    if (!existsSync(path.join(ROOT, file))) {
      throw new Error(`${file} is missing: run npm run build before the documentation tests`);
    }
  }
}

/** Builds the site into a fresh temporary folder; resolves to it and a way to remove it. */
export async function buildSite(): Promise<{dir: string; remove(): void}> {
  requireBuiltPackage();
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-docs-'));
  const vitepress = path.join(ROOT, 'node_modules/vitepress/bin/vitepress.js');
  try {
    await run(process.execPath, ['scripts/docs/reference.mjs'], {cwd: ROOT});
    await run(process.execPath, [vitepress, 'build', 'docs', '--outDir', dir], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
      env: {...process.env, PG_DOCS_REPOSITORY: TEST_REPOSITORY},
    });
  } catch (error) {
    rmSync(dir, {recursive: true, force: true});
    const e = error as {stdout?: string; stderr?: string; message: string};
    throw new Error(`the documentation does not build:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
  return {dir, remove: () => rmSync(dir, {recursive: true, force: true})};
}

/** Every HTML page of a built site, as site paths (`/guides/sandbox.html`), but the 404 page. */
export function builtPages(dir: string): string[] {
  return readdirSync(dir, {recursive: true})
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.html') && f !== '404.html')
    .map((f) => `/${f}`)
    .sort();
}

/** The file a site path is served from, as a static host with clean URLs finds it. */
export function fileOf(dir: string, sitePath: string): string | undefined {
  const clean = decodeURIComponent(sitePath).replace(/^\/+/, '');
  const candidates =
    clean === '' || clean.endsWith('/')
      ? [`${clean}index.html`]
      : [clean, `${clean}.html`, `${clean}/index.html`];
  return candidates
    .map((c) => path.join(dir, c))
    .find((f) => existsSync(f) && !f.endsWith(path.sep));
}

const ids = new Map<string, Set<string>>();
function idsOf(file: string): Set<string> {
  let found = ids.get(file);
  if (!found) {
    found = new Set(
      [...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => decodeEntities(m[1]!)),
    );
    ids.set(file, found);
  }
  return found;
}

const decodeEntities = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

/**
 * Every link (`href`, `src`) of every page that stays on the site and does not resolve: a
 * missing page or asset, or an anchor its page does not have. One line per problem, naming
 * the page and the link.
 */
export function internalLinkProblems(dir: string): {problems: string[]; checked: number} {
  const problems: string[] = [];
  let checked = 0;
  for (const page of builtPages(dir)) {
    const html = readFileSync(path.join(dir, page), 'utf8');
    // Code blocks are text, not links.
    const markup = html.replace(/<pre[\s\S]*?<\/pre>/g, '');
    for (const m of markup.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      const raw = decodeEntities(m[1]!);
      if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) continue; // another site
      const url = new URL(raw, `http://site${page}`);
      checked++;
      const file = fileOf(dir, url.pathname);
      if (!file) {
        problems.push(`${page}: ${raw} → no such page or file`);
        continue;
      }
      const anchor = decodeURIComponent(url.hash.slice(1));
      if (anchor && file.endsWith('.html') && !idsOf(file).has(anchor)) {
        problems.push(`${page}: ${raw} → ${path.relative(dir, file)} has no #${anchor}`);
      }
    }
  }
  return {problems, checked};
}
