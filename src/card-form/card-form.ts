/**
 * `<pg-card-form>`: the card form a merchant's customer types into. Number, expiry and CVV
 * (plus optional holder and customer fields) live in one shadow root inside one `<form>`,
 * so autofill fills them together; they are validated and formatted as the customer types,
 * sent as a `PayRequest` to the merchant's pay route, and every outcome (success, decline,
 * 3-D Secure, still processing, error) is shown and emitted. Card data stays in the input
 * elements and the request body only.
 *
 * This module is the element: its contract, states and rendering. The jobs it delegates
 * each have a module: typing and the caret (`card-input-controller.ts`), the fields' errors
 * and validity (`field-validity.ts`, after the rules in `field-check.ts`), the field
 * templates (`card-fields.ts`), the request (`pay.ts`) and the 3-D Secure hand-off
 * (`three-ds-handoff.ts`). It stays over 400 lines as one thing: a fifth is the documented
 * public contract (the manifest is generated from it), and the rest is one payment's life
 * (submit, answer, outcome) over the same few states the template renders; moving that out
 * would only pass those states back and forth.
 */
import {LitElement, html, nothing, type PropertyValues} from 'lit';
import {defineElement} from '../internal/define-element.js';
import {CHECKOUT_ROUTES, type PayResponse} from '../protocol/checkout.js';
import {
  CARD_FIELDS,
  PgBrandChangeEvent,
  PgErrorEvent,
  PgFailureEvent,
  PgSubmitEvent,
  PgSuccessEvent,
  PgThreeDSRequiredEvent,
  type CardField,
  type PgErrorCode,
} from '../events/events.js';
import {AsyncController, randomId, systemClock, type Clock} from '../internal/async-controller.js';
import {DEV_MODE, issueWarning} from '../internal/dev-mode.js';
import {sharedStyles} from '../internal/shared.styles.js';
import {LocaleController, languageOf, type CheckoutMessages} from '../i18n/messages.js';
import {errorText} from '../i18n/outcome-text.js';
import {formFieldOf} from './field-check.js';
import {FieldValidity} from './field-validity.js';
import {keepsCardData, payRequest, sendPay, type PayError, type PayResult} from './pay.js';
import {CardInputController, fieldOf} from './card-input-controller.js';
import {CARD_DATA_FIELDS, field, type FieldsView} from './card-fields.js';
import {ThreeDSHandoff, siblingRoute} from './three-ds-handoff.js';
import {cardFormStyles} from './card-form.styles.js';
import {brandRefusal} from './accepted-brands.js';
import {payLabel} from './pay-label.js';
import {loadBrandMarks, prefetchBrandMarks} from './lazy-brand-marks.js';
import {OrderDetails} from './order-details.js';
import {viewOf, waitState, type CardFormPhase, type FormState} from './form-state.js';
import '../three-ds-redirect/three-ds-redirect.js';
import type {
  ChallengeWindowSize,
  PgThreeDSRedirect,
  ThreeDSMode,
} from '../three-ds-redirect/three-ds-redirect.js';

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
    status: {state: true},
    formDisabled: {state: true},
    redirectMounted: {state: true},
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

  /**
   * Where the payment stands: one value (`form-state.ts`), from which the status line, the
   * buttons and `retryable` are derived in one place (`viewOf`).
   */
  private status: FormState = {kind: 'idle'};
  private formDisabled = false;
  /** Whether the built-in `<pg-3ds-redirect>` is rendered: only once a payment needs it. */
  private redirectMounted = false;

  private readonly internals: ElementInternals;
  private readonly locale = new LocaleController(this);
  private readonly order = new OrderDetails(this);
  private readonly payTask = new AsyncController<PayResult>(this);
  private readonly typing = new CardInputController(this, {
    input: (name) => this.input(name),
    brandChanged: (brand) => {
      this.dispatchEvent(
        new PgBrandChangeEvent({brand: brand?.type ?? null, brandName: brand?.niceType ?? null}),
      );
      this.validity.recheck('cvv');
      // The marks load on demand: render again once they are here.
      if (brand) void loadBrandMarks().then((loaded) => loaded && this.requestUpdate());
    },
  });
  private readonly validity: FieldValidity;
  private readonly handoff = new ThreeDSHandoff(this, () => this.redirectElement(), {
    success: () => this.succeed(),
    failure: (reason) => this.fail(reason),
    error: (code, retryable, last) =>
      // Out of time, not out of options: say what is known and offer to check again.
      this.go(
        retryable
          ? {
              kind: 'unconfirmed',
              processing: !!last && !last.final && last.state !== 'none',
              code,
            }
          : {kind: 'failed', code, during: 'check'},
      ),
    // At once, not after the server and the status route have answered: paying again
    // (this card or another) waits for the abandon request itself (see `submit`).
    cancelled: () => this.fail('abandoned'),
  });
  /** Kept after a retryable error, so trying again resends the same attempt. */
  private retryAttemptId: string | undefined;
  /** The attempt whose answer the form shows last (the one a 3-D Secure challenge is for). */
  private answeredAttemptId: string | undefined;
  /** The order whose status "Check again" asks for. */
  private checkedOrderRef = '';
  /** Ends the wait of the state shown (`busy`, `rate-limited`) early: a newer state came. */
  private wait: AbortController | undefined;

  /** Where the wait before "Try again" (`busy`, `rate_limited`) is measured (tests pass a manual one). */
  clock: Clock = systemClock;

  constructor() {
    super();
    this.internals = this.attachInternals();
    this.validity = new FieldValidity(this, {
      internals: this.internals,
      fields: () => this.shownFields(),
      input: (name) => this.input(name),
      text: () => this.text(),
      brand: () => this.typing.brand,
      required: () => this.required,
      refusedBrand: (complete, t) =>
        brandRefusal(this.acceptedBrands, this.typing.brand, complete, t),
    });
  }

  /** The detected brand (`visa`, `american-express`, …) or null. */
  get brand(): string | null {
    return this.typing.brand?.type ?? null;
  }

  /** True when every shown field holds a valid value. */
  get valid(): boolean {
    return this.validity.invalid().length === 0;
  }

  /** Where the form is: `idle`, `pending`, `success`, `failure`, `three-ds`, `processing` or `error`. */
  get state(): CardFormPhase {
    return this.view().phase;
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
    super.disconnectedCallback(); // the hand-off controller stops following the redirect
    this.clearCard();
  }

  /** Clears every card field (number, expiry, CVV, holder). */
  clearCard(): void {
    for (const name of CARD_DATA_FIELDS) {
      const input = this.input(name);
      if (input) input.value = '';
    }
    this.validity.forget(CARD_DATA_FIELDS);
    this.validity.clearErrors();
    this.typing.reset();
  }

  /** Validates every field, shows the errors and focuses the first invalid one. */
  reportValidity(): boolean {
    const invalid = this.validity.report();
    if (invalid.length > 0) {
      if (this.status.kind !== 'paying') this.go({kind: 'invalid', fields: invalid.length});
      this.input(invalid[0]!)?.focus();
    }
    return invalid.length === 0;
  }

  formDisabledCallback(disabled: boolean): void {
    this.formDisabled = disabled;
  }

  formResetCallback(): void {
    this.clearCard();
    this.go({kind: 'idle'});
    this.retryAttemptId = undefined;
  }

  protected override firstUpdated(): void {
    // Hydrated (pg-checkout/ssr): what the customer typed before this ran is theirs.
    this.typing.adopt();
    for (const name of this.shownFields()) if (this.value(name)) this.validity.typed(name);
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('orderRef')) this.internals.setFormValue(this.orderRef || null);
    if (changed.has('required') && (this.required || changed.get('required') !== undefined)) {
      this.validity.sync(false);
    }
  }

  // ---- fields ---------------------------------------------------------------------

  private text(): CheckoutMessages {
    return this.locale.messages(this.messages);
  }

  /** What the customer sees of the state now, in the current language. */
  private view() {
    return viewOf(this.status, this.text(), languageOf(this));
  }

  /**
   * Moves to `next`. A refusal that asks for a wait (`busy`, `rate_limited`) holds the Pay
   * button until the wait is over, by the form's clock; a newer state ends the wait.
   */
  private go(next: FormState): void {
    this.wait?.abort();
    this.status = next;
    if ('waiting' in next && next.waiting) {
      const wait = (this.wait = new AbortController());
      this.clock.sleep(next.seconds * 1000, wait.signal).then(
        () => (this.status = {...next, waiting: false}),
        () => {},
      );
    }
  }

  private input(name: CardField): HTMLInputElement | null {
    return this.renderRoot.querySelector<HTMLInputElement>(`#${name}`);
  }

  private value(name: CardField): string {
    return this.input(name)?.value ?? '';
  }

  /** The fields of this form: the card's, and the optional ones it asks for. */
  private shownFields(): CardField[] {
    const optional: Partial<Record<CardField, boolean>> = {
      holder: this.holderName,
      firstName: this.customerName,
      lastName: this.customerName,
      email: this.customerEmail,
      phone: this.customerPhone,
    };
    // A saved card pays without the card's fields.
    const card = !this.order.selected;
    return CARD_FIELDS.filter(
      (name) => (optional[name] ?? true) && (card || !CARD_DATA_FIELDS.includes(name)),
    );
  }

  // ---- typing -------------------------------------------------------------------

  private onInput(event: InputEvent): void {
    const name = fieldOf(event);
    if (!name) return;
    this.typing.format(name, event.target as HTMLInputElement, event.inputType ?? '');
    const {phase} = this.view();
    if (phase === 'failure' || phase === 'error') {
      // The customer is correcting: the old outcome no longer describes the form.
      this.status = {...this.status, hushed: true} as FormState;
    }
    this.validity.typed(name);
  }

  private onFocusOut(event: FocusEvent): void {
    const name = fieldOf(event);
    if (!name) return;
    this.typing.settle(name);
    this.validity.left(name);
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
    const {phase, held} = this.view();
    // Not while paying, nor before the wait the server asked for is over.
    if (this.payTask.pending || held || phase === 'success') return;
    if (this.disabled || this.formDisabled) return;
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

    const request = payRequest(
      this.orderRef,
      attemptId,
      this.shownFields(),
      (name) => this.value(name),
      {savedCardId: this.order.selected, consent: this.order.consent},
      this.acceptHeader,
    );
    this.go({kind: 'paying'});
    let result: PayResult | undefined;
    try {
      await this.handoff.release();
      result = await this.payTask.run((signal) => sendPay(this.endpoint, request, signal));
    } catch {
      result = {outcome: 'error', code: 'network', message: '', retrySameAttempt: true};
    } finally {
      // The request object held the CVV: drop what we can reach.
      if (request.card) request.card.cvv = '';
    }
    if (!result) return; // aborted (element removed)
    if (!keepsCardData(result)) {
      // A final answer: the code goes. Before a retry it stays in its input, so "Try
      // again" is one click.
      const cvv = this.input('cvv');
      if (cvv) cvv.value = '';
      this.validity.forget(['cvv']);
    }
    this.handleResult(result, attemptId, t);
    this.validity.sync(false);
  }

  private handleResult(result: PayResult, attemptId: string, t: CheckoutMessages): void {
    if (result.outcome === 'error') {
      this.retryAttemptId = result.retrySameAttempt ? attemptId : undefined;
      this.showError(result, t);
      return;
    }
    // An unknown outcome: paying again is a new attempt, for which the companion re-sends
    // the create with the same gateway order id (pay.ts, keepsCardData).
    this.retryAttemptId = undefined;
    this.answeredAttemptId = attemptId;
    this.handleResponse(result);
  }

  private handleResponse(response: PayResponse): void {
    switch (response.outcome) {
      case 'success': {
        this.succeed(response.alreadyPaid);
        // The answer as the event's detail: orderRef, code, message, cardMask, alreadyPaid.
        const {outcome: _outcome, cardSaved: _saved, ...detail} = response;
        this.dispatchEvent(new PgSuccessEvent(detail));
        break;
      }
      case 'failure':
        this.fail(response.reason);
        this.dispatchEvent(
          new PgFailureEvent({
            orderRef: response.orderRef,
            code: response.code,
            message: response.message,
          }),
        );
        break;
      case '3ds_required': {
        this.go({kind: 'challenge', framed: false});
        this.clearCard();
        const event = new PgThreeDSRequiredEvent({
          orderRef: response.orderRef,
          userActionUrl: response.userActionUrl,
        });
        this.dispatchEvent(event);
        if (!event.defaultPrevented) {
          void this.handOver((redirect) => {
            if (this.threeDSMode === 'iframe' || redirect.mode === 'iframe')
              this.go({kind: 'challenge', framed: true});
            void redirect.start(response.userActionUrl, response.orderRef);
          });
        }
        break;
      }
      case 'processing': {
        this.checkedOrderRef = response.orderRef;
        this.checkAgain();
        break;
      }
    }
  }

  /** Asks the status route (again) for the order of a payment still processing. */
  private checkAgain(): void {
    this.go({kind: 'checking'});
    void this.handOver((redirect) => void redirect.check(this.checkedOrderRef));
  }

  /** Paid; `before`: by an earlier payment, nothing charged now (the answer's `alreadyPaid`). */
  private succeed(before?: boolean): void {
    this.go({kind: 'succeeded', before});
    this.clearCard();
  }

  /** A failure for `reason` (`abandoned`: the customer cancelled the challenge). */
  private fail(reason: string | undefined): void {
    this.go(reason === 'abandoned' ? {kind: 'cancelled'} : {kind: 'declined', reason});
  }

  private showError(error: PayError, t: CheckoutMessages): void {
    const {code} = error;
    this.go(
      code === 'busy' || code === 'rate_limited'
        ? waitState(code, error.retryAfter)
        : {kind: 'failed', code, during: 'pay'},
    );
    const base = errorText(t, code, error.retryAfter);
    const field = formFieldOf(error.field);
    // The server refused it: say what is wrong locally, else the likeliest reason.
    if (field && this.shownFields().includes(field)) this.validity.blame(field);
    this.dispatchEvent(
      new PgErrorEvent({
        orderRef: this.orderRef,
        code: code as PgErrorCode,
        message: error.message || base,
        retryable: this.view().retryable,
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
    return this.statusEndpoint || siblingRoute(this.endpoint, CHECKOUT_ROUTES.status);
  }

  /** Gives the redirect element `work` and follows its outcome (see `three-ds-handoff.ts`). */
  private handOver(work: (redirect: PgThreeDSRedirect) => void): Promise<void> {
    return this.handoff.handOver(
      {endpoint: this.endpoint, orderRef: this.orderRef, attemptId: this.answeredAttemptId},
      work,
    );
  }

  // ---- rendering --------------------------------------------------------------------

  protected override render() {
    const t = this.text();
    const lang = languageOf(this);
    const {phase, message, label, held, checkAgain} = viewOf(this.status, t, lang);
    const busy = phase === 'pending';
    const view: FieldsView = {
      t,
      lang,
      errors: this.validity.errors,
      brand: this.typing.brand,
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
        @submit=${this.onSubmit}
        @beforeinput=${(e: InputEvent) => this.typing.beforeInput(e)}
        @input=${this.onInput}
        @focusout=${this.onFocusOut}
        @focusin=${prefetchBrandMarks}
      >
        <fieldset
          class="fieldset"
          ?disabled=${this.disabled || this.formDisabled || phase === 'success'}
        >
          ${this.order.render(t, 'choice')}
          <div ?hidden=${!!this.order.selected}>
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
          ${this.customerPhone ? field('phone', view) : nothing} ${this.order.render(t, 'offer')}
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
                    this.order.details?.amount ?? this.amount,
                    this.order.details?.currency ?? this.currency,
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
            ? html`<button part="check" class="button" type="button" @click=${this.checkAgain}>
                ${t.checkAgain}
              </button>`
            : nothing
        }
      </form>
      ${
        this.redirectMounted
          ? html`<pg-3ds-redirect
              exportparts="dialog: three-ds-dialog, frame: three-ds-frame"
              no-status
              theme=${this.theme ?? nothing}
              lang=${lang}
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
