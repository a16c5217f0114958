// The unit tier holds what its name promises: every test file `npm run test:unit` runs, and
// every local module it imports (followed through relative imports), is checked here for
// what the unit tier may not use — a child process (node:child_process), or the PostgreSQL
// test database (the `pg` client, PG_TEST_URL, the PgBouncer helper). A file that needs them
// belongs to the integration tier: name it in SLOW_TIERS (scripts/run-node-tests.mjs).
// A file with both halves — SQLite in-process and PostgreSQL — stays in the unit tier when it
// reaches PostgreSQL only through test/node/checkout/postgres.ts and is named in
// POSTGRES_HALVES: postgres.ts skips its PostgreSQL half there (TEST_TIER=unit), and the
// integration tier runs the file again for that half alone.
//
//   node scripts/check-test-tiers.mjs     list each breach with the import chain, exit 1
//
// Run by `npm run lint`. The unit tier's runner also refuses a child process at run time
// (test/node/unit-guard.mjs), so a breach this reading misses still fails.
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {POSTGRES_HALVES, testFiles} from './run-node-tests.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The gate through which a file with a PostgreSQL half reaches the database. */
export const POSTGRES_GATE = 'test/node/checkout/postgres.ts';

/**
 * What a unit-tier module may not contain. `testOnly`: looked for in test/ and bench/ only
 * (the product's PostgreSQL store imports `pg`; only a test connects it). `halvesMay`: a
 * file of POSTGRES_HALVES may (in its PostgreSQL half, which postgres.ts skips there).
 */
const FORBIDDEN = [
  {
    what: 'a child process',
    test: /\bfrom ['"](?:node:)?child_process['"]|\bimport\(['"](?:node:)?child_process['"]\)|\brequire\(['"](?:node:)?child_process['"]\)/,
    testOnly: false,
    halvesMay: false,
  },
  {
    what: 'the PostgreSQL client',
    test: /\bfrom ['"]pg['"]|\bimport\(['"]pg['"]\)/,
    testOnly: true,
    halvesMay: true,
  },
  {what: 'the PostgreSQL test database', test: /\bPG_TEST_URL\b/, testOnly: true, halvesMay: true},
  {what: 'PgBouncer', test: /\bstartPgBouncer\b/, testOnly: true, halvesMay: false},
];

/**
 * Imports followed no further, each with why: a unit-tier file that takes only a constant
 * from a helper module whose other exports start processes. The run-time guard
 * (test/node/unit-guard.mjs) still refuses a child process should one of these start one.
 */
export const CONSTANTS_ONLY = {
  'test/node/docs/node-versions.test.ts → test/node/docs/site.ts': 'ROOT, the repository folder',
  'test/node/docs/code-blocks.ts → test/node/docs/site.ts': 'ROOT, the repository folder',
  'test/node/frameworks/elements.test.ts → test/node/frameworks/merchant.ts':
    'ROOT, the repository folder',
  'test/node/readme/readme.test.ts → test/node/readme/merchant-project.ts':
    'ROOT, the repository folder',
};

/** The relative imports of a module's source, resolved to files of the tree. */
function localImports(file, source) {
  const specs = [...source.matchAll(/\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(
    (m) => m[1],
  );
  const found = [];
  for (const spec of specs) {
    const base = path.resolve(path.dirname(file), spec);
    const candidates = [
      base,
      base.replace(/\.js$/, '.ts'),
      base.replace(/\.mjs$/, '.mts'),
      base.replace(/\.js$/, '.tsx'),
      `${base}.ts`,
      path.join(base, 'index.ts'),
    ];
    const hit = candidates.find((c) => existsSync(c) && /\.(?:[cm]?[jt]sx?)$/.test(c));
    if (hit) found.push(hit);
  }
  return found;
}

/**
 * The breaches of the unit tier: for each unit-tier test file, what it reaches that the tier
 * may not use, with the chain of imports that reaches it.
 */
export function tierBreaches({
  files = testFiles({tier: 'unit'}),
  halves = POSTGRES_HALVES,
  baseDir = root,
} = {}) {
  const breaches = [];
  const gate = path.join(baseDir, POSTGRES_GATE);
  for (const rel of files) {
    const start = path.join(baseDir, rel);
    const halved = halves.includes(rel.replace(/^test\/node\//, ''));
    const seen = new Map([[start, [rel]]]);
    const queue = [start];
    let reachesGate = false;
    while (queue.length > 0) {
      const file = queue.shift();
      const chain = seen.get(file);
      const relFile = path.relative(baseDir, file).split(path.sep).join('/');
      if (file === gate) {
        reachesGate = true;
        if (halved) continue; // the gate's own pg use is its PostgreSQL half
      }
      const source = readFileSync(file, 'utf8');
      const underTest = /^(?:test|bench)\//.test(relFile);
      for (const rule of FORBIDDEN) {
        if (rule.testOnly && !underTest) continue;
        if (rule.test.test(source) && !(halved && rule.halvesMay))
          breaches.push(`${rel}: ${rule.what}, in ${chain.join(' → ')}`);
      }
      // Product code (src/, sandbox/, server-example/) is read only for child processes. The
      // repository's own tools (scripts/) are not followed: a test may read their lists and
      // functions, and the run-time guard refuses a process one of them would start.
      for (const next of localImports(file, source)) {
        if (path.relative(baseDir, next).startsWith(`scripts${path.sep}`)) continue;
        const nextRel = path.relative(baseDir, next).split(path.sep).join('/');
        if (seen.has(next) || CONSTANTS_ONLY[`${relFile} → ${nextRel}`]) continue;
        seen.set(next, [...chain, nextRel]);
        queue.push(next);
      }
    }
    if (halved && !reachesGate)
      breaches.push(
        `${rel}: named in POSTGRES_HALVES but reaches no PostgreSQL: leave it out of the list`,
      );
    if (!halved && reachesGate)
      breaches.push(
        `${rel}: reaches ${POSTGRES_GATE}: name it in POSTGRES_HALVES (its PostgreSQL half runs in the integration tier) or in SLOW_TIERS as 'integration'`,
      );
  }
  for (const half of halves)
    if (!files.includes(`test/node/${half}`))
      breaches.push(`test/node/${half}: named in POSTGRES_HALVES but not a unit-tier test file`);
  return breaches;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const breaches = tierBreaches();
  if (breaches.length > 0) {
    console.error(
      `check-test-tiers: ${breaches.length} unit-tier file(s) use what the unit tier may not (a child process, PostgreSQL): name each in SLOW_TIERS as 'integration' (scripts/run-node-tests.mjs)\n` +
        breaches.map((b) => `  ${b}`).join('\n'),
    );
    process.exit(1);
  }
}
