/**
 * The saved-cards panel: each customer's saved cards (brand, masked number, expiry, when
 * saved) with a Remove button that asks first; the companion forgets the card's token.
 */
import {html} from 'lit/html.js';
import {listSavedCards, removeSavedCard, type SavedCard} from './api.js';
import {announce, showRows, when} from './ui.js';

async function remove(card: SavedCard): Promise<void> {
  if (
    !confirm(`Remove ${card.mask} of ${card.customerId}? The customer can no longer pay with it.`)
  ) {
    return;
  }
  await removeSavedCard(card.customerId, card.id);
  announce(`Saved card ${card.mask} removed.`);
  await loadSavedCards();
}

export function loadSavedCards(): Promise<void> {
  return showRows(
    'saved-cards-table',
    6,
    async () => (await listSavedCards()).customers.flatMap((c) => c.cards),
    (card) =>
      html`<tr data-saved-card=${card.id}>
        <td class="mono">${card.customerId}</td>
        <td>${card.brand ?? 'unknown'}</td>
        <td class="mono">${card.mask}</td>
        <td>
          ${String(card.expMonth).padStart(2, '0')}/${card.expYear}${card.expired ? ' (expired)' : ''}
        </td>
        <td>${when(card.createdAt)}</td>
        <td>
          <button
            type="button"
            class="button button--small button--secondary"
            @click=${() => void remove(card)}
          >
            Remove
          </button>
        </td>
      </tr>`,
    'No saved card yet.',
  );
}
