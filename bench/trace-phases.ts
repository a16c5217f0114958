/**
 * Where the time of one page load goes, read from a Chrome trace (Playwright's
 * `browser.startTracing`, the categories below): the interactive bench's breakdown
 * (`PG_BENCH_PHASES`). Thread time (CPU) is given beside wall time, as this machine is
 * shared: a task's wall time also counts the time another process had the core.
 *
 * The phases of a page with a module bundle and the bench's ready script: the bundle's
 * compile on a background thread while it streams in (V8 streams every module script; with
 * the compile hint every function is compiled there), then one main-thread task that
 * evaluates the bundle, defines the elements and runs the first render (Lit renders in a
 * microtask of that task), then the ready script's task (focus, style, layout).
 */

/** Trace categories with the events read here (tasks with thread time, V8, user timing). */
export const TRACE_CATEGORIES = [
  'disabled-by-default-devtools.timeline',
  'devtools.timeline',
  'v8',
  'v8.execute',
  'disabled-by-default-v8.compile',
  'blink.user_timing',
];

/** The mark the ready script sets when the number field is interactive. */
export const INTERACTIVE_MARK = 'pg-interactive';

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: {data?: {documentLoaderURL?: string}};
}

/** Milliseconds of one load, from its navigation start (`…At`) or of thread time (`…Cpu`). */
export type LoadPhases = Record<string, number>;

/**
 * The phases of the load whose renderer set `INTERACTIVE_MARK`. `withBundle`: the page
 * loads a bundle before its ready script (the client-rendered page), else only the ready
 * script (the plain form).
 */
export function phasesOf(trace: Buffer, withBundle: boolean): LoadPhases {
  const events = (JSON.parse(trace.toString()) as {traceEvents: TraceEvent[]}).traceEvents;
  const mark = events.find((e) => e.name === INTERACTIVE_MARK && e.cat.includes('user_timing'));
  if (!mark) throw new Error(`the trace has no ${INTERACTIVE_MARK} mark`);
  const {pid, tid} = mark;
  const start = events.find(
    (e) =>
      e.name === 'navigationStart' &&
      e.pid === pid &&
      (e.args?.data?.documentLoaderURL ?? '').endsWith('.html'),
  );
  if (!start) throw new Error('the trace has no navigation start of the page');
  const ms = (us: number) => Math.round(us / 10) / 100;
  const complete = events.filter(
    (e) => e.pid === pid && e.ph === 'X' && e.ts >= start.ts && e.ts <= mark.ts,
  );
  const onMain = complete.filter((e) => e.tid === tid);
  const tasks = onMain.filter((e) => e.name === 'RunTask');
  // The tasks that evaluated a module script, in order: the bundle's, then the ready script's.
  const scriptTasks = tasks.filter((task) =>
    onMain.some(
      (e) => e.name === 'v8.evaluateModule' && e.ts >= task.ts && e.ts < task.ts + (task.dur ?? 0),
    ),
  );
  const phases: LoadPhases = {
    interactiveAt: ms(mark.ts - start.ts),
    mainThreadCpu: ms(tasks.reduce((sum, e) => sum + (e.tdur ?? 0), 0)),
  };
  const ready = scriptTasks[withBundle ? 1 : 0];
  if (withBundle) {
    // The bundle's streaming compile: the longest on a background thread (the ready
    // script, if V8 streams it at all, takes a fraction of a millisecond).
    const compile = complete
      .filter((e) => e.tid !== tid && e.name === 'v8.parseOnBackground')
      .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))[0];
    if (compile) {
      phases['bundleStreamedAt'] = ms(compile.ts - start.ts);
      phases['bundleCompiledAt'] = ms(compile.ts + (compile.dur ?? 0) - start.ts);
      phases['compileCpu'] = ms(compile.tdur ?? 0);
    }
    const bundle = scriptTasks[0];
    if (bundle) {
      phases['bundleTaskAt'] = ms(bundle.ts - start.ts);
      phases['evaluateAndRenderCpu'] = ms(bundle.tdur ?? 0);
      phases['evaluateAndRenderWall'] = ms(bundle.dur ?? 0);
    }
  }
  if (ready) {
    phases['readyTaskAt'] = ms(ready.ts - start.ts);
    phases['focusAndLayoutCpu'] = ms(ready.tdur ?? 0);
  }
  return phases;
}
