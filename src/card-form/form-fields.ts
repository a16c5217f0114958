/**
 * The card form's fields as one controller: which fields show (the card's, unless a saved
 * card is chosen, and the optional ones the form asks for), reading and clearing them,
 * and the wiring of the two controllers that watch them: typing and the caret
 * (`card-input-controller.ts`, which tells `pg-brand-change`) and their errors and
 * validity (`field-validity.ts`). The element renders the fields (`card-fields.ts`) and
 * routes the customer's input here.
 */
import type {ReactiveControllerHost} from 'lit';
import {CARD_FIELDS, PgBrandChangeEvent, type CardField} from '../events/events.js';
import type {CheckoutMessages} from '../i18n/messages.js';
import {brandRefusal} from './accepted-brands.js';
import {CardInputController, fieldOf} from './card-input-controller.js';
import {CARD_DATA_FIELDS} from './card-fields.js';
import {formFieldOf} from './field-check.js';
import {FieldValidity} from './field-validity.js';
import {loadBrandMarks} from './lazy-brand-marks.js';

/** The element's properties that decide which fields are asked for and what they take. */
export const FIELD_SETTINGS = [
  'required',
  'holderName',
  'customerName',
  'customerEmail',
  'customerPhone',
  'acceptedBrands',
] as const;

/** The element whose fields these are: what it asks for, read when needed. */
export interface FieldsHost extends ReactiveControllerHost, EventTarget {
  readonly renderRoot: HTMLElement | DocumentFragment;
  holderName: boolean;
  customerName: boolean;
  customerEmail: boolean;
  customerPhone: boolean;
  required: boolean;
  acceptedBrands: string;
}

/** What else the fields read from the form. */
export interface FieldsOptions {
  internals: ElementInternals;
  text(): CheckoutMessages;
  /** A saved card is chosen: the card's own fields are not sent. */
  savedCard(): boolean;
  /** The customer typed into a field (after it was formatted). */
  typed(): void;
}

export class FormFields {
  private readonly host: FieldsHost;
  private readonly savedCard: () => boolean;
  private readonly typed: () => void;
  readonly typing: CardInputController;
  readonly validity: FieldValidity;

  constructor(host: FieldsHost, options: FieldsOptions) {
    this.host = host;
    this.typing = new CardInputController(host, {
      input: (name) => this.input(name),
      brandChanged: (brand) => {
        host.dispatchEvent(
          new PgBrandChangeEvent({brand: brand?.type ?? null, brandName: brand?.niceType ?? null}),
        );
        this.validity.recheck('cvv');
        // The marks load on demand: render again once they are here.
        if (brand) void loadBrandMarks().then((loaded) => loaded && host.requestUpdate());
      },
    });
    this.validity = new FieldValidity(host, {
      internals: options.internals,
      fields: () => this.shown(),
      input: (name) => this.input(name),
      text: options.text,
      brand: () => this.typing.brand,
      required: () => host.required,
      refusedBrand: (complete, t) =>
        brandRefusal(host.acceptedBrands, this.typing.brand, complete, t),
    });
    this.savedCard = options.savedCard;
    this.typed = options.typed;
  }

  input(name: CardField): HTMLInputElement | null {
    return this.host.renderRoot.querySelector<HTMLInputElement>(`#${name}`);
  }

  value(name: CardField): string {
    return this.input(name)?.value ?? '';
  }

  /** The fields of this form: the card's, and the optional ones it asks for. */
  shown(): CardField[] {
    const {host} = this;
    const optional: Partial<Record<CardField, boolean>> = {
      holder: host.holderName,
      firstName: host.customerName,
      lastName: host.customerName,
      email: host.customerEmail,
      phone: host.customerPhone,
    };
    // A saved card pays without the card's fields.
    const card = !this.savedCard();
    return CARD_FIELDS.filter(
      (name) => (optional[name] ?? true) && (card || !CARD_DATA_FIELDS.includes(name)),
    );
  }

  /** Clears every card field (number, expiry, CVV, holder) and its errors. */
  clearCard(): void {
    this.empty(CARD_DATA_FIELDS);
    this.validity.clearErrors();
    this.typing.reset();
  }

  /** Takes the security code out of its input (after a final answer). */
  forgetCvv(): void {
    this.empty(['cvv']);
  }

  private empty(names: readonly CardField[]): void {
    for (const name of names) {
      const input = this.input(name);
      if (input) input.value = '';
    }
    this.validity.forget(names);
  }

  /** Shows every field's error and focuses the first invalid one; the invalid fields. */
  report(): CardField[] {
    const invalid = this.validity.report();
    if (invalid[0]) this.input(invalid[0])?.focus();
    return invalid;
  }

  /** The server refused the value at `path` (`card.number`): say so at the field, if shown. */
  blame(path: string | undefined): void {
    const field = formFieldOf(path);
    if (field && this.shown().includes(field)) this.validity.blame(field);
  }

  /** Hydrated (pg-checkout/ssr): what the customer typed before the script ran is theirs. */
  adopt(): void {
    this.typing.adopt();
    for (const name of this.shown()) if (this.value(name)) this.validity.typed(name);
  }

  onInput(event: InputEvent): void {
    const name = fieldOf(event);
    if (!name) return;
    this.typing.format(name, event.target as HTMLInputElement, event.inputType ?? '');
    this.typed();
    this.validity.typed(name);
  }

  onFocusOut(event: FocusEvent): void {
    const name = fieldOf(event);
    if (!name) return;
    this.typing.settle(name);
    this.validity.left(name);
  }
}
