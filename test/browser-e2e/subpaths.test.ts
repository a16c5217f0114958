/**
 * The Lit-free subpath exports stay Lit-free: bundling what `pg-checkout/fingerprint` and
 * `pg-checkout/validation` point at (through package.json "exports", mapped back to their
 * sources) with esbuild must pull in no `lit`, `lit-html`, `lit-element` or
 * `@lit/reactive-element` module and define no element, while the main entry does. Also
 * checks that every subpath names its types. Run by `npm run test:browser`.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {build} from 'esbuild';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  exports: Record<string, {types?: string; import?: string} | string>;
};

/** The source module behind a browser subpath: `./dist/browser/x/y.js` → `src/x/y.ts`. */
function sourceOf(subpath: string): string {
  const target = pkg.exports[subpath];
  assert.ok(target && typeof target === 'object', `package.json exports has ${subpath}`);
  assert.ok(target.types?.endsWith('.d.ts'), `${subpath} names its types`);
  assert.equal(target.types, target.import?.replace(/\.js$/, '.d.ts'));
  const match = /^\.\/dist\/browser\/(.+)\.js$/.exec(target.import ?? '');
  assert.ok(match, `${subpath} points into dist/browser`);
  return `src/${match[1]}.ts`;
}

async function bundle(entry: string) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    minify: true,
    tsconfig: 'tsconfig.json',
    logLevel: 'silent',
  });
  return {
    inputs: Object.keys(result.metafile.inputs),
    code: result.outputFiles[0]!.text,
  };
}

const LIT = /node_modules\/(lit|lit-html|lit-element|@lit\/[^/]+)\//;

describe('subpath exports', () => {
  it('the main entry bundles Lit (so the checks below can tell)', async () => {
    const {inputs, code} = await bundle(sourceOf('.'));
    assert.ok(inputs.some((f) => LIT.test(f)));
    assert.match(code, /customElements\.define/);
  });

  it('pg-checkout/fingerprint contains no Lit code and defines no element', async () => {
    const {inputs, code} = await bundle(sourceOf('./fingerprint'));
    assert.deepEqual(
      inputs.filter((f) => LIT.test(f)),
      [],
    );
    assert.ok(
      inputs.every((f) => f.startsWith('src/')),
      `only our sources: ${inputs.join(', ')}`,
    );
    assert.doesNotMatch(code, /customElements|lit-html|reactiveElementVersions|litHtmlVersions/);
    assert.match(code, /export\s*\{[^}]*collectBrowserFingerprint/);
    assert.ok(code.length < 4096, `small: ${code.length} B`);
  });

  it('pg-checkout/validation contains card-validator and its brand table but no Lit code', async () => {
    const {inputs, code} = await bundle(sourceOf('./validation'));
    assert.deepEqual(
      inputs.filter((f) => LIT.test(f)),
      [],
    );
    assert.ok(inputs.some((f) => f.includes('node_modules/credit-card-type/dist/lib/card-types')));
    // card-validator's own number, expiry and code rules, run in the browser.
    for (const module of ['card-number', 'expiration-date', 'cvv'])
      assert.ok(
        inputs.some((f) => f.includes(`node_modules/card-validator/dist/${module}.js`)),
        module,
      );
    assert.doesNotMatch(code, /customElements|lit-html|reactiveElementVersions|litHtmlVersions/);
    assert.match(code, /export\s*\{[^}]*validateNumber/);
  });
});
