/**
 * The companion's observable instruments: admission (requests in flight, queued, refused
 * `busy`), the card-testing breaker (open or closed, and its window's decline ratio) and
 * the outbox (payment updates not yet delivered, and the oldest one's age),
 * read from every live app each time the meter provider collects (a Prometheus scrape),
 * summed over the apps of the process. Nothing is read between collections.
 */
import type {Meter} from '@opentelemetry/api';

/** The most outbox entries read for the backlog gauge at one collection. */
export const OUTBOX_BACKLOG_CAP = 1000;

/** What a companion app lets the observable gauges read, each time they are collected. */
export interface CheckoutGauges {
  admission: {readonly inFlight: number; readonly queued: number; readonly refused: number};
  service: {
    cardTestingState(): Promise<{state: 'open' | 'closed'; decided: number; declined: number}>;
  };
  store: {pendingOutbox(limit?: number): Promise<readonly {createdAt: number}[]>};
  now: () => number;
}

/** The gauges read from every live app at each collection (summed over the apps). */
export function observeGauges(meter: Meter, observed: ReadonlySet<CheckoutGauges>): void {
  const apps = () => [...observed];
  const sum = (f: (l: CheckoutGauges['admission']) => number) =>
    apps().reduce((n, a) => n + f(a.admission), 0);
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
      const states = await Promise.all(
        apps().map((a) => a.service.cardTestingState().catch(() => undefined)),
      );
      const known = states.filter((s) => s !== undefined);
      if (known.length === 0) return;
      // Several apps of one process share the guard store: its state is the shop's.
      const s = known[0]!;
      r.observe(breaker, s.state === 'open' ? 1 : 0);
      if (s.decided > 0) r.observe(declineRate, s.declined / s.decided);
    },
    [breaker, declineRate],
  );
  const backlog = meter.createObservableUpDownCounter('pg_checkout.outbox.backlog', {
    description: `Payment updates not yet delivered (read up to ${OUTBOX_BACKLOG_CAP})`,
    unit: '{update}',
  });
  const oldest = meter.createObservableGauge('pg_checkout.outbox.oldest_age', {
    description: 'Age of the oldest payment update not yet delivered',
    unit: 's',
  });
  meter.addBatchObservableCallback(
    async (r) => {
      // Apps on one store see one outbox: each store is read once.
      const stores = new Map(apps().map((a) => [a.store, a.now]));
      if (stores.size === 0) return;
      let count = 0;
      let age = 0;
      for (const [store, now] of stores) {
        const pending = await store.pendingOutbox(OUTBOX_BACKLOG_CAP).catch(() => undefined);
        if (!pending) continue;
        count += pending.length;
        if (pending[0]) age = Math.max(age, (now() - pending[0].createdAt) / 1000);
      }
      r.observe(backlog, count);
      r.observe(oldest, age);
    },
    [backlog, oldest],
  );
}
