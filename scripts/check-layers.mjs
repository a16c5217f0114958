/**
 * The three parties and the companion's layers, held to what each folder's README says it
 * may import (run by `npm run lint`). Every relative import in src/ is resolved and checked:
 *
 * - the browser side (src/ outside src/server/) never imports src/server/;
 * - src/server/ takes from the shared browser-and-server code only the folders in
 *   {@link SHARED_WITH_BROWSER} (the checkout protocol and the field rules), never an element;
 * - inside src/server/, a folder imports only the folders {@link MAY_IMPORT} lists for it, so
 *   the layers read top to bottom: http → payments → defences → store → gateway → telemetry,
 *   with the shared modules directly in src/server/ at the bottom.
 *
 * A failure names the importing file, the imported one and the rule it breaks.
 */
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const SERVER = path.join(SRC, 'server');

/** The browser-and-server code src/server/ may use: the protocol and the field rules. */
const SHARED_WITH_BROWSER = new Set(['protocol', 'rules', 'validation']);

/**
 * A folder of src/server/ → the folders of src/server/ it may import from (its own always).
 * `.` is a shared module directly in src/server/ ({@link SHARED_MODULES}); the public entry
 * (`index.ts`, `entry.ts`) may import anything.
 */
const MAY_IMPORT = {
  http: ['.', 'payments', 'defences', 'store', 'gateway', 'telemetry'],
  payments: ['.', 'defences', 'store', 'gateway', 'telemetry'],
  defences: ['.', 'store', 'telemetry'],
  store: ['.', 'gateway', 'telemetry'],
  gateway: ['.', 'telemetry'],
  telemetry: ['.'],
  'page-check': ['.', 'gateway'],
};
/** Modules directly in src/server/ that every layer shares; they import only each other. */
const SHARED_MODULES = new Set([
  'errors.ts',
  'optional-peers.ts',
  'card-digits.ts',
  'card-brand.ts',
]);
/** Modules directly in src/server/ that are entries: they may import anything. */
const ENTRIES = new Set(['index.ts', 'entry.ts']);

/**
 * Imports that cross a layer the wrong way today, each with why it is still there. The list
 * may only shrink: an entry that no longer matches an import fails too.
 */
const KNOWN_CROSSINGS = new Map([]);

const SPEC = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function* sourceFiles(dir) {
  for (const entry of fs.readdirSync(dir, {withFileTypes: true})) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield full;
  }
}

function resolveTarget(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The layer of a file of src/server/: its first folder, or `.`/`entry` for a module directly in it. */
function layerOf(file) {
  const rel = path.relative(SERVER, file).split(path.sep);
  if (rel.length === 1) return ENTRIES.has(rel[0]) ? 'entry' : '.';
  return rel[0];
}

const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/');
const problems = [];
const crossingsSeen = new Set();

for (const file of sourceFiles(SRC)) {
  const inServer = file.startsWith(SERVER + path.sep);
  const text = fs.readFileSync(file, 'utf8');
  for (const match of text.matchAll(SPEC)) {
    const target = resolveTarget(file, match[1]);
    if (target === undefined) continue;
    const targetInServer = target.startsWith(SERVER + path.sep);
    if (!inServer) {
      if (targetInServer) {
        problems.push(
          `${rel(file)} imports ${rel(target)}: the browser side never imports src/server/`,
        );
      }
      continue;
    }
    if (!targetInServer) {
      const folder = path.relative(SRC, target).split(path.sep)[0];
      if (!SHARED_WITH_BROWSER.has(folder)) {
        problems.push(
          `${rel(file)} imports ${rel(target)}: src/server/ takes only ${[...SHARED_WITH_BROWSER].join(', ')} from the browser side`,
        );
      }
      continue;
    }
    const from = layerOf(file);
    const to = layerOf(target);
    if (from === 'entry' || from === to) continue;
    if (to === 'entry') {
      problems.push(`${rel(file)} imports ${rel(target)}: nothing imports the public entry`);
      continue;
    }
    if (to === '.' && !SHARED_MODULES.has(path.basename(target))) {
      problems.push(
        `${rel(file)} imports ${rel(target)}, a module directly in src/server/ that is not a shared one`,
      );
      continue;
    }
    const allowed = from === '.' ? [] : (MAY_IMPORT[from] ?? []);
    if (from !== '.' && !(from in MAY_IMPORT)) {
      problems.push(
        `${rel(file)}: src/server/${from}/ is a folder the layer table does not know (scripts/check-layers.mjs)`,
      );
      continue;
    }
    if (!allowed.includes(to)) {
      const key = `${rel(file)} -> ${rel(target)}`;
      if (KNOWN_CROSSINGS.has(key)) {
        crossingsSeen.add(key);
        continue;
      }
      const fromName = from === '.' ? 'a shared module of src/server/' : `src/server/${from}/`;
      const toName = to === '.' ? 'the shared modules' : `src/server/${to}/`;
      problems.push(
        `${rel(file)} imports ${rel(target)}: ${fromName} may not import ${toName} (it may import ${allowed.length ? allowed.join(', ') : 'only the other shared modules'}; see its README.md)`,
      );
    }
  }
}
for (const key of KNOWN_CROSSINGS.keys()) {
  if (!crossingsSeen.has(key))
    problems.push(`KNOWN_CROSSINGS lists "${key}", which no longer happens: take it out`);
}
for (const folder of Object.keys(MAY_IMPORT)) {
  if (!fs.existsSync(path.join(SERVER, folder, 'README.md'))) {
    problems.push(
      `src/server/${folder}/ has no README.md saying what it owns and what it may import`,
    );
  }
}
if (problems.length > 0) {
  console.error(
    `layers: ${problems.length} import(s) break the layering:\n- ${problems.join('\n- ')}`,
  );
  process.exit(1);
}
console.log(
  `layers: every import of src/ keeps the three parties apart and src/server/'s layers in order`,
);
