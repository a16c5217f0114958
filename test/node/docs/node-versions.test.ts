/**
 * The Node.js versions the documentation states are the ones package.json's `engines` allows
 * (npm warns on any other): the contributor guide quotes the range as written, and the first
 * guide names the lowest version of each line the range allows (20.19 on 20, 22.12 after it).
 * A change of `engines` that the pages do not follow fails here, naming the page.
 */
import {describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {ROOT} from './site.js';

const engines = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {engines: {node: string}}
).engines.node;
const page = (name: string) => readFileSync(path.join(ROOT, 'docs', name), 'utf8');

/** The lowest version of each part of a range made of `^X.Y.Z` and `>=X.Y.Z` parts, as `X.Y`. */
function lowestVersions(range: string): string[] {
  return range.split('||').map((part) => {
    const m = /^\s*(?:\^|>=)(\d+)\.(\d+)\.\d+\s*$/.exec(part);
    if (!m) throw new Error(`engines.node part "${part}" is not ^X.Y.Z or >=X.Y.Z`);
    return `${m[1]}.${m[2]}`;
  });
}

describe('the Node.js versions the docs state', () => {
  test('the contributor guide quotes package.json engines exactly', () => {
    const development = /## Development\n([\s\S]*?)\n## /.exec(page('contributing/index.md'))?.[1];
    assert.ok(development, 'contributing/index.md has a Development section');
    assert.ok(
      development.includes(`Node.js \`${engines}\``),
      `contributing/index.md: "Node.js \`${engines}\`" (package.json engines) is not in its Development section`,
    );
    assert.doesNotMatch(development, /Node\.js ≥/, 'a second, hand-written range');
  });

  test("the first guide names the lowest version of each of the range's lines", () => {
    const lowest = lowestVersions(engines);
    assert.ok(lowest.length >= 1);
    const intro = page('guides/first-payment.md').split('\n## ')[0]!.replace(/\s+/g, ' ');
    for (const version of lowest) {
      assert.match(intro, new RegExp(`${version.replace('.', '\\.')} or newer`), version);
    }
  });
});
