/**
 * The gateway's request schemas, defined once (`requestSchemas`) for both readings of an
 * amount: the nested request objects (fingerprint, external 3-D Secure, products,
 * recurring), the payment requests (direct and hosted, with their cross-field rules) and the
 * secondary operations (capture, void, refund). `schemas.ts` builds the two readings from
 * this and is where the model is imported from.
 */
import * as z from 'zod';
import {
  AMOUNT_RULE,
  Amount,
  amountText,
  CardNumber,
  CardToken,
  Country,
  Currency,
  Cvv,
  DateString,
  Email,
  ExpMonth,
  ExpYear,
  IpAddress,
  Phone,
  TimeString,
  Url,
  Uuid,
  cardNotExpired,
  symbols,
  text,
} from './primitives.js';
import {NAME_MAX_LENGTH} from '../../rules/customer.js';
import {CreateMethod, INTERVAL_UNITS, IntervalUnit} from './enums.js';

// ---------------------------------------------------------------------------------------
// Nested request objects
// ---------------------------------------------------------------------------------------

const FINGERPRINT_KEYS = [
  'browserColorDepth',
  'browserScreenHeight',
  'browserScreenWidth',
  'browserJavaEnabled',
  'browserLanguage',
  'browserTimeZone',
  'browserTimeZoneOffset',
  'browserAcceptHeader',
  'browserIpAddress',
  'browserUserAgent',
] as const;

/** `browser_fingerprint`: every value a string, as 3-D Secure 2 expects. */
export const BrowserFingerprint = z.strictObject(
  Object.fromEntries(
    FINGERPRINT_KEYS.map((k) => [k, z.string({error: 'must be a string'})]),
  ) as Record<(typeof FINGERPRINT_KEYS)[number], z.ZodString>,
);
export type BrowserFingerprint = z.infer<typeof BrowserFingerprint>;

/** `three_d_secure`: the result of 3-D Secure done by an external service. */
export const ThreeDSecure = z.strictObject({
  cavv: text(256),
  eci: text(8),
  ds_transaction_id: text(256),
  status: text(8),
  version: z
    .string()
    .regex(/^\d+\.\d+\.\d+$/, {message: 'must be a version like 2.2.0'})
    .optional(),
});
export type ThreeDSecure = z.infer<typeof ThreeDSecure>;

/** Default `retry_interval_hours`: 2 for daily subscriptions, 24 otherwise. */
export const defaultRetryIntervalHours = (unit: (typeof INTERVAL_UNITS)[number]) =>
  unit === 'day' ? 2 : 24;
/** Maximum `retry_interval_hours`: 23 for daily subscriptions, 72 otherwise. */
export const maxRetryIntervalHours = (unit: (typeof INTERVAL_UNITS)[number]) =>
  unit === 'day' ? 23 : 72;

// ---------------------------------------------------------------------------------------
// Requests: one definition, read two ways
// ---------------------------------------------------------------------------------------

/**
 * A request amount as it travels: a JSON number, positive, with at most two fractional
 * digits. Decimal text (`"12.50"`) is not an amount on the wire.
 */
export const WireAmount = z
  .number({error: AMOUNT_RULE})
  .refine((n) => amountText(n) !== undefined, {message: AMOUNT_RULE});

/**
 * How the request schemas read amounts. `WireAmount` is the gateway's interface as the
 * spec defines it (what the sandbox checks). The input layer for the client's callers
 * is {@link Amount}, which also takes decimal text and turns it into the same number, so a
 * caller may pass `"12.50"`; nothing else differs between the two readings.
 */
export type AmountReading = typeof WireAmount | typeof Amount;

/** Whether a hosted request must carry `customer_email` and `customer_phone` (the spec says so). */
export type HostedContacts = 'required' | 'optional';

/**
 * Builds every payment and secondary-operation request schema around one amount reading.
 * This is the only definition of those requests: the wire schemas
 * ({@link WirePaymentRequest}, ...) and the caller-input schemas ({@link PaymentRequest},
 * ...) are both made here, so they cannot drift apart. `hostedContacts: 'optional'` is the
 * live gateway's tolerance (gateway-facts.md: hosted requests without phone or email work
 * in production); the spec's reading requires them.
 */
export function requestSchemas<A extends AmountReading>(
  amount: A,
  {hostedContacts = 'required'}: {hostedContacts?: HostedContacts} = {},
) {
  /** `init_recurring`: turns a payment into a subscription. Defaults are filled in. */
  const InitRecurring = z
    .strictObject({
      interval_unit: IntervalUnit,
      interval_count: z
        .number({error: 'must be a whole number from 1 to 30'})
        .int({message: 'must be a whole number from 1 to 30'})
        .min(1, {message: 'must be a whole number from 1 to 30'})
        .max(30, {message: 'must be a whole number from 1 to 30'}),
      retry_attempts: z
        .number({error: 'must be a whole number from 0 to 7'})
        .int({message: 'must be a whole number from 0 to 7'})
        .min(0, {message: 'must be a whole number from 0 to 7'})
        .max(7, {message: 'must be a whole number from 0 to 7'})
        .default(3),
      retry_interval_hours: z
        .number({error: 'must be a whole number of hours'})
        .int({message: 'must be a whole number of hours'})
        .min(1, {message: 'must be at least 1'})
        .optional(),
      start_date: DateString.optional(),
      expiry_date: DateString.optional(),
      time: TimeString.optional(),
      notification_url: Url.optional(),
      amount: amount.optional(),
    })
    .superRefine((r, ctx) => {
      const max = maxRetryIntervalHours(r.interval_unit);
      if (r.retry_interval_hours !== undefined && r.retry_interval_hours > max) {
        ctx.addIssue({
          code: 'custom',
          path: ['retry_interval_hours'],
          message: `must be at most ${max} when interval_unit is ${r.interval_unit}`,
        });
      }
      if (r.start_date && r.expiry_date && r.expiry_date < r.start_date) {
        ctx.addIssue({
          code: 'custom',
          path: ['expiry_date'],
          message: 'must not be before start_date',
        });
      }
    })
    .transform((r) => ({
      ...r,
      retry_interval_hours: r.retry_interval_hours ?? defaultRetryIntervalHours(r.interval_unit),
    }));

  /** A product line; its shape depends on fiscalization, so both known shapes are accepted. */
  const Product = z.looseObject({
    id: z.string().optional(),
    name: text(1024),
    url: Url.optional(),
    currency: Currency.optional(),
    amount: amount.optional(),
    qty: z.number().int().positive().optional(),
    price: amount.optional(),
    quantity: z
      .number()
      .positive()
      .refine(
        (q) =>
          Number.isInteger(Math.round(q * 1000)) &&
          Math.abs(q * 1000 - Math.round(q * 1000)) < 1e-9,
        {
          message: 'must have at most 3 decimal places',
        },
      )
      .optional(),
    code: z.string().optional(),
    unit: z.string().optional(),
  });

  /** Fields both modes share, with the rules the spec states. */
  const commonPaymentFields = {
    pos_id: Uuid,
    method: CreateMethod,
    amount,
    currency: Currency,
    description: text(2048),
    order_id: text(256),
    order_3ds_bypass: text(32),
    products: z.array(Product).optional(),
    customer_id: z.string().optional(),
    customer_fname: text(NAME_MAX_LENGTH).optional(),
    customer_lname: text(NAME_MAX_LENGTH).optional(),
    customer_patronym: z.string().optional(),
    customer_email: Email,
    customer_phone: Phone,
    customer_country: Country.optional(),
    customer_city: z.string().optional(),
    properties: z
      .strictObject({
        state: z.string().optional(),
        address: z.string().optional(),
        post_code: z.string().optional(),
      })
      .optional(),
    customer_birthday: DateString.optional(),
    customer_tax_id: z.string().optional(),
    server_url: Url.optional(),
    result_url: Url.optional(),
    merchant_mcc: z
      .string()
      .regex(/^\d{4}$/, {message: 'must be a 4-digit merchant category code'})
      .optional(),
    payload: symbols(4000).optional(),
    validation_url: Url.optional(),
    payway: z.string().optional(),
    init_recurring: InitRecurring.optional(),
  };

  /** A direct payment: the merchant sends card data (or a token) and the customer's browser data. */
  const DirectPaymentRequest = z
    .strictObject({
      ...commonPaymentFields,
      mode: z.literal('direct'),
      customer_fname: text(NAME_MAX_LENGTH),
      customer_lname: text(NAME_MAX_LENGTH),
      customer_ip: IpAddress,
      browser_fingerprint: BrowserFingerprint,
      cc_number: CardNumber.optional(),
      exp_month: ExpMonth.optional(),
      exp_year: ExpYear.optional(),
      card_cvv: Cvv.optional(),
      cc_token: CardToken.optional(),
      network_transaction_id: z.string().optional(),
      three_d_secure: ThreeDSecure.optional(),
      customer_referrer: Url.optional(),
      cryptogram: z.record(z.string(), z.unknown()).optional(),
    })
    .superRefine(cardDataRule);

  /** A hosted payment: the customer pays on the gateway's page. No card data. */
  const HostedPaymentRequest = z.strictObject({
    ...commonPaymentFields,
    mode: z.literal('hosted'),
    ...(hostedContacts === 'optional'
      ? {customer_email: Email.optional(), customer_phone: Phone.optional()}
      : {}),
    customer_lang: z.string().optional(),
    order_timeout: z
      .number({error: 'must be a whole number of seconds'})
      .int({message: 'must be a whole number of seconds'})
      .positive({message: 'must be positive'})
      .optional(),
    cc_number: notForHosted('cc_number'),
    exp_month: notForHosted('exp_month'),
    exp_year: notForHosted('exp_year'),
    card_cvv: notForHosted('card_cvv'),
    cc_token: notForHosted('cc_token'),
    network_transaction_id: notForHosted('network_transaction_id'),
    three_d_secure: notForHosted('three_d_secure'),
    customer_ip: notForHosted('customer_ip'),
    customer_referrer: notForHosted('customer_referrer'),
    browser_fingerprint: notForHosted('browser_fingerprint'),
    cryptogram: notForHosted('cryptogram'),
  });

  const PaymentRequest = z.discriminatedUnion(
    'mode',
    [DirectPaymentRequest, HostedPaymentRequest],
    {error: 'must be direct or hosted'},
  );

  // Secondary operations (gateway-facts.md; beyond the spec).
  const comment = z.string().max(2048, {message: 'must be at most 2048 characters'}).optional();
  const operationFields = {pos_id: Uuid, order_id: text(256), order_currency: Currency};
  const CaptureRequest = z.strictObject({
    ...operationFields,
    order_amount: amount.optional(),
    products: z.array(Product).optional(),
    comment,
    server_url: Url.optional(),
  });
  const VoidRequest = z.strictObject({...operationFields, comment, server_url: Url.optional()});
  const RefundRequest = z.strictObject({
    ...operationFields,
    refund_amount: amount.optional(),
    comment,
    server_url: Url.optional(),
  });

  return {
    InitRecurring,
    Product,
    DirectPaymentRequest,
    HostedPaymentRequest,
    PaymentRequest,
    CaptureRequest,
    VoidRequest,
    RefundRequest,
  };
}

/** The request schemas of one reading (see {@link requestSchemas}). */
export type RequestSchemas = ReturnType<typeof requestSchemas<AmountReading>>;

const CARD_FIELDS = ['cc_number', 'exp_month', 'exp_year', 'card_cvv'] as const;

/** Rule 1 of payment creation: full card data or `cc_token`, never both; the card not expired. */
function cardDataRule(
  r: Partial<Record<(typeof CARD_FIELDS)[number] | 'cc_token', unknown>>,
  ctx: z.RefinementCtx,
): void {
  const present = CARD_FIELDS.filter((k) => r[k] !== undefined);
  if (r.cc_token !== undefined) {
    for (const k of present) {
      ctx.addIssue({
        code: 'custom',
        path: [k],
        message: 'must not be sent with cc_token: send card data or a token',
      });
    }
    return;
  }
  if (present.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['cc_number'],
      message:
        'is required: a direct payment carries full card data (cc_number, exp_month, exp_year, card_cvv) or cc_token',
    });
    return;
  }
  for (const k of CARD_FIELDS) {
    if (r[k] === undefined)
      ctx.addIssue({code: 'custom', path: [k], message: 'is required with full card data'});
  }
  if (
    typeof r.exp_month === 'number' &&
    typeof r.exp_year === 'number' &&
    !cardNotExpired(r.exp_month, r.exp_year)
  ) {
    ctx.addIssue({code: 'custom', path: ['exp_year'], message: 'the card has expired'});
  }
}

function notForHosted(field: string) {
  return z
    .never({error: `must not be sent for mode=hosted: ${field} is only for direct payments`})
    .optional();
}
