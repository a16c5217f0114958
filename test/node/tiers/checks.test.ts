/**
 * The suite's own checks and its summary (issue 38), on cases of their own: the unit tier's
 * check (scripts/check-test-tiers.mjs) finds a child process or PostgreSQL however deep the
 * imports reach it, and keeps POSTGRES_HALVES exact; the clock check
 * (scripts/check-test-clocks.mjs) finds new waits and wall-clock readings and no comment;
 * the closing line of `npm test` (scripts/test-summary.mjs) counts what Node's runner and
 * web-test-runner really print — cancelled tests as failed, skipped and todo shown, a tier
 * that failed without a count still failed — in the shape CI reads; and it ends naming each
 * test that failed with its error's first lines, from what Node's runner hands its reporters.
 * In-process: folders of their own, the runners' output as they print it.
 */
import {after, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {tierBreaches} from '../../../scripts/check-test-tiers.mjs';
import {clockBreaches, clockUses} from '../../../scripts/check-test-clocks.mjs';
import {
  closingLine,
  counter,
  failureReport,
  failures,
  newTally,
  slowestFiles,
} from '../../../scripts/test-summary.mjs';
import timesReporter from '../../../scripts/test-times-reporter.mjs';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, {recursive: true, force: true});
});

/** A folder holding `files` (path → source). */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-checks-'));
  dirs.push(dir);
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), {recursive: true});
    writeFileSync(path.join(dir, file), source);
  }
  return dir;
}

// The sources below spell the modules in two pieces, so this file does not itself read as
// one that imports them.
const CHILD_PROCESS = `'node:${'child'}_process'`;
const PG = `'${'p'}g'`;
const URL_NAME = ['PG', 'TEST', 'URL'].join('_');

describe('the unit tier check', () => {
  const gate = `import pg from ${PG};\nexport const ${URL_NAME} = 'postgres://x';\n`;

  test('finds a child process two imports deep, and names the chain', () => {
    const baseDir = tree({
      'test/node/a/spawns.test.ts': "import {start} from './helper.js';\n",
      'test/node/a/helper.ts': "export {start} from '../b/deeper.js';\n",
      'test/node/b/deeper.ts': `import {spawn} from ${CHILD_PROCESS};\nexport const start = spawn;\n`,
      'test/node/a/clean.test.ts': "import assert from 'node:assert';\n",
    });
    const breaches = tierBreaches({
      files: ['test/node/a/spawns.test.ts', 'test/node/a/clean.test.ts'],
      halves: [],
      baseDir,
    });
    assert.deepEqual(breaches, [
      'test/node/a/spawns.test.ts: a child process, in test/node/a/spawns.test.ts → test/node/a/helper.ts → test/node/b/deeper.ts',
    ]);
  });

  test('finds PostgreSQL in a file not named a half, and keeps the halves exact', () => {
    const baseDir = tree({
      'test/node/checkout/postgres.ts': gate,
      'test/node/checkout/direct.test.ts': `import pg from ${PG};\n`,
      'test/node/checkout/gated.test.ts': "import {PG_SKIP} from './postgres.js';\n",
      'test/node/checkout/half.test.ts': `import {${URL_NAME}} from './postgres.js';\nimport pg from ${PG};\n`,
      'test/node/checkout/not-a-half.test.ts': "import assert from 'node:assert';\n",
    });
    const breaches = tierBreaches({
      files: [
        'test/node/checkout/direct.test.ts',
        'test/node/checkout/gated.test.ts',
        'test/node/checkout/half.test.ts',
        'test/node/checkout/not-a-half.test.ts',
      ],
      halves: ['checkout/half.test.ts', 'checkout/not-a-half.test.ts', 'checkout/gone.test.ts'],
      baseDir,
    });
    const found = (re: RegExp) =>
      assert.ok(
        breaches.some((b) => re.test(b)),
        `${re}`,
      );
    found(/^test\/node\/checkout\/direct\.test\.ts: the PostgreSQL client/);
    found(/^test\/node\/checkout\/gated\.test\.ts: reaches .*POSTGRES_HALVES/);
    found(
      /^test\/node\/checkout\/gated\.test\.ts: the PostgreSQL client, in .* → test\/node\/checkout\/postgres\.ts/,
    );
    found(/^test\/node\/checkout\/not-a-half\.test\.ts: .*reaches no PostgreSQL/);
    found(/^test\/node\/checkout\/gone\.test\.ts: .*not a unit-tier test file/);
    // A named half may reach the gate, and use the database in its PostgreSQL half.
    assert.deepEqual(
      breaches.filter((b) => b.startsWith('test/node/checkout/half.test.ts')),
      [],
    );
  });
});

describe('the clock check', () => {
  test('finds waits and wall-clock readings, not the words in comments', () => {
    const uses = clockUses(
      [
        '// a comment may say setTimeout( and Date.now()',
        '/*',
        ' * sleep(100) in a block comment',
        ' */',
        'await sleep(100);',
        "import {setTimeout as sleep} from 'node:timers/promises';",
        'await new Promise((r) => setTimeout(r, 5));',
        'const started = performance.now(); // and a trailing sleep( comment',
        'assert.ok(Date.now() - t0 < 250);',
        'await once(socket, "close");',
        "sandbox.addFault({match, fault: 'delay=1500', times: 1});",
      ].join('\n'),
    );
    assert.deepEqual(
      uses.map((u) => [u.line, u.what]),
      [
        [5, 'a wait on time'],
        [7, 'a wait on time'],
        [8, 'a wall-clock reading'],
        [9, 'a wall-clock reading'],
        [11, "a sandbox 'delay' fault"],
      ],
    );
  });

  test('a file with more uses than listed fails, naming the lines; fewer asks for the number', () => {
    const baseDir = tree({
      'test/a.test.ts': 'await sleep(5);\nconst t = Date.now();\n',
      'test/b.test.ts': 'const t = Date.now();\n',
      'test/c.test.ts': 'await once(x, "y");\n',
    });
    const breaches = clockBreaches(
      {
        'test/a.test.ts': {uses: 1, why: 'a timestamp'},
        'test/b.test.ts': {uses: 2, why: 'was two'},
        'test/gone.test.ts': {uses: 1, why: 'moved'},
      },
      baseDir,
    );
    assert.equal(breaches.length, 3, breaches.join('\n'));
    assert.match(breaches[0]!, /^test\/a\.test\.ts: 2 .* 1 allowed[^]*\n {4}1: a wait on time/);
    assert.match(
      breaches[1]!,
      /^test\/b\.test\.ts: 1 .*fewer than the 2 listed: set its number to 1/,
    );
    assert.match(breaches[2]!, /^test\/gone\.test\.ts: listed .*not found/);
  });
});

describe("npm test's summary", () => {
  /** What Node's runner printed for a file with a timeout, a failure and a lost subtest. */
  const NODE = [
    '✖ slow (51.2ms)',
    'ℹ tests 4',
    'ℹ suites 1',
    'ℹ pass 7',
    'ℹ fail 2',
    'ℹ cancelled 2',
    'ℹ skipped 1',
    'ℹ todo 1',
    'ℹ duration_ms 838.035633',
  ];
  /** web-test-runner's progress lines, redrawn with cursor moves: the last of each engine counts. */
  const WTR = [
    '\u001b[2K\u001b[1A\u001b[2K\u001b[GChromium: |█████         | 1/2 test files | 5 passed, 0 failed',
    '\u001b[2K\u001b[GChromium: |██████████████| 2/2 test files | 11 passed, 1 failed, 2 skipped',
    'Firefox:  |██████████████| 2/2 test files | 12 passed, 0 failed',
  ];

  test('counts cancelled as failed, shows skipped and todo, the last progress line per engine', () => {
    const node = newTally('unit');
    const nodeCount = counter(node);
    NODE.forEach(nodeCount.line);
    nodeCount.end();
    const browser = newTally('browser');
    const wtrCount = counter(browser);
    WTR.forEach(wtrCount.line);
    wtrCount.end();
    assert.deepEqual(
      [node.passed, node.failed, node.cancelled, node.skipped, node.todo],
      [7, 2, 2, 1, 1],
    );
    assert.deepEqual([browser.passed, browser.failed, browser.skipped], [23, 1, 2]);
    const {line} = closingLine([node, browser]);
    assert.equal(line, 'all suites: 30 passed, 5 failed, 4 skipped');
    // The shape CI reads: 'N passed, N failed' after one word with a colon.
    assert.match(line, /\w+: \d+ passed, \d+ failed/);
  });

  test('a tier that failed without a count still fails the run', () => {
    const crashed = {...newTally('pack'), code: 1};
    const fine = {...newTally('unit'), passed: 3};
    assert.equal(closingLine([fine, crashed]).line, 'all suites: 3 passed, 1 failed');
    assert.equal(closingLine([fine]).line, 'all suites: 3 passed, 0 failed');
  });

  test('the ten slowest files, a file that ran twice adding up', () => {
    const lines = Array.from({length: 12}, (_, i) => ({file: `f${i}.test.ts`, ms: i * 100}));
    lines.push({file: 'f0.test.ts', ms: 5000});
    const slow = slowestFiles(lines.map((l) => JSON.stringify(l)).join('\n'));
    assert.equal(slow.length, 10);
    assert.deepEqual(slow[0], ['f0.test.ts', 5000]);
    assert.deepEqual(slow[1], ['f11.test.ts', 1100]);
  });

  test('ends naming each failed test with its first lines: the diff, its line, its cause; cancelled ones last', async () => {
    const file = '/repo/test/node/x.test.ts';
    // What Node's runner hands its reporters: what a test threw, wrapped in an error of its
    // own (its `cause`), or the reason as a string.
    const wrapped = (cause: unknown, failureType = 'testCodeFailure') =>
      Object.assign(new Error('wrapped'), {code: 'ERR_TEST_FAILURE', failureType, cause});
    let diff: unknown;
    try {
      assert.deepEqual([1, 2], [1, 3]);
    } catch (error) {
      diff = error;
    }
    const fail = (name: string, error: unknown) => ({
      type: 'test:fail',
      data: {file, name, nesting: 1, details: {duration_ms: 1, error}},
    });
    const events = [
      fail('cancelled one', wrapped('test did not finish before its parent and was cancelled')),
      fail('a diff', wrapped(diff)),
      fail('a timeout', wrapped('test timed out after 50ms', 'testTimeoutFailure')),
      fail('a cause', wrapped(new Error('outer', {cause: new Error('inner')}))),
      fail('the suite', wrapped('2 subtests failed', 'subtestsFailed')),
      {type: 'test:complete', data: {file, name: file, details: {duration_ms: 900}}},
    ];
    const target = path.join(tree({}), 'times.jsonl');
    writeFileSync(target, '');
    const saved = process.env['PG_TEST_TIMES'];
    process.env['PG_TEST_TIMES'] = target;
    try {
      for await (const chunk of timesReporter(
        (async function* () {
          yield* events;
        })(),
      ))
        void chunk;
    } finally {
      if (saved === undefined) delete process.env['PG_TEST_TIMES'];
      else process.env['PG_TEST_TIMES'] = saved;
    }
    // A line two runners' writes ran together into is left out, not the end of the run.
    const text = `${readFileSync(target, 'utf8')}{"file":"/repo/te\n`;
    assert.deepEqual(slowestFiles(text), [[file, 900]]);
    const list = failures(text);
    assert.deepEqual(
      list.map((f) => f.failed),
      ['a diff', 'a timeout', 'a cause', 'cancelled one'],
    );
    const [shownDiff, timeout, cause] = list.map((f) => f.error.split('\n'));
    assert.equal(
      shownDiff![0],
      'AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:',
    );
    assert.ok(shownDiff!.includes('+   2') && shownDiff!.includes('-   3'), shownDiff!.join('\n'));
    assert.match(shownDiff!.at(-1)!, /^at .*checks\.test\.ts:\d+:\d+/);
    assert.deepEqual(timeout, ['test timed out after 50ms']);
    assert.equal(cause![0], 'Error: outer');
    assert.equal(cause!.at(-1), 'cause: inner');
    const report = failureReport(list, 2).split('\n');
    assert.equal(report[0], `  ✖ ${file} › a diff`);
    assert.ok(report.includes(`  ✖ ${file} › a timeout`));
    assert.equal(report.at(-1), "  … and 2 more: the tiers' output above");
  });
});
