/**
 * Every relative link of the README and of the documentation's pages resolves both where
 * people read them: on GitHub (the target is a committed file: not one the build or the
 * site generates, such as docs/reference/server/, which is gitignored) and on the docs
 * site (a page's link to a page stays in docs/ and to a page the site builds: not one it
 * leaves out, `srcExclude`). Seven links pointed into docs/reference/server/ and read 404
 * on GitHub. (Anchors are not checked here: GitHub and VitePress spell some differently.)
 */
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tracked = new Set(
  execFileSync('git', ['ls-files'], {cwd: root, encoding: 'utf8'}).split('\n').filter(Boolean),
);
const dirs = new Set(
  [...tracked].flatMap((f) =>
    f
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);

/** What docs/.vitepress/config.mts leaves out of the site (`srcExclude`). */
const SITE_EXCLUDES = [/^docs\/(snippets|screenshots|examples)\//, /(^|\/)README\.md$/];
const onSite = (file: string) =>
  file.startsWith('docs/') && !SITE_EXCLUDES.some((r) => r.test(file));

/** The relative links of a Markdown file, outside code blocks. */
function linksOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z][a-z+.-]*:/i.test(href) && !href.startsWith('/'));
}

const pages = ['README.md', ...[...tracked].filter((f) => /^docs\/.*\.md$/.test(f))];

test('every relative link of the README and the docs resolves on GitHub and on the site', () => {
  const broken: string[] = [];
  for (const page of pages) {
    for (const href of linksOf(page)) {
      const target = href.split('#')[0]!.split('?')[0]!;
      if (!target) continue;
      const file = path.posix
        .normalize(path.posix.join(path.posix.dirname(page), target))
        .replace(/\/$/, '');
      if (!tracked.has(file) && !dirs.has(file)) {
        broken.push(`${page}: ${href} (GitHub: ${file} is not a committed file)`);
        continue;
      }
      // Images and other files a page links are assets the site copies; pages must be built.
      if (onSite(page) && file.endsWith('.md') && !onSite(file)) {
        broken.push(`${page}: ${href} (site: ${file} is not a page it builds)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
