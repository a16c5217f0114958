/**
 * The card form's typing: a Lit reactive controller that formats the number, expiry and
 * security code as the customer types (`4242 4242 …`, `MM / YY`), keeps the caret where
 * the customer expects it (deleting a group space deletes the digit next to it), refuses
 * keystrokes that add nothing usable, and tracks the card brand the number shows. The
 * expiry takes every spelling src/validation/expiry.ts reads, typed or pasted (`1 34`,
 * `01.2034`, `2034-10`), and shows what it understood as `MM / YY`; when the customer leaves
 * it, a valid one however typed is shown so. The host renders the brand; this controller
 * asks it to re-render when the brand changes.
 */
import type {ReactiveController, ReactiveControllerHost} from 'lit';
import type {CardField} from '../events/events.js';
import {
  caretAfterDigits,
  cvvLength,
  digitsOnly,
  formatExpiry,
  formatNumber,
  maxNumberLength,
  normaliseNumber,
  validateNumber,
  type CardBrand,
} from '../validation/card.js';
import {parseExpiry, readExpiry, settleExpiry, showExpiry} from '../validation/expiry.js';

export interface CardInputOptions {
  /** The host's input for `name`, if rendered. */
  input(name: CardField): HTMLInputElement | null;
  /** The brand changed through typing (not through `reset`). */
  brandChanged(brand: CardBrand | null): void;
}

/** The field an event comes from (its `data-field`). */
export function fieldOf(event: Event): CardField | undefined {
  return (event.target as HTMLElement | null)?.dataset.field as CardField | undefined;
}

export class CardInputController implements ReactiveController {
  /** The brand the typed number shows, or null. */
  brand: CardBrand | null = null;

  private readonly host: ReactiveControllerHost;
  private readonly options: CardInputOptions;
  private numberDigits = '';
  private expiryDigits = '';

  constructor(host: ReactiveControllerHost, options: CardInputOptions) {
    this.host = host;
    this.options = options;
    host.addController(this);
  }

  /** What was typed goes with the host's inputs when it leaves the page. */
  hostDisconnected(): void {
    this.reset();
  }

  /** Forgets what was typed (the host clears the inputs). */
  reset(): void {
    this.numberDigits = '';
    this.expiryDigits = '';
    this.brand = null;
    this.host.requestUpdate();
  }

  /**
   * Takes over what was typed before the element ran (a form rendered on the server,
   * `pg-checkout/ssr`, is typeable before its module hydrates it): formats each card field
   * as if it had just been typed, so the caret stays after the same digits, and learns
   * the brand.
   */
  adopt(): void {
    for (const name of ['number', 'expiry', 'cvv'] as const) {
      const input = this.options.input(name);
      if (input?.value) this.format(name, input, 'insertText');
    }
  }

  /** `beforeinput`: rejects a keystroke that adds nothing usable or overflows the field. */
  beforeInput(event: InputEvent): void {
    const name = fieldOf(event);
    if (name !== 'number' && name !== 'expiry' && name !== 'cvv') return;
    if (event.inputType !== 'insertText' || event.data === null) return;
    const input = event.target as HTMLInputElement;
    // Longer insertions (keyboard suggestions) are cleaned up by `format` instead.
    if (name === 'expiry') {
      if (!expiryKeyUseful(input, event.data)) event.preventDefault();
      return;
    }
    if (!/\d/.test(event.data)) {
      event.preventDefault();
      return;
    }
    const replacing = input.selectionStart !== input.selectionEnd;
    const max = name === 'number' ? maxNumberLength(this.brand) : cvvLength(this.brand);
    if (!replacing && event.data.length === 1 && digitsOnly(input.value).length >= max) {
      event.preventDefault();
    }
  }

  /** `input`: formats the field's value and places the caret. */
  format(name: CardField, input: HTMLInputElement, inputType: string): void {
    if (name === 'number') this.formatNumber(input, inputType);
    else if (name === 'expiry') this.formatExpiry(input, inputType);
    else if (name === 'cvv') this.formatCvv(input);
  }

  private placeCaret(input: HTMLInputElement, position: number): void {
    const root = input.getRootNode() as Document | ShadowRoot;
    if (root.activeElement === input) input.setSelectionRange(position, position);
  }

  private formatNumber(input: HTMLInputElement, inputType: string): void {
    const raw = input.value;
    const caret = input.selectionStart ?? raw.length;
    let before = digitsOnly(raw.slice(0, caret)).length;
    let {digits, brand} = normaliseNumber(raw);
    if (digits === this.numberDigits && caret < raw.length && inputType.startsWith('delete')) {
      // Only a group space went: delete the digit next to it instead.
      const at = inputType === 'deleteContentBackward' ? before - 1 : before;
      if (at >= 0 && at < digits.length) {
        digits = digits.slice(0, at) + digits.slice(at + 1);
        before = at;
        brand = validateNumber(digits).brand;
      }
    }
    const formatted = formatNumber(digits, brand);
    if (input.value !== formatted) input.value = formatted;
    this.placeCaret(input, caretAfterDigits(formatted, Math.min(before, digits.length)));
    this.numberDigits = digits;
    this.setBrand(brand);
  }

  private formatExpiry(input: HTMLInputElement, inputType: string): void {
    const raw = input.value;
    const caret = input.selectionStart ?? raw.length;
    const inserting = !inputType.startsWith('delete');
    const parts = readExpiry(raw);
    const typedBefore = digitsOnly(raw.slice(0, caret)).length;
    // A one-digit month changed in place (`1| / 34`, more to come) is not padded yet.
    const pad = typedBefore !== 1 || caret >= raw.length;
    let formatted = showExpiry(parts, inserting, pad);
    let digits = digitsOnly(formatted);
    // Where the caret goes: at the end when it was (`1/` shows `01 / `, `2034-10` shows
    // `10 / 34`), else after as many digits as were before it; after text that was no
    // expiry, at the end.
    let before =
      caret >= raw.length || parseExpiry(raw).kind === 'bad' ? digits.length : typedBefore;
    if (
      !inserting &&
      digits === this.expiryDigits &&
      before > 0 &&
      (caret < raw.length || formatted.length > raw.length)
    ) {
      // Only separator characters went (or formatting put back the one an impossible
      // month keeps, `40 / `): delete the digit before them.
      const at = inputType === 'deleteContentBackward' ? before - 1 : before;
      const kept = digits.slice(0, at) + digits.slice(at + 1);
      formatted = formatExpiry(
        kept.length > 2 ? `${kept.slice(0, 2)}/${kept.slice(2)}` : kept,
        false,
      );
      digits = digitsOnly(formatted);
      // A month padded again (`4` → `04`) has one digit more before the caret.
      before = at + digits.length - kept.length;
    }
    if (input.value !== formatted) input.value = formatted;
    this.placeCaret(input, caretAfterDigits(formatted, Math.min(before, digits.length)));
    this.expiryDigits = digits;
  }

  /**
   * The customer left field `name`: a valid expiry however it was typed reads `MM / YY`
   * (`2034-1` → `01 / 34`).
   */
  settle(name: CardField): void {
    const input = this.options.input(name);
    if (name === 'expiry' && input) {
      input.value = settleExpiry(input.value);
      this.expiryDigits = digitsOnly(input.value);
    }
  }

  private formatCvv(input: HTMLInputElement): void {
    const caret = input.selectionStart ?? input.value.length;
    const before = digitsOnly(input.value.slice(0, caret)).length;
    const digits = digitsOnly(input.value).slice(0, cvvLength(this.brand));
    if (input.value !== digits) input.value = digits;
    this.placeCaret(input, Math.min(before, digits.length));
  }

  private setBrand(brand: CardBrand | null): void {
    if ((brand?.type ?? null) === (this.brand?.type ?? null)) return;
    this.brand = brand;
    this.host.requestUpdate();
    // A brand with a shorter code may make a typed code too long.
    const cvv = this.options.input('cvv');
    if (cvv && cvv.value.length > cvvLength(brand))
      cvv.value = cvv.value.slice(0, cvvLength(brand));
    this.options.brandChanged(brand);
  }
}

/**
 * Whether typing `data` into the expiry `input` adds something usable: a digit or separator
 * that leaves an expiry spelling (no third month digit, no fifth year digit, no second
 * separator, nothing after a year typed first but its separator: `2034-`). A separator
 * that settles nothing (a space after `01 / `) is formatted away.
 */
function expiryKeyUseful(input: HTMLInputElement, data: string): boolean {
  if (!/^[\d\s/.-]+$/.test(data)) return false;
  if (data.length !== 1) return true;
  const {value} = input;
  return (
    parseExpiry(
      value.slice(0, input.selectionStart ?? value.length) +
        data +
        value.slice(input.selectionEnd ?? value.length),
    ).kind !== 'bad'
  );
}
