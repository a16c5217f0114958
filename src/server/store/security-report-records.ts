/**
 * The payment page's CSP violation reports (PCI DSS 11.6.1: a change to the page's scripts
 * or headers must be seen): what one report is, read from either format browsers send —
 * the Reporting API's `application/reports+json` (Chromium, WebKit; the policy's
 * `report-to`) and the older `application/csp-report` (Firefox; `report-uri`) — how two
 * reports count as one (a key of what was blocked, where and by which directive), and the
 * small storage interface the report route writes to (SQLite and PostgreSQL implementations
 * beside this file). Nothing of a report is trusted: every field is read as text, URLs lose
 * their query and fragment, and each field is percent-decoded, normalised and has its runs
 * of 12 or more digits masked (`cardSafeText`, card-digits.ts) before it is cut to a length;
 * a line or column number has at most 9 digits. So a script that tried to send a card
 * number away leaves none in the store or the log, however it spelt it.
 */
import {createHash} from 'node:crypto';
import {cardSafeText} from '../card-digits.js';

/** One violation, as stored and handed to `onSecurityReport`. */
export interface SecurityReport {
  /** The page the violation happened on (origin and path). */
  documentUrl: string;
  /** What was blocked: a URL (origin and path), or `inline`, `eval`, `trusted-types-sink`… */
  blockedUrl: string;
  /** The directive that blocked it (`script-src-elem`, `require-trusted-types-for`, …). */
  directive: string;
  /** `enforce` (blocked), or `report` (a report-only policy: it ran). */
  disposition: 'enforce' | 'report';
  /** Where in the page's code, when the browser says. */
  sourceFile?: string;
  line?: number;
  column?: number;
  /** The first characters of the blocked inline code, when the policy asks for them. */
  sample?: string;
  /** The policy that was violated, as the browser had it. */
  policy?: string;
  /** The browser's `User-Agent`, from the report or its request. */
  userAgent?: string;
}

/** A report as the store keeps it: once per key, with when and how often it came. */
export interface StoredSecurityReport extends SecurityReport {
  key: string;
  firstSeen: Date;
  lastSeen: Date;
  count: number;
}

/**
 * Where the report route keeps the reports (`securityReports.store`): one row per key, its
 * count and last sighting updated when it comes again. `SqliteSecurityReportStore` and
 * `PostgresSecurityReportStore` implement it.
 */
export interface SecurityReportStore {
  /** Records `report` seen at `at`: a new row (`isNew`), or one more sighting of its key. */
  record(key: string, report: SecurityReport, at: Date): Promise<{isNew: boolean; count: number}>;
  /** The reports, most recently seen first, at most `limit` (default 100). */
  list(limit?: number): Promise<StoredSecurityReport[]>;
  /**
   * Keeps the most recently seen reports, at most `rows` of them and `bytes` bytes of their
   * JSON and keys, and deletes the rest; answers how many. The route calls it after each
   * report it keeps. Optional for a store of the merchant's own (which then bounds itself).
   */
  trim?(bounds: {rows: number; bytes: number}): Promise<number>;
}

/** Longest text kept of a field. */
const MAX_TEXT = 500;

/** Largest line or column number kept: 9 digits, too few to be a card number. */
const MAX_POSITION = 999_999_999;

function text(value: unknown, max = MAX_TEXT): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return cardSafeText(value).slice(0, max) || undefined;
}

/** A URL without its query and fragment (they may carry anything); a keyword as it is. */
function urlText(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? value : undefined;
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    return text(url.protocol.startsWith('http') ? `${url.origin}${url.pathname}` : url.protocol);
  } catch {
    return text(raw.split(/[?#]/)[0], 100);
  }
}

function whole(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_POSITION
    ? value
    : undefined;
}

function build(fields: {
  documentUrl: unknown;
  blockedUrl: unknown;
  directive: unknown;
  disposition: unknown;
  sourceFile: unknown;
  line: unknown;
  column: unknown;
  sample: unknown;
  policy: unknown;
  userAgent: unknown;
}): SecurityReport | undefined {
  const documentUrl = urlText(fields.documentUrl);
  const directive = text(fields.directive, 100)?.split(/\s/)[0];
  if (!documentUrl || !directive) return undefined;
  const optional = {
    sourceFile: urlText(fields.sourceFile),
    line: whole(fields.line),
    column: whole(fields.column),
    sample: text(fields.sample, 100),
    policy: text(fields.policy, 2000),
    userAgent: text(fields.userAgent, 300),
  };
  return {
    documentUrl,
    blockedUrl: urlText(fields.blockedUrl) ?? 'inline',
    directive,
    disposition: fields.disposition === 'report' ? 'report' : 'enforce',
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
  };
}

/**
 * A report as a store kept it, read again by today's rule: every text field masked again
 * (`cardSafeText`, which leaves what it masked already as it is) and a line or column
 * number too long dropped. Answers the report to write back, or `undefined` when it is
 * unchanged. The stores run it over their rows when they open, so rows written before
 * the rule was this strict (issue 35) lose the numbers they hold.
 */
export function remaskedReport(stored: SecurityReport): SecurityReport | undefined {
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) {
    let next: unknown = value;
    if (typeof value === 'string') next = cardSafeText(value);
    else if ((key === 'line' || key === 'column') && whole(value) === undefined) continue;
    if (next !== value) changed = true;
    out[key] = next;
  }
  if (!changed && Object.keys(out).length === Object.keys(stored).length) return undefined;
  return out as unknown as SecurityReport;
}

/** The media types of the two formats, as the route accepts them. */
export const SECURITY_REPORT_TYPES = [
  'application/reports+json',
  'application/csp-report',
] as const;

/**
 * The violations of one request's body, in either format; the reports of other types a
 * Reporting API batch may hold (deprecations, interventions) are left out, and so is
 * anything that is not a violation report. `userAgent` is the request's, for reports that
 * do not carry their own. `type` is the request's media type (accepted by the route).
 */
export function parseSecurityReports(
  type: (typeof SECURITY_REPORT_TYPES)[number],
  json: unknown,
  userAgent?: string,
): SecurityReport[] {
  // The shapes seen: Chromium posts a Reporting API batch (an array) as reports+json; Firefox
  // posts `{"csp-report": {...}}` as csp-report; WebKit posts either shape as one object,
  // `{"type": "csp-violation", "body": {...}}` or `{..., "csp-report": {...}}`, always as
  // csp-report. So the body's shape decides, whichever of the two types it came as.
  void type;
  const items: unknown[] = Array.isArray(json) ? json : [json];
  return items.flatMap((item) => {
    const entry = item as {
      type?: unknown;
      user_agent?: unknown;
      body?: Record<string, unknown>;
      'csp-report'?: Record<string, unknown>;
    } | null;
    const legacy = entry?.['csp-report'];
    const b = entry?.body;
    let report: SecurityReport | undefined;
    if (legacy && typeof legacy === 'object') {
      report = build({
        documentUrl: legacy['document-uri'],
        blockedUrl: legacy['blocked-uri'],
        directive: legacy['effective-directive'] ?? legacy['violated-directive'],
        disposition: legacy['disposition'],
        sourceFile: legacy['source-file'],
        line: legacy['line-number'],
        column: legacy['column-number'],
        sample: legacy['script-sample'],
        policy: legacy['original-policy'],
        userAgent,
      });
    } else if (entry?.type === 'csp-violation' && b && typeof b === 'object') {
      report = build({
        documentUrl: b['documentURL'],
        blockedUrl: b['blockedURL'],
        directive: b['effectiveDirective'],
        disposition: b['disposition'],
        sourceFile: b['sourceFile'],
        line: b['lineNumber'],
        column: b['columnNumber'],
        sample: b['sample'],
        policy: b['originalPolicy'],
        userAgent: entry.user_agent ?? userAgent,
      });
    }
    return report ? [report] : [];
  });
}

/**
 * The key two reports share when they are the same violation: the page, what was blocked,
 * the directive, the disposition and where in the code. Not the browser or the policy's
 * text: the same violation from every customer is one row, counted.
 */
export function securityReportKey(r: SecurityReport): string {
  const parts = [
    r.documentUrl,
    r.blockedUrl,
    r.directive,
    r.disposition,
    r.sourceFile ?? '',
    r.line ?? '',
    r.column ?? '',
  ];
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
}
