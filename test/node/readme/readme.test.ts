/**
 * The README is a door, not a manual: the two commands first (and true), a few lines on
 * what the project is, a picture, and a map into the documentation site in docs/, where
 * every guide is one click away. What it used to hold at length lives on the site, where
 * the site's own tests check it (test/node/docs/).
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {existsSync, readFileSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {ROOT} from './merchant-project.js';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** Every link and image target of the README that is not a web address. */
function localTargets(markdown: string): string[] {
  const targets = [
    ...[...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!),
    ...[...markdown.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^[a-z]+:/.test(t));
}

describe('the README', () => {
  test('starts with the two commands, and both are scripts of the package', () => {
    const first = /```sh\n([\s\S]*?)```/.exec(README);
    assert.ok(
      first && README.indexOf(first[0]) < README.indexOf('\n## '),
      'the commands come first',
    );
    assert.match(first[1]!, /^npm install && npm start\s+#/m);
    assert.match(first[1]!, /^npm test\s+#/m);
    const {scripts = {}} = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    assert.ok(scripts.start && scripts.test, 'npm start and npm test exist');
    assert.ok(scripts.docs && scripts['build:docs'], 'npm run docs, which the README names');
  });

  test('fits on a screen or two, and holds no code the site shows at length', () => {
    const lines = README.split('\n').length;
    assert.ok(lines <= 80, `${lines} lines`);
    const fences = README.match(/^```/gm) ?? [];
    assert.equal(fences.length, 2, 'one code block: the two commands');
    assert.doesNotMatch(README, /<!-- snippet:/);
  });

  test('every link and picture it shows is a file of the repository', () => {
    const targets = localTargets(README);
    assert.ok(targets.length >= 15, `only ${targets.length} local links`);
    const missing = targets.filter((t) => !existsSync(path.join(ROOT, t.replace(/#.*$/, ''))));
    assert.deepEqual(missing, []);
    assert.ok(
      targets.some((t) => t.startsWith('docs/screenshots/') && t.endsWith('.png')),
      'a screenshot',
    );
  });

  test('a first payment, theming and going live are one click away, and so is every guide', () => {
    const targets = new Set(localTargets(README));
    for (const page of [
      'docs/guides/first-payment.md',
      'docs/guides/theming-and-languages.md',
      'docs/guides/going-live.md',
    ]) {
      assert.ok(targets.has(page), `the README does not link ${page}`);
    }
    const guides = readdirSync(path.join(ROOT, 'docs/guides'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/guides/${f}`);
    assert.deepEqual(
      guides.filter((g) => !targets.has(g)),
      [],
      'guides the README does not map',
    );
    for (const page of ['docs/contributing/index.md', 'docs/contributing/benchmarks.md']) {
      assert.ok(targets.has(page), `contributors cannot find ${page}`);
    }
  });
});
