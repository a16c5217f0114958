/**
 * The companion's structured logging. The companion writes through `CheckoutLogger`, the
 * smallest interface a logger can offer (fields, then a message): pino fits it, so does
 * `console`. `createCheckoutLogger` is the default, pino with redaction of every path where
 * card data or credentials could appear should a caller ever log such an object. Redaction
 * is the second line of defence: the companion itself never passes card data, request
 * bodies or secrets to the logger in the first place. Besides the paths, every string of a
 * line (at the top and one level down) has its card-number-like digit runs masked, by the
 * same rule as the CSP reports' fields (`maskCardDigits`, card-digits.ts).
 */
import {pino, type DestinationStream, type Logger, type LoggerOptions} from 'pino';
import {maskCardDigits} from '../card-digits.js';

/** One level of a `CheckoutLogger`: structured fields first, then the message. */
export type LogMethod = (fields: Record<string, unknown>, message: string) => void;

/** What the companion needs of a logger: pino, `console` or any object with these methods. */
export interface CheckoutLogger {
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

/** The levels the companion writes at, in the order of their severity. */
export const LOG_LEVELS = [
  'info',
  'warn',
  'error',
] as const satisfies readonly (keyof CheckoutLogger)[];

/** True when `value` has every method of `CheckoutLogger`. */
export function isCheckoutLogger(value: unknown): value is CheckoutLogger {
  return (
    typeof value === 'object' &&
    value !== null &&
    LOG_LEVELS.every((level) => typeof (value as Record<string, unknown>)[level] === 'function')
  );
}

/** Paths pino censors in every log line. */
export const REDACT_PATHS: readonly string[] = [
  'card',
  '*.card',
  'cc_number',
  '*.cc_number',
  'card_cvv',
  '*.card_cvv',
  'cvv',
  '*.cvv',
  'number',
  '*.number',
  'cc_token',
  '*.cc_token',
  'cardToken',
  '*.cardToken',
  'apiSecret',
  '*.apiSecret',
  'credentials',
  '*.credentials',
  'authorization',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-auth"]',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["x-api-auth"]',
  '*.headers["x-api-key"]',
];

const CENSOR = '[redacted]';

/**
 * `REDACT_PATHS` read into the three shapes it holds, so that the paths stay the one
 * definition: a key at the top of a line (`card`), a key one level down (`*.card`), and a
 * header at the top or one level down (`headers.cookie`, `*.headers["x-api-key"]`). A path
 * of any other shape fails here, at start-up, rather than go uncensored.
 */
function pathShapes(paths: readonly string[]) {
  const top = new Set<string>();
  const nested: string[] = [];
  const headers = {top: [] as string[], nested: [] as string[]};
  const KEY = String.raw`(?:([\w$]+)|\["([^"]+)"\])`;
  for (const p of paths) {
    const m =
      new RegExp(String.raw`^(\*\.)?(headers)(?:\.|(?=\[))${KEY}$`).exec(p) ??
      new RegExp(String.raw`^(\*\.)?()${KEY}$`).exec(p);
    const key = m?.[3] ?? m?.[4];
    if (!m || key === undefined) throw new Error(`REDACT_PATHS: no rule for the path ${p}`);
    if (m[2]) (m[1] ? headers.nested : headers.top).push(key);
    else if (m[1]) nested.push(key);
    else top.add(key);
  }
  return {top, nested, headers};
}

const SHAPES = pathShapes(REDACT_PATHS);
/** The keys `REDACT_PATHS` censors at the top of a line (`card`) … */
const TOP_KEYS = SHAPES.top;
/** … one level down (`*.card`) … */
const NESTED_KEYS = SHAPES.nested;
/** … and in `headers`, at the top and one level down (`headers.cookie`, `*.headers.cookie`). */
const HEADER_KEYS = SHAPES.headers.top;
const NESTED_HEADER_KEYS = SHAPES.headers.nested;

const copyOf = (value: object): Record<string, unknown> =>
  Object.assign(Array.isArray(value) ? [] : {}, value) as Record<string, unknown>;

/** `value` with `keys` censored (a copy when one is there; `value` itself otherwise). */
function censorKeys(value: object, keys: readonly string[]): object {
  let copy: Record<string, unknown> | undefined;
  for (const key of keys) {
    if (key in value) (copy ??= copyOf(value))[key] = CENSOR;
  }
  return copy ?? value;
}

/** `value` with its strings' digit runs masked (a copy when one changes; `value` otherwise). */
function maskStrings(value: object): object {
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const v = (value as Record<string, unknown>)[key];
    if (typeof v !== 'string') continue;
    const masked = maskCardDigits(v);
    if (masked !== v) (copy ??= copyOf(value))[key] = masked;
  }
  return copy ?? value;
}

/**
 * An object-valued field of a line with `REDACT_PATHS` one level down censored and its
 * strings' digit runs masked.
 */
function redactNested(value: object, isHeaders: boolean): object {
  let out = censorKeys(maskStrings(value), NESTED_KEYS);
  if (isHeaders) out = censorKeys(out, HEADER_KEYS);
  const headers = 'headers' in out ? (out as {headers: unknown}).headers : undefined;
  if (typeof headers === 'object' && headers !== null) {
    const censored = censorKeys(headers, NESTED_HEADER_KEYS);
    if (censored !== headers) {
      if (out === value) out = copyOf(value);
      (out as Record<string, unknown>)['headers'] = censored;
    }
  }
  return out;
}

/**
 * The fields of a log line with every path of `REDACT_PATHS` censored, as pino's `redact`
 * option censors them (a path that is there, even undefined, reads `[redacted]`), and the
 * digit runs of its strings masked (`maskCardDigits`, top level and one down), without
 * changing the caller's objects: a copy is made only of what has something to censor. Done
 * here rather than by pino's `redact`, whose wildcard paths cost about 25 µs per line,
 * every line, for nothing to censor in all of them (several lines per payment).
 */
export function redactLogFields<T extends object>(given: T): T {
  const fields = given as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key in fields) {
    if (!Object.prototype.hasOwnProperty.call(fields, key)) continue;
    const value = fields[key];
    if (value === undefined) continue;
    if (TOP_KEYS.has(key)) {
      (out ??= {...fields})[key] = CENSOR;
    } else if (typeof value === 'string') {
      const masked = maskCardDigits(value);
      if (masked !== value) (out ??= {...fields})[key] = masked;
    } else if (typeof value === 'object' && value !== null) {
      const censored = redactNested(value, key === 'headers');
      if (censored !== value) (out ??= {...fields})[key] = censored;
    }
  }
  return (out ?? given) as T;
}

/**
 * A pino logger with the companion's redaction (`REDACT_PATHS`, in each line's fields and a
 * child logger's bindings). `destination` lets tests capture every line (any writable
 * stream); by default lines go to stdout.
 *
 * @example
 * ```ts
 * import {createCheckoutLogger} from 'pg-checkout/server';
 *
 * const logger = createCheckoutLogger({level: 'warn'}); // createCheckoutApp({logger, ...})
 * logger.warn({orderRef: 'ORDER-1001'}, 'written with the redaction');
 * ```
 */
export function createCheckoutLogger(
  options: LoggerOptions = {},
  destination?: DestinationStream,
): Logger {
  const merged: LoggerOptions = {
    name: 'pg-checkout',
    level: 'info',
    ...options,
    redact: undefined,
    formatters: redactingFormatters(options.formatters),
  };
  const logger = destination ? pino(merged, destination) : pino(merged);
  // A child's bindings are written once, without the formatters' `bindings` (pino resets
  // it for children): they are censored on their way in. Children inherit this `child`.
  const child = logger.child;
  logger.child = function redactingChild(this: Logger, bindings, childOptions) {
    const opts = childOptions?.formatters
      ? {...childOptions, formatters: redactingFormatters(childOptions.formatters)}
      : childOptions;
    return child.call(this, redactLogFields(bindings), opts);
  } as typeof logger.child;
  return logger;
}

/** `given` formatters (a logger's or a child's), each line's fields and the bindings then censored. */
function redactingFormatters<F extends {log?: unknown; bindings?: unknown}>(
  given: F | undefined,
): F {
  const log = given?.log as ((fields: object) => object) | undefined;
  const bindings = given?.bindings as ((fields: object) => object) | undefined;
  return {
    ...given,
    log: (fields: object) => redactLogFields(log ? log(fields) : fields),
    bindings: (fields: object) => redactLogFields(bindings ? bindings(fields) : fields),
  } as unknown as F;
}
