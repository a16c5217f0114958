// `npm run build` and `prepack`: everything package.json "exports", "bin" and "files" name,
// and the demo's page scripts. The code is built by Vite (vite.config.ts, one target per
// mode: the browser library and its development build, the Node library, the CDN bundle,
// the demo scripts); this script runs the targets in turn and adds what Vite does not make:
//   - the declarations (.d.ts), from tsc: Vite emits none, and Oxc's isolated declarations
//     would need an explicit type on every exported function and constant. tsc also checks
//     each side against its own libs on the way (tsconfig.browser.json: the browser code
//     without Node's types; tsconfig.server.json: the server and sandbox without the DOM).
//   - custom-elements.json (@custom-elements-manifest/analyzer, configured in
//     custom-elements-manifest.config.mjs), from the elements' JSDoc.
//   - a check that every file package.json "exports" and "bin" name was emitted.
// `node scripts/build.mjs cdn demo` builds only the named Vite targets, in place (the test
// runners rebuild the CDN bundle and the demo scripts that way).
import {execFile} from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import {promisify} from 'node:util';
import {createBuilder} from 'vite';

const TARGETS = ['node', 'production', 'development', 'cdn', 'cdn-hydrate', 'demo'];
const DECLARATIONS = 'dist/.types';

const node = (args) => {
  const child = promisify(execFile)(process.execPath, args, {maxBuffer: 16 * 1024 * 1024});
  return child.catch((error) => {
    process.stdout.write(error.stdout ?? '');
    process.stderr.write(error.stderr ?? '');
    throw new Error(`${args.join(' ')} failed`);
  });
};

/** Builds one target of vite.config.ts, as `vite build --mode <target>` would. */
async function vite(target) {
  const builder = await createBuilder({mode: target}, null);
  await builder.buildApp();
  console.log(`built the ${target} target (vite.config.ts)`);
}

const only = process.argv.slice(2);
for (const target of only) {
  if (!TARGETS.includes(target)) {
    console.error(`build: no target ${target} (${TARGETS.join(', ')})`);
    process.exit(1);
  }
}
if (only.length) {
  for (const target of only) await vite(target);
  process.exit(0);
}

rmSync('dist', {recursive: true, force: true});
// The declarations take tsc a while: it runs beside the Vite builds, into other files.
const declarations = Promise.all([
  node(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.browser.json', '--emitDeclarationOnly']),
  node(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.server.json']),
]);
for (const target of TARGETS) await vite(target);
await declarations;

// tsconfig.server.json emits src/server, src/protocol, src/rules and sandbox side by side
// (rootDir "."); they are published as dist/server, dist/protocol, dist/rules and
// dist/sandbox, where the sandbox's `../src/server/...` is `../server/...`, as in its
// built modules.
for (const [from, to] of [
  ['src/server', 'dist/server'],
  ['src/protocol', 'dist/protocol'],
  ['src/rules', 'dist/rules'],
  ['sandbox', 'dist/sandbox'],
]) {
  cpSync(path.join(DECLARATIONS, from), to, {recursive: true});
}
rmSync(DECLARATIONS, {recursive: true, force: true});
for (const file of readdirSync('dist/sandbox', {recursive: true, encoding: 'utf8'})) {
  if (!file.endsWith('.d.ts')) continue;
  const target = path.join('dist/sandbox', file);
  const text = readFileSync(target, 'utf8').replace(
    /(['"])((?:\.\.\/)+)src\/(server|protocol|rules)\//g,
    '$1$2$3/',
  );
  if (/['"](?:\.\.\/)+src\//.test(text)) {
    console.error(`${target} still imports from src/: the sandbox may import only src/server`);
    process.exit(1);
  }
  writeFileSync(target, text);
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

// The browser entries are ES modules only (for bundlers and browsers: they define custom
// elements). Their "require" condition names a module written here, which throws an error
// that says so and shows the import() to use, instead of Node's ERR_PACKAGE_PATH_NOT_EXPORTED.
// It is an ES module itself (Node 20.19+ and 22.12+ require() one, and its error reaches the
// caller), so its types (the entry's own) and its code agree, as attw checks.
const ESM_ONLY = /^\.\/dist\/browser\/esm-only\/[\w-]+\.js$/;
for (const [subpath, target] of Object.entries(pkg.exports)) {
  const file = typeof target === 'object' ? target.require : undefined;
  if (typeof file !== 'string' || !ESM_ONLY.test(file)) continue;
  const name = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
  const message =
    `${name} is an ES module only (for browsers and bundlers), and has no CommonJS build ` +
    `for require(). Load it with \`import ${JSON.stringify(name)}\` from an ES module, or ` +
    `with \`await import(${JSON.stringify(name)})\` from CommonJS. (On the server, ` +
    `${pkg.name}/server and ${pkg.name}/sandbox do load with require().)`;
  mkdirSync(path.dirname(file), {recursive: true});
  writeFileSync(
    file,
    `// \`${name}\` for require(): package.json "exports" points here. Generated by the build\n` +
      `// (scripts/build.mjs): the entry is an ES module only, so this says how to load it.\n` +
      `export {};\n\n` +
      `const error = new Error(${JSON.stringify(message)});\n` +
      `error.code = 'ERR_PG_CHECKOUT_ESM_ONLY';\n` +
      `throw error;\n`,
  );
}

// Every file package.json "exports" and "bin" name must have been emitted.
/** Every file of one "exports" target, through nested conditions (`{import: {types, default}}`). */
const filesOf = (target) =>
  typeof target === 'object' ? Object.values(target).flatMap(filesOf) : [target];
const named = [
  ...Object.entries(pkg.exports).flatMap(([subpath, target]) =>
    filesOf(target).map((file) => [`exports["${subpath}"]`, file]),
  ),
  ...Object.entries(pkg.bin).map(([name, file]) => [`bin["${name}"]`, file]),
];
for (const [field, file] of named) {
  if (file.startsWith('./dist/') && !existsSync(file)) {
    console.error(`package.json ${field} names ${file}, which the build did not emit`);
    process.exit(1);
  }
}
console.log('wrote the declarations (tsc)');

await node(['node_modules/@custom-elements-manifest/analyzer/cem.js', 'analyze', '--quiet']);
console.log('wrote custom-elements.json');
