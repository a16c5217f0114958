/**
 * The card form's fields as one Lit template: label, input and error text of each field in
 * the same root (`for` and `aria-describedby` do not cross shadow roots), with the field's
 * autofill token as its `name` and `autocomplete`, a numeric keyboard for the card's digits
 * and the detected brand's mark in the number field. The card's digits (number, expiry,
 * code) are always left to right, as on the card, whatever the page's direction; labels
 * and errors follow the page. The element decides which fields show and how they are
 * laid out.
 */
import {html, nothing} from 'lit';
import {CARD_FIELDS, type CardField} from '../events/events.js';
import {fill, type CheckoutMessages} from '../i18n/messages.js';
import type {CardBrand} from '../validation/card.js';
import {brandMark} from './lazy-brand-marks.js';

/** Each field's autofill token: its input's `name` and `autocomplete`. */
const AUTOFILL: Readonly<Record<CardField, string>> = {
  number: 'cc-number',
  expiry: 'cc-exp',
  cvv: 'cc-csc',
  holder: 'cc-name',
  firstName: 'given-name',
  lastName: 'family-name',
  email: 'email',
  phone: 'tel',
};

/** The fields holding card data: cleared after a payment and when the form leaves the page. */
export const CARD_DATA_FIELDS: readonly CardField[] = CARD_FIELDS.filter((name) =>
  AUTOFILL[name].startsWith('cc-'),
);

/** What every field's template reads. */
export interface FieldsView {
  t: CheckoutMessages;
  /** The language of the texts (numbers in them are written in its digits). */
  lang: string;
  errors: Partial<Record<CardField, string>>;
  brand: CardBrand | null;
  /** A payment is in flight: the inputs are read-only. */
  busy: boolean;
}

function label(name: CardField, {t, brand}: FieldsView) {
  switch (name) {
    case 'number':
      return t.cardNumber;
    case 'expiry':
      return html`${t.expiry} <span class="field__hint">(${t.expiryHint})</span>`;
    case 'cvv':
      return brand && brand.codeName !== 'CVV' ? `${t.cvv} (${brand.codeName})` : t.cvv;
    default:
      return t[name];
  }
}

/**
 * The expiry's format; the code's length once the brand is known (`4 digits` on American
 * Express), so the field asks for what it takes.
 */
function placeholder(name: CardField, {t, brand, lang}: FieldsView) {
  if (name === 'expiry') return t.expiryHint;
  if (name === 'cvv' && brand) return fill(t.cvvHint, brand.codeSize, lang);
  return nothing;
}

/** One field: its label, its input and its error text. */
export function field(name: CardField, view: FieldsView) {
  const {brand} = view;
  const error = view.errors[name] ?? '';
  const token = AUTOFILL[name];
  const digits = name === 'number' || name === 'expiry' || name === 'cvv';
  return html`<div class="field field--${name}" part="field field-${name}">
    <label class="field__label" part="label" for=${name}>${label(name, view)}</label>
    <div class="field__control" part="control" dir=${digits ? 'ltr' : nothing}>
      <input
        id=${name}
        class="field__input"
        part="input input-${name}"
        data-field=${name}
        name=${token}
        type=${name === 'email' || name === 'phone' ? token : 'text'}
        autocomplete=${token}
        inputmode=${digits ? 'numeric' : nothing}
        spellcheck="false"
        autocapitalize=${digits ? 'off' : nothing}
        aria-describedby="${name}-error"
        placeholder=${placeholder(name, view)}
        aria-invalid=${error ? 'true' : 'false'}
        ?readonly=${view.busy}
      />${name === 'number' ? brandMark(brand) : nothing}
    </div>
    <div id="${name}-error" class="field__error" part="error">${error}</div>
  </div>`;
}
