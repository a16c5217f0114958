/**
 * The subscriptions panel: the list of subscriptions, the gateway's transactions of one
 * (filtered by method and status), and cancelling it.
 */
import {html} from 'lit/html.js';
import {
  cancelSubscription,
  listSubscriptions,
  subscriptionTransactions,
  type Subscription,
} from './api.js';
import {
  announce,
  badge,
  byId,
  errorText,
  mono,
  show,
  showRows,
  table,
  transactionCount,
  whileBusy,
} from './ui.js';

/** The subscription whose transactions are shown. */
let selected: Subscription | undefined;

export function loadSubscriptions(): Promise<void> {
  return showRows(
    'subscriptions-table',
    5,
    async () => (await listSubscriptions()).subscriptions,
    (s) =>
      html`<tr data-subscription=${s.recurringId}>
        <td class="mono">${s.recurringId}</td>
        <td class="mono">${s.orderRef}</td>
        <td>${s.amount} ${s.currency}</td>
        <td>
          ${s.canceledAt ? badge('canceled') : badge(s.state === 'success' ? 'active' : s.state)}
        </td>
        <td>
          <button
            type="button"
            class="button button--small button--secondary"
            aria-label="Transactions of subscription ${s.recurringId}"
            @click=${(e: Event) =>
              void whileBusy([e.currentTarget as HTMLButtonElement], () => open(s))}
          >
            Transactions
          </button>
        </td>
      </tr>`,
    'No subscription yet.',
  );
}

async function open(s: Subscription): Promise<void> {
  selected = s;
  byId('subscription-detail').hidden = false;
  byId('sub-title').textContent = `Subscription ${s.recurringId}`;
  byId<HTMLButtonElement>('sub-cancel').disabled = s.canceledAt !== null;
  await loadSubscriptionTxns();
}

/** The open subscription's transactions, as the filter form asks. */
export async function loadSubscriptionTxns(): Promise<void> {
  if (!selected) return;
  const out = byId('sub-transactions');
  const params = new URLSearchParams();
  const method = byId<HTMLSelectElement>('sub-method').value;
  const status = byId<HTMLSelectElement>('sub-status').value;
  if (method) params.set('method', method);
  if (status) params.set('status', status);
  try {
    const {transactions} = await subscriptionTransactions(selected.recurringId, params);
    show(
      out,
      html`${transactionCount(transactions.length)}
      ${table(
        'Subscription transactions',
        ['Created', 'Method', 'Amount', 'Status', 'Code', 'Transaction'],
        transactions.map((t) => [
          t.created_at ?? '',
          t.method ?? '',
          t.amount === undefined ? '' : `${t.amount.toFixed(2)} ${t.currency ?? ''}`,
          badge(t.status),
          t.status_code ?? '',
          mono(t.transaction_id ?? t.payment_id ?? ''),
        ]),
        'No transaction matches.',
      )}`,
    );
  } catch (error) {
    show(out, errorText(error));
  }
}

/** Wires the filter form and the cancel button of the subscription detail. */
export function setUpSubscriptions(): void {
  const filter = byId<HTMLFormElement>('sub-filter');
  filter.addEventListener('submit', (e) => {
    e.preventDefault();
    void whileBusy(
      filter.querySelectorAll<HTMLButtonElement>('button[type="submit"]'),
      loadSubscriptionTxns,
    );
  });
  const cancel = byId<HTMLButtonElement>('sub-cancel');
  cancel.addEventListener('click', () => {
    if (!selected) return;
    const s = selected;
    void whileBusy([cancel], () => cancelSubscription(s.recurringId))
      .then(async () => {
        announce(`Subscription ${s.recurringId} cancelled.`);
        cancel.disabled = true;
        await loadSubscriptions();
      })
      .catch((error: unknown) => show(byId('sub-transactions'), errorText(error)));
  });
}
