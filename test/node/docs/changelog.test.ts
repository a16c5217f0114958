/**
 * Releases with Changesets: every pending changeset bumps pg-checkout and says what a merchant
 * on the current version must change; `changeset version`, run on a copy of the repository,
 * turns them into the next version and the top entry of CHANGELOG.md, as a release would; the
 * changelog's latest version is package.json's, which the site and `pg-checkout-sandbox
 * --version` show; and the site's changelog page writes the pending ones under "Next release".
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {execFile} from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {promisify} from 'node:util';
import {
  expandPendingChangesets,
  pendingChangesets,
  pendingChangesetsMarkdown,
} from '../../../scripts/docs/changelog.mjs';
import {ROOT} from './site.js';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};
const [major, minor] = pkg.version.split('.');

describe('releases', () => {
  test("CHANGELOG.md's latest version is package.json's", () => {
    const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
    assert.equal(/^## (\S+)/m.exec(changelog)?.[1], pkg.version);
  });

  test('every pending changeset bumps pg-checkout and says what a merchant must change', () => {
    const pending = pendingChangesets();
    for (const {file, summary} of pending) {
      assert.match(
        summary,
        new RegExp(`\\*\\*Upgrading from ${major}\\.${minor}\\.x\\*\\*`),
        `${file}: an "Upgrading from ${major}.${minor}.x" paragraph`,
      );
      const after = summary.slice(summary.indexOf('**Upgrading from'));
      assert.match(after, /\n\s*1\. |Nothing to change/, `${file}: a list, or "Nothing to change"`);
    }
  });

  test('changeset version turns the pending changesets into the next version and its changelog entry', async () => {
    const pending = pendingChangesets();
    const dir = mkdtempSync(path.join(tmpdir(), 'pg-release-'));
    try {
      for (const f of ['package.json', 'CHANGELOG.md', '.changeset']) {
        cpSync(path.join(ROOT, f), path.join(dir, f), {recursive: true});
      }
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      await promisify(execFile)(
        process.execPath,
        [path.join(ROOT, 'node_modules/@changesets/cli/bin.js'), 'version'],
        {cwd: dir},
      );
      const next = (
        JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {version: string}
      ).version;
      const changelog = readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8');
      if (pending.length === 0) {
        assert.equal(next, pkg.version);
        return;
      }
      assert.notEqual(next, pkg.version);
      const entry = changelog.slice(
        changelog.indexOf(`## ${next}`),
        changelog.indexOf(`## ${pkg.version}`),
      );
      assert.ok(entry.length > 0, `CHANGELOG.md has ## ${next} above ## ${pkg.version}`);
      for (const {summary} of pending) {
        const first = summary.split('\n')[0]!;
        assert.ok(entry.includes(first), `the entry holds "${first}"`);
      }
      assert.match(entry, /Upgrading from/);
      assert.deepEqual(
        readdirSync(path.join(dir, '.changeset')).sort(),
        ['README.md', 'config.json'],
        'the released changesets are gone',
      );
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  });

  test("the site's changelog page puts the pending changesets under Next release", () => {
    const page = expandPendingChangesets('# Changelog\n\n<!-- pending-changesets -->\n\nrest\n');
    assert.match(page, /^## Next release$/m);
    for (const {summary} of pendingChangesets()) assert.ok(page.includes(summary));
    assert.match(pendingChangesetsMarkdown([]), /Nothing is waiting to be released/);
    const bad = mkdtempSync(path.join(tmpdir(), 'pg-changesets-'));
    try {
      writeFileSync(path.join(bad, 'loose.md'), 'A change with no front matter.\n');
      assert.throws(() => pendingChangesets(bad), /loose\.md: its front matter names no bump/);
    } finally {
      rmSync(bad, {recursive: true, force: true});
    }
  });
});
