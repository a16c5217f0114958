/**
 * Field-level building blocks of the gateway model: amounts as exact decimals, ISO codes,
 * the spec's date, time and timestamp formats, card and customer fields. The field rules
 * themselves (amount, card number, expiry, security code, email, phone) live in
 * `src/rules/`, which the card form and the checkout protocol use too; the schemas here
 * apply them to the wire exactly as sent, with no normalisation. Every schema here names
 * the rule it enforces in its message; the message is prefixed with the field's path
 * when an error is formatted (see `formatIssues`), so "amount: must be positive ..." tells
 * the caller both what and where.
 */
import * as z from 'zod';
import {ISO_3166_ALPHA2, ISO_4217_CURRENCIES} from './codes.js';
import {amountFromMinor, amountText, amountToMinor} from '../../rules/amount.js';
import {
  CARD_NUMBER_PATTERN,
  CVV_PATTERN,
  EXP_MONTH_MAX,
  EXP_MONTH_MIN,
  EXP_YEAR_MAX,
  EXP_YEAR_MIN,
  cardNotExpired,
  luhnValid,
} from '../../rules/card.js';
import {EMAIL_PATTERN, PHONE_PATTERN} from '../../rules/customer.js';

export {amountFromMinor, amountText, amountToMinor};

export const AMOUNT_RULE = 'must be a positive number with at most 2 decimal places';

/**
 * A request amount: a number (or decimal text) that is positive with at most two
 * fractional digits. The parsed value is a number whose JSON text is exactly that decimal.
 */
export const Amount = z
  .union([z.number({error: AMOUNT_RULE}), z.string({error: AMOUNT_RULE})])
  .transform((value, ctx) => {
    const text = amountText(value);
    if (text === undefined) {
      ctx.addIssue({code: 'custom', message: AMOUNT_RULE, input: value});
      return z.NEVER;
    }
    return Number(text);
  });

/** An amount in a record coming back: a number or numeric text, kept as a number. */
export const RecordAmount = z
  .union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)])
  .transform(Number);

export const Currency = z
  .string({error: 'must be an ISO 4217 currency code'})
  .refine((c) => ISO_4217_CURRENCIES.has(c), {
    message: 'must be an ISO 4217 currency code (e.g. UAH, XTS)',
  });

export const Country = z
  .string({error: 'must be an ISO 3166-1 alpha-2 country code'})
  .refine((c) => ISO_3166_ALPHA2.has(c), {
    message: 'must be an ISO 3166-1 alpha-2 country code (e.g. UA)',
  });

/** A UUID-shaped identifier (8-4-4-4-12 hex); the gateway's `pos_id` and ids. */
export const Uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
    message: 'must be a UUID',
  });

function isCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** `YYYY-MM-DD`, a real calendar date. */
export const DateString = z.string().refine(
  (s) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
    return !!m && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  {message: 'must be a date in YYYY-MM-DD format'},
);

/** `HH:MM:SS`, 24-hour. */
export const TimeString = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/, {
  message: 'must be a time in HH:MM:SS format',
});

/** ISO 8601 with milliseconds and an offset, as register requests use. */
export const OffsetDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?([+-]\d{2}:\d{2}|Z)$/, {
    message: 'must be ISO 8601 with an offset, e.g. 2026-01-31T00:00:00.000+00:00',
  })
  .refine((s) => !Number.isNaN(Date.parse(s)), {message: 'must be a real date and time'});

const LOCAL_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

/** A timestamp from a record: local time as the gateway wrote it, with no zone attached. */
export interface LocalTimestamp {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/**
 * Parses the spec's `yyyy-MM-ddTHH:mm:ss.SSS` local-time timestamp into its fields without
 * guessing a zone (a `Date` would silently apply the server's own). `undefined` when the
 * text is not in that format.
 */
export function parseGatewayTimestamp(text: string): LocalTimestamp | undefined {
  const m = LOCAL_TIMESTAMP.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59)
    return undefined;
  return {
    year,
    month,
    day,
    hour,
    minute,
    second,
    millisecond: Number((m[7] ?? '0').padEnd(3, '0')),
  };
}

/** Formats a UTC `Date` as the gateway's local-time timestamp (`yyyy-MM-ddTHH:mm:ss.SSS`). */
export function formatGatewayTimestamp(date: Date, withMillis = true): string {
  const iso = date.toISOString();
  return withMillis ? iso.slice(0, 23) : iso.slice(0, 19);
}

/** A timestamp in a record: the spec's local-time format (milliseconds optional). */
export const Timestamp = z.string().refine((s) => parseGatewayTimestamp(s) !== undefined, {
  message: 'must be a timestamp in yyyy-MM-ddTHH:mm:ss.SSS format',
});

export const Url = z.url({message: 'must be an absolute URL'});

export const Email = z
  .string({error: 'must be an email address'})
  .regex(EMAIL_PATTERN, {message: 'must be an email address'});

export const Phone = z.string().regex(PHONE_PATTERN, {message: 'must be a phone number'});

export const IpAddress = z.union([z.ipv4(), z.ipv6()], {error: 'must be an IPv4 or IPv6 address'});

export {cardNotExpired, luhnValid};

/** Card number: 12–19 digits that pass the Luhn check. The value is never echoed in errors. */
export const CardNumber = z
  .string({error: 'must be a card number of 12 to 19 digits'})
  .regex(CARD_NUMBER_PATTERN, {message: 'must be a card number of 12 to 19 digits'})
  .refine(luhnValid, {message: 'fails the Luhn check'});

export const ExpMonth = z
  .number({error: 'must be a month from 1 to 12'})
  .int({message: 'must be a month from 1 to 12'})
  .min(EXP_MONTH_MIN, {message: 'must be a month from 1 to 12'})
  .max(EXP_MONTH_MAX, {message: 'must be a month from 1 to 12'});

export const ExpYear = z
  .number({error: 'must be a four-digit year'})
  .int({message: 'must be a four-digit year'})
  .min(EXP_YEAR_MIN, {message: 'must be a four-digit year'})
  .max(EXP_YEAR_MAX, {message: 'must be a four-digit year'});

/** CVV/CVC: digits only, 3 or 4 of them. */
export const Cvv = z
  .string({error: 'must be 3 or 4 digits'})
  .regex(CVV_PATTERN, {message: 'must be 3 or 4 digits'});

/** Stored-card token; tokens from a first wallet payment may carry the prefix `rcr:`. */
export const CardToken = z.string().regex(/^(rcr:)?[A-Za-z0-9._~+/=-]{1,512}$/, {
  message: 'must be a card token (optionally prefixed rcr:)',
});

/** A non-empty string of at most `max` characters. */
export const text = (max: number) =>
  z
    .string()
    .min(1, {message: 'must not be empty'})
    .max(max, {message: `must be at most ${max} characters`});

/** A string of at most `max` characters (the gateway counts symbols: code points). */
export const symbols = (max: number) =>
  z.string().refine((s) => [...s].length <= max, {message: `must be at most ${max} symbols`});
