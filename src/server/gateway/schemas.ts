/**
 * The gateway's data model: one zod schema for every request and resource of
 * `gateway-spec.md`, plus the secondary operations of `gateway-facts.md`. The merchant's
 * client validates what it sends and what it gets with these, and the sandbox validates
 * what it receives and builds what it answers with the same schemas, so the two can never
 * disagree about the interface.
 *
 * Requests are strict: an unknown key is an error that names it (a typo never reaches the
 * gateway). Each payment and secondary-operation request is defined once
 * (`requestSchemas`) and read two ways: the wire schemas (`Wire…`: amounts are JSON
 * numbers, as the spec defines them; the sandbox checks what arrives with these) and, as a
 * separate layer on top, the input schemas for the client's callers (the unprefixed names:
 * amounts may also be decimal text). The file is long because it is the one model of the
 * interface; splitting it would split the definitions the client and the sandbox share. Records and webhooks coming back are lenient: unknown and additional fields
 * are kept, absent fields may be missing or `null`, because the spec says their lists can
 * change.
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
  OffsetDateTime,
  Phone,
  RecordAmount,
  TimeString,
  Url,
  Uuid,
  cardNotExpired,
  symbols,
  text,
} from './primitives.js';
import {NAME_MAX_LENGTH} from '../../protocol/rules/customer.js';

// ---------------------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------------------

export const MODES = ['direct', 'hosted'] as const;
export const CREATE_METHODS = ['auth', 'purchase'] as const;
export const PRIMARY_METHODS = ['purchase', 'auth', 'credit', 'p2p', 'lookup'] as const;
export const SECONDARY_METHODS = ['capture', 'void', 'refund'] as const;
export const REGISTER_METHODS = [
  'auth',
  'purchase',
  'capture',
  'void',
  'p2p',
  'credit',
  'lookup',
  'refund',
  'dispute',
  'recurrent',
] as const;
export const STATUSES = ['init', 'pending', 'success', 'failure'] as const;
export const RECURRING_STATUSES = ['init', 'active', 'canceled'] as const;
export const INTERVAL_UNITS = ['day', 'week', 'month', 'quarter', 'year'] as const;
/** Values of `order_3ds_bypass` seen in real traffic; the full list is not published. */
export const ORDER_3DS_BYPASS_VALUES = ['supported', 'always', 'never'] as const;
/** Fields a register can select (`transaction_details`). */
export const REGISTER_FIELDS = [
  'projectId',
  'orderId',
  'paymentId',
  'amount',
  'currency',
  'method',
  'status',
  'dateTime',
  'cardMask',
  'payway',
  'customerFee',
  'merchantFee',
  'entityName',
  'projectName',
  'originalAmount',
  'exchangeAmount',
  'exchangeCurrency',
  'exchangeRate',
  'tokenizationKind',
  'authCode',
  'rrnCode',
  'description',
  'payload',
  'paymentSystem',
  'recipientCardMask',
  'reserveAmount',
  'receiverName',
  'receiverAmount',
  'receiverFee',
] as const;

/** Status codes the spec and the facts file name. The full list is not published. */
export const STATUS_CODES = {
  success: '1000',
  authSuccess: '1002',
  refundSuccess: '1004',
  wrongCvv: '2007',
  threeDSRequired: '2122',
  issuerError: '5152',
  cancelled: '6007',
} as const;

export const Mode = z.enum(MODES, {error: `must be one of ${MODES.join(', ')}`});
export const CreateMethod = z.enum(CREATE_METHODS, {
  error: `must be one of ${CREATE_METHODS.join(', ')}`,
});
export const Status = z.enum(STATUSES, {error: `must be one of ${STATUSES.join(', ')}`});
export const RecurringStatus = z.enum(RECURRING_STATUSES, {
  error: `must be one of ${RECURRING_STATUSES.join(', ')}`,
});
export const IntervalUnit = z.enum(INTERVAL_UNITS, {
  error: `must be one of ${INTERVAL_UNITS.join(', ')}`,
});
export const RegisterMethod = z.enum(REGISTER_METHODS, {
  error: `must be one of ${REGISTER_METHODS.join(', ')}`,
});
export const RegisterField = z.enum(REGISTER_FIELDS, {
  error: 'must be a register field of the spec',
});

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

/**
 * The wire schemas: requests exactly as the spec defines them, amounts as JSON numbers.
 * The sandbox checks what it receives with these.
 */
const wire = requestSchemas(WireAmount);
export const WireInitRecurring = wire.InitRecurring;
export const WireProduct = wire.Product;
export const WireDirectPaymentRequest = wire.DirectPaymentRequest;
export const WireHostedPaymentRequest = wire.HostedPaymentRequest;
export const WirePaymentRequest = wire.PaymentRequest;
export const WireCaptureRequest = wire.CaptureRequest;
export const WireVoidRequest = wire.VoidRequest;
export const WireRefundRequest = wire.RefundRequest;

/**
 * The input schemas for the client's callers: the same requests with amounts also taken as
 * decimal text (`"12.50"`), which the parsed value carries as the JSON number that goes on
 * the wire. The client validates what its callers pass with these.
 */
const input = requestSchemas(Amount);
export const InitRecurring = input.InitRecurring;
export type InitRecurring = z.output<typeof InitRecurring>;
export type InitRecurringInput = z.input<typeof InitRecurring>;
export const Product = input.Product;
export const DirectPaymentRequest = input.DirectPaymentRequest;
export type DirectPaymentRequest = z.output<typeof DirectPaymentRequest>;
export type DirectPaymentRequestInput = z.input<typeof DirectPaymentRequest>;
export const HostedPaymentRequest = input.HostedPaymentRequest;
export type HostedPaymentRequest = z.output<typeof HostedPaymentRequest>;
export type HostedPaymentRequestInput = z.input<typeof HostedPaymentRequest>;
export const PaymentRequest = input.PaymentRequest;
export type PaymentRequest = z.output<typeof PaymentRequest>;
export type PaymentRequestInput = z.input<typeof PaymentRequest>;
export const CaptureRequest = input.CaptureRequest;
export type CaptureRequest = z.output<typeof CaptureRequest>;
export const VoidRequest = input.VoidRequest;
export type VoidRequest = z.output<typeof VoidRequest>;
export const RefundRequest = input.RefundRequest;
export type RefundRequest = z.output<typeof RefundRequest>;

// ---------------------------------------------------------------------------------------
// Records (lenient)
// ---------------------------------------------------------------------------------------

const nullish = <T extends z.ZodType>(schema: T) => schema.nullish();

export const Fee = z.looseObject({amount: RecordAmount, currency: z.string()});

/** `limit_info`: documented as a string, shown as an object. Both are accepted. */
export const LimitInfo = z.union([
  z.string(),
  z.looseObject({retry_after: z.string().nullish(), description: z.string().nullish()}),
]);

export const RecurringRef = z.looseObject({id: z.string(), status: RecurringStatus});

/** The payment record (primary operation). */
export const PaymentRecord = z.looseObject({
  payment_id: nullish(z.string()),
  order_id: nullish(z.string().max(256)),
  gateway_order_id: nullish(z.string()),
  billing_order_id: nullish(z.string()),
  transaction_id: nullish(z.string()),
  pos_id: nullish(z.string()),
  mode: nullish(Mode),
  method: nullish(z.string()),
  amount: nullish(RecordAmount),
  currency: nullish(z.string()),
  description: nullish(z.string().max(2048)),
  payway: nullish(z.string()),
  status: Status,
  status_code: nullish(z.union([z.string(), z.number().transform(String)])),
  status_description: nullish(z.string()),
  user_action_required: nullish(z.boolean()),
  user_action_url: nullish(z.string()),
  eci: nullish(z.string()),
  mcc: nullish(z.union([z.string(), z.number().transform(String)])),
  options_3ds: nullish(z.string()),
  cc_mask: nullish(z.string()),
  cc_token: nullish(z.string()),
  cc_token_expiration: nullish(z.string()),
  customer_id: nullish(z.string()),
  customer_ip: nullish(z.string()),
  customer_fname: nullish(z.string()),
  customer_lname: nullish(z.string()),
  customer_patronym: nullish(z.string()),
  customer_email: nullish(z.string()),
  customer_phone: nullish(z.string()),
  customer_country: nullish(z.string()),
  customer_city: nullish(z.string()),
  customer_birthday: nullish(z.string()),
  result_url: nullish(z.string()),
  created_at: nullish(z.string()),
  processing_time: nullish(z.string()),
  processed_at: nullish(z.string()),
  fee: nullish(Fee),
  fixed_fee: nullish(Fee),
  percent_fee: nullish(Fee),
  payload: nullish(z.string()),
  bank_short_name: nullish(z.string()),
  receipt_url: nullish(z.string()),
  processed_amount: nullish(RecordAmount),
  processed_currency: nullish(z.string().max(256)),
  recurring: nullish(RecurringRef),
  limit_info: nullish(LimitInfo),
});
export type PaymentRecord = z.output<typeof PaymentRecord>;

/** The secondary operation record (capture, void, refund). */
export const OperationRecord = z.looseObject({
  operation_id: z.union([z.string(), z.number().transform(String)]),
  payment_id: nullish(z.string()),
  order_id: nullish(z.string()),
  transaction_id: nullish(z.string()),
  pos_id: nullish(z.string()),
  mode: nullish(z.string()),
  method: z.enum(SECONDARY_METHODS),
  amount: nullish(RecordAmount),
  currency: nullish(z.string()),
  status: Status,
  status_code: nullish(z.union([z.string(), z.number().transform(String)])),
  status_description: nullish(z.string()),
  fee: nullish(Fee),
  fixed_fee: nullish(Fee),
  percent_fee: nullish(Fee),
  created_at: nullish(z.string()),
  processing_time: nullish(z.string()),
  processed_at: nullish(z.string()),
  receipt_url: nullish(z.string()),
  processed_amount: nullish(RecordAmount),
  processed_currency: nullish(z.string()),
  limit_info: nullish(LimitInfo),
});
export type OperationRecord = z.output<typeof OperationRecord>;

/** Either record: an operation record is told apart by its `operation_id`/secondary method. */
export const TransactionRecord = z.union([OperationRecord, PaymentRecord]);
export type TransactionRecord = z.output<typeof TransactionRecord>;

/** True when a record is a secondary operation (capture, void, refund). */
export const isOperationRecord = (r: TransactionRecord): r is OperationRecord =>
  'operation_id' in r && (SECONDARY_METHODS as readonly string[]).includes(String(r.method));

/** The order lookup: the primary record first, then the secondary operation records. */
export const OrderTransactions = z.array(TransactionRecord);

/** The cancel response: a JSON array holding the payment record. */
export const CancelResponse = z
  .array(PaymentRecord)
  .min(1, {message: 'must hold the payment record'});

/** One line of the period query. */
export const PeriodTransaction = z.looseObject({
  projectId: z.string(),
  orderId: z.string(),
  paymentId: z.string(),
  amount: z.string().regex(/^-?\d+(\.\d+)?$/, {message: 'must be decimal text'}),
  currency: z.string(),
  method: z.string(),
  status: z.string(),
  dateTime: z.union([z.number(), z.literal('')]),
  authCode: z.string().optional(),
  rrnCode: z.string().optional(),
  description: z.string().optional(),
  payload: z.string().optional(),
  customerFee: z.string().optional(),
  merchantFee: z.string().optional(),
  paymentSystem: z.string().optional(),
  recipientCardMask: z.string().optional(),
});
export type PeriodTransaction = z.output<typeof PeriodTransaction>;

/** One register record: exactly the selected fields (all optional here, extras kept). */
export const RegisterRecord = z.looseObject(
  Object.fromEntries(
    REGISTER_FIELDS.map((f) => [f, z.union([z.string(), z.number(), z.null()]).optional()]),
  ),
);
export type RegisterRecord = z.output<typeof RegisterRecord>;

/** Register start request; the period is at most 31 days. */
export const RegisterRequest = z
  .strictObject({
    project_id: Uuid,
    start_date: OffsetDateTime,
    end_date: OffsetDateTime,
    statuses: z.array(Status).optional(),
    methods: z.array(RegisterMethod).optional(),
    transaction_details: z.array(RegisterField).optional(),
  })
  .superRefine((r, ctx) => {
    const start = Date.parse(r.start_date);
    const end = Date.parse(r.end_date);
    if (end < start) {
      ctx.addIssue({code: 'custom', path: ['end_date'], message: 'must not be before start_date'});
    } else if (end - start > 31 * 24 * 3600_000) {
      ctx.addIssue({
        code: 'custom',
        path: ['end_date'],
        message: 'the register period must be at most 31 days',
      });
    }
  });
export type RegisterRequest = z.output<typeof RegisterRequest>;

export const RegisterStarted = z.looseObject({
  report_id: z.string(),
  count: z.number().int().nonnegative(),
});
export type RegisterStarted = z.output<typeof RegisterStarted>;

/** The error body answered while a register is being generated. */
export const ReportNotReady = z.looseObject({
  message: z.string(),
  code: z.literal('report_not_ready'),
});
export type ReportNotReady = z.output<typeof ReportNotReady>;

/** The subscription record (result of subscription cancel). */
export const SubscriptionRecord = z.looseObject({
  recurring_payment: z.looseObject({
    pos_id: nullish(z.string()),
    company_id: nullish(z.string()),
    order_id: nullish(z.string()),
    amount: nullish(RecordAmount),
    currency: nullish(z.string()),
    cc_token: nullish(z.string()),
    description: nullish(z.string()),
    payway: nullish(z.string()),
    server_url: nullish(z.string()),
  }),
  recurring_config: z.looseObject({
    interval_unit: IntervalUnit,
    interval_count: z.number().int(),
    retry_attempts: nullish(z.number().int()),
    retry_interval_hours: nullish(z.number().int()),
    start_date: nullish(z.string()),
    expiry_date: nullish(z.string()),
    time: nullish(z.string()),
  }),
  recurring_status: RecurringStatus,
  metadata: z.looseObject({
    id: z.string(),
    created_at: nullish(z.string()),
    updated_at: nullish(z.string()),
  }),
});
export type SubscriptionRecord = z.output<typeof SubscriptionRecord>;

/** Query of the subscription transactions endpoint: `method` only `purchase` or `refund`. */
export const SubscriptionTransactionsQuery = z.strictObject({
  method: z.enum(['purchase', 'refund'], {error: 'must be purchase or refund'}).optional(),
  status: Status.optional(),
});
export type SubscriptionTransactionsQuery = z.output<typeof SubscriptionTransactionsQuery>;

/** Query of the period endpoint: Unix times in milliseconds (`enddate` with a lower-case d). */
export const PeriodQuery = z
  .strictObject({
    startDate: z.number().int().nonnegative({message: 'must be a Unix time in milliseconds'}),
    enddate: z.number().int().nonnegative({message: 'must be a Unix time in milliseconds'}),
  })
  .refine((q) => q.enddate >= q.startDate, {
    path: ['enddate'],
    message: 'must not be before startDate',
  });
export type PeriodQuery = z.output<typeof PeriodQuery>;

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/**
 * The gateway's error body, read in every shape it is known to take, into one form:
 * `{message, args: {code, ...}}` (gateway-facts.md); `args` as a list of
 * `{field_name, violation}` and `msg` as a string or an array (what the public
 * integrations read); a top-level `code` (the spec's `report_not_ready`); or a bare JSON
 * string or list. The result has `message` (the texts joined, `''` when none), `args` when they
 * were an object (their `code` trimmed), `code` (the gateway code wherever it was) and
 * `violations` (each named field and what is wrong with it).
 */
export const ErrorBody = z
  .union([
    z.string(),
    z.array(z.unknown()),
    z.looseObject({
      message: z.union([z.string(), z.array(z.unknown())]).nullish(),
      msg: z.union([z.string(), z.array(z.unknown())]).nullish(),
      args: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullish(),
      code: z.union([z.string(), z.number()]).nullish(),
    }),
  ])
  .transform(function readErrorBody(body): {
    message: string;
    args?: Record<string, unknown> & {code?: string};
    code?: string;
    violations: FieldIssue[];
  } {
    const texts: string[] = [];
    const violations: FieldIssue[] = [];
    const codeOf = (v: unknown) =>
      typeof v === 'string' || typeof v === 'number' ? String(v).trim() || undefined : undefined;
    let listCode: string | undefined;
    /** A `{field_name, violation}` item becomes a violation, a string a text. */
    const read = (item: unknown) => {
      if (typeof item === 'string') {
        if (item.trim() !== '') texts.push(item.trim());
        return;
      }
      if (typeof item !== 'object' || item === null) return;
      const o = item as Record<string, unknown>;
      const field = o['field_name'] ?? o['field'];
      const said = o['violation'] ?? o['message'] ?? o['msg'];
      const message = (Array.isArray(said) ? said : [said])
        .filter((m): m is string => typeof m === 'string')
        .join('; ');
      if (typeof field === 'string') violations.push({field, message});
      else if (message !== '') texts.push(message);
      listCode ??= codeOf(o['code']);
    };
    const all = (v: unknown) => (Array.isArray(v) ? v.forEach(read) : read(v));
    if (typeof body === 'string' || Array.isArray(body)) {
      all(body);
      return {message: texts.join('; '), ...(listCode ? {code: listCode} : {}), violations};
    }
    all(body.message);
    all(body.msg);
    let args: (Record<string, unknown> & {code?: string}) | undefined;
    if (Array.isArray(body.args)) body.args.forEach(read);
    else if (body.args) {
      const code = codeOf(body.args['code']);
      args = {...body.args};
      if (code === undefined) delete args['code'];
      else args.code = code;
    }
    const code = args?.code ?? codeOf(body.code) ?? listCode;
    return {
      message: texts.join('; '),
      ...(args ? {args} : {}),
      ...(code === undefined ? {} : {code}),
      violations,
    };
  });
export type ErrorBody = z.output<typeof ErrorBody>;

// ---------------------------------------------------------------------------------------
// Webhooks (lenient: the parameter list can change without notice)
// ---------------------------------------------------------------------------------------

/** Webhook of a primary operation (`purchase`, `auth`, `credit`, `p2p`, `lookup`). */
export const PrimaryWebhook = z.looseObject({
  payment_id: z.string(),
  order_id: z.string(),
  gateway_order_id: nullish(z.string()),
  billing_order_id: nullish(z.string()),
  transaction_id: nullish(z.string()),
  pos_id: z.string(),
  mode: z.string(),
  method: z.enum(PRIMARY_METHODS),
  amount: RecordAmount,
  currency: z.string(),
  payway: nullish(z.string()),
  eci: nullish(z.string()),
  status: Status,
  status_code: nullish(z.union([z.string(), z.number().transform(String)])),
  limit_info: nullish(LimitInfo),
  status_description: nullish(z.string()),
  cc_mask: nullish(z.string()),
  cc_token: nullish(z.string()),
  cc_token_expiration: nullish(z.string()),
  customer_id: nullish(z.string()),
  customer_phone: nullish(z.string()),
  fee: nullish(Fee),
  fixed_fee: nullish(Fee),
  percent_fee: nullish(Fee),
  created_at: z.string(),
  processed_at: nullish(z.string()),
  payload: nullish(z.string()),
  receipt_url: nullish(z.string()),
  processed_amount: nullish(RecordAmount),
  processed_currency: nullish(z.string().max(256)),
  recurring: nullish(RecurringRef),
});
export type PrimaryWebhook = z.output<typeof PrimaryWebhook>;

const secondaryWebhookFields = {
  operation_id: z.union([z.string(), z.number().transform(String)]),
  payment_id: z.string(),
  order_id: z.string(),
  transaction_id: nullish(z.string()),
  pos_id: z.string(),
  mode: z.string(),
  amount: RecordAmount,
  currency: z.string(),
  status: Status,
  status_code: nullish(z.union([z.string(), z.number().transform(String)])),
  status_description: nullish(z.string()),
  fee: nullish(Fee),
  created_at: z.string(),
  processed_at: nullish(z.string()),
};

export const CaptureWebhook = z.looseObject({
  ...secondaryWebhookFields,
  method: z.literal('capture'),
  limit_info: nullish(LimitInfo),
});
export const VoidWebhook = z.looseObject({...secondaryWebhookFields, method: z.literal('void')});
export const RefundWebhook = z.looseObject({
  ...secondaryWebhookFields,
  method: z.literal('refund'),
  receipt_url: nullish(z.string()),
});

/** A subscription charge: the payment record plus `recurring {id, status}`. */
export const SubscriptionChargeWebhook = PrimaryWebhook.extend({recurring: RecurringRef});

export type CaptureWebhook = z.output<typeof CaptureWebhook>;
export type VoidWebhook = z.output<typeof VoidWebhook>;
export type RefundWebhook = z.output<typeof RefundWebhook>;
export type SubscriptionChargeWebhook = z.output<typeof SubscriptionChargeWebhook>;

/** Any webhook, told apart by `method` (and `recurring` for subscription charges). */
export type WebhookPayload =
  | ({kind: 'primary'} & PrimaryWebhook)
  | ({kind: 'subscription_charge'} & SubscriptionChargeWebhook)
  | ({kind: 'capture'} & CaptureWebhook)
  | ({kind: 'void'} & VoidWebhook)
  | ({kind: 'refund'} & RefundWebhook);

/** Parses decoded webhook JSON into a {@link WebhookPayload} with a `kind` tag. */
export const WebhookPayload: z.ZodType<WebhookPayload, unknown> = z
  .unknown()
  .transform((input, ctx) => {
    const method =
      typeof input === 'object' && input !== null
        ? (input as Record<string, unknown>)['method']
        : undefined;
    const hasRecurring =
      typeof input === 'object' &&
      input !== null &&
      (input as Record<string, unknown>)['recurring'] != null;
    const pick = () => {
      switch (method) {
        case 'capture':
          return {kind: 'capture' as const, schema: CaptureWebhook};
        case 'void':
          return {kind: 'void' as const, schema: VoidWebhook};
        case 'refund':
          return {kind: 'refund' as const, schema: RefundWebhook};
        default:
          return hasRecurring
            ? {kind: 'subscription_charge' as const, schema: SubscriptionChargeWebhook}
            : {kind: 'primary' as const, schema: PrimaryWebhook};
      }
    };
    const {kind, schema} = pick();
    const parsed = (schema as z.ZodType).safeParse(input);
    if (!parsed.success) {
      // Passed on as they are, codes included, so `formatIssues` can say "is required".
      for (const issue of parsed.error.issues)
        ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
      return z.NEVER;
    }
    // The tag is set last, so it wins over a payload field of the same name.
    return {...(parsed.data as object), kind} as WebhookPayload;
  });

// ---------------------------------------------------------------------------------------
// Error formatting
// ---------------------------------------------------------------------------------------

/** One problem with a field: its dotted path and the rule it broke. Never the value. */
export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * Turns zod issues into field issues ("amount", "must be positive ..."). Pass the parsed
 * `input` so a missing field reads "is required"; values are never included.
 */
export function formatIssues(error: z.ZodError, input?: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({field: [...path, key].join('.'), message: 'is not a field of this request'});
      continue;
    }
    // A built-in issue (wrong type, no union member, not an enum value) at a path that holds
    // nothing means the field is missing. Custom rules already say what they mean.
    const missing =
      issue.code !== 'custom' &&
      issue.path.length > 0 &&
      input !== undefined &&
      valueAt(input, issue.path) === undefined;
    out.push({field: path.join('.') || '(body)', message: missing ? 'is required' : issue.message});
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** One line naming every field and rule, e.g. `amount: must be positive ...; currency: ...`. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.message}`).join('; ');
}
