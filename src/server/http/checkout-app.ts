/**
 * `CheckoutApp`, what `createCheckoutApp` (`app.ts`) answers: the Hono app of the
 * companion's routes plus its lifecycle, back-office operations and saved cards.
 */
import type {Hono} from 'hono';
import type {StatusResponse} from '../../protocol/checkout.js';
import type {CardTestingState} from '../defences/card-testing.js';
import type {CheckoutError} from '../errors.js';
import type {CheckoutLogger} from '../telemetry/logger.js';
import type {OperationRequest, OperationResult} from '../payments/operations/types.js';
import type {SavedCardSummary} from '../store/saved-card-records.js';
import type {PaymentService, SweepResult} from '../payments/index.js';
import type {PaymentStore} from '../store/payment-store.js';

/**
 * What the Node adapter puts in `c.env`; other runtimes pass other things (or nothing).
 * Read here by hand rather than with `getConnInfo` from `@hono/node-server`: that package
 * is an optional peer that `pg-checkout/server` does not need (it runs in Next.js and
 * workers too; see test/pack/install.test.ts), and other runtimes use `options.clientIp`.
 * Typed without `| undefined`, though a runtime may pass no env (read as `c.env?.…`):
 * Hono's `Env` wants an object as `Bindings`, and under `exactOptionalPropertyTypes` (which
 * `tsc --init` turns on) `undefined` breaks that constraint, and with it the merchant's
 * `app.route('/checkout', checkout)` (issue 30).
 */
export type Env = {Bindings: {incoming?: {socket?: {remoteAddress?: string}}}};

/** The Hono app plus the companion's lifecycle. */
export type CheckoutApp = Hono<Env> & {
  /**
   * Starts the background work and returns at once: recovery of what a crash left open
   * (the app serves meanwhile, `health()` says `recovering`), then the periodic sweep.
   */
  start(): void;
  /**
   * Liveness: `ready`, or `recovering` while start-up recovery runs; and whether the store
   * answers. For `/healthz`.
   */
  health(): Promise<{state: 'ready' | 'recovering'; store: boolean}>;
  /**
   * Readiness, for a load balancer's check (`/readyz`): `ready` is false — with the
   * `reasons` — while the instance cannot take a payment: it is closing, every admission
   * place has been taken and none given back for `admission.notReadyAfterMs` (default
   * 5 s), or the store does not answer. Answer 503 then, so the balancer sends customers
   * elsewhere; it comes back once the instance is ready again.
   */
  ready(): Promise<CheckoutReadiness>;
  /**
   * The refusal of a request no route took, `path` relative to where the companion is
   * mounted: a `405` naming the route's methods (`allow`) when it is a route of the
   * companion, else `404`. For a merchant app that mounts the companion and answers the
   * paths under it that none of its routes takes (the example does).
   */
  unrouted(method: string, path: string): CheckoutError;
  /** Recovery, awaited (what `start()` runs in the background). */
  recover(): Promise<{checked: number; unknown: number}>;
  /** One sweep of open attempts now (with backoff and bounded concurrency; never two at once). */
  sweep(opts?: {force?: boolean}): Promise<SweepResult>;
  /**
   * Asks the gateway now about the order's open payments (no rate limit or backoff),
   * stores what it says, and answers the order's state as the status route would:
   * `none` for an order without payments. For a back office after it cancelled or
   * resent something at the gateway.
   */
  reconcile(orderRef: string): Promise<StatusResponse>;
  /** Captures a held payment, fully or partly, exactly once per `key`. */
  capture(request: OperationRequest): Promise<OperationResult>;
  /** Releases a held payment, exactly once per `key`. */
  void(request: Omit<OperationRequest, 'amount'>): Promise<OperationResult>;
  /** Refunds a payment, fully or partly, exactly once per `key`; never more than was paid. */
  refund(request: OperationRequest): Promise<OperationResult>;
  /** A customer's saved cards (every customer's when absent): never the tokens. */
  listSavedCards(customerId?: string): Promise<SavedCardSummary[]>;
  /** Removes a customer's saved card (its token is forgotten); false when they have no such card. */
  removeSavedCard(customerId: string, savedCardId: string): Promise<boolean>;
  /** Delivers pending `onPaymentUpdate` notifications; resolves when done or blocked. */
  flushOutbox(): Promise<void>;
  /** The shop-wide card-testing breaker as it stands (open or closed, and its counts). */
  cardTesting(): Promise<CardTestingState>;
  /** Refused webhooks kept one by one and only counted, over the minutes counts are kept. */
  rejectedWebhookCounts(): Promise<{kept: number; counted: number}>;
  /**
   * Closes the companion gracefully: from now on every request is answered `503 busy` with
   * `Retry-After` (webhooks too: the gateway sends them again), the requests admitted
   * before run to their end, then — with `flush` — the payment updates stored meanwhile
   * are delivered, background work is awaited, and — with `closeStore` — the store is
   * closed. All within `timeoutMs` (default 15000): what is not done by then is left as
   * after a crash (an update in the outbox, an attempt for the sweep), never half done.
   * Without options: waits for in-flight work and keeps the store open (its owner closes it).
   */
  close(options?: CheckoutCloseOptions): Promise<CheckoutCloseResult>;
  /** Requests worked on and waiting now, and those answered `503 busy` since the start. */
  load(): {inFlight: number; queued: number; refusedBusy: number};
  readonly store: PaymentStore;
  readonly logger: CheckoutLogger;
  readonly service: PaymentService;
};

/** What a {@link CheckoutApp}'s `ready` answers. */
export interface CheckoutReadiness {
  /** True when the instance can take a payment now. */
  ready: boolean;
  /** Why not: `closing`, `saturated` (admission full too long), `store_unavailable`. */
  reasons: ('closing' | 'saturated' | 'store_unavailable')[];
  /** As `health()`: `recovering` while start-up recovery runs (the instance still serves). */
  state: 'ready' | 'recovering';
  /** The store answered its ping. */
  store: boolean;
  /** How long (ms) every admission place has been taken without one given back. */
  fullForMs: number;
}

/** Options of a {@link CheckoutApp}'s `close`. */
export interface CheckoutCloseOptions {
  /** Deliver the payment updates still in the outbox before closing (default false). */
  flush?: boolean;
  /** Close the store once the rest is done (default false: its owner closes it). */
  closeStore?: boolean;
  /** The deadline of the whole close, in ms (default 15000). */
  timeoutMs?: number;
}

/** What a {@link CheckoutApp}'s `close` managed before its deadline. */
export interface CheckoutCloseResult {
  /** Every request admitted before the close was answered. */
  drained: boolean;
  /** With `flush`: the outbox was delivered (else updates wait for another instance). */
  flushed: boolean;
}
