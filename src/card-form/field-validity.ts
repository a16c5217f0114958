/**
 * What the card form says about its fields, as a Lit reactive controller: each field's
 * error text (shown once it can no longer become valid, or on blur, or when the whole form
 * is checked), the form-associated validity the merchant's `<form>` sees, and
 * `pg-validity-change` when the set of invalid fields changes through input. The verdicts
 * come from the field rules (`field-check.ts`); the host renders `errors`. Which fields show
 * an error is state; the text is looked up when the host renders, in the language it is
 * in then: a table that loads after the customer typed (`lang="uk"` on a page whose
 * Ukrainian texts were still on their way) or a `lang` changed later shows at once.
 */
import type {ReactiveController, ReactiveControllerHost} from 'lit';
import {PgValidityChangeEvent, type CardField} from '../events/events.js';
import {fill, languageOf, type CheckoutMessages} from '../i18n/messages.js';
import type {CardBrand} from '../validation/card.js';
import {checkField, likeliestMessage, type FieldCheck} from './field-check.js';

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
  /**
   * The fields whose error shows: by the rules (`check`), or because the server refused a
   * value the rules take (`blame`: the likeliest reason is said).
   */
  private shown: Partial<Record<CardField, 'check' | 'blame'>> = {};

  private readonly host: ReactiveControllerHost & EventTarget;
  private readonly options: FieldValidityOptions;
  /** Fields the customer has typed into: their errors show while typing too. */
  private readonly edited = new Set<CardField>();
  /** The invalid fields last told (`pg-validity-change` fires when they change). */
  private last: string | undefined;

  constructor(host: ReactiveControllerHost & EventTarget, options: FieldValidityOptions) {
    this.host = host;
    this.options = options;
    host.addController(this);
  }

  /** After the first render: the empty fields are invalid, but that need not be told yet. */
  hostUpdated(): void {
    this.last ??= this.options.fields().join(',');
  }

  /** Error text per field, as shown, in the host's texts now. */
  get errors(): Partial<Record<CardField, string>> {
    const t = this.options.text();
    const errors: Partial<Record<CardField, string>> = {};
    for (const [name, why] of Object.entries(this.shown) as [CardField, 'check' | 'blame'][]) {
      const check = this.check(name, t);
      errors[name] = check.valid
        ? why === 'blame'
          ? likeliestMessage(name, t)
          : ''
        : check.message;
    }
    return errors;
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
    const invalid = this.invalid();
    this.setShown(Object.fromEntries(invalid.map((name) => [name, 'check'])));
    this.sync(false);
    return invalid;
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

  /**
   * The server refused the value of `name`: its error shows what the rules say is wrong, or
   * when they find nothing (the server's clock or the merchant's rules differ) the likeliest
   * reason.
   */
  blame(name: CardField): void {
    this.setShown({...this.shown, [name]: 'blame'});
  }

  /** `names` were emptied: forgets they were typed into and hides their errors. */
  forget(names: readonly CardField[]): void {
    const shown = {...this.shown};
    for (const name of names) {
      this.edited.delete(name);
      delete shown[name];
    }
    this.setShown(shown);
  }

  /** Hides every error. */
  clearErrors(): void {
    this.setShown({});
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

  private setShown(shown: Partial<Record<CardField, 'check' | 'blame'>>): void {
    this.shown = shown;
    this.host.requestUpdate();
  }

  /**
   * Shows or hides one field's error after input (`typing`) or blur: shown once the value
   * cannot become valid, or on blur of a field typed into; while typing towards something
   * valid, hidden; on blur of a field not typed into, as it was.
   */
  private revalidate(name: CardField, typing: boolean): void {
    const check = this.check(name);
    const was = name in this.shown;
    const show =
      !check.valid &&
      !(typing && check.potentiallyValid) &&
      (!check.potentiallyValid || this.edited.has(name) || was);
    if (show !== was || this.shown[name] === 'blame') {
      const shown = {...this.shown};
      if (show) shown[name] = 'check';
      else delete shown[name];
      this.setShown(shown);
    }
    this.sync(true);
  }
}
