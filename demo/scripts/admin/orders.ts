/**
 * The orders panel: the list of orders, and an order's detail with every payment attempt,
 * the gateway's transactions of each, the captures, voids and refunds the server made, and
 * the actions on a payment (capture, void, refund, cancel, resend webhook). A button is
 * disabled while its request runs; a capture, void or refund carries an idempotency key,
 * kept for a retry until the server has answered it.
 */
import {html, nothing} from 'lit/html.js';
import {keyed} from 'lit/directives/keyed.js';
import {
  ApiFailure,
  getOrder,
  listOrders,
  newKey,
  sendAction,
  type Attempt,
  type GatewayPayment,
  type Intent,
  type OrderDetail,
} from './api.js';
import {
  announce,
  badge,
  byId,
  errorMessage,
  errorText,
  inputValue,
  mono,
  show,
  showRows,
  table,
  when,
  whileBusy,
} from './ui.js';
import {loadWebhooks} from './webhooks.js';

/** The order whose detail is open. */
export let selectedOrder: string | undefined;

/** The detail shown, and the errors of actions on it since it was loaded. */
let detail: OrderDetail | undefined;
let loadError: unknown;
const actionErrors = new Map<string, unknown[]>();
/** Bumped on every load: a loaded detail is drawn afresh (empty amount fields). */
let generation = 0;

/**
 * Idempotency keys of captures, voids and refunds whose outcome is not known yet, by
 * action, payment and amount: the same action sent again after a lost answer carries the
 * same key, so the server makes it once; an answered action frees its key.
 */
const pendingKeys = new Map<string, string>();

export function loadOrders(): Promise<void> {
  return showRows(
    'orders-table',
    5,
    async () => (await listOrders()).orders,
    (o) =>
      html`<tr class=${o.orderRef === selectedOrder ? 'is-selected' : nothing}>
        <td>
          <button
            type="button"
            class="link-button mono"
            aria-label="Open order ${o.orderRef}"
            @click=${() => void openOrder(o.orderRef)}
          >
            ${o.orderRef}
          </button>
        </td>
        <td>${o.description}${o.hosted ? ' (gateway page)' : ''}</td>
        <td>${o.amount} ${o.currency}</td>
        <td data-order-state=${o.orderRef}>${badge(o.state)}</td>
        <td>${when(o.createdAt)}</td>
      </tr>`,
    'No orders yet.',
  );
}

export async function openOrder(orderRef: string, focus = true): Promise<void> {
  selectedOrder = orderRef;
  const panel = byId('order-detail');
  panel.hidden = false;
  byId('detail-title').textContent = `Order ${orderRef}`;
  try {
    detail = await getOrder(orderRef);
    loadError = undefined;
  } catch (error) {
    detail = undefined;
    loadError = error;
  }
  actionErrors.clear();
  generation++;
  renderDetail();
  for (const row of byId('orders-table').querySelectorAll('tbody tr')) {
    row.classList.toggle(
      'is-selected',
      row.querySelector(`[data-order-state="${orderRef}"]`) !== null,
    );
  }
  if (focus) panel.focus();
}

function renderDetail(): void {
  show(
    byId('detail-body'),
    keyed(generation, detail ? orderTemplate(detail) : errorText(loadError)),
  );
}

function orderTemplate(d: OrderDetail) {
  const {order} = d;
  const intents = d.intents ?? [];
  return html`<p>
      ${order.description} · ${order.amount} ${order.currency} ·
      ${order.paid ? badge('paid') : badge('unpaid')}
    </p>
    ${intents.filter((i) => i.reason === 'duplicate_charge').map(duplicateChargeNotice)}
    ${d.attempts.length === 0 ? html`<p class="empty">No payment attempt yet.</p>` : nothing}
    ${d.attempts.map((a) =>
      attemptTemplate(
        order.orderRef,
        a,
        d.gateway.find((g) => g.gatewayOrderId === a.gatewayOrderId),
      ),
    )}
    ${
      intents.length > 0
        ? html`<h4>Captures, voids and refunds made by the server</h4>
            ${table(
              `Captures, voids and refunds of ${order.orderRef}`,
              ['Operation', 'Amount', 'State', 'Reason', 'Gateway operation', 'Created', 'Key'],
              intents.map((i) => [
                i.kind,
                i.amount ? `${i.amount} ${i.currency ?? order.currency}` : '',
                badge(i.state),
                i.reason === 'duplicate_charge' ? 'charged twice' : (i.reason ?? ''),
                mono(i.operationId ?? ''),
                when(i.createdAt),
                mono(i.key),
              ]),
              '',
            )}`
        : nothing
    }`;
}

/** The order was paid twice and the server refunds the later payment by itself. */
function duplicateChargeNotice(i: Intent) {
  const what =
    i.state === 'success'
      ? 'the later payment was refunded automatically.'
      : i.state === 'failure'
        ? 'the automatic refund of the later payment failed: refund it by hand.'
        : 'the later payment is being refunded automatically.';
  return html`<p class="notice notice--warn" role="alert" data-duplicate-charge=${i.key}>
    <strong>Charged twice: </strong>${what}${i.amount ? ` (${i.amount})` : ''}
  </p>`;
}

/** What can be done with a payment now, from the gateway's transactions of it. */
function standing(a: Attempt, gw: GatewayPayment | undefined) {
  const txns = gw?.transactions ?? [];
  const primary = txns[0];
  const total = (method: string) =>
    txns
      .filter((t) => t.method === method && t.status === 'success')
      .reduce((sum, t) => sum + (t.amount ?? 0), 0);
  const captured = total('capture');
  const voided = txns.some((t) => t.method === 'void' && t.status === 'success');
  const paidAmount = a.method === 'auth' ? captured : Number(a.amount);
  const remaining = Math.round((paidAmount - total('refund')) * 100) / 100;
  return {
    txns,
    primary,
    held: a.method === 'auth' && a.state === 'success' && captured === 0 && !voided,
    remaining,
    refundable: a.state === 'success' && remaining > 0,
    cancellable: primary?.mode === 'hosted' && primary.status === 'init',
  };
}

async function act(
  orderRef: string,
  a: Attempt,
  buttons: Iterable<HTMLButtonElement>,
  action: string,
  amount?: string,
): Promise<void> {
  const moneyMoves = action === 'capture' || action === 'void' || action === 'refund';
  const slot = `${action}|${a.gatewayOrderId}|${amount ?? ''}`;
  let key: string | undefined;
  if (moneyMoves) {
    key = pendingKeys.get(slot) ?? newKey();
    pendingKeys.set(slot, key);
  }
  try {
    await whileBusy(buttons, () =>
      sendAction(orderRef, {
        action,
        gatewayOrderId: a.gatewayOrderId,
        ...(amount === undefined ? {} : {amount}),
        ...(key ? {key} : {}),
      }),
    );
    pendingKeys.delete(slot);
    announce(`${action}: done.`);
  } catch (error) {
    // An answer below 500 settles the action. Without one (the network failed) or with a
    // 5xx, its outcome is unknown: the key stays, and the same action sent again reuses it.
    if (error instanceof ApiFailure && error.status < 500) pendingKeys.delete(slot);
    announce(errorMessage(error, `${action} failed.`));
    actionErrors.set(a.gatewayOrderId, [...(actionErrors.get(a.gatewayOrderId) ?? []), error]);
    renderDetail();
    return;
  }
  await openOrder(orderRef, false);
  void loadOrders();
  void loadWebhooks();
}

function attemptTemplate(orderRef: string, a: Attempt, gw: GatewayPayment | undefined) {
  const {txns, primary, held, remaining, refundable, cancellable} = standing(a, gw);
  const id = a.gatewayOrderId.replace(/[^\w-]/g, '');
  const run = (action: string, amount?: () => string) => (e: Event) => {
    const actions = (e.currentTarget as HTMLElement).closest('.inline-form')!;
    void act(orderRef, a, actions.querySelectorAll('button'), action, amount?.());
  };
  const amountField = (fieldId: string, label: string, all: string) =>
    html`<div class="field">
      <label for=${fieldId}>${label}</label>
      <input
        id=${fieldId}
        class="input"
        inputmode="decimal"
        placeholder=${all}
        size="8"
        autocomplete="off"
      />
    </div>`;
  const button = (label: string, kind: string, onClick: (e: Event) => void) =>
    html`<button type="button" class="button button--small ${kind}" @click=${onClick}>
      ${label}
    </button>`;
  const actions = [
    ...(held
      ? [
          amountField(`capture-${id}`, 'Capture amount', a.amount),
          button(
            'Capture',
            '',
            run('capture', () => inputValue(`capture-${id}`)),
          ),
          button('Void', 'button--danger', run('void')),
        ]
      : []),
    ...(refundable
      ? [
          amountField(`refund-${id}`, 'Refund amount', remaining.toFixed(2)),
          button(
            'Refund',
            'button--danger',
            run('refund', () => inputValue(`refund-${id}`) || remaining.toFixed(2)),
          ),
        ]
      : []),
    ...(cancellable ? [button('Cancel unpaid order', 'button--danger', run('cancel'))] : []),
    ...(primary ? [button('Resend webhook', 'button--secondary', run('resend'))] : []),
  ];
  return html`<section
    class="attempt"
    aria-label="Payment ${a.gatewayOrderId}"
    data-attempt=${a.gatewayOrderId}
  >
    <div class="attempt__head">
      <strong>Attempt ${a.seq}</strong>
      ${badge(a.label ?? a.state)}
      ${
        a.writtenOff
          ? html`<span class="tag" data-written-off=${a.writtenOff}
              >${a.writtenOff === 'abandoned' ? 'written off: abandoned' : 'written off: expired'}</span
            >`
          : nothing
      }
      ${mono(a.gatewayOrderId)}
      <span>${a.method}${a.hosted ? ' · gateway page' : ' · card form'}</span>
      ${a.cardMask ? mono(a.cardMask) : nothing}
      ${a.recurringId ? html`<span>subscription ${mono(a.recurringId)}</span>` : nothing}
    </div>
    ${
      a.statusDescription
        ? html`<p class="hint">${`${a.statusCode ?? ''} ${a.statusDescription}`.trim()}</p>`
        : nothing
    }
    ${gw?.error ? html`<p class="hint">Gateway lookup: ${gw.error}</p>` : nothing}
    <h4 class="visually-hidden">Gateway transactions</h4>
    ${table(
      `Gateway transactions of ${a.gatewayOrderId}`,
      ['Method', 'Amount', 'Status', 'Code', 'Created', 'Transaction'],
      txns.map((t) => [
        t.method ?? '',
        t.amount === undefined ? '' : `${t.amount.toFixed(2)} ${t.currency ?? ''}`,
        badge(t.status),
        t.status_code ?? '',
        t.created_at ?? '',
        mono(t.operation_id ?? t.transaction_id ?? t.payment_id ?? ''),
      ]),
      'The gateway has no transaction for this attempt.',
    )}
    ${actions.length > 0 ? html`<div class="inline-form">${actions}</div>` : nothing}
    ${(actionErrors.get(a.gatewayOrderId) ?? []).map(errorText)}
  </section>`;
}
