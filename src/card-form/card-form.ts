/**
 * `<pg-card-form>`: the card form a merchant's customer types into. Number, expiry and CVV
 * (plus optional holder and customer fields) live in one shadow root inside one `<form>`,
 * so autofill fills them together; they are validated and formatted as the customer types,
 * sent as a `PayRequest` to the merchant's pay route, and every outcome (success, decline,
 * 3-D Secure, still processing, error) is shown and emitted. Card data stays in the input
 * elements and the request body only.
 *
 * This module is the element: its public contract (the manifest is generated from it) and
 * the wiring of the modules that do each job: the fields (`form-fields.ts`: typing,
 * validity, which fields show), the payment (`card-payment.ts`: one state value,
 * `form-state.ts`, moved only by `form-transitions.ts`, announcing the events of
 * `form-events.ts`; the request, `pay.ts`; the 3-D Secure hand-off, `three-ds-handoff.ts`)
 * and its template (the fields' own in `card-fields.ts`).
 */
import {LitElement, html, nothing, type PropertyValues} from 'lit';
import {defineElement} from '../internal/define-element.js';
import {systemClock, type Clock} from '../internal/async-controller.js';
import {sharedStyles} from '../internal/shared.styles.js';
import {LocaleController, languageOf, type CheckoutMessages} from '../i18n/messages.js';
import {FIELD_SETTINGS, FormFields} from './form-fields.js';
import {field, type FieldsView} from './card-fields.js';
import {prefetchBrandMarks} from './lazy-brand-marks.js';
import {CardPayment} from './card-payment.js';
import {cardFormStyles} from './card-form.styles.js';
import {payLabel} from './pay-label.js';
import {OrderDetails} from './order-details.js';
import {viewOf, type CardFormPhase} from './form-state.js';
import '../three-ds-redirect/three-ds-redirect.js';
import type {ChallengeWindowSize, ThreeDSMode} from '../three-ds-redirect/three-ds-redirect.js';

export {CARD_FORM_PHASES, type CardFormPhase} from './form-state.js';

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
 * @csspart brand - The detected brand's mark: an inline SVG named after the brand.
 * @csspart error - Each field's error text.
 * @csspart button - The pay button.
 * @csspart status - The outcome line (a polite live region, always present).
 * @csspart check - The "Check again" button, when the status check of a payment still processing ran out of time.
 * @csspart saved-cards - The saved-card choice (`offer-save-card`): a fieldset of radios.
 * @csspart saved-card - Each saved card's row (brand mark, masked number, expiry).
 * @csspart saved-card-remove - Each saved card's Remove button (asks for confirmation).
 * @csspart save-card - The "Save this card for next time" box and its label.
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
 * @cssproperty --pg-color-brand - Mark of a brand without its own colours.
 * @cssproperty --pg-color-surface - Background of the whole form (light: none; dark: painted).
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
  /**
   * The reactive properties and their attributes, declared here rather than with Lit's
   * `@property`/`@state` decorators: their code (and the decorator helper's) cost the CDN
   * file 0.3 kB gzip. The fields below keep their types, defaults and documentation.
   */
  static override properties = {
    endpoint: {},
    statusEndpoint: {attribute: 'status-endpoint'},
    orderRef: {attribute: 'order-ref'},
    threeDSMode: {attribute: 'three-ds-mode'},
    challengeWindowSize: {attribute: 'challenge-window-size'},
    holderName: {type: Boolean, attribute: 'holder-name'},
    customerName: {type: Boolean, attribute: 'customer-name'},
    customerEmail: {type: Boolean, attribute: 'customer-email'},
    customerPhone: {type: Boolean, attribute: 'customer-phone'},
    required: {type: Boolean},
    disabled: {type: Boolean},
    acceptedBrands: {attribute: 'accepted-brands'},
    acceptHeader: {attribute: 'accept-header'},
    amount: {},
    currency: {},
    orderDetails: {type: Boolean, attribute: 'order-details'},
    offerSaveCard: {type: Boolean, attribute: 'offer-save-card'},
    theme: {reflect: true},
    messages: {attribute: false},
  };

  /** The merchant's pay route (`POST`, JSON `PayRequest`). */
  endpoint = '';

  /** The merchant's status route; default: `endpoint` with `/pay` replaced by `/status`. */
  statusEndpoint = '';

  /** The merchant's order reference sent with the payment. */
  orderRef = '';

  /** How 3-D Secure is shown: `redirect` (default) or `iframe` (modal). */
  threeDSMode: ThreeDSMode = 'redirect';

  /** EMV challenge window size in iframe mode: `01`–`04`, or `05` for full screen. */
  challengeWindowSize: ChallengeWindowSize = '05';

  /** Ask for the name on the card (`cc-name`). */
  holderName = false;

  /** Ask for the customer's first and last name. */
  customerName = false;

  /** Ask for the customer's email. */
  customerEmail = false;

  /** Ask for the customer's phone. */
  customerPhone = false;

  /** In a merchant's form: block its submission until the card is complete and valid. */
  required = false;

  /** Disables every field and the button. */
  disabled = false;

  /**
   * The card brands taken, space-separated (`visa mastercard`); empty: any. A card of
   * another brand is refused under the number before anything is sent.
   */
  acceptedBrands = '';

  /**
   * The `Accept` header the customer's browser sent for this page, written in by the page's
   * server (`renderCardForm()` takes it as `acceptHeader`): 3-D Secure wants it, and no
   * script can read it. Without it the companion sends a documented default, never the form's own
   * request header.
   */
  acceptHeader = '';

  /** The order's total as an exact decimal string (`1250.00`), shown on the pay button with `currency`. */
  amount = '';

  /** ISO 4217 currency of `amount` (`UAH`). */
  currency = '';

  /**
   * Ask the companion's order route for the order's total: once it answers, its amount and
   * currency are shown on the pay button instead of `amount` and `currency`.
   */
  orderDetails = false;

  /**
   * Offer "Save this card for next time" (never ticked by default) and the customer's saved
   * cards, when the merchant's server identifies the customer (implies `order-details`).
   */
  offerSaveCard = false;

  /** Colour scheme: `light`, `dark`, or unset/`auto` for the customer's `prefers-color-scheme`. */
  theme: 'auto' | 'light' | 'dark' | undefined;

  /** Overrides of the built-in texts in any language (the guide "Theming and languages"). */
  messages: Partial<CheckoutMessages> | undefined;

  private readonly internals = this.attachInternals();
  private readonly locale = new LocaleController(this);
  private readonly order = new OrderDetails(this);
  private readonly fields = new FormFields(this, {
    internals: this.internals,
    text: () => this.text(),
    savedCard: () => !!this.order.selected,
    typed: () => this.payment.machine.move({type: 'typed'}),
  });
  /** The payment, and the form's one state value (`card-payment.ts`, `form-machine.ts`). */
  private readonly payment = new CardPayment(this, this.fields, {
    ready: () => !this.off() && this.reportValidity(),
    choice: () => ({savedCardId: this.order.selected, consent: this.order.consent}),
    text: () => this.text(),
  });

  /** Where the wait before "Try again" (`busy`, `rate_limited`) is measured (tests pass a manual one). */
  clock: Clock = systemClock;

  /** The detected brand (`visa`, `american-express`, …) or null. */
  get brand(): string | null {
    return this.fields.typing.brand?.type ?? null;
  }

  /** True when every shown field holds a valid value. */
  get valid(): boolean {
    return this.fields.validity.invalid().length === 0;
  }

  /** Where the form is: `idle`, `pending`, `success`, `failure`, `three-ds`, `processing` or `error`. */
  get state(): CardFormPhase {
    return viewOf(this.payment.machine.state, this.text(), languageOf(this)).phase;
  }

  /** The merchant's form this element belongs to, if any. */
  get form(): HTMLFormElement | null {
    return this.internals.form;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback(); // the hand-off controller stops following the redirect
    this.clearCard();
  }

  /** Clears every card field (number, expiry, CVV, holder). */
  clearCard(): void {
    this.fields.clearCard();
  }

  /** Validates every field, shows the errors and focuses the first invalid one. */
  reportValidity(): boolean {
    const {length} = this.fields.report();
    if (length) this.payment.machine.move({type: 'invalid', fields: length});
    return !length;
  }

  // The merchant's form disabled or enabled this element: render again; `off()` reads it
  // from `:disabled`, so the element keeps no copy (the parameter keeps the manifest's name).
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  formDisabledCallback(disabled: boolean): void {
    this.requestUpdate();
  }

  formResetCallback(): void {
    this.clearCard();
    this.payment.machine.move({type: 'reset'});
  }

  protected override firstUpdated(): void {
    this.fields.adopt();
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('orderRef')) this.internals.setFormValue(this.orderRef || null);
    // What decides validity changed from script: take it in without telling (a later blur
    // would otherwise announce it as if typed, in Firefox and WebKit disabling the field).
    if (
      (changed.has('required') && this.required) ||
      FIELD_SETTINGS.some((name) => changed.get(name) !== undefined)
    ) {
      this.fields.validity.sync(false);
    }
  }

  private text(): CheckoutMessages {
    return this.locale.messages(this.messages);
  }

  /** Disabled by `disabled` or by the merchant's form (`:disabled`; never on the server). */
  private off(): boolean {
    return this.disabled || (this.isConnected && this.matches(':disabled'));
  }

  /**
   * Validates and sends the payment, as pressing the button does. Resolves when the answer
   * has been handled. A second call while one is in flight does nothing.
   */
  submit(): Promise<void> {
    return this.payment.submit();
  }

  // ---- rendering --------------------------------------------------------------------

  protected override render() {
    const t = this.text();
    const lang = languageOf(this);
    const {phase, message, label, held, checkAgain} = viewOf(this.payment.machine.state, t, lang);
    const busy = phase === 'pending';
    const {order, fields} = this;
    const view: FieldsView = {
      t,
      lang,
      errors: fields.validity.errors,
      brand: fields.typing.brand,
      busy,
    };
    // `method="dialog"`: the browser never submits this form. Rendered on the server
    // (pg-checkout/ssr), it is there before its script: Enter or Pay then would otherwise
    // put the card in the page's URL; a `dialog` form outside a dialog goes nowhere.
    return html`
      <form
        part="form"
        class="form"
        method="dialog"
        novalidate
        @submit=${(e: SubmitEvent) => {
          e.preventDefault();
          void this.submit();
        }}
        @beforeinput=${(e: InputEvent) => fields.typing.beforeInput(e)}
        @input=${(e: InputEvent) => fields.onInput(e)}
        @focusout=${(e: FocusEvent) => fields.onFocusOut(e)}
        @focusin=${prefetchBrandMarks}
      >
        <fieldset class="fieldset" ?disabled=${this.off() || phase === 'success'}>
          ${order.render(t, 'choice')}
          <div ?hidden=${!!order.selected}>
            ${field('number', view)}
            <div class="row">${field('expiry', view)} ${field('cvv', view)}</div>
            ${this.holderName ? field('holder', view) : nothing}
          </div>
          ${
            this.customerName
              ? html`<div class="row">${field('firstName', view)} ${field('lastName', view)}</div>`
              : nothing
          }
          ${this.customerEmail ? field('email', view) : nothing}
          ${this.customerPhone ? field('phone', view) : nothing} ${order.render(t, 'offer')}
          <button
            part="button"
            class="button"
            type="submit"
            ?disabled=${held}
            aria-busy=${busy ? 'true' : 'false'}
          >
            ${busy ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${
              label === 'pay'
                ? payLabel(
                    t,
                    order.details?.amount ?? this.amount,
                    order.details?.currency ?? this.currency,
                    lang,
                  )
                : t[label]
            }
          </button>
        </fieldset>
        <div part="status" class="status status--${phase}" role="status" aria-live="polite">
          ${message}
        </div>
        ${
          checkAgain
            ? html`<button
                part="check"
                class="button"
                type="button"
                @click=${() => this.payment.checkAgain()}
              >
                ${t.checkAgain}
              </button>`
            : nothing
        }
      </form>
      ${
        this.payment.handoff.ownRedirect
          ? html`<pg-3ds-redirect
              exportparts="dialog: three-ds-dialog, frame: three-ds-frame"
              no-status
              theme=${this.theme ?? nothing}
              lang=${lang}
              mode=${this.threeDSMode}
              window-size=${this.challengeWindowSize}
              status-endpoint=${this.payment.statusEndpoint()}
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
