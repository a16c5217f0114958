/**
 * The webhooks panel: every delivery the server received, with its signature result,
 * whether it was a duplicate, and what the server answered.
 */
import {html, nothing} from 'lit/html.js';
import {listWebhooks} from './api.js';
import {badge, showRows, when} from './ui.js';

export function loadWebhooks(): Promise<void> {
  return showRows(
    'webhooks-table',
    6,
    async () => (await listWebhooks()).deliveries,
    (d) =>
      html`<tr data-webhook-order=${d.gatewayOrderId ?? ''}>
        <td>${when(d.receivedAt)}</td>
        <td class="mono">${d.gatewayOrderId ?? '—'}</td>
        <td>
          ${[d.method, d.kind && d.kind !== 'primary' ? `(${d.kind})` : null, d.amount]
            .filter(Boolean)
            .join(' ')}
        </td>
        <td>${badge(d.status)}${d.statusCode ? ` ${d.statusCode}` : ''}</td>
        <td>
          <span class="badge ${d.signature === 'valid' ? 'badge--success' : 'badge--failure'}"
            >signature ${d.signature}</span
          >${d.duplicate ? html` <span class="badge badge--dup">duplicate</span>` : nothing}
        </td>
        <td>${d.answer}</td>
      </tr>`,
    'No webhook yet.',
  );
}
