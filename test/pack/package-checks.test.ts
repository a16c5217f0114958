/**
 * The packed tarball as the ecosystem's own tools judge it, and as `npm pack` lists it:
 * publint (the package.json against the files it names) reports nothing, not even a
 * suggestion; "Are the Types Wrong?" (@arethetypeswrong/cli) finds nothing for
 * `pg-checkout/server` and `pg-checkout/sandbox` from ESM and from CommonJS (their `require`
 * condition) and nothing for the browser subpaths from ESM and bundlers, which are ES modules
 * only, by design; `npm pack --dry-run` holds what a merchant needs and nothing they do not;
 * every source map carries its sources; and a stack trace from inside the package, with
 * Node's `--enable-source-maps`, names only files the package has.
 */
import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {execFile} from 'node:child_process';
import {existsSync, readFileSync, readdirSync, realpathSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {publint} from 'publint';
import {formatMessage} from 'publint/utils';
import {exportFiles, installedPackage, packed, runNode} from './packed.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const repo = fileURLToPath(new URL('../../', import.meta.url));
/** The `attw` command of @arethetypeswrong/cli (its package exports no file to import). */
const ATTW = realpathSync(path.join(repo, 'node_modules/.bin/attw'));

interface PackedFile {
  path: string;
  size: number;
}

/** What `npm pack --dry-run` would put in the tarball, from the built tree that was packed. */
async function dryRun(): Promise<string[]> {
  const {stdout} = await run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: packed.tree,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [{files}] = JSON.parse(stdout) as [{files: PackedFile[]}];
  return files.map((f) => f.path).sort();
}

/** `attw <tarball>` with `args`: its exit code and what it printed. */
async function attw(args: string[]): Promise<{code: number; output: string}> {
  try {
    const {stdout} = await run(
      process.execPath,
      [ATTW, packed.tarball, '--format', 'ascii', '--no-color', ...args],
      {maxBuffer: 16 * 1024 * 1024},
    );
    return {code: 0, output: stdout};
  } catch (error) {
    const e = error as {code?: number; stdout?: string; stderr?: string};
    return {code: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}`};
  }
}

describe('the tarball, as the ecosystem checks packages', () => {
  it('publint reports nothing: no error, warning or suggestion', async () => {
    const tarball = readFileSync(packed.tarball);
    const {messages, pkg} = await publint({
      pack: {
        tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.length),
      },
      level: 'suggestion',
      strict: true,
    });
    assert.deepEqual(
      messages.map((m) => `${m.type}: ${formatMessage(m, pkg, {color: false}) ?? m.code}`),
      [],
    );
  });

  it('attw: the server and the sandbox resolve with their types from ESM and from CommonJS', async () => {
    // node10 is TypeScript's pre-`exports` resolution (deprecated in 6.0, gone in 7.0): it
    // cannot see a subpath of any package with `exports`.
    const {code, output} = await attw([
      '--profile',
      'node16',
      '--entrypoints',
      './server',
      './sandbox',
    ]);
    assert.equal(code, 0, output);
    for (const entry of ['"pg-checkout/server"', '"pg-checkout/sandbox"']) {
      const section = output.slice(output.indexOf(entry)).split('*****')[0]!;
      assert.match(section, /node16 \(from CJS\): 🟢 \(CJS\)/, section);
      assert.match(section, /node16 \(from ESM\): 🟢 \(ESM\)/, section);
    }
  });

  it('attw: every subpath resolves with its types from ESM and in bundlers', async () => {
    // The browser subpaths are ES modules only (a bundler's or a browser's), as is
    // pg-checkout/ssr (Node ESM): `require()` of them is not offered, so the CommonJS
    // resolutions are left out here; the server's are checked above.
    const {code, output} = await attw(['--profile', 'esm-only']);
    assert.equal(code, 0, output);
    for (const subpath of ['"pg-checkout"', '"pg-checkout/react"', '"pg-checkout/server"']) {
      assert.ok(output.includes(subpath), `${subpath} was checked`);
    }
  });
});

describe('npm pack --dry-run', () => {
  it('holds the README, licence, changelog, custom-elements.json and every file "exports" and "bin" name', async () => {
    const files = new Set(await dryRun());
    const pkg = JSON.parse(readFileSync(path.join(packed.tree, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      bin: Record<string, string>;
    };
    const named = [...exportFiles(pkg.exports), ...Object.values(pkg.bin)].map((f) =>
      path.posix.normalize(f),
    );
    const must = [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'custom-elements.json',
      'dist/cdn/pg-checkout.js.sri',
      'dist/cdn/pg-checkout-hydrate-after-paint.js.sri',
      ...named,
    ];
    assert.deepEqual(
      must.filter((f) => !files.has(f)),
      [],
    );
    assert.ok(
      [...files].some((f) => /^dist\/cdn\/locales\/uk-[\w-]+\.json$/.test(f)),
      'the CDN locales',
    );
  });

  it('holds no sources, tests, docs, demo scripts, build leftovers or maps without sources', async () => {
    const files = await dryRun();
    const forbidden = [
      /^(src|test|docs|scripts|bench|demo|examples|server-example|sandbox|\.changeset|node_modules|data)\//,
      /^dist\/(demo|\.types)\//,
      /\.test\.[jt]s$/,
      /^(?!.*\.d\.c?ts$).*\.ts$/, // TypeScript sources (declarations are fine)
      /\.d\.ts\.map$/,
      /^dist\/(server|sandbox|protocol|rules)\/.*\.map$/,
      /(^|\/)\.env/,
      /\.tgz$/,
    ];
    assert.deepEqual(
      files.filter((f) => forbidden.some((re) => re.test(f))),
      [],
    );
    assert.ok(files.length > 100 && files.length < 1000, `${files.length} files`);
  });
});

describe('source maps and stack traces', () => {
  it("every source map the package ships carries every source's text", () => {
    const pkgDir = installedPackage(packed.server);
    const maps = readdirSync(pkgDir, {recursive: true})
      .map(String)
      .filter((f) => f.endsWith('.map'));
    assert.ok(maps.length > 50, `${maps.length} maps`);
    const lacking = maps.filter((f) => {
      const map = JSON.parse(readFileSync(path.join(pkgDir, f), 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      return map.sources.some(
        (source, i) =>
          typeof map.sourcesContent?.[i] !== 'string' &&
          !existsSync(path.join(pkgDir, path.dirname(f), source)),
      );
    });
    assert.deepEqual(lacking, []);
  });

  it('every sourceMappingURL names a map the package ships', () => {
    const pkgDir = installedPackage(packed.server);
    const dangling: string[] = [];
    for (const f of readdirSync(pkgDir, {recursive: true}).map(String)) {
      if (!/\.(c?js|d\.c?ts)$/.test(f)) continue;
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(
        readFileSync(path.join(pkgDir, f), 'utf8'),
      )?.[1];
      if (url && !url.startsWith('data:') && !existsSync(path.join(pkgDir, path.dirname(f), url)))
        dangling.push(`${f} → ${url}`);
    }
    assert.deepEqual(dangling, []);
  });

  it("a stack trace from inside pg-checkout/server names only the package's own files", async () => {
    const ran = await runNode(packed.server, [
      '--enable-source-maps',
      '--input-type=module',
      '-e',
      `const {createCheckoutApp} = await import('pg-checkout/server');
      try { createCheckoutApp({gateway: {}}); } catch (e) { console.log(e.stack); }`,
    ]);
    assert.equal(ran.stderr, '');
    const frames = [...ran.stdout.matchAll(/\((?:file:\/\/)?(\/[^():]+):\d+:\d+\)/g)].map(
      (m) => m[1]!,
    );
    const own = frames.filter((f) => f.includes('/node_modules/pg-checkout/'));
    assert.ok(own.length > 0, ran.stdout);
    assert.deepEqual(
      own.filter((f) => !existsSync(f)),
      [],
      'frames in files the package does not have',
    );
  });
});
