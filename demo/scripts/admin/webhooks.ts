/**
 * The webhooks panel: every delivery the server received, with its signature result,
 * whether it was a duplicate, and what the server answered. And the security reports
 * panel: the CSP violations the payment pages' browsers reported (PCI DSS 11.6.1), each
 * once, with how often and when it was last seen.
 */
import {html, nothing} from 'lit/html.js';
import {listSecurityReports, listWebhooks} from './api.js';
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

export function loadSecurityReports(): Promise<void> {
  return showRows(
    'security-reports-table',
    6,
    async () => (await listSecurityReports()).reports,
    (r) =>
      html`<tr>
        <td>${when(r.lastSeen)}</td>
        <td class="mono">${r.directive}</td>
        <td class="mono">${r.blockedUrl}</td>
        <td class="mono">${r.documentUrl}</td>
        <td>
          ${
            r.disposition === 'enforce'
              ? html`<span class="badge badge--failure">blocked</span>`
              : html`<span class="badge">report only: it ran</span>`
          }
        </td>
        <td>${r.count}</td>
      </tr>`,
    'No CSP violation reported.',
  );
}
