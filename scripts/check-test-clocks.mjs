// No clock decides a test's result (issue 38): a test awaits the event it waits for, or runs
// on a clock it moves itself (the sandbox's, the elements' ManualClock, node:test's mock
// timers), and asserts nothing on elapsed wall time — timing goals belong to `npm run bench`.
// This finds, in every test file (test/), what breaks that: a wait on time (`setTimeout(`,
// `setInterval(`, `sleep(`, `delay(`, the sandbox's `delay=<ms>` fault) and a reading of the
// wall clock (`Date.now()`, `performance.now()`, the start of an elapsed-time bound).
// Comment lines are not read.
//
// The uses there are today are listed below, per file, each with its reason: LEGITIMATE
// (the fake clocks themselves, a timestamp that is data, a watchdog that only ends a hung
// wait) and PENDING (waits and bounds still to be replaced: issue 38's backlog, which may
// only shrink). A file with more uses than listed fails (a new wait or bound: await the
// event, or inject the clock), and so does one with fewer (take the number down, or the
// entry out): the list stays exact.
//
//   node scripts/check-test-clocks.mjs           list what differs from the lists, exit 1
//   node scripts/check-test-clocks.mjs --print   print every use, file by file
//
// Run by `npm run lint`.
import {readFileSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What is looked for, on lines that are not comments. */
export const CLOCK_PATTERNS = [
  {what: 'a wait on time', test: /\b(?:setTimeout|setInterval|sleep|delay)\(/},
  {what: 'a wall-clock reading', test: /\b(?:Date|performance)\.now\(\)/},
  // The sandbox waits out a `delay=<ms>` fault in real time unless it was given a faultDelay.
  {what: "a sandbox 'delay' fault", test: /['"`]delay=/},
];

/** The uses of `CLOCK_PATTERNS` in `source`: `{line, what, text}` each. */
export function clockUses(source) {
  const uses = [];
  let inBlockComment = false;
  source.split('\n').forEach((text, i) => {
    const trimmed = text.trim();
    if (inBlockComment) {
      if (trimmed.includes('*/')) inBlockComment = false;
      return;
    }
    if (trimmed.startsWith('/*')) {
      inBlockComment = !trimmed.includes('*/');
      return;
    }
    if (trimmed.startsWith('//') || trimmed.startsWith('*')) return;
    const code = text.replace(/\/\/.*$/, '');
    for (const p of CLOCK_PATTERNS)
      if (p.test.test(code)) uses.push({line: i + 1, what: p.what, text: trimmed});
  });
  return uses;
}

/** Every test source file under `dir` (relative to `baseDir`). */
export function testSources(baseDir = root, dir = 'test') {
  return readdirSync(path.join(baseDir, dir), {recursive: true})
    .map((f) => path.join(dir, String(f)).split(path.sep).join('/'))
    .filter((f) => /\.(?:[cm]?[jt]s|tsx)$/.test(f) && !f.includes('/node_modules/'))
    .sort();
}

/**
 * What differs from the lists: a file with uses it is not listed for (or more than listed),
 * or fewer than listed.
 */
export function clockBreaches(allowed, baseDir = root) {
  const breaches = [];
  const seen = new Set();
  for (const file of testSources(baseDir)) {
    const uses = clockUses(readFileSync(path.join(baseDir, file), 'utf8'));
    const entry = allowed[file];
    if (entry) seen.add(file);
    const limit = entry?.uses ?? 0;
    if (uses.length > limit) {
      breaches.push(
        `${file}: ${uses.length} waits on time or wall-clock readings, ${limit} allowed (await the event, or inject the clock; a legitimate one goes in scripts/check-test-clocks.mjs with its reason):\n` +
          uses.map((u) => `    ${u.line}: ${u.what}: ${u.text}`).join('\n'),
      );
    } else if (uses.length < limit) {
      breaches.push(
        `${file}: ${uses.length} waits on time or wall-clock readings, fewer than the ${limit} listed: set its number to ${uses.length} in scripts/check-test-clocks.mjs${uses.length === 0 ? ' (take it out)' : ''}`,
      );
    }
  }
  for (const file of Object.keys(allowed))
    if (!seen.has(file))
      breaches.push(`${file}: listed in scripts/check-test-clocks.mjs, not found`);
  return breaches;
}

/** Uses that are right where they are, each with why. */
export const LEGITIMATE = {
  'test/node/checkout/card-testing-identity.test.ts': {
    uses: 1,
    why: "the start of the companion's fixed clock (data: this minute, so a saved card's token is valid)",
  },
  'test/node/sandbox/faults.test.ts': {
    uses: 4,
    why: "the sandbox's delay fault is what these tests test",
  },
  'test/node/sandbox/order-ids.test.ts': {
    uses: 3,
    why: 'holds released by the test (faultDelay); delays that only spread arrivals out, the answers not depending on them',
  },
  'test/node/checkout/sandbox.test.ts': {
    uses: 1,
    why: 'a delay fault held until the test releases it (faultDelay)',
  },
  'test/node/checkout/crash-unconfirmed.test.ts': {
    uses: 1,
    why: 'a delay fault held until the test releases it (faultDelay)',
  },
  'test/node/tiers/checks.test.ts': {uses: 9, why: "this check's own cases, as strings"},
  'test/browser/fixtures/acs.js': {
    uses: 1,
    why: "the stand-in bank page's own pause before it returns, as a bank's page does",
  },
  'test/browser/clock.ts': {
    uses: 2,
    why: "the ManualClock itself: its sleep(), and settle()'s zero-delay task turns",
  },
  'test/node/gateway/client-fixtures.ts': {
    uses: 2,
    why: "the gateway client's fake clock: now() from a start, sleep() on it",
  },
  'test/node/gateway/client-live-gateway.test.ts': {
    uses: 1,
    why: "a test's name that says sleep(), not a call",
  },
  'test/browser/three-ds-redirect.test.ts': {
    uses: 1,
    why: "clock.sleep() on the test's ManualClock",
  },
  'test/browser/card-form-busy.test.ts': {
    uses: 2,
    why: 'an order reference made unique with the time, and the ManualClock started at it',
  },
  'test/browser/card-form.test.ts': {
    uses: 1,
    why: "the expiry window's earliest date, from the date the form itself reads",
  },
  'test/browser/layout.test.ts': {
    uses: 1,
    why: "the expiry window's earliest date, from the date the form itself reads",
  },
  'test/browser/validation.test.ts': {
    uses: 1,
    why: "the expiry window's earliest date, from the date the form itself reads",
  },
  'test/e2e/saved-cards.test.ts': {uses: 1, why: "a row's timestamp (data)"},
  'test/node/checkout/app.test.ts': {
    uses: 2,
    why: "a claim's expiry and an injected clock's start (data, not a bound)",
  },
  'test/node/checkout/never-double.test.ts': {uses: 1, why: "an injected clock's start"},
  'test/node/checkout/postgres.ts': {
    uses: 1,
    why: "the run's schema names made unique with the time",
  },
  'test/node/checkout/reliability.test.ts': {
    uses: 4,
    why: 'injected clocks: the wall time plus a skew the test moves (the client timeout they sit beside is real); a delay fault held until the test releases it (faultDelay)',
  },
  'test/node/checkout/saved-cards.test.ts': {uses: 1, why: 'an injected clock four years ahead'},
  'test/node/checkout/backpressure.test.ts': {
    uses: 2,
    why: "admission.idle(deadline)'s argument: `false` is the deadline passing, on any machine",
  },
  'test/node/frameworks/example.test.ts': {
    uses: 1,
    why: 'an order reference made unique with the time',
  },
  'test/node/gateway/client-errors.test.ts': {
    uses: 1,
    why: 'an HTTP date two minutes ahead (a Retry-After value)',
  },
  'test/node/gateway/exchange.test.ts': {
    uses: 3,
    why: "the faults the client's deadline is tested against: a socket cut, an answer after the deadline, an abort",
  },
  'test/node/sandbox/contract.test.ts': {uses: 2, why: 'a report period around now (data)'},
  'test/node/sandbox/reports.test.ts': {uses: 1, why: 'a report period around now (data)'},
  'test/pack/newcomer-webhooks.test.ts': {uses: 1, why: 'an order id made unique with the time'},
  'test/node/docs/site.test.ts': {
    uses: 1,
    why: 'a watchdog that only ends a wait for an outcome that never came (30 s)',
  },
};

/**
 * Waits and bounds still to be replaced by awaited events or injected clocks (issue 38's
 * backlog): a number here may only go down.
 */
export const PENDING = {
  'test/node/example/visitor-breaker.test.ts': {
    uses: 2,
    why: "the wall-clock minutes a botnet spans, which bound the guests' share: the example's companion takes no clock yet",
  },
  'test/browser-e2e/engines.ts': {uses: 3, why: 'a poll every 50 ms with a deadline'},
  'test/browser-e2e/tamper.test.ts': {
    uses: 7,
    why: 'polls of 100 ms in the page, a 5 s and a 120 s watchdog, a 300 ms wait',
  },
  'test/browser/helpers.ts': {
    uses: 1,
    why: 'tick(): the pace of until(), a poll with no deadline of its own',
  },
  'test/browser/saved-cards.test.ts': {uses: 2, why: '50 ms waits'},
  'test/e2e/harness.ts': {uses: 3, why: 'a poll every 250 ms with a deadline'},
  'test/node/bench/children.test.ts': {uses: 1, why: 'a poll every 50 ms for a process to end'},
  'test/node/checkout/backends.ts': {
    uses: 2,
    why: "the 'slow' fault: 30 ms (stub gateway, sandbox delay) to make requests overlap (a gate would make it certain)",
  },
  'test/node/checkout/graceful-close.test.ts': {
    uses: 7,
    why: "waits between a rush's requests, polls, a 300 ms delay fault",
  },
  'test/node/checkout/guard-details.test.ts': {
    uses: 4,
    why: 'a raw-socket read with a wait and an elapsed time',
  },
  'test/node/checkout/helpers.ts': {
    uses: 3,
    why: "eventually(): a poll's pace (no deadline); a flood's elapsed seconds for its diagnostic",
  },
  'test/node/checkout/multi-instance.ts': {
    uses: 14,
    why: 'polls of the health route (no deadline), kill timers, waits between steps, timings for diagnostics, a 1.5 s delay fault',
  },
  'test/node/checkout/multiprocess.test.ts': {
    uses: 3,
    why: 'a kill timer, a 500 ms wait, a 2.5 s delay fault',
  },
  'test/node/checkout/pgbouncer.ts': {
    uses: 2,
    why: "PgBouncer's start poll (no deadline), a kill after 3 s",
  },
  'test/node/checkout/store.test.ts': {
    uses: 1,
    why: 'an fsync made 30 ms slow so writes overlap it (a gate would make it certain)',
  },
  'test/node/example/database-env.test.ts': {uses: 1, why: 'a poll of the health route'},
  'test/node/example/hardening.test.ts': {
    uses: 4,
    why: 'a sampler on an interval, a 100 ms wait, a report period (data)',
  },
  'test/node/example/processes.ts': {
    uses: 2,
    why: 'a poll of the health route (no deadline), a kill timer',
  },
  'test/node/example/reliability.test.ts': {uses: 3, why: 'an elapsed-time measurement'},
  'test/node/example/shutdown.test.ts': {
    uses: 8,
    why: "waits between a rush's requests, a shutdown's elapsed time",
  },
  'test/node/example/two-machines.test.ts': {uses: 2, why: 'polls every 100 ms'},
  'test/node/sandbox/helpers.ts': {uses: 1, why: "eventually(): a poll's pace (no deadline)"},
  'test/pack/newcomer-first-payment.test.ts': {
    uses: 4,
    why: "the guide's step timings (a report, not a bound)",
  },
  'test/pack/newcomer-several-instances.test.ts': {uses: 1, why: 'a poll every 100 ms'},
  'test/pack/newcomer-subscriptions.test.ts': {uses: 1, why: 'a 1.5 s wait'},
  'test/pack/newcomer.ts': {
    uses: 11,
    why: "step timings for the guide's report, a poll with a deadline",
  },
  'test/node/example/prometheus.test.ts': {
    uses: 2,
    why: "a real Prometheus, which gets ready and scrapes on its own wall clock (every 1 s): polls with a bound on attempts, for its readiness and for a query's answer",
  },
  'test/node/example/server-timeouts.test.ts': {
    uses: 3,
    why: "Node's own head and request deadlines, in the example's process, run on its wall clock: a slow sender sends a byte now and then, a poll for the answer's head, an idle wait past both deadlines (each set to 1 s)",
  },
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--print')) {
    for (const file of testSources()) {
      const uses = clockUses(readFileSync(path.join(root, file), 'utf8'));
      if (uses.length === 0) continue;
      console.log(`${file}: ${uses.length}`);
      for (const u of uses) console.log(`  ${u.line}: ${u.what}: ${u.text}`);
    }
  } else {
    const breaches = clockBreaches({...LEGITIMATE, ...PENDING});
    if (breaches.length > 0) {
      console.error(
        `check-test-clocks: ${breaches.length} test file(s) differ from the lists (no clock decides a test's result: docs/contributing)\n` +
          breaches.map((b) => `  ${b}`).join('\n'),
      );
      process.exit(1);
    }
  }
}
