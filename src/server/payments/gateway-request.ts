/**
 * Builds the gateway's direct payment request from three sources, each trusted for its
 * own part: the merchant's `resolveOrder` (amount, currency, description, method,
 * customer, subscription), the browser's {@link PayRequest} (card data, fingerprint, and
 * customer fields the merchant did not supply, and the page's `Accept` header when the page's
 * server gave it to the form), and the HTTP request itself (client IP and `User-Agent`,
 * which 3-D Secure wants exactly as the browser sent them).
 * The built request is validated with the gateway model before any attempt is stored;
 * its field errors are mapped back to the protocol's field names (`cc_number` →
 * `card.number`) so the browser can point at the right input. Values are never echoed.
 * The hosted request (the customer pays on the gateway's page) is built from the
 * merchant's order alone.
 */
import {normaliseEmail, normaliseName, normalisePhone} from '../../rules/customer.js';
import {randomBytes} from 'node:crypto';
import {CheckedPaymentRequest} from '../gateway/client/index.js';
import {
  formatIssues,
  type DirectPaymentRequestInput,
  type FieldIssue,
  type HostedPaymentRequestInput,
  type InitRecurringInput,
} from '../gateway/schemas.js';
import {amountText} from '../gateway/primitives.js';
import type {PayRequest} from '../../protocol/checkout.js';
import {ClientFingerprintSchema} from '../../protocol/schemas.js';
import {definedOnly} from './defined.js';

/** The customer as the merchant knows them. Every field optional; the browser fills gaps. */
export interface OrderCustomer {
  id?: string;
  firstName?: string;
  lastName?: string;
  patronym?: string;
  email?: string;
  phone?: string;
  country?: string;
  city?: string;
  birthday?: string;
  taxId?: string;
}

/** What `resolveOrder` returns: what is charged for an order. Never taken from the browser. */
export interface ResolvedOrder {
  /** Positive, at most two decimals: `12.5`, `"12.50"`. Prefer text or `amountFromMinor`. */
  amount: number | string;
  /** ISO 4217, e.g. `UAH` (`XTS` for test projects). */
  currency: string;
  description: string;
  /** `purchase` (default) charges at once; `auth` holds the money for a later capture. */
  method?: 'purchase' | 'auth';
  customer?: OrderCustomer;
  /** Turns the payment into a subscription (the gateway's `init_recurring`). */
  initRecurring?: InitRecurringInput;
  /** Merchant data echoed back in records and webhooks (up to 4000 symbols). */
  payload?: string;
  /** Product lines, as the gateway's `products`. */
  products?: DirectPaymentRequestInput['products'];
  /** Merchant category code, when it differs per order. */
  merchantMcc?: string;
}

/** Everything the server adds from its configuration and the HTTP request. */
export interface RequestContext {
  posId: string;
  gatewayOrderId: string;
  customerIp: string;
  /**
   * The pay request's own `Accept` header: the form's fetch, not the page's, so it is not
   * what the gateway gets (the fingerprint's `browserAcceptHeader` or
   * {@link DEFAULT_PAGE_ACCEPT_HEADER} is).
   */
  acceptHeader: string | undefined;
  userAgent: string | undefined;
  serverUrl: string;
  resultUrl: string;
  order3dsBypass: string;
}

/**
 * The `Accept` header 3-D Secure gets when the page's own is not known (the page's server
 * did not write it into the form): what Firefox and Safari send for a page, and Chromium
 * with a few image types more. Never the pay request's header, which is the form's fetch
 * (`application/json`), not the browser's for a page.
 */
export const DEFAULT_PAGE_ACCEPT_HEADER =
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Gateway fields the browser is responsible for, and their protocol names. */
const CARD_FIELDS: Record<string, string> = {
  cc_number: 'card.number',
  exp_month: 'card.expMonth',
  exp_year: 'card.expYear',
  card_cvv: 'card.cvv',
  cc_token: 'savedCardId',
};

const CUSTOMER_FIELDS = {
  customer_fname: 'firstName',
  customer_lname: 'lastName',
  customer_email: 'email',
  customer_phone: 'phone',
} as const;

/** The fingerprint values the browser collects (the protocol's), the rest is the server's. */
const CLIENT_FINGERPRINT_KEYS = ClientFingerprintSchema.keyof().options;

/** A fresh gateway `order_id` for an attempt: `<orderRef>-<seq>-<8 hex>`, at most 256 characters. */
export function newGatewayOrderId(orderRef: string, seq: number): string {
  return `${orderRef}-${seq}-${randomBytes(4).toString('hex')}`.slice(-256);
}

/** What both modes take from the merchant's order and the app: never from the browser. */
type OrderContext = Pick<
  RequestContext,
  'posId' | 'gatewayOrderId' | 'serverUrl' | 'resultUrl' | 'order3dsBypass'
>;

/**
 * The fields a direct and a hosted request share, all from the merchant's order and the
 * app's configuration; optional ones only when the order gives them.
 */
function orderFields(order: ResolvedOrder, ctx: OrderContext) {
  const known = order.customer ?? {};
  return {
    pos_id: ctx.posId,
    method: order.method ?? 'purchase',
    amount: order.amount,
    currency: order.currency,
    description: order.description,
    order_id: ctx.gatewayOrderId,
    order_3ds_bypass: ctx.order3dsBypass,
    server_url: ctx.serverUrl,
    result_url: ctx.resultUrl,
    ...definedOnly({
      customer_id: known.id,
      customer_patronym: known.patronym,
      customer_country: known.country,
      customer_city: known.city,
      customer_birthday: known.birthday,
      customer_tax_id: known.taxId,
      init_recurring: order.initRecurring,
      payload: order.payload,
      products: order.products,
      merchant_mcc: order.merchantMcc,
    }),
  };
}

export interface BuiltRequest {
  request: DirectPaymentRequestInput;
  /** Protocol names of the customer fields that were taken from the browser. */
  fromBrowser: ReadonlySet<string>;
}

/**
 * The merchant's customer data as the gateway wants it, by the same rules the browser's
 * input goes through (`(050) 123-45-67` → `0501234567`, spaces around an address or a
 * name dropped); what the rules cannot mend is then refused by validation, naming the field.
 */
function normaliseCustomer(gatewayKey: keyof typeof CUSTOMER_FIELDS, value: string): string {
  if (gatewayKey === 'customer_phone') return normalisePhone(value);
  if (gatewayKey === 'customer_email') return normaliseEmail(value);
  if (gatewayKey === 'customer_fname' || gatewayKey === 'customer_lname') {
    return normaliseName(value);
  }
  return value;
}

/**
 * Assembles the direct request: with the browser's card data, or with `cardToken` (a saved
 * card's, resolved by the server) instead. Pure: validation is {@link validateDirectRequest}.
 */
export function buildDirectRequest(
  body: PayRequest,
  order: ResolvedOrder,
  ctx: RequestContext,
  cardToken?: string,
): BuiltRequest {
  const fromBrowser = new Set<string>();
  const known = order.customer ?? {};
  const customer = (gatewayKey: keyof typeof CUSTOMER_FIELDS): string | undefined => {
    const key = CUSTOMER_FIELDS[gatewayKey];
    const merchant = known[key];
    if (merchant !== undefined && merchant !== '') return normaliseCustomer(gatewayKey, merchant);
    const browser = body.customer?.[key]?.trim();
    if (browser) fromBrowser.add(gatewayKey);
    return browser || undefined;
  };
  const fingerprint = body.fingerprint;
  const request: DirectPaymentRequestInput = {
    ...orderFields(order, ctx),
    mode: 'direct',
    ...(cardToken !== undefined
      ? {cc_token: cardToken}
      : {
          cc_number: body.card?.number,
          exp_month: body.card?.expMonth,
          exp_year: body.card?.expYear,
          card_cvv: body.card?.cvv,
        }),
    customer_fname: customer('customer_fname') as string,
    customer_lname: customer('customer_lname') as string,
    customer_email: customer('customer_email') as string,
    customer_phone: customer('customer_phone') as string,
    customer_ip: ctx.customerIp,
    browser_fingerprint: {
      ...Object.fromEntries(CLIENT_FINGERPRINT_KEYS.map((k) => [k, fingerprint[k]])),
      // The page's, as the form was given it; never the pay request's own (the form's fetch).
      browserAcceptHeader: fingerprint.browserAcceptHeader || DEFAULT_PAGE_ACCEPT_HEADER,
      browserIpAddress: ctx.customerIp,
      // 3-D Secure wants the User-Agent of the HTTP request, not what the page says it is.
      browserUserAgent: ctx.userAgent || fingerprint.browserUserAgent,
    } as DirectPaymentRequestInput['browser_fingerprint'],
  };
  return {request, fromBrowser};
}

/** The outcome of validating a built request. */
export type RequestValidation =
  /** Valid: `checked` goes to `createPayment` with the request, which sends it as checked. */
  | {ok: true; amountText: string; checked: CheckedPaymentRequest}
  /** The browser's data is at fault: answer 400 naming `field` (a protocol field). */
  | {ok: false; blame: 'browser'; field: string; message: string; issues: FieldIssue[]}
  /** The merchant's data or configuration is at fault: log `issues`, answer 500. */
  | {ok: false; blame: 'merchant'; issues: FieldIssue[]};

/** Maps a gateway field to the protocol field the browser sent, if the browser sent it. */
export function protocolFieldOf(
  gatewayField: string,
  fromBrowser: ReadonlySet<string>,
): string | undefined {
  const top = gatewayField.split('.')[0] ?? '';
  if (CARD_FIELDS[top]) return CARD_FIELDS[top];
  if (top in CUSTOMER_FIELDS && fromBrowser.has(top)) {
    return `customer.${CUSTOMER_FIELDS[top as keyof typeof CUSTOMER_FIELDS]}`;
  }
  if (top === 'browser_fingerprint') {
    const key = gatewayField.split('.')[1];
    if (key && (CLIENT_FINGERPRINT_KEYS as readonly string[]).includes(key))
      return `fingerprint.${key}`;
  }
  return undefined;
}

/**
 * Validates the built request with the gateway model. A missing customer field the
 * browser could have given (the merchant did not) is the browser's: `customer.email is
 * required`.
 */
export function validateDirectRequest(built: BuiltRequest): RequestValidation {
  const parsed = CheckedPaymentRequest.check(built.request);
  if (parsed.ok) {
    const text = amountText(built.request.amount);
    return {
      ok: true,
      amountText: text ?? String(parsed.checked.data.amount),
      checked: parsed.checked,
    };
  }
  const issues = formatIssues(parsed.error, built.request);
  for (const issue of issues) {
    const top = issue.field.split('.')[0] ?? '';
    const missingCustomer =
      top in CUSTOMER_FIELDS && (built.request as Record<string, unknown>)[top] === undefined;
    const field = missingCustomer
      ? `customer.${CUSTOMER_FIELDS[top as keyof typeof CUSTOMER_FIELDS]}`
      : protocolFieldOf(issue.field, built.fromBrowser);
    if (field === undefined) return {ok: false, blame: 'merchant', issues};
  }
  const first = issues[0]!;
  const top = first.field.split('.')[0] ?? '';
  const field =
    protocolFieldOf(first.field, built.fromBrowser) ??
    `customer.${CUSTOMER_FIELDS[top as keyof typeof CUSTOMER_FIELDS]}`;
  return {ok: false, blame: 'browser', field, message: first.message, issues};
}

/** What the server adds to a hosted payment request. */
export interface HostedRequestContext {
  posId: string;
  gatewayOrderId: string;
  serverUrl: string;
  resultUrl: string;
  order3dsBypass: string;
  /** Seconds the gateway's page stays payable; absent: the gateway's default. */
  orderTimeout?: number | undefined;
  /** The checkout page's language (`customer_lang`). */
  language?: string | undefined;
}

/**
 * Assembles a hosted request (the customer pays on the gateway's page): everything comes
 * from the merchant's order; no card data, no browser data. Validated like the direct one.
 */
export function buildHostedRequest(
  order: ResolvedOrder,
  ctx: HostedRequestContext,
): HostedPaymentRequestInput {
  const c = order.customer ?? {};
  return {
    ...orderFields(order, ctx),
    mode: 'hosted',
    customer_email: normaliseEmail(c.email ?? ''),
    customer_phone: normalisePhone(c.phone ?? ''),
    ...definedOnly({
      customer_fname: c.firstName === undefined ? undefined : normaliseName(c.firstName),
      customer_lname: c.lastName === undefined ? undefined : normaliseName(c.lastName),
      customer_lang: ctx.language,
      order_timeout: ctx.orderTimeout,
    }),
  };
}

/** Validates a hosted request; its issues are the merchant's (nothing came from the browser). */
export function validateHostedRequest(
  request: HostedPaymentRequestInput,
):
  | {ok: true; amountText: string; checked: CheckedPaymentRequest}
  | {ok: false; issues: FieldIssue[]} {
  const parsed = CheckedPaymentRequest.check(request);
  if (!parsed.ok) return {ok: false, issues: formatIssues(parsed.error, request)};
  return {
    ok: true,
    amountText: amountText(request.amount) ?? String(parsed.checked.data.amount),
    checked: parsed.checked,
  };
}
