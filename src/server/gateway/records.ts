/**
 * What the gateway answers, read leniently: payment, operation, subscription and register
 * records, report rows and the error body. Unknown and additional fields are kept, absent
 * fields may be missing or `null`, because the spec says their lists can change. Part of
 * the gateway model (`schemas.ts`).
 */
import * as z from 'zod';
import {OffsetDateTime, RecordAmount, Uuid} from './primitives.js';
import {
  IntervalUnit,
  Mode,
  RecurringStatus,
  REGISTER_FIELDS,
  RegisterField,
  RegisterMethod,
  SECONDARY_METHODS,
  Status,
} from './enums.js';
import type {FieldIssue} from './issues.js';

/** A record field that may be missing or `null`. */
export const nullish = <T extends z.ZodType>(schema: T) => schema.nullish();

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
