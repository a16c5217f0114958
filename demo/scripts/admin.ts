/**
 * The back office page: orders with every gateway transaction and the actions on them
 * (capture, void, refund, cancel, resend webhook), the webhook log, subscriptions with
 * their transactions and cancel, transactions over a period, registers, and the sandbox
 * clock. Everything goes through the server's `/admin/api` (the session cookie is
 * HttpOnly; the browser never sees the gateway credentials). A button is disabled while
 * its request runs; a capture, void or refund carries an idempotency key, kept for a
 * retry until the server has answered it.
 */
import {byId, fill, h, type Child} from './dom.js';

interface ApiError {
  error?: {code?: string; message?: string};
}

/** The server answered with an error (a fetch that got no answer throws a `TypeError`). */
class ApiFailure extends Error {
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

/** Runs `work` with `buttons` disabled, so that a second click cannot send it again. */
async function whileBusy<T>(
  buttons: Iterable<HTMLButtonElement>,
  work: () => Promise<T>,
): Promise<T> {
  const list = [...buttons];
  for (const b of list) b.disabled = true;
  try {
    return await work();
  } finally {
    for (const b of list) b.disabled = false;
  }
}

/** A random UUID; `crypto.randomUUID` exists only on secure origins (https, localhost). */
function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Idempotency keys of captures, voids and refunds whose outcome is not known yet, by
 * action, payment and amount: the same action sent again after a lost answer carries the
 * same key, so the server makes it once; an answered action frees its key.
 */
const pendingKeys = new Map<string, string>();

const announce = (text: string) => {
  const region = byId('announce');
  region.textContent = '';
  // A fresh text node so that screen readers announce repeats too.
  setTimeout(() => (region.textContent = text), 30);
};

const when = (ms: number | string) => {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString().replace('T', ' ').slice(0, 19);
};

const badge = (state: string | null | undefined) =>
  h('span', {class: `badge badge--${state ?? 'none'}`}, state ?? '—');

function table(label: string, head: string[], rows: Child[][], empty: string): HTMLElement {
  if (rows.length === 0) return h('p', {class: 'empty'}, empty);
  return h(
    'div',
    {class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': label},
    h(
      'table',
      null,
      h('thead', null, h('tr', null, ...head.map((t) => h('th', {scope: 'col'}, t)))),
      h('tbody', null, ...rows.map((r) => h('tr', null, ...r.map((cell) => h('td', null, cell))))),
    ),
  );
}

function errorText(error: unknown): HTMLElement {
  return h(
    'p',
    {class: 'error-text', role: 'alert'},
    error instanceof Error ? error.message : 'Something went wrong.',
  );
}

/** `2027-01-31T09:00` (the value of a datetime-local input, read as UTC) → epoch ms. */
const utcInput = (value: string) => Date.parse(`${value}:00Z`);
const toInput = (ms: number) => new Date(ms).toISOString().slice(0, 16);

// ---- config ------------------------------------------------------------------------

interface Config {
  sandbox: boolean;
  gatewayNow: string;
  statuses: string[];
  registerMethods: string[];
  registerFields: string[];
}

let config: Config;

// ---- orders --------------------------------------------------------------------------

interface OrderRow {
  orderRef: string;
  description: string;
  amount: string;
  currency: string;
  kind: string;
  state: string;
  hosted: boolean;
  createdAt: number;
}

interface Attempt {
  attemptId: string;
  /** Set when the companion gave up on the attempt (the customer left, or it timed out). */
  writtenOff?: 'abandoned' | 'expired';
  gatewayOrderId: string;
  seq: number;
  method: string;
  amount: string;
  currency: string;
  state: string;
  statusCode?: string;
  statusDescription?: string;
  cardMask?: string;
  recurringId?: string;
  hosted: boolean;
}

interface GatewayTxn {
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
interface Intent {
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

interface OrderDetail {
  order: OrderRow & {paid: boolean};
  attempts: Attempt[];
  gateway: {gatewayOrderId: string; transactions?: GatewayTxn[]; error?: string}[];
  /** Absent from servers that do not store intents. */
  intents?: Intent[];
}

let selectedOrder: string | undefined;

async function loadOrders(): Promise<void> {
  const body = byId('orders-table').querySelector('tbody')!;
  try {
    const {orders} = await api<{orders: OrderRow[]}>('/admin/api/orders');
    if (orders.length === 0) {
      fill(body, h('tr', null, h('td', {colspan: 5, class: 'empty'}, 'No orders yet.')));
      return;
    }
    fill(
      body,
      ...orders.map((o) =>
        h(
          'tr',
          {class: o.orderRef === selectedOrder ? 'is-selected' : undefined},
          h(
            'td',
            null,
            h(
              'button',
              {
                type: 'button',
                class: 'link-button mono',
                'aria-label': `Open order ${o.orderRef}`,
                onclick: () => void openOrder(o.orderRef),
              },
              o.orderRef,
            ),
          ),
          h('td', null, o.description, o.hosted ? ' (gateway page)' : ''),
          h('td', null, `${o.amount} ${o.currency}`),
          h('td', {'data-order-state': o.orderRef}, badge(o.state)),
          h('td', null, when(o.createdAt)),
        ),
      ),
    );
  } catch (error) {
    fill(body, h('tr', null, h('td', {colspan: 5}, errorText(error))));
  }
}

async function openOrder(orderRef: string, focus = true): Promise<void> {
  selectedOrder = orderRef;
  const panel = byId('order-detail');
  const bodyEl = byId('detail-body');
  panel.hidden = false;
  byId('detail-title').textContent = `Order ${orderRef}`;
  try {
    const detail = await api<OrderDetail>(`/admin/api/orders/${encodeURIComponent(orderRef)}`);
    fill(bodyEl, ...renderOrder(detail));
  } catch (error) {
    fill(bodyEl, errorText(error));
  }
  for (const row of byId('orders-table').querySelectorAll('tbody tr')) {
    row.classList.toggle(
      'is-selected',
      row.querySelector(`[data-order-state="${orderRef}"]`) !== null,
    );
  }
  if (focus) panel.focus();
}

function renderOrder(detail: OrderDetail): Child[] {
  const {order} = detail;
  const out: Child[] = [
    h(
      'p',
      null,
      `${order.description} · ${order.amount} ${order.currency} · `,
      order.paid ? badge('paid') : badge('unpaid'),
    ),
  ];
  const intents = detail.intents ?? [];
  for (const i of intents.filter((i) => i.reason === 'duplicate_charge')) {
    out.push(duplicateChargeNotice(i));
  }
  if (detail.attempts.length === 0) out.push(h('p', {class: 'empty'}, 'No payment attempt yet.'));
  for (const a of detail.attempts) {
    const gw = detail.gateway.find((g) => g.gatewayOrderId === a.gatewayOrderId);
    out.push(renderAttempt(order.orderRef, a, gw));
  }
  if (intents.length > 0) {
    out.push(
      h('h4', null, 'Captures, voids and refunds made by the server'),
      table(
        `Captures, voids and refunds of ${order.orderRef}`,
        ['Operation', 'Amount', 'State', 'Reason', 'Gateway operation', 'Created', 'Key'],
        intents.map((i) => [
          i.kind,
          i.amount ? `${i.amount} ${i.currency ?? order.currency}` : '',
          badge(i.state),
          i.reason === 'duplicate_charge' ? 'charged twice' : (i.reason ?? ''),
          h('span', {class: 'mono'}, i.operationId ?? ''),
          when(i.createdAt),
          h('span', {class: 'mono'}, i.key),
        ]),
        '',
      ),
    );
  }
  return out;
}

/** The order was paid twice and the server refunds the later payment by itself. */
function duplicateChargeNotice(i: Intent): HTMLElement {
  const what =
    i.state === 'success'
      ? 'the later payment was refunded automatically.'
      : i.state === 'failure'
        ? 'the automatic refund of the later payment failed: refund it by hand.'
        : 'the later payment is being refunded automatically.';
  return h(
    'p',
    {class: 'notice notice--warn', role: 'alert', 'data-duplicate-charge': i.key},
    h('strong', null, 'Charged twice: '),
    what,
    i.amount ? ` (${i.amount})` : '',
  );
}

function renderAttempt(
  orderRef: string,
  a: Attempt,
  gw: OrderDetail['gateway'][number] | undefined,
): HTMLElement {
  const txns = gw?.transactions ?? [];
  const primary = txns[0];
  const captured = txns
    .filter((t) => t.method === 'capture' && t.status === 'success')
    .reduce((sum, t) => sum + (t.amount ?? 0), 0);
  const voided = txns.some((t) => t.method === 'void' && t.status === 'success');
  const isHeld = a.method === 'auth' && a.state === 'success' && captured === 0 && !voided;
  const refundedSoFar = txns
    .filter((t) => t.method === 'refund' && t.status === 'success')
    .reduce((sum, t) => sum + (t.amount ?? 0), 0);
  const paidAmount = a.method === 'auth' ? captured : Number(a.amount);
  const remaining = Math.round((paidAmount - refundedSoFar) * 100) / 100;
  const refundable = a.state === 'success' && remaining > 0;
  const cancellable = primary?.mode === 'hosted' && primary.status === 'init';
  const section = h(
    'section',
    {
      class: 'attempt',
      'aria-label': `Payment ${a.gatewayOrderId}`,
      'data-attempt': a.gatewayOrderId,
    },
    h(
      'div',
      {class: 'attempt__head'},
      h('strong', null, `Attempt ${a.seq}`),
      badge(a.state),
      a.writtenOff
        ? h(
            'span',
            {class: 'tag', 'data-written-off': a.writtenOff},
            a.writtenOff === 'abandoned' ? 'written off: abandoned' : 'written off: expired',
          )
        : null,
      h('span', {class: 'mono'}, a.gatewayOrderId),
      h('span', null, `${a.method}${a.hosted ? ' · gateway page' : ' · card form'}`),
      a.cardMask ? h('span', {class: 'mono'}, a.cardMask) : null,
      a.recurringId
        ? h('span', null, 'subscription ', h('span', {class: 'mono'}, a.recurringId))
        : null,
    ),
    a.statusDescription
      ? h('p', {class: 'hint'}, `${a.statusCode ?? ''} ${a.statusDescription}`.trim())
      : null,
  );
  if (gw?.error) section.append(h('p', {class: 'hint'}, `Gateway lookup: ${gw.error}`));
  section.append(
    h('h4', {class: 'visually-hidden'}, 'Gateway transactions'),
    table(
      `Gateway transactions of ${a.gatewayOrderId}`,
      ['Method', 'Amount', 'Status', 'Code', 'Created', 'Transaction'],
      txns.map((t) => [
        t.method ?? '',
        t.amount === undefined ? '' : `${t.amount.toFixed(2)} ${t.currency ?? ''}`,
        badge(t.status),
        t.status_code ?? '',
        t.created_at ?? '',
        h('span', {class: 'mono'}, t.operation_id ?? t.transaction_id ?? t.payment_id ?? ''),
      ]),
      'The gateway has no transaction for this attempt.',
    ),
  );
  const actions = h('div', {class: 'inline-form'});
  const act = async (action: string, extra: Record<string, string> = {}) => {
    const moneyMoves = action === 'capture' || action === 'void' || action === 'refund';
    const slot = `${action}|${a.gatewayOrderId}|${extra['amount'] ?? ''}`;
    let key: string | undefined;
    if (moneyMoves) {
      key = pendingKeys.get(slot) ?? newKey();
      pendingKeys.set(slot, key);
    }
    try {
      await whileBusy(actions.querySelectorAll('button'), () =>
        api(`/admin/api/orders/${encodeURIComponent(orderRef)}/actions`, {
          action,
          gatewayOrderId: a.gatewayOrderId,
          ...extra,
          ...(key ? {key} : {}),
        }),
      );
      pendingKeys.delete(slot);
      announce(`${action}: done.`);
    } catch (error) {
      // An answer below 500 settles the action. Without one (the network failed) or with a
      // 5xx, its outcome is unknown: the key stays, and the same action sent again reuses it.
      if (error instanceof ApiFailure && error.status < 500) pendingKeys.delete(slot);
      announce(error instanceof Error ? error.message : `${action} failed.`);
      section.append(errorText(error));
      return;
    }
    await openOrder(orderRef, false);
    void loadOrders();
    void loadWebhooks();
  };
  const amountField = (id: string, label: string, all: string) =>
    h(
      'div',
      {class: 'field'},
      h('label', {for: id}, label),
      h('input', {
        id,
        class: 'input',
        inputmode: 'decimal',
        placeholder: all,
        size: 8,
        autocomplete: 'off',
      }),
    );
  const value = (id: string) =>
    (document.getElementById(id) as HTMLInputElement | null)?.value ?? '';
  const key = a.gatewayOrderId.replace(/[^\w-]/g, '');
  if (isHeld) {
    actions.append(
      amountField(`capture-${key}`, 'Capture amount', a.amount),
      h(
        'button',
        {
          type: 'button',
          class: 'button button--small',
          onclick: () => void act('capture', {amount: value(`capture-${key}`)}),
        },
        'Capture',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'button button--small button--danger',
          onclick: () => void act('void'),
        },
        'Void',
      ),
    );
  }
  if (refundable) {
    actions.append(
      amountField(`refund-${key}`, 'Refund amount', remaining.toFixed(2)),
      h(
        'button',
        {
          type: 'button',
          class: 'button button--small button--danger',
          onclick: () =>
            void act('refund', {amount: value(`refund-${key}`) || remaining.toFixed(2)}),
        },
        'Refund',
      ),
    );
  }
  if (cancellable) {
    actions.append(
      h(
        'button',
        {
          type: 'button',
          class: 'button button--small button--danger',
          onclick: () => void act('cancel'),
        },
        'Cancel unpaid order',
      ),
    );
  }
  if (primary) {
    actions.append(
      h(
        'button',
        {
          type: 'button',
          class: 'button button--small button--secondary',
          onclick: () => void act('resend'),
        },
        'Resend webhook',
      ),
    );
  }
  if (actions.childElementCount > 0) section.append(actions);
  return section;
}

// ---- webhooks ------------------------------------------------------------------------

interface Delivery {
  receivedAt: number;
  ip: string;
  signature: string;
  duplicate: boolean;
  answer: number;
  kind: string | null;
  gatewayOrderId: string | null;
  status: string | null;
  statusCode: string | null;
  method: string | null;
  amount: string | null;
}

async function loadWebhooks(): Promise<void> {
  const body = byId('webhooks-table').querySelector('tbody')!;
  try {
    const {deliveries} = await api<{deliveries: Delivery[]}>('/admin/api/webhooks');
    if (deliveries.length === 0) {
      fill(body, h('tr', null, h('td', {colspan: 6, class: 'empty'}, 'No webhook yet.')));
      return;
    }
    fill(
      body,
      ...deliveries.map((d) =>
        h(
          'tr',
          {'data-webhook-order': d.gatewayOrderId ?? ''},
          h('td', null, when(d.receivedAt)),
          h('td', {class: 'mono'}, d.gatewayOrderId ?? '—'),
          h(
            'td',
            null,
            [d.method, d.kind && d.kind !== 'primary' ? `(${d.kind})` : null, d.amount]
              .filter(Boolean)
              .join(' '),
          ),
          h('td', null, badge(d.status), d.statusCode ? ` ${d.statusCode}` : ''),
          h(
            'td',
            null,
            h(
              'span',
              {class: `badge ${d.signature === 'valid' ? 'badge--success' : 'badge--failure'}`},
              `signature ${d.signature}`,
            ),
            d.duplicate ? ' ' : null,
            d.duplicate ? h('span', {class: 'badge badge--dup'}, 'duplicate') : null,
          ),
          h('td', null, String(d.answer)),
        ),
      ),
    );
  } catch (error) {
    fill(body, h('tr', null, h('td', {colspan: 6}, errorText(error))));
  }
}

// ---- subscriptions ---------------------------------------------------------------------

interface Subscription {
  recurringId: string;
  orderRef: string;
  amount: string;
  currency: string;
  state: string;
  canceledAt: number | null;
}

let selectedSub: Subscription | undefined;

async function loadSubscriptions(): Promise<void> {
  const body = byId('subscriptions-table').querySelector('tbody')!;
  try {
    const {subscriptions} = await api<{subscriptions: Subscription[]}>('/admin/api/subscriptions');
    if (subscriptions.length === 0) {
      fill(body, h('tr', null, h('td', {colspan: 5, class: 'empty'}, 'No subscription yet.')));
      return;
    }
    fill(
      body,
      ...subscriptions.map((s) =>
        h(
          'tr',
          {'data-subscription': s.recurringId},
          h('td', {class: 'mono'}, s.recurringId),
          h('td', {class: 'mono'}, s.orderRef),
          h('td', null, `${s.amount} ${s.currency}`),
          h(
            'td',
            null,
            s.canceledAt ? badge('canceled') : badge(s.state === 'success' ? 'active' : s.state),
          ),
          h(
            'td',
            null,
            h(
              'button',
              {
                type: 'button',
                class: 'button button--small button--secondary',
                'aria-label': `Transactions of subscription ${s.recurringId}`,
                onclick: (e: Event) =>
                  void whileBusy([e.currentTarget as HTMLButtonElement], () => openSubscription(s)),
              },
              'Transactions',
            ),
          ),
        ),
      ),
    );
  } catch (error) {
    fill(body, h('tr', null, h('td', {colspan: 5}, errorText(error))));
  }
}

async function openSubscription(s: Subscription): Promise<void> {
  selectedSub = s;
  byId('subscription-detail').hidden = false;
  byId('sub-title').textContent = `Subscription ${s.recurringId}`;
  (byId('sub-cancel') as HTMLButtonElement).disabled = s.canceledAt !== null;
  await loadSubscriptionTxns();
}

async function loadSubscriptionTxns(): Promise<void> {
  if (!selectedSub) return;
  const out = byId('sub-transactions');
  const params = new URLSearchParams();
  const method = (byId('sub-method') as HTMLSelectElement).value;
  const status = (byId('sub-status') as HTMLSelectElement).value;
  if (method) params.set('method', method);
  if (status) params.set('status', status);
  try {
    const {transactions} = await api<{transactions: GatewayTxn[]}>(
      `/admin/api/subscriptions/${encodeURIComponent(selectedSub.recurringId)}/transactions?${params}`,
    );
    fill(
      out,
      h(
        'p',
        {class: 'hint', role: 'status'},
        `${transactions.length} transaction${transactions.length === 1 ? '' : 's'}`,
      ),
      table(
        'Subscription transactions',
        ['Created', 'Method', 'Amount', 'Status', 'Code', 'Transaction'],
        transactions.map((t) => [
          t.created_at ?? '',
          t.method ?? '',
          t.amount === undefined ? '' : `${t.amount.toFixed(2)} ${t.currency ?? ''}`,
          badge(t.status),
          t.status_code ?? '',
          h('span', {class: 'mono'}, t.transaction_id ?? t.payment_id ?? ''),
        ]),
        'No transaction matches.',
      ),
    );
  } catch (error) {
    fill(out, errorText(error));
  }
}

// ---- period transactions and registers --------------------------------------------------

interface PeriodTxn {
  orderId: string;
  amount: string;
  currency: string;
  method: string;
  status: string;
  dateTime: number | string;
  paymentSystem?: string;
}

async function loadPeriod(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const out = byId('period-result');
  const start = utcInput((byId('period-start') as HTMLInputElement).value);
  const end = utcInput((byId('period-end') as HTMLInputElement).value);
  fill(out, h('p', {class: 'hint'}, 'Loading…'));
  try {
    const {transactions} = await api<{transactions: PeriodTxn[]}>(
      `/admin/api/transactions?start=${start}&end=${end}`,
    );
    fill(
      out,
      h(
        'p',
        {class: 'hint', role: 'status'},
        `${transactions.length} transaction${transactions.length === 1 ? '' : 's'}`,
      ),
      table(
        'Transactions over the period',
        ['Order', 'Method', 'Amount', 'Status', 'Time'],
        transactions.map((t) => [
          h('span', {class: 'mono'}, t.orderId),
          t.method,
          `${t.amount} ${t.currency}`,
          badge(t.status),
          t.dateTime === '' ? 'pending' : when(Number(t.dateTime)),
        ]),
        'No transaction in this period.',
      ),
    );
  } catch (error) {
    fill(out, errorText(error));
  }
}

function checkboxes(
  fieldset: HTMLElement,
  name: string,
  values: string[],
  checked: string[],
): void {
  for (const v of values) {
    fieldset.append(
      h(
        'label',
        null,
        h('input', {type: 'checkbox', name, value: v, checked: checked.includes(v)}),
        v,
      ),
    );
  }
}

const checkedValues = (form: HTMLFormElement, name: string) =>
  [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((i) => i.value);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function generateRegister(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  const status = byId('register-status');
  const out = byId('register-result');
  const fields = checkedValues(form, 'field');
  button.disabled = true;
  out.replaceChildren();
  try {
    const started = await api<{reportId: string; count: number}>('/admin/api/registers', {
      start: utcInput((byId('register-start') as HTMLInputElement).value),
      end: utcInput((byId('register-end') as HTMLInputElement).value),
      statuses: checkedValues(form, 'status'),
      methods: checkedValues(form, 'method'),
      fields,
    });
    status.textContent = `Register ${started.reportId} started (${started.count} records): generating…`;
    const url = `/admin/api/registers/${encodeURIComponent(started.reportId)}`;
    for (let attempt = 1; ; attempt++) {
      const result = await api<{
        ready: boolean;
        message?: string;
        records?: Record<string, unknown>[];
      }>(url);
      if (result.ready) {
        const records = result.records ?? [];
        const columns = fields.length > 0 ? fields : Object.keys(records[0] ?? {});
        status.textContent = `Register ready: ${records.length} record${records.length === 1 ? '' : 's'}.`;
        fill(
          out,
          h(
            'p',
            null,
            h(
              'a',
              {
                class: 'button button--small button--secondary',
                href: `${url}?download=1`,
                download: `register-${started.reportId}.json`,
              },
              'Download JSON',
            ),
          ),
          table(
            'Register records',
            columns,
            records.map((r) =>
              columns.map((c) => (r[c] === undefined || r[c] === null ? '' : String(r[c]))),
            ),
            'The register is empty.',
          ),
        );
        break;
      }
      status.textContent = `Not ready yet (check ${attempt}): ${result.message ?? 'the gateway is generating the register'}`;
      await sleep(Math.min(4000, 500 * attempt));
    }
  } catch (error) {
    status.textContent = '';
    fill(out, errorText(error));
  } finally {
    button.disabled = false;
  }
}

// ---- sandbox clock ---------------------------------------------------------------------

async function advance(days: number): Promise<void> {
  const buttons = byId('sandbox').querySelectorAll('button');
  for (const b of buttons) b.disabled = true;
  try {
    const {now} = await api<{now: string}>('/admin/api/sandbox/advance', {days});
    byId('sandbox-now').textContent = when(now);
    announce(`Sandbox clock moved ${days} day${days === 1 ? '' : 's'} forward.`);
    await Promise.all([loadOrders(), loadWebhooks(), loadSubscriptions(), loadSubscriptionTxns()]);
  } catch (error) {
    announce(error instanceof Error ? error.message : 'The clock did not move.');
  } finally {
    for (const b of buttons) b.disabled = false;
  }
}

// ---- start -----------------------------------------------------------------------------

async function main(): Promise<void> {
  config = await api<Config>('/admin/api/config');
  const now = Date.parse(config.gatewayNow);
  const dayMs = 24 * 3600_000;
  for (const id of ['period-start', 'register-start'])
    (byId(id) as HTMLInputElement).value = toInput(now - 7 * dayMs);
  for (const id of ['period-end', 'register-end'])
    (byId(id) as HTMLInputElement).value = toInput(now + dayMs);
  checkboxes(byId('register-statuses'), 'status', config.statuses, []);
  checkboxes(byId('register-methods'), 'method', config.registerMethods, []);
  checkboxes(byId('register-fields'), 'field', config.registerFields, [
    'orderId',
    'method',
    'amount',
    'currency',
    'status',
    'dateTime',
  ]);
  if (config.sandbox) {
    byId('sandbox').hidden = false;
    byId('sandbox-nav').hidden = false;
    byId('sandbox-now').textContent = when(config.gatewayNow);
    for (const b of byId('sandbox').querySelectorAll<HTMLButtonElement>('[data-advance-days]')) {
      b.addEventListener('click', () => void advance(Number(b.dataset['advanceDays'])));
    }
  }
  const refreshers: Record<string, () => Promise<void>> = {
    orders: loadOrders,
    webhooks: loadWebhooks,
    subscriptions: loadSubscriptions,
  };
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-refresh]')) {
    b.addEventListener('click', () => {
      const which = b.dataset['refresh'] ?? '';
      void whileBusy([b], () =>
        Promise.all([
          refreshers[which]?.(),
          which === 'orders' && selectedOrder ? openOrder(selectedOrder, false) : undefined,
        ]),
      );
    });
  }
  const submitButtons = (form: Element) =>
    form.querySelectorAll<HTMLButtonElement>('button[type="submit"]');
  byId('sub-filter').addEventListener('submit', (e) => {
    e.preventDefault();
    void whileBusy(submitButtons(byId('sub-filter')), loadSubscriptionTxns);
  });
  const subCancel = byId('sub-cancel') as HTMLButtonElement;
  subCancel.addEventListener('click', () => {
    if (!selectedSub) return;
    const s = selectedSub;
    void whileBusy([subCancel], () =>
      api(`/admin/api/subscriptions/${encodeURIComponent(s.recurringId)}/cancel`, {}),
    )
      .then(async () => {
        announce(`Subscription ${s.recurringId} cancelled.`);
        subCancel.disabled = true;
        await loadSubscriptions();
      })
      .catch((error: unknown) => fill(byId('sub-transactions'), errorText(error)));
  });
  byId('period-form').addEventListener(
    'submit',
    (e) => void whileBusy(submitButtons(byId('period-form')), () => loadPeriod(e as SubmitEvent)),
  );
  byId('register-form').addEventListener('submit', (e) => void generateRegister(e as SubmitEvent));
  await Promise.all([loadOrders(), loadWebhooks(), loadSubscriptions()]);
  const open = new URLSearchParams(location.search).get('order');
  if (open && /^ord-[0-9a-f]{12}$/.test(open)) await openOrder(open, false);
  document.body.dataset['ready'] = 'true';
}

void main().catch((error: unknown) => {
  byId('main').append(errorText(error));
});
