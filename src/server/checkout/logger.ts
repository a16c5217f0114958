/**
 * The companion's structured logging. The companion writes through `CheckoutLogger`, the
 * smallest interface a logger can offer (fields, then a message): pino fits it, so does
 * `console`. `createCheckoutLogger` is the default, pino with redaction of every path where
 * card data or credentials could appear should a caller ever log such an object. Redaction
 * is the second line of defence: the companion itself never passes card data, request
 * bodies or secrets to the logger in the first place.
 */
import {pino, type DestinationStream, type Logger, type LoggerOptions} from 'pino';

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

/**
 * A pino logger with the companion's redaction. `destination` lets tests capture every
 * line (any writable stream); by default lines go to stdout.
 */
export function createCheckoutLogger(
  options: LoggerOptions = {},
  destination?: DestinationStream,
): Logger {
  const merged: LoggerOptions = {
    name: 'pg-checkout',
    level: 'info',
    ...options,
    redact: {paths: [...REDACT_PATHS], censor: '[redacted]'},
  };
  return destination ? pino(merged, destination) : pino(merged);
}
