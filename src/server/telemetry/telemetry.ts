/**
 * The companion's traces and metrics, through `@opentelemetry/api` (an optional peer: see
 * otel-api.ts). One {@link Telemetry} per process, `telemetry`, made from the API when it
 * is installed; without it every method runs the work it wraps and records nothing. The
 * instruments follow the OpenTelemetry semantic conventions: a SERVER span and
 * `http.server.request.duration` per companion route, a CLIENT span and
 * `http.client.request.duration` per gateway request (attempt), and the payment counter
 * `pg_checkout.payment.count` at each payment's outcome (docs/guides/monitoring.md has the
 * table). Attributes carry the order reference, the route, the status and the outcome;
 * never a request body, a query string, a header value other than `traceparent`, or
 * anything the card form sends. Metrics are made from whichever MeterProvider is
 * registered when they are first recorded (and made again if it changes), because the
 * metrics API, unlike the trace API, has no proxy for a provider registered later.
 */
import type {Attributes, Counter, Histogram, Meter, MeterProvider, Span} from '@opentelemetry/api';
import type {Context, MiddlewareHandler} from 'hono';
import {routePath} from 'hono/route';
import {observeGauges, type CheckoutGauges} from './gauges.js';
import {loadOtelApi, type OtelApi} from './otel-api.js';
import {PayTraces} from './pay-traces.js';

/** The instrumentation scope: the library's name. */
export const SCOPE = 'pg-checkout';

/** The attribute for the merchant's order reference (on spans only: unbounded). */
export const ORDER_REF = 'pg_checkout.order.ref';

/** Bucket bounds for request durations, seconds: the semantic conventions' advice. */
const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/** Bucket bounds for store transactions, seconds: the semantic conventions' advice. */
const STORE_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

/** One gateway request, as the transport knows it before sending. */
export interface GatewayRequestInfo {
  /** The client's name for the endpoint: `createPayment`, `getOrder`, … */
  operation: string;
  method: string;
  /** The endpoint's path template, e.g. `/api/v1/pos/:posId/orders/:orderId`. */
  urlTemplate: string;
  /** The request's URL without its query. */
  url: string;
  /** 0 for the first try, then 1, 2, … for a read sent again. */
  resendCount: number;
}

/** How a payment request ended, as counted by `pg_checkout.payment.count`. */
export interface PaymentOutcome {
  /** `success`, `failure`, `pending` (3-D Secure or processing), `unknown`, `error`. */
  outcome: string;
  /** Why it failed: `declined`, `not_created`, `refused`, or the error's code. */
  reason?: string | undefined;
  /** The gateway's status code, on a failure. */
  statusCode?: string | undefined;
}

class Instruments {
  readonly payments: Counter;
  readonly gatewayDuration: Histogram;
  readonly serverDuration: Histogram;
  readonly storeDuration: Histogram;
  readonly webhooks: Counter;
  readonly threeDs: Counter;

  constructor(meter: Meter, observed: ReadonlySet<CheckoutGauges>) {
    this.payments = meter.createCounter('pg_checkout.payment.count', {
      description: 'Payment requests by mode, outcome and failure reason',
      unit: '{payment}',
    });
    this.gatewayDuration = meter.createHistogram('http.client.request.duration', {
      description: 'Duration of the requests to the payment gateway',
      unit: 's',
      advice: {explicitBucketBoundaries: DURATION_BUCKETS},
    });
    this.serverDuration = meter.createHistogram('http.server.request.duration', {
      description: 'Duration of the companion routes',
      unit: 's',
      advice: {explicitBucketBoundaries: DURATION_BUCKETS},
    });
    this.storeDuration = meter.createHistogram('db.client.operation.duration', {
      description: 'Duration of the payment store transactions (and reads)',
      unit: 's',
      advice: {explicitBucketBoundaries: STORE_BUCKETS},
    });
    this.webhooks = meter.createCounter('pg_checkout.webhook.count', {
      description: 'Webhooks accepted, accepted again (duplicate) and refused',
      unit: '{webhook}',
    });
    this.threeDs = meter.createCounter('pg_checkout.three_ds.count', {
      description: '3-D Secure challenges started, approved, failed and abandoned',
      unit: '{challenge}',
    });
    observeGauges(meter, observed);
  }
}

/** `traceparent` and `tracestate` read from a request's headers. */
const headerGetter = {
  keys: (h: Headers) => [...h.keys()],
  get: (h: Headers, key: string) => h.get(key) ?? undefined,
};

/** Instruments the companion through `api`, or does nothing when it is `undefined`. */
export class Telemetry {
  readonly #api: OtelApi | undefined;
  /** Each live app's gauges; an app's entry goes when the app is collected. */
  readonly #observed = new Set<CheckoutGauges>();
  readonly #forget = new FinalizationRegistry<CheckoutGauges>((g) => this.#observed.delete(g));
  #metrics: {provider: MeterProvider; instruments: Instruments} | undefined;
  readonly #payTraces = new PayTraces();

  constructor(api: OtelApi | undefined) {
    this.#api = api;
  }

  /** Whether `@opentelemetry/api` is installed (an SDK may still be absent). */
  get enabled(): boolean {
    return this.#api !== undefined;
  }

  /** The instruments of the MeterProvider registered now. */
  #instruments(api: OtelApi): Instruments {
    const provider = api.metrics.getMeterProvider();
    if (this.#metrics?.provider !== provider) {
      this.#metrics = {
        provider,
        instruments: new Instruments(provider.getMeter(SCOPE), this.#observed),
      };
    }
    return this.#metrics.instruments;
  }

  /**
   * Lets the admission, card-testing and outbox gauges read `gauges` while `app` lives (held
   * weakly: a closed app that is collected drops out).
   */
  observe(app: object, gauges: CheckoutGauges): void {
    if (!this.#api) return;
    this.#observed.add(gauges);
    this.#forget.register(app, gauges);
    // Made now, so the gauges exist for a scrape before the first request.
    this.#instruments(this.#api);
  }

  /**
   * Counts a webhook in `pg_checkout.webhook.count`: `accepted` (acknowledged),
   * `duplicate` (acknowledged, already stored: also counted `accepted`) or `refused`
   * with its reason (`bad_signature`, `address_not_allowed`).
   */
  countWebhook(outcome: 'accepted' | 'duplicate' | 'refused', reason?: string): void {
    const api = this.#api;
    if (!api) return;
    this.#instruments(api).webhooks.add(1, {
      'pg_checkout.webhook.outcome': outcome,
      ...(reason === undefined ? {} : {'pg_checkout.webhook.refusal_reason': reason}),
    });
  }

  /**
   * Counts a direct payment's 3-D Secure challenge in `pg_checkout.three_ds.count`:
   * `started` (the pay answer sent the customer to it), then `approved` or `failed` (the
   * gateway's final report of a challenged attempt), or `abandoned` (the customer cancelled).
   */
  countThreeDs(stage: 'started' | 'approved' | 'failed' | 'abandoned'): void {
    const api = this.#api;
    if (!api) return;
    this.#instruments(api).threeDs.add(1, {'pg_checkout.three_ds.stage': stage});
  }

  /**
   * A Hono middleware: a SERVER span per request, a child of the `traceparent` the request
   * carries, active while the route runs, and `http.server.request.duration`.
   */
  middleware(): MiddlewareHandler {
    const api = this.#api;
    if (!api) return (_c, next) => next();
    return async (c, next) => {
      const parent = api.propagation.extract(api.ROOT_CONTEXT, c.req.raw.headers, headerGetter);
      const method = c.req.method;
      const url = new URL(c.req.url);
      const span = api.trace.getTracer(SCOPE).startSpan(
        method,
        {
          kind: api.SpanKind.SERVER,
          attributes: {
            'http.request.method': method,
            'url.path': c.req.path,
            'url.scheme': url.protocol.replace(/:$/, ''),
          },
        },
        parent,
      );
      const started = performance.now();
      try {
        await api.context.with(api.trace.setSpan(parent, span), next);
      } finally {
        this.#endServerSpan(api, c, span, method, started);
      }
    };
  }

  #endServerSpan(api: OtelApi, c: Context, span: Span, method: string, started: number): void {
    const seconds = (performance.now() - started) / 1000;
    const status = c.res.status;
    const route = routePath(c, -1);
    const attributes: Attributes = {
      'http.request.method': method,
      'http.response.status_code': status,
      'url.scheme': new URL(c.req.url).protocol.replace(/:$/, ''),
    };
    if (route && route !== '*' && route !== '/*') {
      attributes['http.route'] = route;
      span.updateName(`${method} ${route}`);
    }
    if (status >= 500) {
      attributes['error.type'] = String(status);
      span.setStatus({code: api.SpanStatusCode.ERROR});
    }
    span.setAttributes(attributes);
    span.end();
    this.#instruments(api).serverDuration.record(seconds, attributes);
  }

  /**
   * Runs one gateway request in a CLIENT span (a child of the active one) and records
   * `http.client.request.duration`. `send` answers with the HTTP status, or throws when
   * no answer came (timeout, connection error).
   */
  gatewayRequest<T extends {status: number}>(
    info: GatewayRequestInfo,
    send: () => Promise<T>,
  ): Promise<T> {
    const api = this.#api;
    return api ? this.#gatewayRequest(api, info, send) : send();
  }

  async #gatewayRequest<T extends {status: number}>(
    api: OtelApi,
    info: GatewayRequestInfo,
    send: () => Promise<T>,
  ): Promise<T> {
    const target = new URL(info.url);
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
    const attributes: Attributes = {
      'http.request.method': info.method,
      'server.address': target.hostname,
      'server.port': port,
      'url.template': info.urlTemplate,
      'pg_checkout.gateway.operation': info.operation,
    };
    const span = api.trace.getTracer(SCOPE).startSpan(`${info.method} ${info.urlTemplate}`, {
      kind: api.SpanKind.CLIENT,
      attributes: {
        ...attributes,
        'url.full': `${target.origin}${target.pathname}`,
        ...(info.resendCount > 0 ? {'http.request.resend_count': info.resendCount} : {}),
      },
    });
    const started = performance.now();
    try {
      const answer = await send();
      attributes['http.response.status_code'] = answer.status;
      if (answer.status >= 400) attributes['error.type'] = String(answer.status);
      return answer;
    } catch (error) {
      attributes['error.type'] = errorType(error);
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      if (attributes['error.type'] !== undefined) span.setStatus({code: api.SpanStatusCode.ERROR});
      span.setAttributes(attributes);
      span.end();
      this.#instruments(api).gatewayDuration.record(seconds, attributes);
    }
  }

  /**
   * Runs one payment store transaction (or read: `mode`, see sql-payment-store.ts's `RunMode`) in
   * a CLIENT span and records `db.client.operation.duration`; a `busy` or
   * `store_unavailable` answer is its `error.type`. No statement text or value is kept.
   */
  storeOperation<T>(
    system: 'sqlite' | 'postgresql',
    mode: string,
    run: () => Promise<T>,
  ): Promise<T> {
    const api = this.#api;
    return api ? this.#storeOperation(api, system, mode, run) : run();
  }

  async #storeOperation<T>(
    api: OtelApi,
    system: 'sqlite' | 'postgresql',
    mode: string,
    run: () => Promise<T>,
  ): Promise<T> {
    const attributes: Attributes = {'db.system.name': system, 'db.operation.name': mode};
    const span = api.trace
      .getTracer(SCOPE)
      .startSpan(`${mode} ${system}`, {kind: api.SpanKind.CLIENT, attributes});
    const started = performance.now();
    try {
      return await run();
    } catch (error) {
      attributes['error.type'] = errorType(error);
      span.setStatus({code: api.SpanStatusCode.ERROR});
      throw error;
    } finally {
      span.setAttributes(attributes);
      span.end();
      this.#instruments(api).storeDuration.record((performance.now() - started) / 1000, attributes);
    }
  }

  /**
   * Puts the order reference on the active span (a webhook's route, say), so a tracing
   * backend finds the webhook beside the pay request's trace by the order. When this
   * process served the order's pay request (see `PayTraces`), the webhook also gets a span
   * `pg_checkout.webhook` in that trace, linked to the webhook's own request span both ways
   * (the gateway sends no `traceparent`: its webhook's request is a trace of its own).
   */
  tagOrder(orderRef: string): void {
    const api = this.#api;
    const active = api?.trace.getActiveSpan();
    if (!api || !active) return;
    active.setAttribute(ORDER_REF, orderRef);
    const pay = this.#payTraces.get(orderRef);
    if (!pay || pay.traceId === active.spanContext().traceId) return;
    api.trace
      .getTracer(SCOPE)
      .startSpan(
        'pg_checkout.webhook',
        {
          kind: api.SpanKind.INTERNAL,
          attributes: {[ORDER_REF]: orderRef},
          links: [{context: active.spanContext()}],
        },
        api.trace.setSpanContext(api.ROOT_CONTEXT, pay),
      )
      .end();
    // `addLink` came with API 1.9; the peer range starts at 1.7.
    (active as Partial<Pick<Span, 'addLink'>>).addLink?.({context: pay});
  }

  /**
   * Counts one payment request's outcome in `pg_checkout.payment.count` and puts it, with
   * the order reference, on the active span (the route's).
   */
  countPayment(mode: 'direct' | 'hosted', orderRef: string, o: PaymentOutcome): void {
    const api = this.#api;
    if (!api) return;
    const attributes: Attributes = {
      'pg_checkout.payment.mode': mode,
      'pg_checkout.payment.outcome': o.outcome,
    };
    if (o.reason !== undefined) attributes['pg_checkout.payment.failure_reason'] = o.reason;
    if (o.statusCode !== undefined) attributes['pg_checkout.gateway.status_code'] = o.statusCode;
    this.#instruments(api).payments.add(1, attributes);
    api.trace.getActiveSpan()?.setAttributes({[ORDER_REF]: orderRef, ...attributes});
  }

  /**
   * Remembers the active span (a pay route's) as `orderRef`'s pay trace, for its webhook
   * (`tagOrder`); called as the create is sent, since the webhook may beat the answer.
   */
  rememberPayTrace(orderRef: string): void {
    const span = this.#api?.trace.getActiveSpan();
    if (span?.isRecording()) this.#payTraces.set(orderRef, span.spanContext());
  }
}

/** A thrown error's `error.type`: `timeout` for the transport's, its code, else its class name. */
export function errorType(error: unknown): string {
  const e = error as {code?: unknown; name?: unknown} | null;
  if (e?.name === 'TimeoutSignal') return 'timeout';
  if (typeof e?.code === 'string' && /^[A-Za-z][\w.-]{0,63}$/.test(e.code)) return e.code;
  if (typeof e?.name === 'string' && e.name !== 'Error') return e.name;
  return '_OTHER';
}

/** The process's telemetry: a no-op unless `@opentelemetry/api` is installed. */
export const telemetry = new Telemetry(loadOtelApi());

/**
 * The attempt is waiting on a direct payment's 3-D Secure challenge: open, with the
 * challenge's address (a hosted attempt's address is the gateway's payment page).
 */
export function isThreeDsChallenge(a: {
  attemptId: string;
  state: string;
  userActionUrl?: string | undefined;
}): boolean {
  return (
    (a.state === 'init' || a.state === 'pending') &&
    a.userActionUrl !== undefined &&
    !a.attemptId.startsWith('hosted-')
  );
}
