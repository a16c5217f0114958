// The changelog page of the site (docs/changelog.md): the released versions are CHANGELOG.md,
// which `npx changeset version` writes (the page includes it); the next release's notes are
// the changesets not yet released, in .changeset/, written here under "Next release" where
// the page has `<!-- pending-changesets -->`, so a merchant reads what to change before the
// release as after it.
import {existsSync, readFileSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PENDING_PLACEHOLDER = /^<!-- pending-changesets -->$/m;
const BUMPS = ['major', 'minor', 'patch'];

/**
 * The changesets of `dir` not yet released: each one's file, the bump it asks of
 * pg-checkout and its summary. Throws on a changeset that names no bump of pg-checkout.
 */
export function pendingChangesets(dir = path.join(root, '.changeset')) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
      const bump = m && /^['"]?pg-checkout['"]?:\s*(\w+)\s*$/m.exec(m[1])?.[1];
      if (!m || !BUMPS.includes(bump)) {
        throw new Error(`.changeset/${file}: its front matter names no bump of pg-checkout`);
      }
      return {file, bump, summary: m[2].trim()};
    });
}

/** The Markdown of the next release's notes (a level-2 heading and each summary). */
export function pendingChangesetsMarkdown(changesets = pendingChangesets()) {
  const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  if (changesets.length === 0) {
    return `## Next release\n\nNothing is waiting to be released since ${version}.\n`;
  }
  const bump = BUMPS.find((b) => changesets.some((c) => c.bump === b));
  return [
    '## Next release',
    '',
    `Not released yet: the changes since ${version}, a ${bump} release.`,
    '',
    ...changesets.map((c) => `${c.summary}\n`),
  ].join('\n');
}

/** `source` with its `<!-- pending-changesets -->` line replaced by the next release's notes. */
export function expandPendingChangesets(source) {
  return PENDING_PLACEHOLDER.test(source)
    ? source.replace(PENDING_PLACEHOLDER, () => pendingChangesetsMarkdown())
    : source;
}
