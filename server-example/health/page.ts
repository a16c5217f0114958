/**
 * The health page's body, rendered on the server from the merged minutes of log.ts: a
 * summary of the hour, then six plots — payments per minute by outcome, success rate,
 * gateway p50/p99, failures by reason, `busy` answers, the breaker's state — each an
 * inline SVG (no script: the pages' CSP forbids inline code, and nothing here needs
 * any) with a title and description for assistive technology, a legend that does not rely
 * on colour alone (each series has its own dash pattern too), and its figures as a data
 * table beneath. Colours are the stylesheet's (`.plot__series--N`), so the plots follow
 * the light and dark schemes with the page.
 */
import {html} from 'hono/html';
import type {Html} from '../pages.js';
import {
  MINUTE_MS,
  SERIES,
  mergeInto,
  quantile,
  type HealthWindow,
  type MinuteFigures,
  type Series,
} from './log.js';

/** One plotted line: a value per minute of the window (`undefined`: nothing to show). */
interface Line {
  name: string;
  values: (number | undefined)[];
}

interface Plot {
  id: string;
  title: string;
  /** What the plot shows, for its `<desc>` and caption. */
  desc: string;
  /** How a value reads (axis labels, table cells). */
  format: (v: number) => string;
  /** The least top of the scale (a rate's is 100). */
  top?: number;
  /** The values marked on the scale (default: 0, half the top, the top). */
  ticks?: number[];
  lines: Line[];
}

const W = 640;
const H = 200;
const M = {left: 56, right: 12, top: 12, bottom: 28};

/** Outcomes in the order a reader looks for them. */
const OUTCOME_ORDER = ['success', 'failure', '3ds_required', 'processing', 'error'];

const count = (v: number) => String(Math.round(v));
const percent = (v: number) => `${v.toFixed(1)}%`;
const millis = (v: number) => `${v === 0 || v >= 10 ? Math.round(v) : v.toFixed(1)} ms`;
const hhmm = (t: number) => new Date(t).toISOString().slice(11, 16);

/** A round top for the scale, at or above `v`. */
function niceTop(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  // Even multiples, so that half the top (the middle tick) is a whole count too.
  for (const m of [1, 2, 4, 6, 8, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function labelsOf(w: HealthWindow, series: Series): string[] {
  const s = new Set<string>();
  for (const f of w.minutes.values()) for (const l of f.get(series)?.keys() ?? []) s.add(l);
  return [...s];
}

/** The window's minutes, oldest first, each with its figures (empty when none). */
function minutesOf(w: HealthWindow, n: number): {t: number; f: MinuteFigures}[] {
  return Array.from({length: n}, (_, i) => {
    const t = w.from + i * MINUTE_MS;
    return {t, f: w.minutes.get(t) ?? new Map()};
  });
}

const get = (f: MinuteFigures, s: Series, label: string) => f.get(s)?.get(label) ?? 0;
const total = (f: MinuteFigures, s: Series) =>
  [...(f.get(s)?.values() ?? [])].reduce((a, b) => a + b, 0);

/** Success among decided payments (success, failure, error), in percent. */
function successRate(f: MinuteFigures): number | undefined {
  const ok = get(f, SERIES.payment, 'success');
  const decided = ok + get(f, SERIES.payment, 'failure') + get(f, SERIES.payment, 'error');
  return decided === 0 ? undefined : (100 * ok) / decided;
}

/** What the page shows of `w` (over `n` minutes). */
export function healthFigures(w: HealthWindow, n = 60) {
  const minutes = minutesOf(w, n);
  const outcomes = labelsOf(w, SERIES.payment).sort(
    (a, b) =>
      ((OUTCOME_ORDER.indexOf(a) + 99) % 99) - ((OUTCOME_ORDER.indexOf(b) + 99) % 99) ||
      a.localeCompare(b),
  );
  const reasons = labelsOf(w, SERIES.failure).sort();
  const hour: MinuteFigures = new Map();
  for (const {f} of minutes) {
    for (const [s, labels] of f) {
      let into = hour.get(s);
      if (!into) hour.set(s, (into = new Map()));
      mergeInto(into, labels);
    }
  }
  const ms = (q: number, f: MinuteFigures) => {
    const v = quantile(q, f.get(SERIES.gatewayBucket) ?? new Map());
    return v === undefined ? undefined : v * 1000;
  };
  const lastBreaker = [...minutes].reverse().find(({f}) => total(f, SERIES.breaker) > 0);
  const plots: Plot[] = [
    {
      id: 'payments',
      title: 'Payments per minute by outcome',
      desc: 'Payment requests counted at their outcome, summed over every instance.',
      format: count,
      top: 2,
      lines: outcomes.map((o) => ({
        name: o,
        values: minutes.map(({f}) => get(f, SERIES.payment, o)),
      })),
    },
    {
      id: 'success-rate',
      title: 'Success rate',
      desc: 'Successful payments among those decided (success, failure, error), per minute.',
      format: percent,
      top: 100,
      lines: [{name: 'success rate', values: minutes.map(({f}) => successRate(f))}],
    },
    {
      id: 'gateway',
      title: 'Gateway request duration, p50 and p99',
      desc: 'Percentiles of every gateway request, read from the latency buckets of all instances merged.',
      format: millis,
      lines: [
        {name: 'p50', values: minutes.map(({f}) => ms(0.5, f))},
        {name: 'p99', values: minutes.map(({f}) => ms(0.99, f))},
      ],
    },
    {
      id: 'declines',
      title: 'Failed payments by reason',
      desc: "Failed payments per minute by the protocol's reason and the gateway's status code.",
      format: count,
      top: 2,
      lines: reasons.map((r) => ({
        name: r,
        values: minutes.map(({f}) => get(f, SERIES.failure, r)),
      })),
    },
    {
      id: 'busy',
      title: 'Busy answers',
      desc: 'Requests refused 503 busy by admission, and store transactions answered busy, per minute.',
      format: count,
      top: 2,
      lines: ['admission', 'store'].map((b) => ({
        name: b,
        values: minutes.map(({f}) => get(f, SERIES.busy, b)),
      })),
    },
    {
      id: 'breaker',
      title: 'Card-testing breaker',
      desc: 'The breaker per minute: 1 when any instance saw it open, 0 when closed.',
      format: (v) => (v >= 1 ? 'open' : 'closed'),
      top: 1,
      ticks: [0, 1],
      lines: [
        {
          name: 'open',
          values: minutes.map(({f}) =>
            total(f, SERIES.breaker) === 0 ? undefined : get(f, SERIES.breaker, 'open') > 0 ? 1 : 0,
          ),
        },
      ],
    },
  ];
  return {
    minutes: minutes.map((m) => m.t),
    /** The minutes some instance wrote in (the data tables' rows). */
    recorded: new Set(minutes.filter((m) => m.f.size > 0).map((m) => m.t)),
    plots,
    totals: {
      outcomes: outcomes.map((o) => [o, get(hour, SERIES.payment, o)] as const),
      reasons: reasons.map((r) => [r, get(hour, SERIES.failure, r)] as const),
      successRate: successRate(hour),
      p50: ms(0.5, hour),
      p99: ms(0.99, hour),
      busy: {
        admission: get(hour, SERIES.busy, 'admission'),
        store: get(hour, SERIES.busy, 'store'),
      },
      breaker: lastBreaker
        ? get(lastBreaker.f, SERIES.breaker, 'open') > 0
          ? 'open'
          : 'closed'
        : undefined,
      instances: w.instances,
    },
  };
}

/** The polyline points of `values`, cut where a value is missing. */
function segments(values: (number | undefined)[], top: number): string[] {
  const x = (i: number) => M.left + (i * (W - M.left - M.right)) / Math.max(1, values.length - 1);
  const y = (v: number) => M.top + (1 - v / top) * (H - M.top - M.bottom);
  const out: string[] = [];
  let current: string[] = [];
  values.forEach((v, i) => {
    if (v === undefined) {
      if (current.length) out.push(current.join(' '));
      current = [];
    } else current.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (current.length) out.push(current.join(' '));
  return out;
}

function renderPlot(p: Plot, minutes: number[], recorded: ReadonlySet<number>): Html {
  const seen = p.lines.flatMap((l) => l.values.filter((v): v is number => v !== undefined));
  const top = Math.max(p.top ?? 0, niceTop(Math.max(0, ...seen)));
  const empty = seen.length === 0 || p.lines.length === 0;
  const ticks = p.ticks ?? [0, top / 2, top];
  const yOf = (v: number) => M.top + (1 - v / top) * (H - M.top - M.bottom);
  const first = minutes[0]!;
  const last = minutes[minutes.length - 1]!;
  const rows = minutes
    .map((t, i) => ({t, cells: p.lines.map((l) => l.values[i])}))
    .filter((r) => recorded.has(r.t));
  return html`<figure class="plot" id="plot-${p.id}" aria-labelledby="plot-${p.id}-caption">
    <figcaption id="plot-${p.id}-caption"><h2>${p.title}</h2></figcaption>
    <svg
      class="plot__svg"
      viewBox="0 0 ${W} ${H}"
      role="img"
      aria-labelledby="plot-${p.id}-title plot-${p.id}-desc"
    >
      <title id="plot-${p.id}-title">
        ${p.title}, ${hhmm(first)} to ${hhmm(last + MINUTE_MS)} UTC
      </title>
      <desc id="plot-${p.id}-desc">
        ${p.desc}${empty ? ' Nothing recorded in the last hour.' : ' The table below holds the same figures.'}
      </desc>
      ${ticks.map(
        (v) =>
          html`<line
              class="plot__grid"
              x1="${M.left}"
              x2="${W - M.right}"
              y1="${yOf(v)}"
              y2="${yOf(v)}"
            ></line>
            <text class="plot__label" x="${M.left - 6}" y="${yOf(v) + 4}" text-anchor="end"
              >${p.format(v)}</text
            >`,
      )}
      <text class="plot__label" x="${M.left}" y="${H - 8}">${hhmm(first)}</text>
      <text class="plot__label" x="${W - M.right}" y="${H - 8}" text-anchor="end">
        ${hhmm(last)} UTC
      </text>
      ${p.lines.map((l, i) =>
        segments(l.values, top).map((pts) =>
          pts.includes(' ')
            ? html`<polyline
                class="plot__series plot__series--${i % 6}"
                points="${pts}"
              ></polyline>`
            : html`<circle
                class="plot__dot plot__series--${i % 6}"
                cx="${pts.split(',')[0]}"
                cy="${pts.split(',')[1]}"
                r="3"
              ></circle>`,
        ),
      )}
    </svg>
    ${
      empty
        ? html`<p class="plot__empty">Nothing recorded in the last hour.</p>`
        : html`<ul class="plot__legend">
            ${p.lines.map(
              (l, i) =>
                html`<li>
                  <span class="plot__key plot__series--${i % 6}" aria-hidden="true"></span>${l.name}
                </li>`,
            )}
          </ul>`
    }
    <details class="plot__data">
      <summary>${p.title}: the figures</summary>
      <div class="table-wrap" tabindex="0" role="region" aria-label="${p.title}: the figures">
        <table data-plot="${p.id}">
          <thead>
            <tr>
              <th scope="col">Minute (UTC)</th>
              ${p.lines.map((l) => html`<th scope="col">${l.name}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${
              rows.length === 0
                ? html`<tr>
                    <td colspan="${p.lines.length + 1}">Nothing recorded in the last hour.</td>
                  </tr>`
                : rows.map(
                    (r) =>
                      html`<tr>
                        <th scope="row">${hhmm(r.t)}</th>
                        ${r.cells.map((v) => html`<td>${v === undefined ? '–' : p.format(v)}</td>`)}
                      </tr>`,
                  )
            }
          </tbody>
        </table>
      </div>
    </details>
  </figure>`;
}

/** The page's summary and plots, for the `health` template's `content` slot. */
export function renderHealth(w: HealthWindow, n = 60): Html {
  const {minutes, recorded, plots, totals} = healthFigures(w, n);
  const maybe = (v: number | undefined, f: (v: number) => string) => (v === undefined ? '–' : f(v));
  return html`<section class="panel" aria-labelledby="totals-title">
      <h2 id="totals-title">The last hour</h2>
      <p>
        Figures of
        ${totals.instances.length === 1 ? '1 instance' : `${totals.instances.length} instances`}
        ${totals.instances.length ? html`(${totals.instances.join(', ')})` : ''} sharing this
        database.
      </p>
      <div class="health-tables">
        <table id="health-totals">
          <caption>
            Payments and gateway
          </caption>
          <tbody>
            ${totals.outcomes.map(
              ([o, v]) =>
                html`<tr data-outcome="${o}">
                  <th scope="row">Payments: ${o}</th>
                  <td>${count(v)}</td>
                </tr>`,
            )}
            <tr data-figure="success-rate">
              <th scope="row">Success rate</th>
              <td>${maybe(totals.successRate, percent)}</td>
            </tr>
            <tr data-figure="p50">
              <th scope="row">Gateway p50</th>
              <td>${maybe(totals.p50, millis)}</td>
            </tr>
            <tr data-figure="p99">
              <th scope="row">Gateway p99</th>
              <td>${maybe(totals.p99, millis)}</td>
            </tr>
            <tr data-figure="busy-admission">
              <th scope="row">Busy answers: admission</th>
              <td>${count(totals.busy.admission)}</td>
            </tr>
            <tr data-figure="busy-store">
              <th scope="row">Busy answers: store</th>
              <td>${count(totals.busy.store)}</td>
            </tr>
            <tr data-figure="breaker">
              <th scope="row">Card-testing breaker</th>
              <td>${totals.breaker ?? '–'}</td>
            </tr>
          </tbody>
        </table>
        <table id="health-declines">
          <caption>
            Failed payments by reason
          </caption>
          <thead>
            <tr>
              <th scope="col">Reason and status code</th>
              <th scope="col">Payments</th>
            </tr>
          </thead>
          <tbody>
            ${
              totals.reasons.length === 0
                ? html`<tr>
                    <td colspan="2">None in the last hour.</td>
                  </tr>`
                : totals.reasons.map(
                    ([r, v]) =>
                      html`<tr data-reason="${r}">
                        <th scope="row">${r}</th>
                        <td>${count(v)}</td>
                      </tr>`,
                  )
            }
          </tbody>
        </table>
      </div>
    </section>
    ${plots.map((p) => renderPlot(p, minutes, recorded))}`;
}
