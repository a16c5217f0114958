/**
 * The companion's CSP report endpoint, `POST /security-report` (where the companion is
 * mounted): the payment page's policy names it in `report-to` (with a
 * `Reporting-Endpoints` header) and `report-uri`, and browsers post their violation
 * reports to it (security-report-records.ts reads both formats and masks every field). Anyone can
 * post to it, so every write it makes is bounded, shop-wide: each request is limited in
 * size (`bodyLimitBytes`); each client address (`trustProxy`'s, IPv6 by its /64) in reports
 * per minute (`maxReportsPerMinute`), counted in the guard store, so every instance of the
 * shop shares the budget; and what is kept, as refused webhooks are (kept-or-counted.ts):
 * `keptPerMinute` reports a minute shop-wide are stored, the store trimmed to its newest
 * `maxRows` rows and `maxBytes` bytes, and the rest only counted for `countedMinutes`. A
 * kept report is stored once per key and handed to the merchant's `onSecurityReport`,
 * whose failure is logged and never the browser's concern. Answers 204; 415 for another
 * content type, 413 over the size, 429 over the address's rate.
 */
import type {Context, Handler} from 'hono';
import * as z from 'zod';
import {CheckoutError, CheckoutInvalidRequestError} from '../errors.js';
import type {GuardStore} from '../store/guard-store.js';
import {KeptOrCounted} from '../defences/kept-or-counted.js';
import type {CheckoutLogger} from '../telemetry/logger.js';
import {addressGroup} from '../defences/client-address.js';
import {readBodyText} from './request-defences.js';
import {
  SECURITY_REPORT_TYPES,
  parseSecurityReports,
  securityReportKey,
  type SecurityReport,
  type SecurityReportStore,
} from '../store/security-report-records.js';

/** The route, relative to where the companion is mounted. */
export const SECURITY_REPORT_ROUTE = '/security-report';

/** What `onSecurityReport` is given: the report, and whether its key is new. */
export interface SecurityReportEvent {
  report: SecurityReport;
  key: string;
  /** True the first time this violation is seen (by the store; without one, by this process). */
  isNew: boolean;
  /** How often it has been seen (1 without a store). */
  count: number;
}

/** `securityReports` of `createCheckoutApp`. */
export interface SecurityReportOptions {
  /** Where the reports are kept, once per key (`SqliteSecurityReportStore`, `PostgresSecurityReportStore`); without one, they are logged and handed to the hook only. */
  store?: SecurityReportStore;
  /**
   * Called for every report kept (alert on `isNew`; not for those past `keptPerMinute`,
   * only counted); a throw is logged.
   */
  onSecurityReport?: (event: SecurityReportEvent) => void | Promise<void>;
  /**
   * Reports one client address (an IPv6 /64) may send per minute, across every instance
   * on the store (default 60).
   */
  maxReportsPerMinute?: number;
  /** Largest body, in bytes (default 64 kB: a Reporting API batch). */
  bodyLimitBytes?: number;
  /** Reports kept a minute, shop-wide; past it they are only counted (default 60). */
  keptPerMinute?: number;
  /** Most reports the store keeps: the most recently seen (default 1,000). */
  maxRows?: number;
  /** Most bytes of reports the store keeps, their JSON and keys (default 1 MiB). */
  maxBytes?: number;
  /** Minutes the reports past `keptPerMinute` stay counted (default 1,440: a day). */
  countedMinutes?: number;
}

const positive = (what: string) =>
  z
    .number({error: `must be a number of ${what}`})
    .int()
    .positive({message: 'must be positive'});

/** The option's schema, for `createCheckoutApp`'s (unknown keys are an error). */
export const SecurityReportOptionsSchema = z
  .strictObject({
    store: z
      .custom<SecurityReportStore>(
        (s) =>
          typeof (s as SecurityReportStore | null)?.record === 'function' &&
          typeof (s as SecurityReportStore).list === 'function',
        {message: 'must have record and list methods (a SecurityReportStore)'},
      )
      .optional(),
    onSecurityReport: z
      .custom<NonNullable<SecurityReportOptions['onSecurityReport']>>(
        (f) => typeof f === 'function',
        {message: 'must be a function (event) → void'},
      )
      .optional(),
    maxReportsPerMinute: positive('reports').default(60),
    bodyLimitBytes: positive('bytes').default(64 * 1024),
    keptPerMinute: positive('reports').default(60),
    maxRows: positive('reports').default(1000),
    maxBytes: positive('bytes').default(1024 * 1024),
    countedMinutes: positive('minutes').default(24 * 60),
  })
  .prefault({});

type Resolved = z.output<typeof SecurityReportOptionsSchema>;

/** Most keys remembered as seen, without a store. */
const MAX_SEEN = 1_000;
const MINUTE = 60_000;
/** The guard store's counters: reports kept and counted, and per client address. */
const KEPT = 'security-report';
const FROM = 'security-report:from:';

/**
 * The route's handler. `clientIp` tells the request's address (as the pay route does);
 * `guard` is the shop-wide guard store; `now` is the app's clock.
 */
export function securityReportRoute(
  options: Resolved,
  deps: {
    logger: CheckoutLogger;
    now: () => number;
    clientIp: (c: Context) => string | undefined;
    guard: GuardStore;
  },
): Handler {
  const {logger, now, guard} = deps;
  const seen = new Set<string>();
  const kept = new KeptOrCounted(
    guard,
    KEPT,
    {perMinute: options.keptPerMinute, countedMinutes: options.countedMinutes},
    now,
  );
  const bounds = {rows: options.maxRows, bytes: options.maxBytes};
  /** The minute whose per-address counters of past minutes were last forgotten. */
  let forgotten = -1;

  /** Counts `n` reports of `ip`'s group this minute: the seconds to wait when over the rate. */
  const take = async (ip: string | undefined, n: number): Promise<number | undefined> => {
    const at = now();
    const minute = Math.floor(at / MINUTE);
    if (forgotten !== minute) {
      forgotten = minute;
      await guard.forget?.(FROM, minute);
    }
    const group = ip === undefined ? 'unknown' : addressGroup(ip);
    const count = await guard.add(FROM + group, minute, n, minute);
    if (count <= options.maxReportsPerMinute) return undefined;
    return Math.max(1, Math.ceil(((minute + 1) * MINUTE - at) / 1000));
  };

  const record = async (report: SecurityReport): Promise<SecurityReportEvent> => {
    const key = securityReportKey(report);
    if (options.store) {
      const {isNew, count} = await options.store.record(key, report, new Date(now()));
      await options.store.trim?.(bounds);
      return {report, key, isNew, count};
    }
    const isNew = !seen.has(key);
    seen.add(key);
    if (seen.size > MAX_SEEN) seen.delete(seen.values().next().value!);
    return {report, key, isNew, count: 1};
  };

  return async function securityReport(c) {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const format = SECURITY_REPORT_TYPES.find((t) => t === type);
    if (!format) {
      const types = SECURITY_REPORT_TYPES.join(' or ');
      throw new CheckoutError('invalid_request', 415, `a security report is ${types}`);
    }
    const body = await readBodyText(c.req, options.bodyLimitBytes);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new CheckoutInvalidRequestError('the body is not valid JSON', {field: '(body)'});
    }
    const reports = parseSecurityReports(format, json, c.req.header('user-agent'));
    const wait = await take(deps.clientIp(c), Math.max(reports.length, 1));
    if (wait !== undefined) {
      throw new CheckoutError('rate_limited', 429, 'too many security reports: try again later', {
        retryAfter: wait,
      });
    }
    for (const report of reports) {
      let event: SecurityReportEvent | undefined;
      const written = await kept.write(async () => {
        event = await record(report);
      });
      if (!event) {
        if (written.firstCounted) {
          logger.warn(
            {perMinute: options.keptPerMinute},
            'security reports past the rate kept this minute: counted, not kept',
          );
        }
        continue;
      }
      if (event.isNew) {
        logger.warn(
          {
            key: event.key,
            directive: report.directive,
            blocked: report.blockedUrl,
            page: report.documentUrl,
          },
          'security report: a new CSP violation on the payment page',
        );
      }
      try {
        await options.onSecurityReport?.(event);
      } catch (error) {
        logger.error(
          {key: event.key, error: error instanceof Error ? error.message : String(error)},
          'onSecurityReport failed',
        );
      }
    }
    return c.body(null, 204);
  };
}
