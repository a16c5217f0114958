/**
 * The saved-card choice of `<pg-card-form>`, loaded on demand (`order-details.ts`): a
 * radio group of the customer's saved cards (brand mark, masked number, expiry; an expired
 * card is shown as such and cannot be chosen) above "Use a new card", each card with a
 * Remove button that asks for confirmation first, and the "Save this card for next time"
 * box (never ticked by default). Native radios and a `<fieldset>` with its `<legend>`
 * give the keyboard (arrow keys, Space, Enter pays) and screen readers what they expect.
 * This module imports nothing at run time: Lit's `html`, the card rules and the brand
 * marks come with the controller (`kit`). In the CDN file `pg-checkout.js` it is a file
 * beside the bundle, pinned by its hash (scripts/vite/pinned-modules.ts).
 */
import type {CheckoutMessages} from '../../i18n/messages.js';
import type {SavedCardView} from '../../protocol/checkout.js';
import type {OrderDetails} from '../order-details.js';

const STYLES = `
.saved{border:0;margin:0 0 var(--pg-spacing,12px);padding:0;min-width:0}
.saved__legend{font-weight:600;margin-bottom:6px;padding:0}
.saved__row{display:flex;align-items:center;gap:8px;min-height:var(--pg-input-height,44px);
  border:1px solid var(--pg-color-border,#c4c4c4);border-radius:var(--pg-radius,6px);
  padding:0 10px;margin-bottom:6px}
.saved__card{display:flex;align-items:center;gap:8px;flex:1;min-width:0;cursor:pointer}
.saved__card input{margin:0;width:18px;height:18px}
.saved__card input:focus-visible{outline:2px solid var(--pg-color-focus,#2563eb);outline-offset:2px}
.saved__card--expired{cursor:default;color:var(--pg-color-muted,#6b6b6b)}
.saved__exp{margin-inline-start:auto;color:var(--pg-color-muted,#6b6b6b);font-size:.9em}
.saved__link{background:none;border:0;padding:4px;font:inherit;color:var(--pg-color-text,inherit);
  text-decoration:underline;cursor:pointer}
.saved__confirm{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin:-2px 0 8px}
.save-offer{display:flex;align-items:center;gap:8px;margin-bottom:var(--pg-spacing,12px);cursor:pointer}
.save-offer input{margin:0;width:18px;height:18px}
`;

const adopted = new WeakSet<ShadowRoot>();

/** Adds this module's rules to the form's shadow root, once. */
function adoptStyles(c: OrderDetails): void {
  const root = c.host.shadowRoot;
  if (!root || adopted.has(root)) return;
  adopted.add(root);
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLES);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

const last4 = (card: SavedCardView) => `•••• ${card.mask.slice(-4)}`;

function choose(c: OrderDetails, id: string): void {
  c.selected = id;
  c.notice = '';
  c.host.requestUpdate();
}

function askRemove(c: OrderDetails, id: string, focus: string): void {
  c.removing = id;
  c.host.requestUpdate();
  void c.host.updateComplete.then(() =>
    c.host.shadowRoot?.querySelector<HTMLElement>(focus)?.focus(),
  );
}

/** Removes a saved card (after the customer confirmed) and shows the list without it. */
async function remove(c: OrderDetails, id: string, t: CheckoutMessages): Promise<void> {
  const removed = await c.requests!.remove(c, id);
  c.removing = '';
  if (removed) c.notice = t.savedCardRemoved;
  c.host.requestUpdate();
  void c.host.updateComplete.then(() =>
    (
      c.host.shadowRoot?.querySelector<HTMLElement>('input[name="pg-saved-card"]:checked') ??
      c.host.shadowRoot?.querySelector<HTMLElement>('#number')
    )?.focus(),
  );
}

function card(c: OrderDetails, t: CheckoutMessages, s: SavedCardView) {
  const {html, nothing, brandMark} = c.kit;
  const date = `${String(s.expMonth).padStart(2, '0')}/${String(s.expYear % 100).padStart(2, '0')}`;
  // The brand the server names, when the form knows it; else the brand the mask's first
  // digits tell, by the rules that read a number typed in.
  const brand =
    (typeof s.brand === 'string' ? c.kit.brandOfName(s.brand) : null) ??
    c.kit.normaliseNumber(s.mask.slice(0, 6)).brand;
  const label = `${brand?.niceType ?? ''} ${last4(s)}`.trim();
  return html`<div class="saved__row" part="saved-card">
      <label class="saved__card ${s.expired ? 'saved__card--expired' : ''}">
        <input
          type="radio"
          name="pg-saved-card"
          value=${s.id}
          .checked=${c.selected === s.id}
          ?disabled=${s.expired || c.host.disabled}
          aria-describedby="exp-${s.id}"
          @change=${() => choose(c, s.id)}
        />
        ${brandMark(brand)}
        <span dir="ltr">${last4(s)}</span>
        <span id="exp-${s.id}" class="saved__exp"
          >${s.expired ? t.savedCardExpired : t.savedCardExpires.replace('{date}', date)}</span
        >
      </label>
      <button
        type="button"
        class="saved__link"
        part="saved-card-remove"
        aria-label="${t.removeCard}: ${label}"
        @click=${() => askRemove(c, s.id, '#confirm-remove')}
      >
        ${t.removeCard}
      </button>
    </div>
    ${
      c.removing === s.id
        ? html`<div
            class="saved__confirm"
            role="group"
            aria-labelledby="confirm-text"
            @keydown=${(e: KeyboardEvent) => {
              if (e.key === 'Escape') askRemove(c, '', `input[value="${s.id}"]`);
            }}
          >
            <span id="confirm-text">${t.removeCardConfirm} (${label})</span>
            <button
              id="confirm-remove"
              type="button"
              class="saved__link"
              @click=${() => void remove(c, s.id, t)}
            >
              ${t.removeCard}
            </button>
            <button
              type="button"
              class="saved__link"
              @click=${() => askRemove(c, '', `input[value="${s.id}"]`)}
            >
              ${t.cancel}
            </button>
          </div>`
        : nothing
    }`;
}

/** The radio group of saved cards and "Use a new card" (nothing without saved cards). */
export function choice(c: OrderDetails, t: CheckoutMessages) {
  const {html, nothing} = c.kit;
  const cards = c.details?.savedCards ?? [];
  // The last card removed: the notice stays, and the new card's fields show.
  if (cards.length === 0) {
    return c.notice ? html`<div class="saved__notice" role="status">${c.notice}</div>` : nothing;
  }
  adoptStyles(c);
  return html`<fieldset class="saved" part="saved-cards">
    <legend class="saved__legend">${t.savedCards}</legend>
    ${cards.map((s) => card(c, t, s))}
    <div class="saved__row">
      <label class="saved__card">
        <input
          type="radio"
          name="pg-saved-card"
          value=""
          .checked=${!c.selected}
          ?disabled=${c.host.disabled}
          @change=${() => choose(c, '')}
        />
        ${t.useNewCard}
      </label>
    </div>
    <div class="saved__notice" role="status">${c.notice}</div>
  </fieldset>`;
}

/**
 * "Save this card for next time", unticked until the customer ticks it: for a new card,
 * with the offer on and a customer the server identified (it listed their cards).
 */
export function offer(c: OrderDetails, t: CheckoutMessages) {
  const {html, nothing} = c.kit;
  if (!c.host.offerSaveCard || !c.details?.savedCards || c.selected) return nothing;
  adoptStyles(c);
  return html`<label class="save-offer" part="save-card">
    <input
      type="checkbox"
      name="pg-save-card"
      .checked=${c.consent}
      @change=${(e: Event) => {
        c.consent = (e.target as HTMLInputElement).checked;
      }}
    />
    ${t.saveCard}
  </label>`;
}
