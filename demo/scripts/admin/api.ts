/**
 * The back office's calls to the server's `/admin/api`, one typed function each, and the
 * shapes of their answers. The session cookie is HttpOnly: the browser never sees the
 * gateway credentials. A 403 `forbidden` (the session ended) goes back to the sign-in page.
 */
import type {WebhookLogEntry} from '../../../server-example/webhook-log.js';

interface ApiError {
  error?: {code?: string; message?: string};
}

/** The server answered with an error (a fetch that got no answer throws a `TypeError`). */
export class ApiFailure extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {Accept: 'application/json', 'Content-Type': 'application/json'},
    ...(body === undefined ? {} : {body: JSON.stringify(body)}),
  });
  const json = (await res.json().catch(() => ({}))) as T & ApiError;
  if (res.status === 403 && json.error?.code === 'forbidden') {
    location.assign('/admin/login');
  }
  if (!res.ok) {
    throw new ApiFailure(json.error?.message ?? `The server answered ${res.status}.`, res.status);
  }
  return json;
}

const path = (...parts: string[]) => `/admin/api/${parts.map(encodeURIComponent).join('/')}`;

// ---- shapes ------------------------------------------------------------------------------

export interface Config {
  sandbox: boolean;
  gatewayNow: string;
  statuses: string[];
  registerMethods: string[];
  registerFields: string[];
}

export interface OrderRow {
  orderRef: string;
  description: string;
  amount: string;
  currency: string;
  kind: string;
  state: string;
  hosted: boolean;
  createdAt: number;
}

export interface Attempt {
  attemptId: string;
  /** Set when the companion gave up on the attempt (the customer left, or it timed out). */
  writtenOff?: 'abandoned' | 'expired';
  gatewayOrderId: string;
  seq: number;
  method: string;
  amount: string;
  currency: string;
  state: string;
  /** What to show for the state: `unconfirmed` for a create the gateway never confirmed. */
  label?: string;
  statusCode?: string;
  statusDescription?: string;
  cardMask?: string;
  recurringId?: string;
  hosted: boolean;
}

export interface GatewayTxn {
  payment_id?: string;
  operation_id?: string;
  transaction_id?: string;
  method?: string;
  mode?: string;
  amount?: number;
  currency?: string;
  status?: string;
  status_code?: string;
  status_description?: string;
  created_at?: string;
}

/** A capture, void or refund the server made, stored before it called the gateway. */
export interface Intent {
  key: string;
  kind: string;
  amount?: string;
  currency?: string;
  state: string;
  /** `duplicate_charge`: the server refunded a second payment of the order by itself. */
  reason?: string;
  operationId?: string;
  createdAt: number;
}

export interface GatewayPayment {
  gatewayOrderId: string;
  transactions?: GatewayTxn[];
  error?: string;
}

export interface OrderDetail {
  order: OrderRow & {paid: boolean};
  attempts: Attempt[];
  gateway: GatewayPayment[];
  /** Absent from servers that do not store intents. */
  intents?: Intent[];
}

/** One webhook delivery, as the server's log keeps it (a type only: nothing of the server is bundled). */
export type Delivery = WebhookLogEntry;

export interface Subscription {
  recurringId: string;
  orderRef: string;
  amount: string;
  currency: string;
  state: string;
  canceledAt: number | null;
}

export interface PeriodTxn {
  orderId: string;
  amount: string;
  currency: string;
  method: string;
  status: string;
  dateTime: number | string;
  paymentSystem?: string;
}

export interface RegisterRequest {
  start: number;
  end: number;
  statuses: string[];
  methods: string[];
  fields: string[];
}

export interface RegisterResult {
  ready: boolean;
  message?: string;
  records?: Record<string, unknown>[];
}

/** An action on a payment: `capture`, `void` and `refund` carry an idempotency key. */
export interface OrderAction {
  action: string;
  gatewayOrderId: string;
  amount?: string;
  key?: string;
}

/** A saved card as the back office sees it (never its token). */
export interface SavedCard {
  id: string;
  customerId: string;
  mask: string;
  /** As the companion tells it from the mask (`visa`, `mastercard`, ...). */
  brand?: string;
  expMonth: number;
  expYear: number;
  expired: boolean;
  createdAt: number;
}

// ---- calls -------------------------------------------------------------------------------

export const getConfig = () => api<Config>(path('config'));
export const listOrders = () => api<{orders: OrderRow[]}>(path('orders'));
export const getOrder = (orderRef: string) => api<OrderDetail>(path('orders', orderRef));
export const sendAction = (orderRef: string, action: OrderAction) =>
  api<unknown>(path('orders', orderRef, 'actions'), action);
export const listWebhooks = () => api<{deliveries: Delivery[]}>(path('webhooks'));

/** A CSP violation report of the payment pages, as the companion's report route kept it. */
export interface SecurityReportRow {
  documentUrl: string;
  blockedUrl: string;
  directive: string;
  disposition: 'enforce' | 'report';
  sourceFile?: string;
  line?: number;
  firstSeen: string;
  lastSeen: string;
  count: number;
}
export const listSecurityReports = () =>
  api<{reports: SecurityReportRow[]}>(path('security-reports'));
export const listSavedCards = () =>
  api<{customers: {customerId: string; cards: SavedCard[]}[]}>(path('saved-cards'));
export const removeSavedCard = (customerId: string, savedCardId: string) =>
  api<{removed: boolean}>(path('saved-cards', 'remove'), {customerId, savedCardId});
export const listSubscriptions = () => api<{subscriptions: Subscription[]}>(path('subscriptions'));
export const subscriptionTransactions = (recurringId: string, query: URLSearchParams) =>
  api<{transactions: GatewayTxn[]}>(
    `${path('subscriptions', recurringId, 'transactions')}?${query}`,
  );
export const cancelSubscription = (recurringId: string) =>
  api<unknown>(path('subscriptions', recurringId, 'cancel'), {});
export const periodTransactions = (start: number, end: number) =>
  api<{transactions: PeriodTxn[]}>(`${path('transactions')}?start=${start}&end=${end}`);
export const startRegister = (request: RegisterRequest) =>
  api<{reportId: string; count: number}>(path('registers'), request);
/** Where a register is read (and, with `?download=1`, downloaded). */
export const registerUrl = (reportId: string) => path('registers', reportId);
export const getRegister = (reportId: string) => api<RegisterResult>(registerUrl(reportId));
export const advanceSandbox = (days: number) =>
  api<{now: string}>(path('sandbox', 'advance'), {days});

/** A random UUID; `crypto.randomUUID` exists only on secure origins (https, localhost). */
export function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
