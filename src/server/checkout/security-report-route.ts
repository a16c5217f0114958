/**
 * The companion's CSP report endpoint, `POST /security-report` (where the companion is
 * mounted): the payment page's policy names it in `report-to` (with a
 * `Reporting-Endpoints` header) and `report-uri`, and browsers post their violation
 * reports to it (security-reports.ts reads both formats). Each request is limited in size
 * (`bodyLimitBytes`) and each client address in reports per minute (`maxReportsPerMinute`,
 * counted in this process: several processes each allow as many; the store keeps one row
 * per distinct report whatever comes); each report is stored once per key and handed to
 * the merchant's `onSecurityReport`, whose failure is logged and never the browser's
 * concern. Answers 204; 415 for another content type, 413 over the size, 429 over the rate.
 */
import type {Context, Handler} from 'hono';
import * as z from 'zod';
import {CheckoutError, CheckoutInvalidRequestError} from './errors.js';
import type {CheckoutLogger} from './logger.js';
import {readBodyText} from './security.js';
import {
  SECURITY_REPORT_TYPES,
  parseSecurityReports,
  securityReportKey,
  type SecurityReport,
  type SecurityReportStore,
} from './security-reports.js';

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
  /** Called for every report accepted (alert on `isNew`); a throw is logged. */
  onSecurityReport?: (event: SecurityReportEvent) => void | Promise<void>;
  /** Reports one client address may send per minute (default 60). */
  maxReportsPerMinute?: number;
  /** Largest body, in bytes (default 64 kB: a Reporting API batch). */
  bodyLimitBytes?: number;
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
  })
  .prefault({});

type Resolved = z.output<typeof SecurityReportOptionsSchema>;

/** Most client addresses remembered by the rate limit: the oldest go first. */
const MAX_TRACKED = 10_000;
/** Most keys remembered as seen, without a store. */
const MAX_SEEN = 1_000;

/**
 * The route's handler. `clientIp` tells the request's address (as the pay route does);
 * `now` is the app's clock.
 */
export function securityReportRoute(
  options: Resolved,
  deps: {
    logger: CheckoutLogger;
    now: () => number;
    clientIp: (c: Context) => string | undefined;
  },
): Handler {
  const {logger, now} = deps;
  /** Reports per client address in the current minute: [minute, count]. */
  const counts = new Map<string, [number, number]>();
  const seen = new Set<string>();

  const take = (ip: string, n: number): number | undefined => {
    const minute = Math.floor(now() / 60_000);
    const [at, count] = counts.get(ip) ?? [minute, 0];
    const used = at === minute ? count : 0;
    if (used + n > options.maxReportsPerMinute) return 60 - Math.floor((now() / 1000) % 60);
    counts.delete(ip);
    counts.set(ip, [minute, used + n]);
    if (counts.size > MAX_TRACKED) counts.delete(counts.keys().next().value!);
    return undefined;
  };

  const record = async (report: SecurityReport): Promise<SecurityReportEvent> => {
    const key = securityReportKey(report);
    if (options.store) {
      const {isNew, count} = await options.store.record(key, report, new Date(now()));
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
    const wait = take(deps.clientIp(c) ?? 'unknown', Math.max(reports.length, 1));
    if (wait !== undefined) {
      throw new CheckoutError('rate_limited', 429, 'too many security reports: try again later', {
        retryAfter: wait,
      });
    }
    for (const report of reports) {
      const event = await record(report);
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
