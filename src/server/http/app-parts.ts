/**
 * What the companion app (`app.ts`) is made of beside its routes and its door
 * (`ingress.ts`): how a body is parsed, how a thrown error becomes an answer, whether the
 * instance is ready, how the app closes, and the guard store it makes beside a payment
 * store.
 */
import type {Context, HonoRequest} from 'hono';
import {HTTPException} from 'hono/http-exception';
import type * as z from 'zod';
import {formatIssues} from '../gateway/schemas.js';
import type {Admission} from './admission.js';
import {StoreBusyError} from '../store/store-busy.js';
import type {
  CheckoutCloseOptions,
  CheckoutCloseResult,
  CheckoutReadiness,
  Env,
} from './checkout-app.js';
import {
  CheckoutInvalidRequestError,
  CheckoutBusyError,
  CheckoutError,
  CheckoutForbiddenError,
  CheckoutInternalError,
  CheckoutStoreUnavailableError,
} from '../errors.js';
import {MemoryGuardStore, type GuardStore} from '../store/guard-store.js';
import type {CheckoutLogger} from '../telemetry/logger.js';
import type {ResolvedCheckoutOptions} from './options-schema.js';
import {PostgresGuardStore} from '../store/postgres/postgres-guard-store.js';
import {PostgresPaymentStore} from '../store/postgres/postgres-store.js';
import {errorSummary, type PaymentService} from '../payments/index.js';
import {resolveClientIp} from '../defences/client-address.js';
import {readBodyText} from './request-defences.js';
import {SqliteGuardStore} from '../store/sqlite/sqlite-guard-store.js';
import {SqlitePaymentStore} from '../store/sqlite/sqlite-store.js';
import {StoreUnavailableError, type PaymentStore} from '../store/payment-store.js';

/**
 * Every answer of the companion: never cached, never sniffed as another type, never
 * framed (its JSON — the status route's included — is data, not a page to embed).
 */
export const NO_STORE = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
};

/** Turns unknown keys into a safe field name (keys are attacker-chosen text). */
function safeField(field: string): string {
  return field
    .split('.')
    .map((part) =>
      /^[A-Za-z_][A-Za-z0-9_]{0,40}$|^\(body\)$|^\d{1,3}$/.test(part) ? part : '(unknown key)',
    )
    .join('.');
}

/**
 * A request's JSON body, read within `limitBytes` and parsed by `schema`; else a 400 naming
 * the first field and its rule (`onInvalid` hears the body first, and whether a card field
 * was wrong: card testers probe with bad card data too).
 */
export async function readJsonBody<T>(
  req: HonoRequest,
  limitBytes: number,
  schema: z.ZodType<T>,
  onInvalid?: (json: unknown, cardField: boolean) => Promise<void>,
): Promise<T> {
  const text = await readBodyText(req, limitBytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CheckoutInvalidRequestError('the body is not valid JSON', {field: '(body)'});
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error, json);
    const first = issues[0]!;
    const field = safeField(first.field);
    await onInvalid?.(
      json,
      issues.some((i) => i.field.startsWith('card.')),
    );
    throw new CheckoutInvalidRequestError(`${field}: ${first.message}`, {field});
  }
  return parsed.data;
}

/**
 * The answer to an error a route threw: a `CheckoutError` as it is; a busy pool `503 busy`;
 * a database down `503 store_unavailable`; hono's refusals as 4xx; while the app closes,
 * `503 busy` (the same request, sent again, is answered from what was stored); else 500.
 * Logs what the operator must see.
 */
export function checkoutErrorOf(
  error: unknown,
  at: {logger: CheckoutLogger; path: string; retryAfter: () => number; closing: boolean},
): CheckoutError {
  const {logger, path} = at;
  if (error instanceof CheckoutError) return error;
  // Every database connection was busy past the deadline: the database is up.
  if (error instanceof StoreBusyError) {
    logger.warn({error: errorSummary(error), path}, 'payment store busy');
    return new CheckoutBusyError('this server is busy: try again in a moment', {
      cause: error,
      retryAfter: at.retryAfter(),
    });
  }
  // The database is down: a 503 the browser may retry and the gateway resends after.
  if (error instanceof StoreUnavailableError) {
    logger.error({error: errorSummary(error), path}, 'payment store unavailable');
    return new CheckoutStoreUnavailableError({cause: error});
  }
  // hono/csrf refuses a cross-site form post with a bare 403.
  if (error instanceof HTTPException && error.status === 403) {
    return new CheckoutForbiddenError('cross-site form posts are not allowed');
  }
  if (error instanceof HTTPException && error.status < 500) {
    return new CheckoutError(
      error.status === 404 ? 'not_found' : 'invalid_request',
      error.status,
      'bad request',
    );
  }
  if (at.closing) {
    // Past the close's deadline the store may be closed under a request still running.
    logger.warn({error: errorSummary(error), path}, 'request cut by the shutdown');
    return new CheckoutBusyError('this server is shutting down: try again in a moment', {
      retryAfter: at.retryAfter(),
    });
  }
  logger.error({error: errorSummary(error), path}, 'unhandled error');
  return new CheckoutInternalError();
}

/**
 * `CheckoutApp.close`, once however often called: refuse, drain, flush, close the service,
 * the guard store the app made (`ownGuard`), and with `closeStore` the store.
 */
export function closer(parts: {
  admission: Admission;
  service: PaymentService;
  store: PaymentStore;
  ownGuard: GuardStore | undefined;
}): (options?: CheckoutCloseOptions) => Promise<CheckoutCloseResult> {
  const {admission, service} = parts;
  let closing: Promise<CheckoutCloseResult> | undefined;
  return (options = {}) =>
    (closing ??= (async () => {
      const deadline = Date.now() + (options.timeoutMs ?? 15_000);
      admission.close();
      const drained = await admission.idle(deadline);
      let flushed = false;
      if (options.flush) {
        flushed = await Promise.race([
          service.flushOutbox().then(
            () => true,
            () => false,
          ),
          sleepUntil(deadline).then(() => false),
        ]);
      }
      await Promise.race([service.close(), sleepUntil(deadline)]);
      await parts.ownGuard?.close?.();
      if (options.closeStore) await parts.store.close();
      return {drained, flushed};
    })());
}

/**
 * `CheckoutApp.ready`: not ready while closing, while every admission place has been taken
 * and none given back for `notReadyAfterMs`, or while the store does not answer.
 */
export async function readiness(
  admission: Admission,
  service: PaymentService,
): Promise<CheckoutReadiness> {
  const health = await service.health();
  const fullForMs = Math.round(admission.fullFor());
  const reasons: CheckoutReadiness['reasons'] = [];
  if (admission.closed) reasons.push('closing');
  if (fullForMs >= admission.options.notReadyAfterMs) reasons.push('saturated');
  if (!health.store) reasons.push('store_unavailable');
  return {ready: reasons.length === 0, reasons, ...health, fullForMs};
}

/**
 * The guard store beside a payment store, in the same database: a `SqliteGuardStore` on a
 * `SqlitePaymentStore`'s file (a connection of its own; on `:memory:`, the store's own
 * connection, the only one that sees that database), a `PostgresGuardStore` on a
 * `PostgresPaymentStore`'s pool and schema; else (a store of the merchant's own) this
 * process's memory.
 */
export function guardStoreBeside(store: PaymentStore): GuardStore {
  if (store instanceof PostgresPaymentStore) {
    return new PostgresGuardStore({pool: store.pool, schema: store.schema});
  }
  if (store instanceof SqlitePaymentStore) {
    return store.filename === ':memory:' || store.filename === ''
      ? new SqliteGuardStore({connection: store.connection})
      : new SqliteGuardStore({filename: store.filename});
  }
  return new MemoryGuardStore();
}

function sleepUntil(deadline: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, Math.max(0, deadline - Date.now())).unref?.();
  });
}

/**
 * The client address of a request, as the app's options tell it (`clientIp`, else the
 * socket's, through `trustProxy`'s proxies); `requireIp` throws where none can be told.
 */
export function clientAddresses(
  o: Pick<ResolvedCheckoutOptions, 'clientIp' | 'trustProxy'>,
  logger: CheckoutLogger,
) {
  const clientIp = (c: Context<Env>): string | undefined => {
    if (o.clientIp) return o.clientIp(c.req.raw, c.env);
    const socket = c.env?.incoming?.socket?.remoteAddress;
    return resolveClientIp(socket, c.req.header('x-forwarded-for') ?? null, o.trustProxy);
  };
  const requireIp = (c: Context<Env>): string => {
    const ip = clientIp(c);
    if (!ip) {
      logger.error({}, 'cannot tell the client address: pass options.clientIp for this runtime');
      throw new CheckoutInternalError('the client address is unknown');
    }
    return ip;
  };
  return {clientIp, requireIp};
}
