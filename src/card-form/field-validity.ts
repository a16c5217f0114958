/**
 * What the card form says about its fields, as a Lit reactive controller: each field's
 * error text (shown once it can no longer become valid, or on blur, or when the whole form
 * is checked), the form-associated validity the merchant's `<form>` sees, and
 * `pg-validity-change` when the set of invalid fields changes through input. The verdicts
 * come from the field rules (`field-check.ts`); the host renders `errors`.
 */
import type {ReactiveController, ReactiveControllerHost} from 'lit';
import {PgValidityChangeEvent, type CardField} from '../events/events.js';
import {fill, languageOf, type CheckoutMessages} from '../i18n/messages.js';
import type {CardBrand} from '../validation/card.js';
import {checkField, type FieldCheck} from './field-check.js';

/** What the controller reads from its form. */
export interface FieldValidityOptions {
  internals: ElementInternals;
  /** The fields the form shows, in order. */
  fields(): CardField[];
  input(name: CardField): HTMLInputElement | null;
  text(): CheckoutMessages;
  brand(): CardBrand | null;
  /** Whether the merchant's form must not submit while a field is invalid. */
  required(): boolean;
  /** Why the number's brand is refused (`accepted-brands`); `complete`: otherwise valid. */
  refusedBrand?(complete: boolean, t: CheckoutMessages): string | undefined;
}

export class FieldValidity implements ReactiveController {
  /** Error text per field, as shown. */
  errors: Partial<Record<CardField, string>> = {};

  private readonly host: ReactiveControllerHost & EventTarget;
  private readonly options: FieldValidityOptions;
  /** Fields the customer has typed into: their errors show while typing too. */
  private readonly edited = new Set<CardField>();
  /** Fields whose error is the server's text (`blame`), kept as it came. */
  private readonly blamed = new Set<CardField>();
  /** The invalid fields last told (`pg-validity-change` fires when they change). */
  private last: string | undefined;

  constructor(host: ReactiveControllerHost & EventTarget, options: FieldValidityOptions) {
    this.host = host;
    this.options = options;
    host.addController(this);
  }

  /**
   * Before each render: the errors shown read in the texts at hand now. A language's table
   * that arrives after an error was shown (loaded on demand) or a changed `lang` would
   * otherwise leave that error in the language it was first written in.
   */
  hostUpdate(): void {
    const t = this.options.text();
    for (const name of Object.keys(this.errors) as CardField[]) {
      if (this.blamed.has(name)) continue;
      const check = this.check(name, t);
      if (!check.valid) this.errors[name] = check.message;
    }
  }

  /** After the first render: the empty fields are invalid, but that need not be told yet. */
  hostUpdated(): void {
    this.last ??= this.options.fields().join(',');
  }

  /** The field's verdict under the project's field rules. */
  check(name: CardField, t: CheckoutMessages = this.options.text()): FieldCheck {
    const value = this.options.input(name)?.value ?? '';
    const verdict = checkField(name, value, t, this.options.brand(), undefined, this.lang());
    const refused = name === 'number' && this.options.refusedBrand?.(verdict.valid, t);
    return refused ? {valid: false, potentiallyValid: false, message: refused} : verdict;
  }

  invalid(): CardField[] {
    const t = this.options.text();
    return this.options.fields().filter((name) => !this.check(name, t).valid);
  }

  /** Shows the error of every invalid field; returns them. */
  report(): CardField[] {
    const t = this.options.text();
    const errors: Partial<Record<CardField, string>> = {};
    for (const name of this.options.fields()) {
      const check = this.check(name, t);
      if (!check.valid) errors[name] = check.message;
    }
    this.setErrors(errors);
    this.sync(false);
    return Object.keys(errors) as CardField[];
  }

  /** The customer typed into `name`. */
  typed(name: CardField): void {
    this.edited.add(name);
    this.revalidate(name, true);
  }

  /** `name` lost focus. */
  left(name: CardField): void {
    this.revalidate(name, false);
  }

  /** Checks `name` again if the customer has typed into it (what it depends on changed). */
  recheck(name: CardField): void {
    if (this.edited.has(name)) this.revalidate(name, true);
  }

  /** Shows `message` under `name` (the server refused its value). */
  blame(name: CardField, message: string): void {
    this.setErrors({...this.errors, [name]: message});
    this.blamed.add(name);
  }

  /** `names` were emptied: forgets they were typed into and hides their errors. */
  forget(names: readonly CardField[]): void {
    const errors = {...this.errors};
    for (const name of names) {
      this.edited.delete(name);
      delete errors[name];
    }
    this.setErrors(errors);
  }

  /** Hides every error. */
  clearErrors(): void {
    this.setErrors({});
  }

  /** Updates form-associated validity; with `announce`, emits `pg-validity-change` on a change. */
  sync(announce: boolean): void {
    const invalid = this.invalid();
    const key = invalid.join(',');
    if (this.options.required() && invalid.length > 0) {
      this.options.internals.setValidity(
        {customError: true},
        fill(this.options.text().fixFields, invalid.length, this.lang()),
        this.options.input(invalid[0]!) ?? undefined,
      );
    } else {
      this.options.internals.setValidity({});
    }
    if (announce && key !== this.last) {
      this.host.dispatchEvent(
        new PgValidityChangeEvent({valid: invalid.length === 0, invalidFields: invalid}),
      );
    }
    this.last = key;
  }

  /** The language of the host's texts. */
  private lang(): string | undefined {
    return this.host instanceof Element ? languageOf(this.host) : undefined;
  }

  private setErrors(errors: Partial<Record<CardField, string>>): void {
    for (const name of this.blamed)
      if (errors[name] !== this.errors[name]) this.blamed.delete(name);
    this.errors = errors;
    this.host.requestUpdate();
  }

  /** Shows or hides one field's error after input (`typing`) or blur. */
  private revalidate(name: CardField, typing: boolean): void {
    const check = this.check(name);
    const shown = this.errors[name];
    let message: string | undefined;
    if (check.valid || (typing && check.potentiallyValid)) message = undefined;
    else if (!check.potentiallyValid) message = check.message;
    else message = this.edited.has(name) ? check.message : shown;
    if (message !== shown) {
      const errors = {...this.errors};
      if (message) errors[name] = message;
      else delete errors[name];
      this.setErrors(errors);
    }
    this.sync(true);
  }
}
