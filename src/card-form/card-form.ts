/**
 * `<pg-card-form>`: the card form a merchant's customer types into. Number, expiry and CVV
 * (plus optional holder and customer fields) live in one shadow root inside one `<form>`,
 * so autofill fills them together; they are validated and formatted as the customer types,
 * sent as a `PayRequest` to the merchant's pay route, and every outcome (success, decline,
 * 3-D Secure, still processing, error) is shown and emitted. Card data stays in the input
 * elements and the request body only.
 */
import {LitElement, html, nothing, type PropertyValues} from 'lit';
import {property, state} from 'lit/decorators.js';
import {defineElement} from '../internal/define-element.js';
import {
  CHECKOUT_ROUTES,
  type CardInput,
  type CustomerInput,
  type PayRequest,
  type PayResponse,
} from '../protocol/checkout.js';
import {
  PgBrandChangeEvent,
  PgErrorEvent,
  PgFailureEvent,
  PgSubmitEvent,
  PgSuccessEvent,
  PgThreeDSRequiredEvent,
  PgValidityChangeEvent,
  type CardField,
  type PgErrorCode,
} from '../events/events.js';
import {collectBrowserFingerprint} from '../fingerprint/collect.js';
import {AsyncController, randomId} from '../internal/async-controller.js';
import {DEV_MODE, issueWarning} from '../internal/dev-mode.js';
import {sharedStyles} from '../internal/shared.styles.js';
import {LocaleController, fill, languageOf, type CheckoutMessages} from '../i18n/messages.js';
import {
  caretAfterDigits,
  cvvLength,
  digitsOnly,
  formatExpiry,
  formatNumber,
  maxNumberLength,
  normaliseNumber,
  validateExpiry,
  validateNumber,
  type CardBrand,
} from '../validation/card.js';
import {
  checkField,
  fieldValue,
  formFieldOf,
  likeliestMessage,
  type FieldCheck,
} from './field-check.js';
import {sendAbandon, sendPay, type PayError, type PayResult} from './pay.js';
import {cardFormStyles} from './card-form.styles.js';
import '../three-ds-redirect/three-ds-redirect.js';
import type {
  ChallengeWindowSize,
  PgThreeDSRedirect,
  ThreeDSMode,
} from '../three-ds-redirect/three-ds-redirect.js';

/** Where the form is in its life. */
export const CARD_FORM_PHASES = [
  'idle',
  'pending',
  'success',
  'failure',
  'three-ds',
  'processing',
  'error',
] as const;
export type CardFormPhase = (typeof CARD_FORM_PHASES)[number];

/** Short brand marks shown in the number field. */
const BRAND_MARKS: Readonly<Record<string, string>> = {
  visa: 'VISA',
  mastercard: 'MC',
  'american-express': 'AMEX',
  'diners-club': 'DINERS',
  discover: 'DISC',
  jcb: 'JCB',
  unionpay: 'UPI',
  maestro: 'MAES',
  mir: 'MIR',
};

/** The optional fields, rendered from one template (the card fields are written out). */
type OptionalField = Exclude<CardField, 'number' | 'expiry' | 'cvv'>;

interface FieldSpec {
  /** The input's `name` (an autofill token). */
  inputName: string;
  autocomplete: string;
  type?: string;
}

const FIELDS: Readonly<Record<OptionalField, FieldSpec>> = {
  holder: {inputName: 'cc-name', autocomplete: 'cc-name'},
  firstName: {inputName: 'given-name', autocomplete: 'given-name'},
  lastName: {inputName: 'family-name', autocomplete: 'family-name'},
  email: {inputName: 'email', autocomplete: 'email', type: 'email'},
  phone: {inputName: 'tel', autocomplete: 'tel', type: 'tel'},
};

/**
 * A complete card form for the gateway's direct mode: card number, expiry (`MM / YY`) and
 * security code, optionally the holder's name and the customer's name, email and phone.
 * It validates and formats as the customer types, posts the payment to the merchant's
 * server (`endpoint`) and follows 3-D Secure through `<pg-3ds-redirect>` on its own.
 *
 * @summary Card number, expiry and CVV in one accessible, localised, form-associated form.
 *
 * @event {PgValidityChangeEvent} pg-validity-change - The form's overall validity changed through input.
 * @event {PgBrandChangeEvent} pg-brand-change - The detected card brand changed.
 * @event {PgSubmitEvent} pg-submit - A valid card is about to be sent; cancelable.
 * @event {PgSuccessEvent} pg-success - The payment went through.
 * @event {PgFailureEvent} pg-failure - The gateway declined the payment.
 * @event {PgThreeDSRequiredEvent} pg-3ds-required - 3-D Secure is needed; cancelable (then the merchant handles it).
 * @event {PgThreeDSCancelEvent} pg-3ds-cancel - From its `<pg-3ds-redirect>`: the customer cancelled the challenge; the form tells the server the attempt was abandoned.
 * @event {PgErrorEvent} pg-error - Network or server error; the same attempt can be retried.
 *
 * @csspart form - The inner `<form>`.
 * @csspart field - Each field's wrapper (also `field-number`, `field-expiry`, `field-cvv`, …).
 * @csspart label - Each field's label.
 * @csspart control - The box around an input (and the brand mark).
 * @csspart input - Each input (also `input-number`, `input-expiry`, `input-cvv`, …).
 * @csspart brand - The detected brand's mark.
 * @csspart error - Each field's error text.
 * @csspart button - The pay button.
 * @csspart status - The outcome line (a polite live region, always present).
 * @csspart three-ds-dialog - The 3-D Secure challenge dialog (iframe mode).
 * @csspart three-ds-frame - The 3-D Secure challenge iframe.
 *
 * @cssproperty --pg-font-family - Font of the form (default: inherited).
 * @cssproperty --pg-font-size - Base font size.
 * @cssproperty --pg-color-text - Text colour.
 * @cssproperty --pg-color-muted - Hint text colour.
 * @cssproperty --pg-color-border - Input border colour.
 * @cssproperty --pg-color-background - Input background.
 * @cssproperty --pg-color-focus - Focus ring colour.
 * @cssproperty --pg-color-error - Error text and invalid border colour.
 * @cssproperty --pg-color-success - Success text colour.
 * @cssproperty --pg-color-button - Pay button background.
 * @cssproperty --pg-color-button-text - Pay button text.
 * @cssproperty --pg-color-brand - Brand mark colour.
 * @cssproperty --pg-radius - Corner radius of inputs and button.
 * @cssproperty --pg-spacing - Space between columns and above the status line.
 * @cssproperty --pg-input-height - Height of inputs and button.
 * @cssproperty --pg-max-width - Maximum width of the form.
 * @cssproperty --pg-backdrop - Backdrop behind the 3-D Secure dialog.
 */
@defineElement('pg-card-form')
export class PgCardForm extends LitElement {
  static override styles = [sharedStyles, cardFormStyles];
  static override shadowRootOptions: ShadowRootInit = {
    ...LitElement.shadowRootOptions,
    delegatesFocus: true,
  };
  static formAssociated = true;

  /** The merchant's pay route (`POST`, JSON `PayRequest`). */
  @property() endpoint = '';

  /** The merchant's status route; default: `endpoint` with `/pay` replaced by `/status`. */
  @property({attribute: 'status-endpoint'}) statusEndpoint = '';

  /** The merchant's order reference sent with the payment. */
  @property({attribute: 'order-ref'}) orderRef = '';

  /** How 3-D Secure is shown: `redirect` (default) or `iframe` (modal). */
  @property({attribute: 'three-ds-mode'}) threeDSMode: ThreeDSMode = 'redirect';

  /** EMV challenge window size in iframe mode: `01`–`04`, or `05` for full screen. */
  @property({attribute: 'challenge-window-size'}) challengeWindowSize: ChallengeWindowSize = '05';

  /** Ask for the name on the card (`cc-name`). */
  @property({type: Boolean, attribute: 'holder-name'}) holderName = false;

  /** Ask for the customer's first and last name. */
  @property({type: Boolean, attribute: 'customer-name'}) customerName = false;

  /** Ask for the customer's email. */
  @property({type: Boolean, attribute: 'customer-email'}) customerEmail = false;

  /** Ask for the customer's phone. */
  @property({type: Boolean, attribute: 'customer-phone'}) customerPhone = false;

  /** In a merchant's form: block its submission until the card is complete and valid. */
  @property({type: Boolean}) required = false;

  /** Disables every field and the button. */
  @property({type: Boolean}) disabled = false;

  /** Overrides of the built-in texts (English and Ukrainian). */
  @property({attribute: false}) messages: Partial<CheckoutMessages> | undefined;

  @state() private phase: CardFormPhase = 'idle';
  @state() private errors: Partial<Record<CardField, string>> = {};
  @state() private currentBrand: CardBrand | null = null;
  @state() private statusMessage = '';
  @state() private retryable = false;
  @state() private formDisabled = false;
  /** Whether the built-in `<pg-3ds-redirect>` is rendered: only once a payment needs it. */
  @state() private redirectMounted = false;

  private readonly internals: ElementInternals;
  private readonly locale = new LocaleController(this);
  private readonly payTask = new AsyncController<PayResult>(this);
  private readonly dirty = new Set<CardField>();
  private lastValidity: string | undefined;
  private numberDigits = '';
  private expiryDigits = '';
  /** Kept after a retryable error, so trying again resends the same attempt. */
  private retryAttemptId: string | undefined;
  /** The attempt whose answer the form shows last (the one a 3-D Secure challenge is for). */
  private answeredAttemptId: string | undefined;
  private handoff: AbortController | undefined;

  constructor() {
    super();
    this.internals = this.attachInternals();
  }

  /** The detected brand (`visa`, `american-express`, …) or null. */
  get brand(): string | null {
    return this.currentBrand?.type ?? null;
  }

  /** True when every shown field holds a valid value. */
  get valid(): boolean {
    return this.invalidFields().length === 0;
  }

  /** Where the form is: `idle`, `pending`, `success`, `failure`, `three-ds`, `processing` or `error`. */
  get state(): CardFormPhase {
    return this.phase;
  }

  /** The merchant's form this element belongs to, if any. */
  get form(): HTMLFormElement | null {
    return this.internals.form;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (DEV_MODE) {
      void this.updateComplete.then(() => {
        if (!this.endpoint)
          issueWarning('no-endpoint', '<pg-card-form> needs an endpoint attribute.');
        if (!this.orderRef)
          issueWarning('no-order-ref', '<pg-card-form> needs an order-ref attribute.');
      });
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.handoff?.abort();
    this.clearCard();
  }

  /** Clears every card field (number, expiry, CVV, holder). */
  clearCard(): void {
    for (const name of ['number', 'expiry', 'cvv', 'holder'] as const) {
      const input = this.input(name);
      if (input) input.value = '';
      this.dirty.delete(name);
    }
    this.numberDigits = '';
    this.expiryDigits = '';
    this.currentBrand = null;
    this.errors = {};
  }

  /** Validates every field, shows the errors and focuses the first invalid one. */
  reportValidity(): boolean {
    const t = this.text();
    const errors: Partial<Record<CardField, string>> = {};
    for (const name of this.shownFields()) {
      const check = this.check(name, t);
      if (!check.valid) errors[name] = check.message;
    }
    this.errors = errors;
    const invalid = Object.keys(errors) as CardField[];
    if (invalid.length > 0) {
      this.statusMessage = fill(t.fixFields, invalid.length);
      this.phase = this.phase === 'pending' ? 'pending' : 'idle';
      this.input(invalid[0]!)?.focus();
    }
    this.syncValidity(false);
    return invalid.length === 0;
  }

  formDisabledCallback(disabled: boolean): void {
    this.formDisabled = disabled;
  }

  formResetCallback(): void {
    this.clearCard();
    this.phase = 'idle';
    this.statusMessage = '';
    this.retryable = false;
    this.retryAttemptId = undefined;
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('orderRef')) this.internals.setFormValue(this.orderRef || null);
    if (changed.has('required') && (this.required || changed.get('required') !== undefined)) {
      this.syncValidity(false);
    } else if (this.lastValidity === undefined) {
      // First render, not required: every shown field is empty, hence invalid. Validating
      // them can wait for the first keystroke.
      this.lastValidity = this.shownFields().join(',');
    }
  }

  // ---- fields ---------------------------------------------------------------------

  private text(): CheckoutMessages {
    return this.locale.messages(this.messages);
  }

  private input(name: CardField): HTMLInputElement | null {
    return this.renderRoot.querySelector<HTMLInputElement>(`#${name}`);
  }

  private value(name: CardField): string {
    return this.input(name)?.value ?? '';
  }

  private shownFields(): CardField[] {
    const fields: CardField[] = ['number', 'expiry', 'cvv'];
    if (this.holderName) fields.push('holder');
    if (this.customerName) fields.push('firstName', 'lastName');
    if (this.customerEmail) fields.push('email');
    if (this.customerPhone) fields.push('phone');
    return fields;
  }

  /** The field's verdict under the project's field rules (see `field-check.ts`). */
  private check(name: CardField, t: CheckoutMessages): FieldCheck {
    return checkField(name, this.value(name), t, this.currentBrand);
  }

  private invalidFields(): CardField[] {
    const t = this.text();
    return this.shownFields().filter((name) => !this.check(name, t).valid);
  }

  /** Updates form-associated validity; with `announce`, emits `pg-validity-change` on a change. */
  private syncValidity(announce: boolean): void {
    const invalid = this.invalidFields();
    const key = invalid.join(',');
    if (this.required && invalid.length > 0) {
      this.internals.setValidity(
        {customError: true},
        fill(this.text().fixFields, invalid.length),
        this.input(invalid[0]!) ?? undefined,
      );
    } else {
      this.internals.setValidity({});
    }
    if (announce && key !== this.lastValidity) {
      this.dispatchEvent(
        new PgValidityChangeEvent({valid: invalid.length === 0, invalidFields: invalid}),
      );
    }
    this.lastValidity = key;
  }

  /** Shows or hides one field's error after input (`typing`) or blur. */
  private revalidate(name: CardField, typing: boolean): void {
    const check = this.check(name, this.text());
    const shown = this.errors[name];
    let message: string | undefined;
    if (check.valid || (typing && check.potentiallyValid)) message = undefined;
    else if (!check.potentiallyValid) message = check.message;
    else message = this.dirty.has(name) ? check.message : shown;
    if (message !== shown) {
      const errors = {...this.errors};
      if (message) errors[name] = message;
      else delete errors[name];
      this.errors = errors;
    }
    this.syncValidity(true);
  }

  private setBrand(brand: CardBrand | null): void {
    if ((brand?.type ?? null) === (this.currentBrand?.type ?? null)) return;
    this.currentBrand = brand;
    this.dispatchEvent(
      new PgBrandChangeEvent({brand: brand?.type ?? null, brandName: brand?.niceType ?? null}),
    );
    // A brand with a shorter code may make a typed CVV too long.
    const cvv = this.input('cvv');
    if (cvv && cvv.value.length > cvvLength(brand))
      cvv.value = cvv.value.slice(0, cvvLength(brand));
    if (this.dirty.has('cvv')) this.revalidate('cvv', true);
  }

  // ---- typing -------------------------------------------------------------------

  private fieldOf(event: Event): CardField | undefined {
    const target = event.target as HTMLElement | null;
    return target?.dataset.field as CardField | undefined;
  }

  private onBeforeInput(event: InputEvent): void {
    const name = this.fieldOf(event);
    if (name !== 'number' && name !== 'expiry' && name !== 'cvv') return;
    if (event.inputType !== 'insertText' || event.data === null) return;
    const input = event.target as HTMLInputElement;
    // Reject keystrokes that add nothing usable; longer insertions (keyboard suggestions)
    // are cleaned up by the input handler instead.
    const useful = name === 'expiry' ? /[\d/]/ : /\d/;
    if (!useful.test(event.data)) {
      event.preventDefault();
      return;
    }
    const replacing = input.selectionStart !== input.selectionEnd;
    const max =
      name === 'number'
        ? maxNumberLength(this.currentBrand)
        : name === 'cvv'
          ? cvvLength(this.currentBrand)
          : 4;
    if (
      !replacing &&
      event.data.length === 1 &&
      /\d/.test(event.data) &&
      digitsOnly(input.value).length >= max
    ) {
      event.preventDefault();
    }
  }

  private onInput(event: InputEvent): void {
    const name = this.fieldOf(event);
    if (!name) return;
    const input = event.target as HTMLInputElement;
    const type = event.inputType ?? '';
    if (name === 'number') this.formatNumberInput(input, type);
    else if (name === 'expiry') this.formatExpiryInput(input, type);
    else if (name === 'cvv') this.formatCvvInput(input);
    this.dirty.add(name);
    if (this.phase === 'failure' || this.phase === 'error') {
      // The customer is correcting: the old outcome no longer describes the form.
      this.statusMessage = '';
    }
    this.revalidate(name, true);
  }

  private placeCaret(input: HTMLInputElement, position: number): void {
    if (this.shadowRoot?.activeElement === input) input.setSelectionRange(position, position);
  }

  private formatNumberInput(input: HTMLInputElement, inputType: string): void {
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

  private formatExpiryInput(input: HTMLInputElement, inputType: string): void {
    const raw = input.value;
    const caret = input.selectionStart ?? raw.length;
    const inserting = !inputType.startsWith('delete');
    let formatted = formatExpiry(raw, inserting);
    let before = digitsOnly(formatExpiry(raw.slice(0, caret), inserting)).length;
    let digits = digitsOnly(formatted);
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

  private formatCvvInput(input: HTMLInputElement): void {
    const caret = input.selectionStart ?? input.value.length;
    const before = digitsOnly(input.value.slice(0, caret)).length;
    const digits = digitsOnly(input.value).slice(0, cvvLength(this.currentBrand));
    if (input.value !== digits) input.value = digits;
    this.placeCaret(input, Math.min(before, digits.length));
  }

  private onFocusOut(event: FocusEvent): void {
    const name = this.fieldOf(event);
    if (name) this.revalidate(name, false);
  }

  // ---- submitting -----------------------------------------------------------------

  private onSubmit(event: SubmitEvent): void {
    event.preventDefault();
    void this.submit();
  }

  /**
   * Validates and sends the payment, as pressing the button does. Resolves when the answer
   * has been handled. A second call while one is in flight does nothing.
   */
  async submit(): Promise<void> {
    if (this.payTask.pending || this.phase === 'success' || this.disabled || this.formDisabled)
      return;
    if (!this.reportValidity()) return;
    const t = this.text();
    if (!this.endpoint || !this.orderRef) {
      if (DEV_MODE)
        issueWarning('submit-misconfigured', '<pg-card-form> needs endpoint and order-ref to pay.');
      this.showError(
        {code: 'misconfigured', message: '', retrySameAttempt: false, outcome: 'error'},
        t,
      );
      return;
    }
    const attemptId = this.retryAttemptId ?? randomId();
    const submitEvent = new PgSubmitEvent({orderRef: this.orderRef, attemptId});
    this.dispatchEvent(submitEvent);
    if (submitEvent.defaultPrevented) return;

    const request = this.buildRequest(attemptId);
    this.phase = 'pending';
    this.statusMessage = t.paying;
    let result: PayResult | undefined;
    try {
      result = await this.payTask.run((signal) => sendPay(this.endpoint, request, signal));
    } catch {
      result = {outcome: 'error', code: 'network', message: '', retrySameAttempt: true};
    } finally {
      // The request object held the CVV: drop what we can reach and clear the field.
      request.card.cvv = '';
      const cvv = this.input('cvv');
      if (cvv) cvv.value = '';
      this.dirty.delete('cvv');
      const errors = {...this.errors};
      delete errors.cvv;
      this.errors = errors;
    }
    if (!result) return; // aborted (element removed)
    this.handleResult(result, attemptId, t);
    this.syncValidity(false);
  }

  private buildRequest(attemptId: string): PayRequest {
    const expiry = validateExpiry(this.value('expiry'));
    // Every value as the field rules normalise it: what the server and the gateway check.
    const card: CardInput = {
      number: fieldValue('number', this.value('number')),
      expMonth: expiry.month ?? 0,
      expYear: expiry.year ?? 0,
      cvv: fieldValue('cvv', this.value('cvv')),
    };
    if (this.holderName) card.holder = fieldValue('holder', this.value('holder'));
    const customer: CustomerInput = {};
    if (this.customerName) {
      customer.firstName = fieldValue('firstName', this.value('firstName'));
      customer.lastName = fieldValue('lastName', this.value('lastName'));
    }
    if (this.customerEmail) customer.email = fieldValue('email', this.value('email'));
    if (this.customerPhone) customer.phone = fieldValue('phone', this.value('phone'));
    return {
      orderRef: this.orderRef,
      attemptId,
      card,
      ...(Object.keys(customer).length > 0 ? {customer} : {}),
      fingerprint: collectBrowserFingerprint(),
    };
  }

  private handleResult(result: PayResult, attemptId: string, t: CheckoutMessages): void {
    if (result.outcome === 'error') {
      this.retryAttemptId = result.retrySameAttempt ? attemptId : undefined;
      this.showError(result, t);
      return;
    }
    this.retryAttemptId = undefined;
    this.retryable = false;
    this.answeredAttemptId = attemptId;
    this.handleResponse(result, t);
  }

  private handleResponse(response: PayResponse, t: CheckoutMessages): void {
    switch (response.outcome) {
      case 'success':
        this.succeed(response.message, t);
        this.dispatchEvent(
          new PgSuccessEvent({
            orderRef: response.orderRef,
            code: response.code,
            message: response.message,
            ...(response.cardMask ? {cardMask: response.cardMask} : {}),
          }),
        );
        break;
      case 'failure':
        this.phase = 'failure';
        this.statusMessage = [t.failure, response.message].filter(Boolean).join(' ');
        this.dispatchEvent(
          new PgFailureEvent({
            orderRef: response.orderRef,
            code: response.code,
            message: response.message,
          }),
        );
        break;
      case '3ds_required': {
        this.phase = 'three-ds';
        this.clearCard();
        this.statusMessage = t.threeDSRedirecting;
        const event = new PgThreeDSRequiredEvent({
          orderRef: response.orderRef,
          userActionUrl: response.userActionUrl,
        });
        this.dispatchEvent(event);
        if (!event.defaultPrevented) {
          void this.redirectElement().then((redirect) => {
            this.followRedirect(redirect);
            if (this.threeDSMode === 'iframe' || redirect.mode === 'iframe')
              this.statusMessage = t.threeDSTitle;
            void redirect.start(response.userActionUrl, response.orderRef);
          });
        }
        break;
      }
      case 'processing': {
        this.phase = 'processing';
        this.statusMessage = t.checking;
        void this.redirectElement().then((redirect) => {
          this.followRedirect(redirect);
          void redirect.check(response.orderRef);
        });
        break;
      }
    }
  }

  private succeed(message: string, t: CheckoutMessages): void {
    this.phase = 'success';
    this.clearCard();
    this.statusMessage = [t.success, message].filter(Boolean).join(' ');
  }

  private showError(error: PayError, t: CheckoutMessages): void {
    this.phase = 'error';
    this.retryable = error.code !== 'misconfigured';
    const base =
      error.code === 'network' || error.code === 'timeout' ? t.networkError : t.serverError;
    this.statusMessage =
      error.message && error.status && error.status < 500 ? `${base} ${error.message}` : base;
    const field = formFieldOf(error.field);
    if (field && this.shownFields().includes(field)) {
      // The server refused it: say what is wrong locally, else the likeliest reason (the
      // CVV is always cleared by now, so it asks for the code again).
      const local = this.check(field, t);
      this.errors = {
        ...this.errors,
        [field]: local.valid ? likeliestMessage(field, t) : local.message,
      };
    }
    this.dispatchEvent(
      new PgErrorEvent({
        orderRef: this.orderRef,
        code: error.code as PgErrorCode,
        message: error.message || base,
        retryable: this.retryable,
        ...(error.status ? {status: error.status} : {}),
      }),
    );
  }

  // ---- 3-D Secure and status hand-off ---------------------------------------------

  /**
   * The merchant's own `<pg-3ds-redirect>` (child or anywhere in the document), else ours,
   * which is rendered only now: a form that never meets 3-D Secure never pays for it.
   */
  private async redirectElement(): Promise<PgThreeDSRedirect> {
    let redirect =
      this.querySelector('pg-3ds-redirect') ?? document.querySelector('pg-3ds-redirect');
    if (!redirect) {
      this.redirectMounted = true;
      await this.updateComplete;
      redirect = this.renderRoot.querySelector('pg-3ds-redirect')!;
    }
    if (!redirect.statusEndpoint) redirect.statusEndpoint = this.resolvedStatusEndpoint();
    return redirect;
  }

  private resolvedStatusEndpoint(): string {
    return this.statusEndpoint || this.sibling(CHECKOUT_ROUTES.status);
  }

  /** Another route of the companion: `endpoint` with `/pay` replaced by `route`. */
  private sibling(route: string): string {
    const pay = CHECKOUT_ROUTES.pay;
    return this.endpoint.endsWith(pay)
      ? this.endpoint.slice(0, -pay.length) + route
      : this.endpoint.replace(/\/?$/, route);
  }

  /** Mirrors the redirect element's outcome in this form's own state. */
  private followRedirect(redirect: PgThreeDSRedirect): void {
    this.handoff?.abort();
    const handoff = new AbortController();
    this.handoff = handoff;
    const {signal} = handoff;
    const t = () => this.text();
    redirect.addEventListener(
      'pg-success',
      (e) => {
        this.succeed(e.detail.message, t());
        handoff.abort();
      },
      {signal},
    );
    // The customer cancelled the challenge: the server writes the attempt off before the
    // status check, so paying again (this card or another) starts a new attempt at once.
    const attemptId = this.answeredAttemptId;
    redirect.addEventListener(
      'pg-3ds-cancel',
      (e) => {
        if (attemptId) {
          e.waitUntil(
            sendAbandon(this.sibling(CHECKOUT_ROUTES.abandon), {
              orderRef: e.detail.orderRef || this.orderRef,
              attemptId,
            }),
          );
        }
      },
      {signal},
    );
    redirect.addEventListener(
      'pg-failure',
      (e) => {
        this.phase = 'failure';
        this.statusMessage =
          e.detail.code === 'abandoned'
            ? t().threeDSCancelled
            : [t().failure, e.detail.message].filter(Boolean).join(' ');
        handoff.abort();
      },
      {signal},
    );
    redirect.addEventListener(
      'pg-error',
      (e) => {
        this.phase = 'error';
        this.retryable = false;
        this.statusMessage = e.detail.message;
        handoff.abort();
      },
      {signal},
    );
  }

  // ---- rendering --------------------------------------------------------------------

  /** An optional field (holder, customer data): one template, instantiated per field. */
  private renderField(name: OptionalField, label: string, busy: boolean) {
    const spec = FIELDS[name];
    const error = this.errors[name] ?? '';
    return html`<div class="field field--${name}" part="field field-${name}">
      <label class="field__label" part="label" for=${name}>${label}</label>
      <div class="field__control" part="control">
        <input
          id=${name}
          class="field__input"
          part="input input-${name}"
          data-field=${name}
          name=${spec.inputName}
          type=${spec.type ?? 'text'}
          autocomplete=${spec.autocomplete}
          spellcheck="false"
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby="${name}-error"
          ?readonly=${busy}
        />
      </div>
      <div id="${name}-error" class="field__error" part="error">${error}</div>
    </div>`;
  }

  /**
   * Number, expiry and CVV, written out in one template: what the first render needs is
   * static markup with a few bindings, which Lit prepares and clones fastest.
   */
  private renderCardFields(t: CheckoutMessages, busy: boolean) {
    const brand = this.currentBrand;
    const mark = brand ? (BRAND_MARKS[brand.type] ?? brand.niceType) : '';
    const cvvLabel = brand && brand.codeName !== 'CVV' ? `${t.cvv} (${brand.codeName})` : t.cvv;
    const {number = '', expiry = '', cvv = ''} = this.errors;
    return html`<div class="field field--number" part="field field-number">
        <label class="field__label" part="label" for="number">${t.cardNumber}</label>
        <div class="field__control" part="control">
          <input
            id="number"
            class="field__input"
            part="input input-number"
            data-field="number"
            name="cc-number"
            type="text"
            autocomplete="cc-number"
            inputmode="numeric"
            spellcheck="false"
            autocapitalize="off"
            aria-describedby="number-error"
            aria-invalid=${number ? 'true' : 'false'}
            ?readonly=${busy}
          />
          <span part="brand" class="brand" data-brand=${brand?.type ?? ''} aria-hidden="true"
            >${mark}</span
          >
        </div>
        <div id="number-error" class="field__error" part="error">${number}</div>
      </div>
      <div class="row">
        <div class="field field--expiry" part="field field-expiry">
          <label class="field__label" part="label" for="expiry"
            >${t.expiry} <span class="field__hint">(${t.expiryHint})</span></label
          >
          <div class="field__control" part="control">
            <input
              id="expiry"
              class="field__input"
              part="input input-expiry"
              data-field="expiry"
              name="cc-exp"
              type="text"
              autocomplete="cc-exp"
              inputmode="numeric"
              spellcheck="false"
              autocapitalize="off"
              aria-describedby="expiry-error"
              placeholder=${t.expiryHint}
              aria-invalid=${expiry ? 'true' : 'false'}
              ?readonly=${busy}
            />
          </div>
          <div id="expiry-error" class="field__error" part="error">${expiry}</div>
        </div>
        <div class="field field--cvv" part="field field-cvv">
          <label class="field__label" part="label" for="cvv">${cvvLabel}</label>
          <div class="field__control" part="control">
            <input
              id="cvv"
              class="field__input"
              part="input input-cvv"
              data-field="cvv"
              name="cc-csc"
              type="text"
              autocomplete="cc-csc"
              inputmode="numeric"
              spellcheck="false"
              autocapitalize="off"
              aria-describedby="cvv-error"
              aria-invalid=${cvv ? 'true' : 'false'}
              ?readonly=${busy}
            />
          </div>
          <div id="cvv-error" class="field__error" part="error">${cvv}</div>
        </div>
      </div>`;
  }

  protected override render() {
    const t = this.text();
    const busy = this.phase === 'pending';
    const label =
      this.phase === 'success'
        ? t.paid
        : busy
          ? t.paying
          : this.phase === 'error' && this.retryable
            ? t.retry
            : t.pay;
    const statusKind =
      this.phase === 'error' || this.phase === 'failure' || this.phase === 'success'
        ? this.phase
        : 'info';
    return html`
      <form
        part="form"
        class="form"
        novalidate
        @submit=${this.onSubmit}
        @beforeinput=${this.onBeforeInput}
        @input=${this.onInput}
        @focusout=${this.onFocusOut}
      >
        <fieldset
          class="fieldset"
          ?disabled=${this.disabled || this.formDisabled || this.phase === 'success'}
        >
          ${this.renderCardFields(t, busy)}
          ${this.holderName ? this.renderField('holder', t.holder, busy) : nothing}
          ${
            this.customerName
              ? html`<div class="row">
                  ${this.renderField('firstName', t.firstName, busy)}
                  ${this.renderField('lastName', t.lastName, busy)}
                </div>`
              : nothing
          }
          ${this.customerEmail ? this.renderField('email', t.email, busy) : nothing}
          ${this.customerPhone ? this.renderField('phone', t.phone, busy) : nothing}
          <button
            part="button"
            class="button"
            type="submit"
            ?disabled=${busy}
            aria-busy=${busy ? 'true' : 'false'}
          >
            ${busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${label}
          </button>
        </fieldset>
        <div part="status" class="status status--${statusKind}" role="status" aria-live="polite">
          ${this.statusMessage}
        </div>
      </form>
      ${
        this.redirectMounted
          ? html`<pg-3ds-redirect
              exportparts="dialog: three-ds-dialog, frame: three-ds-frame"
              no-status
              lang=${languageOf(this)}
              mode=${this.threeDSMode}
              window-size=${this.challengeWindowSize}
              status-endpoint=${this.resolvedStatusEndpoint()}
              .messages=${this.messages}
            ></pg-3ds-redirect>`
          : nothing
      }
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pg-card-form': PgCardForm;
  }
}
