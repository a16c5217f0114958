/**
 * The companion's observable instruments: admission (requests in flight, queued, refused
 * `busy`) and the card-testing breaker (open or closed, and its window's decline ratio),
 * read from every live app each time the meter provider collects (a Prometheus scrape),
 * summed over the apps of the process. Nothing is read between collections.
 */
import type {Meter} from '@opentelemetry/api';

/** What a companion app lets the observable gauges read, each time they are collected. */
export interface CheckoutGauges {
  load(): {readonly inFlight: number; readonly queued: number; readonly refused: number};
  cardTesting(): Promise<{state: 'open' | 'closed'; decided: number; declined: number}>;
}

/** The gauges read from every live app at each collection (summed over the apps). */
export function observeGauges(meter: Meter, observed: ReadonlySet<CheckoutGauges>): void {
  const apps = () => [...observed];
  const sum = (f: (l: ReturnType<CheckoutGauges['load']>) => number) =>
    apps().reduce((n, a) => n + f(a.load()), 0);
  meter
    .createObservableUpDownCounter('pg_checkout.admission.in_flight', {
      description: 'Requests being served (admitted, not yet answered)',
      unit: '{request}',
    })
    .addCallback((r) => {
      if (observed.size > 0) r.observe(sum((l) => l.inFlight));
    });
  meter
    .createObservableUpDownCounter('pg_checkout.admission.queued', {
      description: 'Requests waiting for a place among those in flight',
      unit: '{request}',
    })
    .addCallback((r) => {
      if (observed.size > 0) r.observe(sum((l) => l.queued));
    });
  meter
    .createObservableCounter('pg_checkout.admission.refused', {
      description: 'Requests answered 503 busy by admission, since start',
      unit: '{request}',
    })
    .addCallback((r) => {
      if (observed.size > 0) r.observe(sum((l) => l.refused));
    });
  const breaker = meter.createObservableGauge('pg_checkout.card_testing.breaker.state', {
    description: 'The card-testing breaker: 1 open (unknown customers slowed), 0 closed',
    unit: '1',
  });
  const declineRate = meter.createObservableGauge('pg_checkout.card_testing.decline_ratio', {
    description: "Declined among decided payments in the breaker's window",
    unit: '1',
  });
  meter.addBatchObservableCallback(
    async (r) => {
      const states = await Promise.all(apps().map((a) => a.cardTesting().catch(() => undefined)));
      const known = states.filter((s) => s !== undefined);
      if (known.length === 0) return;
      // Several apps of one process share the guard store: its state is the shop's.
      const s = known[0]!;
      r.observe(breaker, s.state === 'open' ? 1 : 0);
      if (s.decided > 0) r.observe(declineRate, s.declined / s.decided);
    },
    [breaker, declineRate],
  );
}
