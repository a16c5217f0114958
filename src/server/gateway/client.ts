/**
 * `GatewayClient`: the merchant server's typed client for every endpoint of the gateway
 * (`gateway-spec.md`), plus capture, void and refund from `gateway-facts.md`. Every
 * request is validated with the gateway schemas before it leaves, and its exact JSON text
 * is what the authentication strategy signs and what goes on the wire; every answer is
 * validated when it arrives. Failures are typed errors with stable codes (see
 * `errors.ts`): a payment creation (or capture, void, refund, cancel) that ends in a 5xx,
 * a timeout or a dropped connection is `GatewayOutcomeUnknownError` and is never retried,
 * because the money may have moved; reads are retried with backoff. No error message
 * carries card data or secrets: values are never echoed, and whatever the gateway says
 * back is scrubbed of the request's card data and the credentials before it is kept.
 */
import * as z from 'zod';
import {
  endpointPath,
  GATEWAY_ENDPOINTS,
  plainAuth,
  type AuthStrategy,
  type Credentials,
  type GatewayEndpoint,
} from './auth.js';
import {
  GatewayAuthenticationError,
  GatewayConflictError,
  GatewayError,
  GatewayMethodError,
  GatewayNotFoundError,
  GatewayOutcomeUnknownError,
  GatewayProtocolError,
  GatewayRateLimitError,
  GatewayUnavailableError,
  GatewayValidationError,
  RequestValidationError,
} from './errors.js';
import {luhnValid, text, Uuid} from './primitives.js';
import {
  CancelResponse,
  CaptureRequest,
  ErrorBody,
  formatIssues,
  isOperationRecord,
  OperationRecord,
  OrderTransactions,
  PaymentRecord,
  PaymentRequest,
  PeriodQuery,
  PeriodTransaction,
  RegisterRecord,
  RegisterRequest,
  RegisterStarted,
  RefundRequest,
  REGISTER_METHODS,
  ReportNotReady,
  SECONDARY_METHODS,
  SubscriptionRecord,
  SubscriptionTransactionsQuery,
  TransactionRecord,
  VoidRequest,
  type FieldIssue,
  type PaymentRequestInput,
} from './schemas.js';

// ---------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------

/** The `fetch` the client calls; `globalThis.fetch` unless one is injected. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options of {@link GatewayClient}. */
export interface GatewayClientOptions {
  /** The gateway's base address, e.g. `https://cpay.tranzzo.com` (paths are appended). */
  baseUrl: string;
  /** The project identifier (`POS_ID`), a UUID. Filled into requests that omit `pos_id`. */
  posId: string;
  credentials: Credentials;
  /** Request authentication; default {@link plainAuth} of `credentials`. */
  auth?: AuthStrategy;
  /** Time allowed for one HTTP exchange, headers and body, in ms. Default 30000. */
  timeoutMs?: number;
  /** Extra attempts of a GET after a network error, a timeout, a 5xx or a 429. Default 2. */
  retries?: number;
  /** First backoff delay between GET attempts, in ms; doubled each time, with jitter. Default 250. */
  retryDelayMs?: number;
  /** Longest wait between GET attempts, in ms, including a `Retry-After`. Default 10000. */
  maxRetryDelayMs?: number;
  fetch?: FetchLike;
}

const CONFIG_RULE = {
  nonEmpty: 'must be a non-empty string',
};

const ClientOptions = z.strictObject({
  baseUrl: z
    .string({error: 'must be an absolute http(s) URL'})
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
      message: 'must be an absolute http(s) URL',
    }),
  posId: Uuid,
  credentials: z.strictObject({
    apiKey: z.string({error: CONFIG_RULE.nonEmpty}).min(1, {message: CONFIG_RULE.nonEmpty}),
    apiSecret: z.string({error: CONFIG_RULE.nonEmpty}).min(1, {message: CONFIG_RULE.nonEmpty}),
    endpointsKey: z
      .string({error: CONFIG_RULE.nonEmpty})
      .min(1, {message: CONFIG_RULE.nonEmpty})
      .optional(),
  }),
  auth: z
    .custom<AuthStrategy>(
      (a) =>
        typeof a === 'object' && a !== null && typeof (a as AuthStrategy).headers === 'function',
      {message: 'must be an auth strategy (an object with a headers() function)'},
    )
    .optional(),
  timeoutMs: z
    .number({error: 'must be a positive whole number of milliseconds'})
    .int({message: 'must be a positive whole number of milliseconds'})
    .positive({message: 'must be a positive whole number of milliseconds'})
    .optional(),
  retries: z
    .number({error: 'must be a whole number from 0 to 10'})
    .int({message: 'must be a whole number from 0 to 10'})
    .min(0, {message: 'must be a whole number from 0 to 10'})
    .max(10, {message: 'must be a whole number from 0 to 10'})
    .optional(),
  retryDelayMs: z
    .number({error: 'must be a whole number of milliseconds'})
    .int({message: 'must be a whole number of milliseconds'})
    .nonnegative({message: 'must be a whole number of milliseconds'})
    .optional(),
  maxRetryDelayMs: z
    .number({error: 'must be a whole number of milliseconds'})
    .int({message: 'must be a whole number of milliseconds'})
    .nonnegative({message: 'must be a whole number of milliseconds'})
    .optional(),
  fetch: z
    .custom<FetchLike>((f) => typeof f === 'function', {message: 'must be a fetch function'})
    .optional(),
});

function configError(issues: readonly FieldIssue[]): TypeError {
  const lines = issues.map((i) =>
    i.message === 'is not a field of this request'
      ? `unknown option \`${i.field}\``
      : `\`${i.field}\` ${i.message}`,
  );
  return new TypeError(`GatewayClient: invalid options: ${lines.join('; ')}`);
}

// ---------------------------------------------------------------------------------------
// Results and inputs
// ---------------------------------------------------------------------------------------

/** A request with `pos_id` optional: the client fills in its own. */
export type WithOptionalPosId<T> = T extends unknown
  ? Omit<T, 'pos_id'> & {pos_id?: string}
  : never;

/** The answer to a payment creation. */
export type CreatePaymentResult =
  | {kind: 'direct'; record: PaymentRecord}
  | {kind: 'hosted'; checkoutUrl: string; record?: PaymentRecord};

/** The answer to a register fetch: not generated yet, or its records. */
export type RegisterResult =
  {ready: false; message: string} | {ready: true; records: RegisterRecord[]};

/** Options of {@link GatewayClient.waitForRegister}. */
export interface WaitForRegisterOptions {
  /** Give up after this many ms. Default 120000. */
  deadlineMs?: number;
  /** First wait between fetches, in ms. Default 500. */
  initialDelayMs?: number;
  /** Longest wait between fetches, in ms. Default 10000. */
  maxDelayMs?: number;
  signal?: AbortSignal;
}

/** `capture`, `void` and `refund` inputs (beyond the spec; see gateway-facts.md). */
export type CaptureInput = WithOptionalPosId<z.input<typeof CaptureRequest>>;
export type VoidInput = WithOptionalPosId<z.input<typeof VoidRequest>>;
export type RefundInput = WithOptionalPosId<z.input<typeof RefundRequest>>;
export type RegisterInput = Omit<z.input<typeof RegisterRequest>, 'project_id'> & {
  project_id?: string;
};

// ---------------------------------------------------------------------------------------
// Redaction: nothing the client throws may carry card data or secrets
// ---------------------------------------------------------------------------------------

const REDACTED = '[redacted]';
const CARD_FIELDS = ['cc_number', 'card_cvv', 'cc_token'] as const;

/** Values that must never appear in an error: card data of the request and the secrets. */
function sensitiveValuesOf(request: unknown, credentials: Credentials): string[] {
  const values = [credentials.apiSecret, credentials.endpointsKey];
  if (typeof request === 'object' && request !== null) {
    for (const field of CARD_FIELDS)
      values.push(stringValue((request as Record<string, unknown>)[field]));
  }
  return values.filter((v): v is string => typeof v === 'string' && v.length > 0);
}

function stringValue(v: unknown): string | undefined {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Scrubs text the gateway sent back (it may echo what it got): the request's card number,
 * CVV and token, the API secret and endpoints key, and any run of 13–19 digits that passes
 * the Luhn check (a card number, perhaps spaced or dashed).
 */
function redactText(value: string, sensitive: readonly string[]): string {
  let out = value;
  for (const s of sensitive) {
    // Short values (a CVV) only where they stand alone, so "1234" does not eat "12345".
    const pattern =
      s.length < 8 ? `(?<![0-9A-Za-z])${escapeRegExp(s)}(?![0-9A-Za-z])` : escapeRegExp(s);
    out = out.replace(new RegExp(pattern, 'g'), REDACTED);
  }
  return out.replace(/\d(?:[ -]?\d){12,18}/g, (run) =>
    luhnValid(run.replace(/[ -]/g, '')) ? REDACTED : run,
  );
}

function redactDeep(value: unknown, sensitive: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, sensitive);
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, sensitive, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, sensitive, depth + 1);
  return out;
}

// ---------------------------------------------------------------------------------------
// Checked payment requests
// ---------------------------------------------------------------------------------------

/**
 * A payment request validated with the gateway model, and the JSON text that goes on the
 * wire, made from the validated request when it was checked: a caller that must validate
 * before it stores anything (the checkout companion) passes it to
 * {@link GatewayClient.createPayment} with the same request, which then sends that text
 * instead of validating again. Made only by {@link checkPaymentRequest}; the text cannot
 * change afterwards.
 */
export class CheckedPaymentRequest {
  readonly #input: object;
  readonly #data: PaymentRequest;
  readonly #json: string;

  private constructor(input: object, data: PaymentRequest) {
    this.#input = input;
    this.#data = Object.freeze(data);
    this.#json = JSON.stringify(data);
  }

  /** Validates `{pos_id, ...request}`; the check, or the issues that fail it. */
  static check(
    request: WithOptionalPosId<PaymentRequestInput>,
    posId?: string,
  ): {ok: true; checked: CheckedPaymentRequest} | {ok: false; error: z.ZodError} {
    const parsed = PaymentRequest.safeParse(
      posId === undefined ? request : {pos_id: posId, ...request},
    );
    if (!parsed.success) return {ok: false, error: parsed.error};
    return {ok: true, checked: new CheckedPaymentRequest(request, parsed.data)};
  }

  /** True when `checked` was made by {@link check} from this very `request` object. */
  static isCheckOf(checked: unknown, request: object): checked is CheckedPaymentRequest {
    return (
      typeof checked === 'object' &&
      checked !== null &&
      #input in checked &&
      checked.#input === request
    );
  }

  /** The validated request (amounts as numbers, and so on); frozen, and not what is sent. */
  get data(): PaymentRequest {
    return this.#data;
  }

  /** The JSON text sent to the gateway. */
  get json(): string {
    return this.#json;
  }
}

/** Validates a payment request once, for {@link GatewayClient.createPayment}. */
export const checkPaymentRequest = CheckedPaymentRequest.check;

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

function validate<S extends z.ZodType>(what: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new RequestValidationError(what, formatIssues(parsed.error, input));
  return parsed.data;
}

/** Sleeps `ms`, or rejects with the signal's reason when it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(function sleepDone() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, {once: true});
  });
}

/** Exponential backoff with jitter: between half and all of `base * 2^attempt`, capped. */
function backoff(attempt: number, base: number, max: number): number {
  const ceiling = Math.min(max, base * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** `Retry-After` as seconds: a number of seconds, or an HTTP date (seconds from now). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Parses newline-delimited JSON; `undefined` when a line is not JSON. */
function parseNdjson(body: string): unknown[] | undefined {
  const out: unknown[] = [];
  for (const line of body.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      return undefined;
    }
  }
  return out;
}

/**
 * A list body whose exact shape the spec does not show: a JSON array, an object holding
 * one array (`{"transactions": [...]}`), a single record, or one JSON object per line.
 */
function parseListBody(body: string): unknown[] | undefined {
  if (body.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return parseNdjson(body);
  }
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null) {
    const arrays = Object.values(value).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
    return [value];
  }
  return undefined;
}

function parseJson(body: string): {ok: true; value: unknown} | {ok: false} {
  try {
    return {ok: true, value: JSON.parse(body)};
  } catch {
    return {ok: false};
  }
}

function toMillis(value: Date | number): number {
  return value instanceof Date ? value.getTime() : value;
}

// ---------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------

/** How a failure without an answer (or with a 5xx) is reported. */
type Failure = 'read' | 'write';

interface Call {
  endpoint: GatewayEndpoint;
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** The validated request; its JSON text is signed and sent. */
  body?: unknown;
  /** The JSON text of `body`, when it was made already. */
  bodyText?: string;
  /** How a failure is reported: reads as unavailable, writes as outcome unknown. Only GETs are retried. */
  failure: Failure;
  /** The order a write is about, named in an outcome-unknown error. */
  orderId?: string;
  /** A short name of the operation for messages, e.g. "payment creation". */
  what: string;
}

interface Answer {
  status: number;
  headers: Headers;
  body: string;
  url: string;
}

const OrderId = text(256);
const Identifier = text(256);
const Operation = z.enum(REGISTER_METHODS, {
  error: `must be one of ${REGISTER_METHODS.join(', ')}`,
});

/**
 * The merchant server's client for the gateway. Construct it once per project:
 *
 * ```ts
 * const gateway = new GatewayClient({
 *   baseUrl: 'https://cpay.tranzzo.com',
 *   posId: process.env.POS_ID,
 *   credentials: {apiKey, apiSecret, endpointsKey},
 * });
 * const result = await gateway.createPayment({mode: 'direct', ...});
 * ```
 */
export class GatewayClient {
  readonly baseUrl: string;
  readonly posId: string;
  readonly #credentials: Credentials;
  readonly #auth: AuthStrategy;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #retryDelayMs: number;
  readonly #maxRetryDelayMs: number;
  readonly #fetch: FetchLike;

  constructor(options: GatewayClientOptions) {
    const parsed = ClientOptions.safeParse(options);
    if (!parsed.success) throw configError(formatIssues(parsed.error, options));
    const o = parsed.data;
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.posId = o.posId;
    this.#credentials = {...o.credentials};
    this.#auth = o.auth ?? plainAuth(this.#credentials);
    this.#timeoutMs = o.timeoutMs ?? 30_000;
    this.#retries = o.retries ?? 2;
    this.#retryDelayMs = o.retryDelayMs ?? 250;
    this.#maxRetryDelayMs = o.maxRetryDelayMs ?? 10_000;
    const fetchImpl = o.fetch ?? (globalThis.fetch as FetchLike | undefined);
    if (typeof fetchImpl !== 'function') {
      throw new TypeError('GatewayClient: no fetch available; pass `fetch` in the options');
    }
    this.#fetch = fetchImpl;
  }

  // -------------------------------------------------------------------------------------
  // Endpoints
  // -------------------------------------------------------------------------------------

  /**
   * Creates a payment (`POST /api/v1/payment`). A direct payment answers with its record;
   * a hosted one with the checkout address (the 303 `location`, or a JSON `redirect_url`).
   * Never retried: on a 5xx, a timeout or a dropped connection the outcome is unknown
   * ({@link GatewayOutcomeUnknownError}); look the order up by `order_id` before anything
   * else, and use a fresh `order_id` for a new attempt (a reused one is `P-409`).
   */
  async createPayment(
    request: WithOptionalPosId<PaymentRequestInput>,
    checked?: CheckedPaymentRequest,
  ): Promise<CreatePaymentResult> {
    // A request checked by `checkPaymentRequest` is not validated twice: its JSON text,
    // made from the validated request when it was checked, is what is sent.
    const prepared =
      checked !== undefined && CheckedPaymentRequest.isCheckOf(checked, request)
        ? checked
        : undefined;
    const body =
      prepared?.data ??
      validate('payment request', PaymentRequest, {pos_id: this.posId, ...request});
    const answer = await this.#call(
      {
        endpoint: 'createPayment',
        body,
        ...(prepared ? {bodyText: prepared.json} : {}),
        failure: 'write',
        orderId: body.order_id,
        what: 'payment creation',
      },
      request,
    );
    if (body.mode === 'direct') {
      return {kind: 'direct', record: this.#record(answer, PaymentRecord, 'payment record')};
    }
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400) {
      if (!location) {
        throw new GatewayProtocolError(
          `the gateway answered ${answer.status} to a hosted payment without a location header`,
          {status: answer.status},
        );
      }
      const checkoutUrl = new URL(location, answer.url).href;
      const json = parseJson(answer.body);
      const record = json.ok ? PaymentRecord.safeParse(json.value) : undefined;
      return record?.success
        ? {kind: 'hosted', checkoutUrl, record: record.data}
        : {kind: 'hosted', checkoutUrl};
    }
    const value = this.#json(answer, 'hosted payment answer');
    const redirect =
      typeof value === 'object' && value !== null
        ? (value as Record<string, unknown>)['redirect_url']
        : undefined;
    if (typeof redirect !== 'string' || !URL.canParse(redirect, answer.url)) {
      throw new GatewayProtocolError(
        'the gateway answered a hosted payment with neither a 303 location nor a redirect_url',
        {status: answer.status, issues: [{field: 'redirect_url', message: 'is required'}]},
      );
    }
    const record = PaymentRecord.safeParse(value);
    const checkoutUrl = new URL(redirect, answer.url).href;
    return record.success
      ? {kind: 'hosted', checkoutUrl, record: record.data}
      : {kind: 'hosted', checkoutUrl};
  }

  /**
   * Cancels a created, unpaid hosted payment (`POST .../order/{order_id}/cancel`) and
   * returns its record (`status` `failure`, `status_code` `6007`).
   */
  async cancelOrder(orderId: string): Promise<PaymentRecord> {
    validate('order cancel', z.strictObject({orderId: OrderId}), {orderId});
    const answer = await this.#call({
      endpoint: 'cancelOrder',
      params: {posId: this.posId, orderId},
      failure: 'write',
      orderId,
      what: 'order cancel',
    });
    const value = this.#json(answer, 'cancel answer');
    const list = Array.isArray(value) ? value : [value];
    const parsed = CancelResponse.safeParse(list);
    if (!parsed.success) throw this.#shapeError(answer, 'cancel answer', parsed.error, list);
    return parsed.data[0]!;
  }

  /**
   * The record of one operation of an order (`GET .../orders/{order_id}/{operation}`):
   * an operation record for `capture`, `void` and `refund`, a payment record otherwise.
   */
  async getOperation(orderId: string, operation: string): Promise<TransactionRecord> {
    validate('operation lookup', z.strictObject({orderId: OrderId, operation: Operation}), {
      orderId,
      operation,
    });
    const answer = await this.#call({
      endpoint: 'getOperation',
      params: {posId: this.posId, orderId, operation},
      failure: 'read',
      what: 'operation lookup',
    });
    const secondary = (SECONDARY_METHODS as readonly string[]).includes(operation);
    return secondary
      ? this.#record(answer, OperationRecord, 'operation record')
      : this.#record(answer, PaymentRecord, 'payment record');
  }

  /**
   * Asks the gateway to send an operation's webhook again (`...?callback=true`); for a
   * subscription, `transactionId` picks one of its charges (default: the latest). Returns
   * the record when the gateway answers with one (the spec shows one only for
   * subscriptions), else `undefined`.
   */
  async resendWebhook(
    orderId: string,
    operation: string,
    options: {transactionId?: string} = {},
  ): Promise<TransactionRecord | undefined> {
    validate(
      'webhook resend',
      z.strictObject({
        orderId: OrderId,
        operation: Operation,
        transactionId: Identifier.optional(),
      }),
      {orderId, operation, ...options},
    );
    const query: Record<string, string> = {callback: 'true'};
    if (options.transactionId !== undefined) query['transactionId'] = options.transactionId;
    const answer = await this.#call({
      endpoint: 'resendWebhook',
      params: {posId: this.posId, orderId, operation},
      query,
      failure: 'read',
      what: 'webhook resend',
    });
    const json = parseJson(answer.body);
    if (!json.ok) return undefined;
    const record = TransactionRecord.safeParse(json.value);
    return record.success ? record.data : undefined;
  }

  /** Every transaction of an order: the primary record first, then secondary operations. */
  async getOrder(orderId: string): Promise<TransactionRecord[]> {
    validate('order lookup', z.strictObject({orderId: OrderId}), {orderId});
    const answer = await this.#call({
      endpoint: 'getOrder',
      params: {posId: this.posId, orderId},
      failure: 'read',
      what: 'order lookup',
    });
    const value = this.#json(answer, 'order transactions');
    const parsed = OrderTransactions.safeParse(value);
    if (!parsed.success) throw this.#shapeError(answer, 'order transactions', parsed.error, value);
    return parsed.data;
  }

  /**
   * The transactions of a subscription (`GET .../recurring/{recurringId}`), optionally
   * filtered by `method` (`purchase` or `refund` only) and `status`. The spec does not
   * show the body, so a JSON array, an object holding an array, or one record per line
   * are all read.
   */
  async getSubscriptionTransactions(
    recurringId: string,
    filter: z.input<typeof SubscriptionTransactionsQuery> = {},
  ): Promise<TransactionRecord[]> {
    validate('subscription id', z.strictObject({recurringId: Identifier}), {recurringId});
    const query = validate(
      'subscription transactions query',
      SubscriptionTransactionsQuery,
      filter,
    );
    const answer = await this.#call({
      endpoint: 'getSubscriptionTransactions',
      params: {posId: this.posId, recurringId},
      query: Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >,
      failure: 'read',
      what: 'subscription transactions lookup',
    });
    const list = parseListBody(answer.body);
    if (list === undefined) throw this.#notJson(answer, 'subscription transactions');
    const parsed = z.array(TransactionRecord).safeParse(list);
    if (!parsed.success)
      throw this.#shapeError(answer, 'subscription transactions', parsed.error, list);
    return parsed.data;
  }

  /**
   * Transactions over a period (`GET .../transactions?startDate=&enddate=`, Unix ms). The
   * body holds one JSON object per line.
   */
  async getPeriodTransactions(period: {
    start: Date | number;
    end: Date | number;
  }): Promise<PeriodTransaction[]> {
    const query = {startDate: toMillis(period?.start), enddate: toMillis(period?.end)};
    const parsedQuery = PeriodQuery.safeParse(query);
    if (!parsedQuery.success) {
      const names: Record<string, string> = {startDate: 'start', enddate: 'end'};
      throw new RequestValidationError(
        'period',
        formatIssues(parsedQuery.error, query).map((i) => ({
          ...i,
          field: names[i.field] ?? i.field,
        })),
      );
    }
    const answer = await this.#call({
      endpoint: 'getPeriodTransactions',
      params: {posId: this.posId},
      query: {
        startDate: String(parsedQuery.data.startDate),
        enddate: String(parsedQuery.data.enddate),
      },
      failure: 'read',
      what: 'period transactions lookup',
    });
    const list = parseListBody(answer.body);
    if (list === undefined) throw this.#notJson(answer, 'period transactions');
    const parsed = z.array(PeriodTransaction).safeParse(list);
    if (!parsed.success) throw this.#shapeError(answer, 'period transactions', parsed.error, list);
    return parsed.data;
  }

  /** Starts generating a register (`POST /streaming-report/start`); the period is ≤ 31 days. */
  async startRegister(request: RegisterInput): Promise<RegisterStarted> {
    const body = validate('register request', RegisterRequest, {
      project_id: this.posId,
      ...request,
    });
    const answer = await this.#call({
      endpoint: 'startRegister',
      body,
      failure: 'read',
      what: 'register start',
    });
    return this.#record(answer, RegisterStarted, 'register start answer');
  }

  /**
   * Fetches a register (`GET /streaming-report/fetch/{report_id}`): `{ready: false}` while
   * it is being generated (`report_not_ready`), else its records.
   */
  async fetchRegister(reportId: string): Promise<RegisterResult> {
    validate('register fetch', z.strictObject({reportId: Identifier}), {reportId});
    const answer = await this.#call(
      {endpoint: 'fetchRegister', params: {reportId}, failure: 'read', what: 'register fetch'},
      undefined,
      function reportNotReady(a) {
        const json = parseJson(a.body);
        return json.ok && ReportNotReady.safeParse(json.value).success;
      },
    );
    const json = parseJson(answer.body);
    if (json.ok) {
      const notReady = ReportNotReady.safeParse(json.value);
      if (notReady.success) return {ready: false, message: notReady.data.message};
    }
    const list = parseListBody(answer.body);
    if (list === undefined) throw this.#notJson(answer, 'register');
    const parsed = z.array(RegisterRecord).safeParse(list);
    if (!parsed.success) throw this.#shapeError(answer, 'register', parsed.error, list);
    return {ready: true, records: parsed.data};
  }

  /**
   * Fetches a register until it is ready, waiting with exponential backoff between
   * fetches. Throws {@link GatewayUnavailableError} when it is not ready by the deadline,
   * and the signal's reason when aborted.
   */
  async waitForRegister(
    reportId: string,
    options: WaitForRegisterOptions = {},
  ): Promise<RegisterRecord[]> {
    const {deadlineMs = 120_000, initialDelayMs = 500, maxDelayMs = 10_000, signal} = options;
    const deadline = Date.now() + deadlineMs;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw signal.reason;
      const result = await this.fetchRegister(reportId);
      if (result.ready) return result.records;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new GatewayUnavailableError(
          'gateway_unavailable',
          `the register was not ready within ${deadlineMs} ms; fetch it again later`,
        );
      }
      await sleep(Math.min(left, backoff(attempt, initialDelayMs, maxDelayMs)), signal);
    }
  }

  /** Cancels a subscription (`PUT /api/v1/recurring/{recurringId}/cancel`); no more debits. */
  async cancelSubscription(recurringId: string): Promise<SubscriptionRecord> {
    validate('subscription cancel', z.strictObject({recurringId: Identifier}), {recurringId});
    const answer = await this.#call({
      endpoint: 'cancelSubscription',
      params: {recurringId},
      failure: 'write',
      what: 'subscription cancel',
    });
    return this.#record(answer, SubscriptionRecord, 'subscription record');
  }

  /**
   * Captures a held (`auth`) payment, fully or partly (`order_amount`).
   * Beyond the spec (gateway-facts.md): `POST /api/v1/capture`. Never retried.
   */
  async capture(request: CaptureInput): Promise<OperationRecord> {
    const body = validate('capture request', CaptureRequest, {pos_id: this.posId, ...request});
    return this.#secondary('capture', body, body.order_id);
  }

  /**
   * Voids a held payment. Beyond the spec (gateway-facts.md): `POST /api/v1/void`.
   * Never retried.
   */
  async void(request: VoidInput): Promise<OperationRecord> {
    const body = validate('void request', VoidRequest, {pos_id: this.posId, ...request});
    return this.#secondary('void', body, body.order_id);
  }

  /**
   * Refunds a successful purchase or capture, fully or partly (`refund_amount`); several
   * partial refunds may follow each other up to the original amount.
   * Beyond the spec (gateway-facts.md): `POST /api/v1/refund`. Never retried.
   */
  async refund(request: RefundInput): Promise<OperationRecord> {
    const body = validate('refund request', RefundRequest, {pos_id: this.posId, ...request});
    return this.#secondary('refund', body, body.order_id);
  }

  // -------------------------------------------------------------------------------------
  // Transport
  // -------------------------------------------------------------------------------------

  async #secondary(
    endpoint: 'capture' | 'void' | 'refund',
    body: unknown,
    orderId: string,
  ): Promise<OperationRecord> {
    const answer = await this.#call({endpoint, body, failure: 'write', orderId, what: endpoint});
    const record = this.#record(answer, TransactionRecord, `${endpoint} record`);
    if (!isOperationRecord(record)) {
      throw new GatewayProtocolError(`the ${endpoint} record is not an operation record`, {
        status: answer.status,
        issues: [{field: 'operation_id', message: 'is required'}],
      });
    }
    return record;
  }

  /**
   * Sends one request (reads: with retries) and returns a successful answer, or throws
   * the typed error of the failure. `accept` lets an endpoint take a non-2xx answer
   * (a register's `report_not_ready`).
   */
  async #call(call: Call, rawRequest?: unknown, accept?: (a: Answer) => boolean): Promise<Answer> {
    const sensitive = sensitiveValuesOf(rawRequest ?? call.body, this.#credentials);
    const {method} = GATEWAY_ENDPOINTS[call.endpoint];
    const path = endpointPath(call.endpoint, call.params);
    const search = call.query ? new URLSearchParams(call.query).toString() : '';
    const pathAndQuery = search ? `${path}?${search}` : path;
    const bodyText = call.bodyText ?? (call.body === undefined ? '' : JSON.stringify(call.body));
    // Only GETs are retried: a POST or PUT may have done its work before the failure.
    const attempts = method === 'GET' ? this.#retries + 1 : 1;

    for (let attempt = 0; ; attempt++) {
      const last = attempt + 1 >= attempts;
      let answer: Answer;
      try {
        answer = await this.#exchange(call.endpoint, method, pathAndQuery, bodyText);
      } catch (error) {
        const timedOut = error instanceof TimeoutSignal;
        if (!last) {
          await sleep(backoff(attempt, this.#retryDelayMs, this.#maxRetryDelayMs));
          continue;
        }
        throw this.#noAnswer(
          call,
          timedOut,
          attempts,
          error instanceof TimeoutSignal ? undefined : error,
        );
      }
      if ((answer.status >= 200 && answer.status < 400) || accept?.(answer)) return answer;

      const retryable = answer.status === 429 || answer.status >= 500;
      if (retryable && !last) {
        const retryAfter =
          answer.status === 429 ? parseRetryAfter(answer.headers.get('retry-after')) : undefined;
        const wait =
          retryAfter === undefined
            ? backoff(attempt, this.#retryDelayMs, this.#maxRetryDelayMs)
            : retryAfter * 1000;
        if (wait <= this.#maxRetryDelayMs) {
          await sleep(wait);
          continue;
        }
      }
      throw this.#statusError(call, answer, sensitive, attempt + 1);
    }
  }

  /** One HTTP exchange, headers and body within the timeout. */
  async #exchange(
    endpoint: GatewayEndpoint,
    method: string,
    pathAndQuery: string,
    body: string,
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      ...this.#auth.headers({endpoint, method, pathAndQuery, body}),
    };
    if (body !== '') headers['Content-Type'] = 'application/json';
    const controller = new AbortController();
    const timer = setTimeout(function gatewayTimeout() {
      controller.abort(new TimeoutSignal());
    }, this.#timeoutMs);
    const url = this.baseUrl + pathAndQuery;
    try {
      const response = await this.#fetch(url, {
        method,
        headers,
        body: body === '' ? undefined : body,
        redirect: 'manual',
        signal: controller.signal,
      });
      const text = await response.text();
      return {status: response.status, headers: response.headers, body: text, url};
    } catch (error) {
      if (controller.signal.aborted) throw new TimeoutSignal();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  #noAnswer(call: Call, timedOut: boolean, attempts: number, cause: unknown): GatewayError {
    const why = timedOut
      ? `no answer within ${this.#timeoutMs} ms`
      : 'the connection failed or was dropped before an answer';
    if (call.failure === 'write') {
      return new GatewayOutcomeUnknownError(
        `${call.what}: ${why}; its outcome is unknown${orderHint(call.orderId)}`,
        {orderId: call.orderId, cause: safeCause(cause)},
      );
    }
    return new GatewayUnavailableError(
      'gateway_unavailable',
      `${call.what}: ${why} (${attempts} attempt${attempts === 1 ? '' : 's'})`,
      {
        cause: safeCause(cause),
      },
    );
  }

  #statusError(
    call: Call,
    answer: Answer,
    sensitive: readonly string[],
    attempts: number,
  ): GatewayError {
    const {status} = answer;
    const json = parseJson(answer.body);
    const errorBody = json.ok ? ErrorBody.safeParse(json.value) : undefined;
    const args =
      errorBody?.success && errorBody.data.args
        ? (redactDeep(errorBody.data.args, sensitive) as Record<string, unknown>)
        : undefined;
    const said = errorBody?.success
      ? redactText(errorBody.data.message, sensitive).slice(0, 512)
      : '';
    const gatewayCode = typeof args?.['code'] === 'string' ? ` ${args['code']}` : '';
    const detail = `${call.what}: the gateway answered ${status}${gatewayCode}${said ? `: ${said}` : ''}`;
    const opts = {status, args};

    if (status >= 500) {
      if (call.failure === 'write') {
        return new GatewayOutcomeUnknownError(
          `${detail}; its outcome is unknown${orderHint(call.orderId)}`,
          {status, orderId: call.orderId},
        );
      }
      return new GatewayUnavailableError(
        'gateway_unavailable',
        `${detail} (${attempts} attempt${attempts === 1 ? '' : 's'})`,
        opts,
      );
    }
    if (status === 429) {
      const retryAfterSeconds = parseRetryAfter(answer.headers.get('retry-after'));
      return new GatewayRateLimitError(
        `${detail}; too many requests${retryAfterSeconds === undefined ? '' : `, retry after ${retryAfterSeconds} s`}`,
        {...opts, retryAfterSeconds},
      );
    }
    if (gatewayCode === ' P-409' || status === 409) {
      return new GatewayConflictError(
        'conflict',
        `${detail}; an order_id is used once, even after a failed attempt: send a new order_id`,
        opts,
      );
    }
    switch (status) {
      case 400:
      case 422:
        return new GatewayValidationError('gateway_validation', detail, opts);
      case 401:
      case 403:
        return new GatewayAuthenticationError(
          'authentication',
          `${detail}; check pos_id, the API key and secret, and the endpoints key`,
          opts,
        );
      case 404:
        return new GatewayNotFoundError('not_found', detail, opts);
      case 405:
        return new GatewayMethodError('method_not_allowed', detail, opts);
      case 406:
        return new GatewayMethodError(
          'not_acceptable',
          `${detail}; the body must be application/json`,
          opts,
        );
      default:
        return new GatewayProtocolError(`${detail}, a status the gateway does not document`, {
          status,
        });
    }
  }

  #json(answer: Answer, what: string): unknown {
    const json = parseJson(answer.body);
    if (!json.ok) throw this.#notJson(answer, what);
    return json.value;
  }

  #record<S extends z.ZodType>(answer: Answer, schema: S, what: string): z.output<S> {
    const value = this.#json(answer, what);
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw this.#shapeError(answer, what, parsed.error, value);
    return parsed.data;
  }

  #notJson(answer: Answer, what: string): GatewayProtocolError {
    const type = answer.headers.get('content-type');
    return new GatewayProtocolError(
      `the ${what} is not JSON (HTTP ${answer.status}${type ? `, ${type.split(';')[0]}` : ''}, ${answer.body.length} characters)`,
      {status: answer.status},
    );
  }

  #shapeError(
    answer: Answer,
    what: string,
    error: z.ZodError,
    value: unknown,
  ): GatewayProtocolError {
    const issues = formatIssues(error, value);
    return new GatewayProtocolError(
      `the ${what} does not have the shape the spec gives: ${issues
        .slice(0, 10)
        .map((i) => `${i.field}: ${i.message}`)
        .join('; ')}`,
      {status: answer.status, issues},
    );
  }
}

/** Thrown inside the transport when the client's own timeout fires. */
class TimeoutSignal extends Error {
  constructor() {
    super('gateway request timed out');
    this.name = 'TimeoutSignal';
  }
}

function orderHint(orderId: string | undefined): string {
  return orderId === undefined
    ? ': check the state before doing anything else'
    : `: look order_id ${orderId} up before doing anything else, and use a new order_id for a new attempt`;
}

/** A network failure's cause, reduced to its name, code and message (no request data). */
function safeCause(error: unknown): Error | undefined {
  if (!(error instanceof Error)) return undefined;
  const inner = error.cause instanceof Error ? error.cause : undefined;
  const code = (inner as {code?: unknown} | undefined)?.code ?? (error as {code?: unknown}).code;
  const summary = new Error(
    [error.message, inner?.message, typeof code === 'string' ? code : undefined]
      .filter(Boolean)
      .join(': '),
  );
  summary.name = error.name;
  return summary;
}
